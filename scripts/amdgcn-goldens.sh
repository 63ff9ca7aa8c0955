#!/usr/bin/env bash
# Regenerates the AMDGCN golden encoding tables crates/qd-amdgcn-isa/tests/golden/<target>.txt.
#
# The candidate instructions come from the table (crates/qd-amdgcn-isa/examples/golden_inputs.rs:
# every op available on the target, every encoding form, DPP control, swizzle mode, waitcnt
# layout, memory form and modifier class qd's checker accepts); their bytes and canonical text
# come from llvm-mc-19 -show-encoding, so the tables are an independent oracle for qd's encoder,
# decoder, printer and parser (tests/isa_golden.rs, tests/isa_llvm_mc.rs).
#
# Any line llvm-mc rejects is printed and makes the script fail: it means qd's checker accepts
# something LLVM does not. Pass --keep-going to write the tables anyway.
#
# Usage: scripts/amdgcn-goldens.sh [--keep-going]
set -euo pipefail
cd "$(dirname "$0")/.."

keep_going=0
[ "${1:-}" = "--keep-going" ] && keep_going=1

MC=${LLVM_MC:-llvm-mc-19}
command -v "$MC" >/dev/null || { echo "error: $MC not found (apt-get install llvm-19)" >&2; exit 1; }
version=$("$MC" --version | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p' | head -n1)

cargo build -q -p qd-amdgcn-isa --example golden_inputs
gen="${CARGO_TARGET_DIR:-target}/debug/examples/golden_inputs"
out_dir=crates/qd-amdgcn-isa/tests/golden
mkdir -p "$out_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
# target name | -mcpu | wave | extra llvm-mc flags
for spec in "gfx90a|gfx90a|w64|" "gfx942|gfx942|w64|" "gfx1100|gfx1100|w64|-mattr=+wavefrontsize64" \
    "gfx1100-wave32|gfx1100|w32|-mattr=+wavefrontsize32"; do
    IFS='|' read -r name cpu wave flags <<<"$spec"
    "$gen" "$cpu" "$wave" >"$tmp/$name.s"
    # shellcheck disable=SC2086
    "$MC" -arch=amdgcn -mcpu="$cpu" $flags -show-encoding "$tmp/$name.s" >"$tmp/$name.out" 2>"$tmp/$name.err" || true
    if grep -q 'error:' "$tmp/$name.err"; then
        echo "== llvm-mc rejected lines for $name:" >&2
        grep -A1 'error:' "$tmp/$name.err" >&2 || true
        status=1
    fi
    {
        echo "# Golden AMDGCN encodings for $name (-mcpu=$cpu${flags:+ $flags})."
        echo "# Bytes and text obtained from llvm-mc-19 -show-encoding (LLVM $version); do not edit:"
        echo "# regenerate with scripts/amdgcn-goldens.sh (inputs: crates/qd-amdgcn-isa/examples/golden_inputs.rs)."
        echo "# Format: instruction bytes in memory order (hex) | LLVM 19 canonical assembler text."
        awk -F' ; encoding: ' '/; encoding: \[/ {
            t = $1; sub(/^[ \t]+/, "", t); sub(/[ \t]+$/, "", t)
            b = $2; gsub(/[][]/, "", b); gsub(/0x/, "", b); gsub(/,/, " ", b)
            print b " | " t
        }' "$tmp/$name.out"
    } >"$out_dir/$name.txt"
    echo "$out_dir/$name.txt: $(grep -vc '^#' "$out_dir/$name.txt") lines"
done

if [ "$status" -ne 0 ] && [ "$keep_going" -eq 0 ]; then
    echo "error: llvm-mc rejected some inputs (see above); fix the checker or the generator" >&2
    exit 1
fi
