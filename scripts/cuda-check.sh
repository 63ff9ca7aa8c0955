#!/usr/bin/env bash
# Runs every CUDA check of qd from already-built test binaries, without cargo (for a GPU machine
# that has no Rust toolchain). Build them first, where cargo is, with the same CARGO_TARGET_DIR:
#
#   cargo test -p qd-rt -p qd-tests -p qd-mir --no-run
#
# then, on the GPU machine, from the repository root:
#
#   scripts/cuda-check.sh
#
# It runs, with QD_TEST_CUDA=1:
#   1. qd-rt's tests (unit: the JIT error log; tests/cuda.rs: device info, kernels, programs,
#      overrides, the low-level API; tests/cuda_crash.rs: a crashing kernel is a clear error;
#      tests/cpu.rs);
#   2. the filetests, every `; run:` line cross-checked on cuda:0 against the interpreter at
#      width 32 ("cuda filetests: N matched, M skipped (expected fault), K failed");
#   3. the interpreter unit tests with QD_DUMP_KERNELS, writing the kernel corpus into
#      target/qd-kernel-corpus (inside the repository), then tests/cuda_corpus.rs over it
#      ("cuda interpreter-test kernels: N matched, M skipped (expected fault), K failed").
#
# Environment: CARGO_TARGET_DIR (default: target), QD_TEST_BIN_DIR (default:
# $CARGO_TARGET_DIR/debug/deps: where the test executables are), QD_KERNEL_CORPUS (default:
# target/qd-kernel-corpus), QD_CUDA_TIMEOUT_S (a kernel's time limit, default 60).
# Exit status 0 when every step passed.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
DEPS=${QD_TEST_BIN_DIR:-$TARGET/debug/deps}
CORPUS=${QD_KERNEL_CORPUS:-$REPO/target/qd-kernel-corpus}
export QD_TEST_CUDA=1
export INSTA_WORKSPACE_ROOT="$REPO" INSTA_UPDATE=no CI=true
export RUST_BACKTRACE=${RUST_BACKTRACE:-0}

# The newest test executable NAME-<16 hex digits> in $DEPS.
find_bin() {
    local f
    for f in $(ls -t "$DEPS" 2>/dev/null); do
        if [[ "$f" =~ ^$1-[0-9a-f]{16}$ && -x "$DEPS/$f" ]]; then
            echo "$DEPS/$f"
            return 0
        fi
    done
    return 1
}

failed=()
step() {
    local label=$1 bin=$2
    shift 2
    local exe
    if ! exe=$(find_bin "$bin"); then
        echo "=== $label: no test executable $bin-<hash> in $DEPS (build with: cargo test -p qd-rt -p qd-tests -p qd-mir --no-run)"
        failed+=("$label (missing binary)")
        return
    fi
    echo "=== $label: $exe $*"
    if ! "$exe" "$@"; then
        failed+=("$label")
    fi
}

step "qd-rt unit tests" qd_rt --nocapture
step "qd-rt cuda tests" cuda --nocapture --test-threads=1
step "qd-rt crashing kernel" cuda_crash --nocapture
step "qd-rt cpu tests" cpu
step "cuda filetests" filetests filetests --exact --nocapture

rm -rf "$CORPUS"
mkdir -p "$CORPUS"
echo "=== dumping the interpreter-test kernel corpus into $CORPUS"
if exe=$(find_bin qd_mir); then
    QD_DUMP_KERNELS="$CORPUS" "$exe" interp:: -q >/dev/null || failed+=("qd-mir interpreter tests (dump)")
    echo "$(ls "$CORPUS" | wc -l) kernel files"
else
    echo "no test executable qd_mir-<hash> in $DEPS"
    failed+=("corpus dump (missing binary)")
fi
QD_KERNEL_CORPUS="$CORPUS" step "cuda interpreter-test kernels" cuda_corpus --nocapture

echo
if [ ${#failed[@]} -eq 0 ]; then
    echo "cuda-check: all steps passed"
    exit 0
fi
echo "cuda-check: FAILED: ${failed[*]}"
exit 1
