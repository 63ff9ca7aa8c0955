#!/usr/bin/env bash
# Builds, here, everything scripts/gpu-vulkan-check.sh runs on a GPU machine, into one directory
# to carry there (nothing is compiled on the GPU machine):
#
#   scripts/gpu-vulkan-build.sh [DIR]        # DIR defaults to target/gpu-vulkan
#
# DIR/bin.tar.xz   release executables, stripped, compressed (bin/ unpacked): qdc, the Vulkan corpus cross-check
#               (tests/tests/vulkan_corpus.rs), qd-rt's vulkan and programs tests, the qd-lib
#               suite and the algorithms bench (benches/benches/algorithms.rs)
# DIR/kernel-corpus/   the interpreter-test kernels (QD_DUMP_KERNELS), which the corpus test reads
# DIR/gl/       the Vulkan loader packages (libvulkan1 …) for a machine whose image has no loader;
#               downloaded with apt when it can (release builds), else left out (the check script
#               says so)
#
# The GPU machine then runs, from the repository root, with DIR carried:
#
#   bash scripts/gpu-vulkan-check.sh DIR     # results in $OUT (or DIR/results)
#
# CI runs this script (scripts/test.sh, with QD_GPU_BUILD_PROFILE=dev: the debug executables the
# test step already built) and then the check script on lavapipe, so both stay working without
# a GPU.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
DIR=${1:-$REPO/target/gpu-vulkan}
rm -rf "$DIR/kernel-corpus" "$DIR/bin" "$DIR/bin.tar.xz" "$DIR/results"
mkdir -p "$DIR/bin" "$DIR/gl"

profile=${QD_GPU_BUILD_PROFILE:-release}
if [ "$profile" = release ]; then rel=--release; out=release; else rel=; out=debug; fi

# The test and bench executables: cargo names them NAME-<hash>; its JSON messages say which.
# shellcheck source=scripts/gpu-common.sh
. "$REPO/scripts/gpu-common.sh"
# shellcheck disable=SC2086
exes=$(cargo test $rel --no-run --message-format=json \
    -p qd-tests --test vulkan_corpus -p qd-rt --test vulkan --test programs -p qd-lib --test suite 2>/dev/null |
  executables)
if [ "$profile" = release ]; then
  bench_build=(cargo bench --no-run --message-format=json -p qd-benches --bench algorithms)
else
  bench_build=(cargo test --no-run --message-format=json -p qd-benches --bench algorithms)
fi
bench=$("${bench_build[@]}" 2>/dev/null | executables | awk '$1 == "algorithms" {print $3}')
# shellcheck disable=SC2086
cargo build $rel --quiet -p qdc
while read -r target pkg exe; do
  case "$pkg:$target" in
    *tests*:vulkan_corpus) cp "$exe" "$DIR/bin/vulkan_corpus" ;;
    *qd-rt*:vulkan) cp "$exe" "$DIR/bin/rt_vulkan" ;;
    *qd-rt*:programs) cp "$exe" "$DIR/bin/rt_programs" ;;
    *qd-lib*:suite) cp "$exe" "$DIR/bin/lib_suite" ;;
  esac
done <<< "$exes"
cp "$bench" "$DIR/bin/bench_algorithms"
cp "${CARGO_TARGET_DIR:-target}/$out/qdc" "$DIR/bin/qdc"
for b in vulkan_corpus rt_vulkan rt_programs lib_suite bench_algorithms qdc; do
  if [ ! -x "$DIR/bin/$b" ]; then
    echo "gpu-vulkan-build: $b was not built" >&2
    exit 1
  fi
  strip -s "$DIR/bin/$b" 2>/dev/null || true
done

# The interpreter-test kernel corpus.
mkdir -p "$DIR/kernel-corpus"
# shellcheck disable=SC2086
QD_DUMP_KERNELS="$DIR/kernel-corpus" cargo test $rel --quiet -p qd-mir --lib interp:: >/dev/null

# The Vulkan loader for a GPU image without one (the GPU machine's notes: libvulkan1 and the GL
# dispatch libraries, unpacked there with dpkg -x).
# (Not for the dev build CI makes: lavapipe's loader is installed there.)
if [ "$profile" = release ] && [ -z "$(ls "$DIR/gl"/*.deb 2>/dev/null)" ] && command -v apt-get >/dev/null 2>&1; then
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/qd-apt-amd64'
  mkdir -p /tmp/qd-apt-amd64/partial
  # shellcheck disable=SC2086
  if apt-get $o update >/dev/null 2>&1; then
    (cd "$DIR/gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 \
      >/dev/null 2>&1) || echo "gpu-vulkan-build: the loader packages could not be downloaded"
  else
    echo "gpu-vulkan-build: apt-get update failed; no loader packages in $DIR/gl"
  fi
fi

# The executables travel compressed (the carry limit is 64 MiB); the check script unpacks them.
ls -l "$DIR/bin" "$DIR/gl" | sed 's/^/  /'
rm -f "$DIR/bin.tar.xz"
tar -C "$DIR" -cf - bin | xz -T0 -6 > "$DIR/bin.tar.xz"
rm -rf "$DIR/bin"
echo "  $(ls "$DIR/kernel-corpus" | wc -l) kernel files in $DIR/kernel-corpus"
echo "gpu-vulkan-build: $(du -sh "$DIR" | cut -f1) in $DIR (executables in bin.tar.xz)"
