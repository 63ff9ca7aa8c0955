#!/usr/bin/env bash
# Runs every qd test on a fresh machine: installs the test oracles that are missing, then
# formatting, clippy, the whole test suite (snapshots never updated) and a short fuzz run.
#
#   scripts/test.sh            everything
#   QD_FUZZ_SECONDS=0 ...      skip the libFuzzer run (the stable-Rust never-panic property tests still run)
set -euo pipefail
cd "$(dirname "$0")/.."

export INSTA_UPDATE=no
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
fuzz_seconds="${QD_FUZZ_SECONDS:-30}"

step() { printf '\n==> %s\n' "$*"; }

# --- Test oracles ----------------------------------------------------------------------------
# The MIR interpreter and plain-Rust reference functions need nothing. The AMDGCN ISA layer is
# checked against LLVM 19's assembler, disassembler and ELF reader (llvm-mc-19, llvm-objdump-19,
# llvm-readelf-19, ld.lld-19 — test-only oracles; nothing in qd links LLVM). They are installed
# from Debian when missing; the tests that need them say so and skip when they are absent.
step "test oracles"
if ! command -v llvm-mc-19 >/dev/null 2>&1 || ! command -v ld.lld-19 >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends llvm-19 lld-19 >/dev/null \
      || echo "warning: could not install llvm-19/lld-19; the AMDGCN oracle tests will skip"
  else
    echo "warning: llvm-19/lld-19 missing and apt-get unavailable (not root?); the AMDGCN oracle tests will skip"
  fi
fi
command -v llvm-mc-19 >/dev/null 2>&1 && llvm-mc-19 --version | head -2 | tail -1 || true

# ptxas (the PTX oracle) from NVIDIA's PyPI wheels, no GPU or driver needed: CUDA 13 assembles
# sm_75+; CUDA 12 is kept for sm_70, which CUDA 13 dropped. Static binaries, no dependencies.
tools="${QD_TOOLS_DIR:-/opt/qd-tools}"
export QD_TOOLS_DIR="$tools"
ptxas13="$tools/cu13/nvidia/cu13/bin/ptxas"
ptxas12="$tools/cu12/nvidia/cuda_nvcc/bin/ptxas"
if [ ! -x "$ptxas13" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tools/cu13" "nvidia-cuda-nvcc==13.5.37" \
    || echo "warning: could not install the CUDA 13 ptxas wheel"
fi
if [ ! -x "$ptxas12" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tools/cu12" "nvidia-cuda-nvcc-cu12==12.9.86" \
    || echo "warning: could not install the CUDA 12 ptxas wheel"
fi
if [ -x "$ptxas13" ] && [ -x "$ptxas12" ]; then
  export QD_REQUIRE_PTXAS=1
  "$ptxas13" --version | tail -2 | head -1
  "$ptxas12" --version | tail -2 | head -1
else
  echo "warning: ptxas missing; the PTX oracle tests will skip"
fi

step "toolchain"
cargo --version
rustc --version

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "cargo test (INSTA_UPDATE=no)"
cargo test --workspace --quiet 2>&1 | tee /tmp/qd-test.log
if grep -q 'test result: FAILED' /tmp/qd-test.log; then
  exit 1
fi
passed=$(grep -o '[0-9]* passed' /tmp/qd-test.log | awk '{s += $1} END {print s + 0}')
failed=$(grep -o '[0-9]* failed' /tmp/qd-test.log | awk '{s += $1} END {print s + 0}')

# --- Fuzzing ---------------------------------------------------------------------------------
# The cargo-fuzz target (fuzz/fuzz_targets/parse.rs: parse, print/parse fixed point, verify) needs a
# nightly toolchain; when one is on the machine it runs for QD_FUZZ_SECONDS. On stable the same
# properties are checked by bounded
# property tests: arbitrary and mutated `.qdm` text never panics the parser
# (crates/qd-mir/tests/text_roundtrip.rs) and garbage functions never panic the verifier
# (crates/qd-mir/tests/verifier_props.rs), both part of the suite above.
step "fuzz (parse, ${fuzz_seconds}s)"
if [ "$fuzz_seconds" -gt 0 ] && rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install --quiet --locked cargo-fuzz || echo "cargo-fuzz could not be installed; skipping the libFuzzer run"
  fi
  if cargo +nightly fuzz --version >/dev/null 2>&1; then
    (cd fuzz && cargo +nightly fuzz run parse -- -max_total_time="$fuzz_seconds" -rss_limit_mb=2048 2>&1 | tail -5)
  fi
else
  echo "no nightly toolchain (or QD_FUZZ_SECONDS=0): libFuzzer run skipped; the never-panic property tests ran in the suite"
fi

step "all tests passed"
echo "total: ${passed} passed, ${failed} failed"
