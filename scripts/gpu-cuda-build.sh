#!/usr/bin/env bash
# Builds, here, everything scripts/gpu-cuda-check.sh runs on the GPU machine, into one directory
# to carry there (nothing is compiled on the GPU machine):
#
#   scripts/gpu-cuda-build.sh [DIR]          # DIR defaults to target/gpu-cuda
#
# DIR/bin.tar.xz   stripped executables, compressed (bin/ unpacked there): the qd-lib suite, the
#                  filetests (their `; run:` lines cross-checked on cuda:0), the CUDA corpus
#                  cross-check (tests/tests/cuda_corpus.rs), qd's algorithm bench
#                  (benches/examples/gpu_algorithms.rs) and the CUB baseline (benches/cuda)
# DIR/kernel-corpus/   the interpreter-test kernels (QD_DUMP_KERNELS) the corpus test reads
#
# The GPU machine then runs, from the repository root, with DIR carried:
#
#   bash scripts/gpu-cuda-check.sh DIR       # results in $OUT (or DIR/results)
#
# CI runs this script with QD_GPU_BUILD_PROFILE=dev (the debug executables the test step built)
# and then the check script on the cpu device and lavapipe, so both keep working without a GPU.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
DIR=${1:-$REPO/target/gpu-cuda}
rm -rf "$DIR/kernel-corpus" "$DIR/bin" "$DIR/bin.tar.xz" "$DIR/results"
mkdir -p "$DIR/bin"
profile=${QD_GPU_BUILD_PROFILE:-release}
if [ "$profile" = release ]; then rel=--release; out=release; else rel=; out=debug; fi

# shellcheck source=scripts/gpu-common.sh
. "$REPO/scripts/gpu-common.sh"
# shellcheck disable=SC2086
exes=$(cargo test $rel --no-run --message-format=json \
    -p qd-tests --test filetests --test cuda_corpus -p qd-lib --test suite 2>/dev/null | executables)
while read -r target pkg exe; do
  case "$pkg:$target" in
    *tests*:filetests) cp "$exe" "$DIR/bin/filetests" ;;
    *tests*:cuda_corpus) cp "$exe" "$DIR/bin/cuda_corpus" ;;
    *qd-lib*:suite) cp "$exe" "$DIR/bin/lib_suite" ;;
  esac
done <<< "$exes"
# shellcheck disable=SC2086
cargo build $rel --quiet -p qd-benches --example gpu_algorithms
cp "${CARGO_TARGET_DIR:-target}/$out/examples/gpu_algorithms" "$DIR/bin/gpu_algorithms"
bash benches/cuda/build.sh "$DIR/bin"
rm -f "$DIR/bin/cub_bench.nogpu.txt"
for b in filetests cuda_corpus lib_suite gpu_algorithms; do
  if [ ! -x "$DIR/bin/$b" ]; then
    echo "gpu-cuda-build: $b was not built" >&2
    exit 1
  fi
  strip -s "$DIR/bin/$b" 2>/dev/null || true
done

# The interpreter-test kernel corpus.
mkdir -p "$DIR/kernel-corpus"
# shellcheck disable=SC2086
QD_DUMP_KERNELS="$DIR/kernel-corpus" cargo test $rel --quiet -p qd-mir --lib interp:: >/dev/null

# The executables travel compressed (the carry limit is 64 MiB).
ls -l "$DIR/bin" | sed 's/^/  /'
tar -C "$DIR" -cf - bin | xz -T0 -6 > "$DIR/bin.tar.xz"
rm -rf "$DIR/bin"
echo "  $(ls "$DIR/kernel-corpus" | wc -l) kernel files in $DIR/kernel-corpus"
echo "gpu-cuda-build: $(du -sh "$DIR" | cut -f1) in $DIR (executables in bin.tar.xz)"
