#!/usr/bin/env bash
# The Vulkan checks on a GPU machine, from the executables scripts/gpu-vulkan-build.sh built here
# (no cargo there), in one call, within about 6 minutes:
#
#   bash scripts/gpu-vulkan-check.sh [DIR]   # DIR: the carried build (default target/gpu-vulkan)
#
# Results go to $OUT when set (the GPU machine's folder that comes back), else DIR/results:
#   devices.txt   `qdc devices` (the driver version is in the vulkan line)
#   corpus.txt    the corpus cross-check on the Vulkan GPU (filetests, interpreter-test kernels)
#   rt.txt        qd-rt's vulkan and programs tests
#   suite.txt     the qd-lib suite on the Vulkan GPU
#   bench_2e20.txt, bench_2e24.txt   the algorithms bench on the Vulkan GPU and cuda:0, same run
#   summary.txt   one line per step: ok / FAILED / skipped, with the counts
#
# The Vulkan device is the first one `qdc devices` lists as a GPU (lavapipe when there is none:
# how CI runs this script end to end); QD_VULKAN_SPEC overrides it. When the image has no Vulkan
# loader, the packages in DIR/gl are unpacked (dpkg -x) first; when the loader finds no driver,
# NVIDIA's ICD file is named (VK_DRIVER_FILES). Each step has its own time limit. Exit status 0
# when every step that ran passed. QD_GPU_BENCH_EXPS (default "20 24") picks the bench sizes
# (CI on lavapipe uses a smaller one).
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
# open_carried, note, step: scripts/gpu-common.sh.
# shellcheck source=scripts/gpu-common.sh
. "$REPO/scripts/gpu-common.sh"
open_carried "${1:-$REPO/target/gpu-vulkan}"
export QD_REPO_ROOT="$REPO" INSTA_UPDATE=no CI=true RUST_BACKTRACE=0

# The loader.
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1'; then
  if ls "$DIR/gl"/*.deb >/dev/null 2>&1; then
    for f in "$DIR/gl"/*.deb; do dpkg -x "$f" / ; done
    ldconfig
    note "loader: unpacked $(ls "$DIR/gl"/*.deb | wc -l) packages from $DIR/gl"
  else
    note "loader: none installed and no packages in $DIR/gl"
  fi
fi
"$BIN/qdc" devices > "$RES/devices.txt" 2>&1
if ! grep -q '^vulkan:[0-9]' "$RES/devices.txt" && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  "$BIN/qdc" devices > "$RES/devices.txt" 2>&1
  note "loader: VK_DRIVER_FILES=$VK_DRIVER_FILES"
fi
cat "$RES/devices.txt"
vk=${QD_VULKAN_SPEC:-$(awk '/^vulkan:[0-9]/ && /GPU/ {print $1; exit}' "$RES/devices.txt")}
vk=${vk:-$(awk '/^vulkan:[0-9]/ {print $1; exit}' "$RES/devices.txt")}
if [ -z "$vk" ]; then
  note "vulkan: no device (see devices.txt); nothing to check"
  exit 1
fi
note "vulkan device: $(grep "^$vk " "$RES/devices.txt")"
cuda=$(awk '/^cuda:[0-9]/ {print $1; exit}' "$RES/devices.txt")


export QD_REQUIRE_VULKAN=1
QD_VULKAN_DEVICE=$vk QD_KERNEL_CORPUS=$DIR/kernel-corpus \
  step "corpus cross-check on $vk" 90 "$RES/corpus.txt" "$BIN/vulkan_corpus" --nocapture
grep -E '^vulkan .*(matched|failed)' "$RES/corpus.txt" | sort -u | tee -a "$summary"
step "qd-rt vulkan tests" 60 "$RES/rt.txt" "$BIN/rt_vulkan" --nocapture
step "qd-rt programs tests" 60 "$RES/rt.txt" "$BIN/rt_programs"
QD_TEST_DEVICES=$vk step "qd-lib suite on $vk" 150 "$RES/suite.txt" "$BIN/lib_suite"
grep -E 'device |FAIL' "$RES/suite.txt" | head -40 | tee -a "$summary"

devices=$vk
if [ -n "$cuda" ]; then
  devices="$vk,$cuda"
  export QD_TEST_CUDA=1
else
  note "cuda: no device; the bench runs on $vk only"
fi
for n in ${QD_GPU_BENCH_EXPS:-20 24}; do
  QD_BENCH_DEVICES=$devices QD_BENCH_N=$((1 << n)) \
    step "algorithms bench at 2^$n on $devices" 120 "$RES/bench_2e$n.txt" \
    "$BIN/bench_algorithms" --bench --warm-up-time 0.3 --measurement-time 1
done
exit $failed
