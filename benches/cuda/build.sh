#!/usr/bin/env bash
# Builds the CUB baseline (benches/cuda/cub_bench.cu) here, with no GPU, for the GPU machine:
# SASS for sm_90 (no PTX for the driver to compile) and the static CUDA runtime, from NVIDIA's
# PyPI wheels pinned to CUDA 13.0 (the GPU machine's driver is CUDA 13.0: a newer runtime would
# need a newer driver). The wheels go to $QD_TOOLS_DIR/cub13 (default /opt/qd-tools) once.
#
#   benches/cuda/build.sh [OUT]        # OUT defaults to target/cuda; writes OUT/cub_bench
#
# When the wheels cannot be installed (no network) it says why and exits 0, unless
# QD_REQUIRE_CUB=1. scripts/test.sh runs it so that the baseline keeps building.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$REPO/target/cuda}
TOOLS=${QD_TOOLS_DIR:-/opt/qd-tools}/cub13
CU=$TOOLS/nvidia/cu13
skip() {
  echo "cub_bench: skipped: $1"
  if [ "${QD_REQUIRE_CUB:-0}" = 1 ]; then exit 1; fi
  exit 0
}
if [ ! -x "$CU/bin/nvcc" ] || [ ! -x "$CU/nvvm/bin/cicc" ] || [ ! -d "$CU/include/cccl/cub" ] || [ ! -f "$CU/lib/libcudart_static.a" ]; then
  mkdir -p "$TOOLS"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$TOOLS" \
    "nvidia-cuda-nvcc==13.0.*" "nvidia-nvvm==13.0.*" "nvidia-cuda-crt==13.0.*" \
    "nvidia-cuda-runtime==13.0.*" "nvidia-cuda-cccl==13.0.*" 2>/tmp/qd-cub-pip.log \
    || skip "the CUDA 13.0 wheels could not be installed ($(tail -1 /tmp/qd-cub-pip.log))"
fi
command -v g++ >/dev/null || skip "no host C++ compiler (g++)"
mkdir -p "$OUT"
"$CU/bin/nvcc" -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -cudart static \
  -I"$CU/include/cccl" -L"$CU/lib" "$REPO/benches/cuda/cub_bench.cu" -o "$OUT/cub_bench"
# Without a GPU the binary must say so and exit 2 (not crash).
set +e
"$OUT/cub_bench" --exps 10 > /dev/null 2>"$OUT/cub_bench.nogpu.txt"
rc=$?
set -e
if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ]; then
  echo "cub_bench: exits $rc without a GPU:" >&2
  cat "$OUT/cub_bench.nogpu.txt" >&2
  exit 1
fi
echo "cub_bench: built $OUT/cub_bench ($(du -h "$OUT/cub_bench" | cut -f1), sm_90 SASS, CUDA $("$CU/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
