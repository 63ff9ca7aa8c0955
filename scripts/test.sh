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
if ! command -v llvm-mc-19 >/dev/null 2>&1 || ! command -v ld.lld-19 >/dev/null 2>&1 \
  || ! [ -e /usr/include/hsa/hsa.h ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends llvm-19 lld-19 libhsa-runtime-dev >/dev/null \
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

# SPIR-V and Vulkan oracles from Debian: spirv-val / spirv-dis (spirv-tools), glslangValidator
# (glslang-tools), and Mesa's lavapipe — a real Vulkan implementation on the CPU — with the loader
# and vulkaninfo (mesa-vulkan-drivers, libvulkan1, vulkan-tools). qd loads libvulkan.so.1 at run
# time; nothing links it. When they are there, QD_REQUIRE_SPIRV_VAL=1 and QD_REQUIRE_VULKAN=1 make
# the SPIR-V validation and vulkan device tests fail instead of skipping.
vk_ready() {
  command -v spirv-val >/dev/null 2>&1 && command -v glslangValidator >/dev/null 2>&1 \
    && command -v vulkaninfo >/dev/null 2>&1 && ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1
}
if ! vk_ready; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      spirv-tools glslang-tools mesa-vulkan-drivers libvulkan1 vulkan-tools >/dev/null \
      || echo "warning: could not install spirv-tools/glslang-tools/lavapipe; the SPIR-V and vulkan tests will skip"
  else
    echo "warning: spirv-tools/lavapipe missing and apt-get unavailable (not root?); the SPIR-V and vulkan tests will skip"
  fi
fi
if command -v spirv-val >/dev/null 2>&1; then
  export QD_REQUIRE_SPIRV_VAL=1
  spirv-val --version | head -1
fi
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
  export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/qd-xdg-$(id -u)"
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
fi
if vulkaninfo --summary 2>/dev/null | grep -q 'deviceName'; then
  export QD_REQUIRE_VULKAN=1
  vulkaninfo --summary 2>/dev/null | grep -m1 'deviceName' | sed 's/^[[:space:]]*/vulkan: /'
else
  echo "warning: no Vulkan device (vulkaninfo found none); the vulkan device tests will skip"
fi

# The llc-19 column of docs/shuffle-lowering.md's catalog: recompile the Quadrants-style IR with
# llc-19 and fail when the checked-in counts are stale (a few seconds).
step "llc-19 shuffle catalog counts (benches/llvm/shuffle)"
if command -v llc-19 >/dev/null 2>&1 && command -v llvm-objdump-19 >/dev/null 2>&1; then
  python3 benches/llvm/shuffle/llc19.py --check
else
  echo "llc-19 missing: skipped"
fi

step "toolchain (and the workspace's rust-version, the real minimum: cranelift-entity 0.135 needs 1.95)"
cargo --version
rustc --version
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
echo "workspace rust-version: $msrv"
if ! rustc --version | grep -q "^rustc $msrv[. ]"; then
  # Building with the minimum itself is what proves it: with that toolchain installed, check
  # the workspace with it; otherwise cargo still refuses a toolchain older than rust-version.
  if rustup toolchain list 2>/dev/null | grep -q "^$msrv"; then
    cargo "+$msrv" check --workspace --all-targets --quiet
    echo "rust $msrv: the workspace checks"
  else
    echo "rust $msrv toolchain not installed: the minimum is not re-checked here"
  fi
else
  echo "the active toolchain is the minimum: every build below checks it"
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

# The interpreter-test kernel corpus (one .qdm per interpreter unit-test run, with its inputs),
# cross-checked on the vulkan device by tests/tests/vulkan_corpus.rs and on the native cpu device
# (widths 4 to 64) by tests/tests/cpu_corpus.rs.
step "interpreter-test kernel corpus (QD_DUMP_KERNELS)"
corpus="$PWD/target/qd-kernel-corpus"
rm -rf "$corpus" && mkdir -p "$corpus"
QD_DUMP_KERNELS="$corpus" cargo test --quiet -p qd-mir --lib interp:: >/dev/null
export QD_KERNEL_CORPUS="$corpus"
echo "$(ls "$corpus" | wc -l) kernel files in $corpus"

step "cargo test (INSTA_UPDATE=no)"
cargo test --workspace --quiet 2>&1 | tee /tmp/qd-test.log
if grep -q 'test result: FAILED' /tmp/qd-test.log; then
  exit 1
fi

# The qd-lib device-wide algorithms' and register tiles' kernels (width 32, as the suite builds them for cpu:32)
# through both independent oracles: ptxas (sm_90 with CUDA 13, sm_70 with CUDA 12) and spirv-val
# (vulkan1.1). The suite runs them on the native cpu device and lavapipe; this checks the PTX and the
# SPIR-V text themselves, which a lenient driver may accept when it should not.
step "qd-lib algorithm and tile kernels: ptxas and spirv-val"
libdump="$PWD/target/qd-lib-algo-kernels"
rm -rf "$libdump" && mkdir -p "$libdump"
QD_LIB_DUMP="$libdump" QD_TEST_DEVICES=cpu:32 cargo test --quiet -p qd-lib --test suite -- algo:: tile:: >/dev/null
cargo build --quiet -p qdc
qdc="$PWD/target/debug/qdc"
ok=0
bad=0
for f in "$libdump"/*.qdm; do
  # The chunked CPU forms (width-1 kernels the host devices build) never go to a GPU.
  case "$(basename "$f")" in
    *qd_chunk_* | *qd_sort_chunk_*) continue ;;
  esac
  if { [ ! -x "$ptxas13" ] || { "$qdc" compile "$f" --target sm_90 -o "$libdump/k90.ptx" >/dev/null \
         && "$ptxas13" -arch=sm_90 "$libdump/k90.ptx" -o /dev/null; }; } \
     && { [ ! -x "$ptxas12" ] || { "$qdc" compile "$f" --target sm_70 -o "$libdump/k70.ptx" >/dev/null \
         && "$ptxas12" -arch=sm_70 "$libdump/k70.ptx" -o /dev/null; }; } \
     && { ! command -v spirv-val >/dev/null 2>&1 || { "$qdc" compile "$f" --target vulkan1.1 --emit spv \
         --subgroup-size 32 -o "$libdump/k.spv" >/dev/null && spirv-val --target-env vulkan1.1 "$libdump/k.spv"; }; }; then
    ok=$((ok + 1))
  else
    bad=$((bad + 1))
    echo "REJECTED: $f"
  fi
done
echo "qd-lib algorithm and tile kernels: $ok accepted, $bad rejected (ptxas sm_90/sm_70, spirv-val vulkan1.1)"
if [ "$bad" -ne 0 ] || [ "$ok" -eq 0 ]; then
  exit 1
fi
echo "test result: ok. $ok passed; 0 failed (qd-lib algorithm and tile kernels through ptxas and spirv-val)" >> /tmp/qd-test.log

# The AMDGCN back end on the wave simulator: qd-lib's whole suite (device-wide algorithms
# included) on the four simulated devices, compiled by qd-isel-amdgcn and run with the
# simulator's hazard and memory-wait checkers on.
step "qd-lib suite on the simulated AMD devices"
QD_TEST_DEVICES=sim-gfx942,sim-gfx90a,sim-gfx1100,sim-gfx1100-w32 \
  cargo test --quiet -p qd-lib --test suite -- --nocapture > /tmp/qd-test-sim.log 2>&1 \
  || { cat /tmp/qd-test-sim.log; exit 1; }
grep -E 'device sim|test result' /tmp/qd-test-sim.log
grep 'test result' /tmp/qd-test-sim.log >> /tmp/qd-test.log

# lavapipe's subgroup size is read once, when the driver loads: 4, 8 and 16 come from
# LP_NATIVE_VECTOR_WIDTH=128, 256 and 512 in separate processes. The corpus (and qd-rt's vulkan
# tests) run again under each; a width the CPU cannot give is reported as skipped with the reason.
step "vulkan device at subgroup widths 4, 8, 16 (lavapipe, LP_NATIVE_VECTOR_WIDTH), then with staged buffers"
if [ "${QD_REQUIRE_VULKAN:-0}" = 1 ]; then
  for lp in 128 256 512; do
    w=$((lp / 32))
    echo "--- LP_NATIVE_VECTOR_WIDTH=$lp (subgroup width $w)"
    for t in "qd-tests vulkan_corpus" "qd-rt vulkan" "qd-lib suite"; do
      set -- $t
      # The qd-lib suite runs on the vulkan device only here (the cpu widths ran above).
      LP_NATIVE_VECTOR_WIDTH=$lp QD_EXPECT_VULKAN_WIDTH=$w QD_TEST_DEVICES=$([ "$1" = qd-lib ] && echo vulkan) \
        cargo test --quiet -p "$1" --test "$2" -- --nocapture \
        > /tmp/qd-test-vk.log 2>&1 || { cat /tmp/qd-test-vk.log; exit 1; }
      grep -E '^vulkan .*matched|width .* skipped:|device vulkan|test result' /tmp/qd-test-vk.log | sort -u
      grep 'test result' /tmp/qd-test-vk.log >> /tmp/qd-test.log
    done
  done
  # The buffer placement of a discrete GPU (device-local buffers, staging copies), forced on
  # lavapipe at its default width: the same corpus, runtime tests and library suite.
  echo "--- QD_VULKAN_MEMORY=staged"
  for t in "qd-tests vulkan_corpus" "qd-rt vulkan" "qd-rt programs" "qd-lib suite"; do
    set -- $t
    QD_VULKAN_MEMORY=staged QD_TEST_DEVICES=$([ "$1" = qd-lib ] && echo vulkan) \
      cargo test --quiet -p "$1" --test "$2" -- --nocapture \
      > /tmp/qd-test-vk.log 2>&1 || { cat /tmp/qd-test-vk.log; exit 1; }
    grep -E '^vulkan .*matched|device vulkan|test result' /tmp/qd-test-vk.log | sort -u
    grep 'test result' /tmp/qd-test-vk.log >> /tmp/qd-test.log
  done
  # The GPU machine's Vulkan check, end to end on lavapipe: built from the debug executables
  # the test step made, the bench at 2^16 (scripts/gpu-vulkan-build.sh, gpu-vulkan-check.sh).
  echo "--- scripts/gpu-vulkan-build.sh + gpu-vulkan-check.sh (lavapipe)"
  QD_GPU_BUILD_PROFILE=dev bash scripts/gpu-vulkan-build.sh "$PWD/target/gpu-vulkan-ci" > /tmp/qd-gpu-vk.log 2>&1 \
    || { cat /tmp/qd-gpu-vk.log; exit 1; }
  QD_GPU_BENCH_EXPS=16 OUT=/tmp/qd-gpu-vk-results bash scripts/gpu-vulkan-check.sh "$PWD/target/gpu-vulkan-ci" \
    > /tmp/qd-gpu-vk.log 2>&1 || { cat /tmp/qd-gpu-vk.log; cat /tmp/qd-gpu-vk-results/summary.txt; exit 1; }
  cat /tmp/qd-gpu-vk-results/summary.txt
  echo "test result: ok. 1 passed; 0 failed (scripts/gpu-vulkan-check.sh on lavapipe)" >> /tmp/qd-test.log
else
  echo "no Vulkan device: skipped"
fi
# The GPU machine's CUDA check (issue 23), end to end without a GPU: the CUB baseline built from
# the CUDA 13.0 wheels (benches/cuda/build.sh), the carried executables (scripts/gpu-cuda-build.sh,
# debug here), then scripts/gpu-cuda-check.sh on the cpu device and lavapipe, where its CUDA-only
# steps say they are skipped: the 1,000,003-element cases, the algorithm cases of the suite, and
# qd's side of the table at 2^12.
step "scripts/gpu-cuda-build.sh + gpu-cuda-check.sh (cpu, lavapipe)"
QD_GPU_BUILD_PROFILE=dev bash scripts/gpu-cuda-build.sh "$PWD/target/gpu-cuda-ci" > /tmp/qd-gpu-cuda.log 2>&1 \
  || { cat /tmp/qd-gpu-cuda.log; exit 1; }
grep -E '^cub_bench' /tmp/qd-gpu-cuda.log
for dev in cpu $([ "${QD_REQUIRE_VULKAN:-0}" = 1 ] && echo vulkan); do
  QD_GPU_DEVICE=$dev QD_GPU_SUITE_FILTER=algo:: QD_GPU_BENCH_EXPS=12 QD_GPU_BENCH_REPS=2 \
    OUT=/tmp/qd-gpu-cuda-$dev bash scripts/gpu-cuda-check.sh "$PWD/target/gpu-cuda-ci" > /tmp/qd-gpu-cuda.log 2>&1 \
    || { cat /tmp/qd-gpu-cuda.log; exit 1; }
  cat /tmp/qd-gpu-cuda-$dev/summary.txt
  echo "test result: ok. 1 passed; 0 failed (scripts/gpu-cuda-check.sh on $dev)" >> /tmp/qd-test.log
done

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
