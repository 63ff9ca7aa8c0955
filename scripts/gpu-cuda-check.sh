#!/usr/bin/env bash
# The CUDA checks and the GPU table on the GPU machine, from the executables
# scripts/gpu-cuda-build.sh built here (no cargo there), in one call, within about 8 minutes:
#
#   bash scripts/gpu-cuda-check.sh [DIR]     # DIR: the carried build (default target/gpu-cuda)
#
# Results go to $OUT when set (the GPU machine's folder that comes back), else DIR/results:
#   suite_1000003.txt  the 1,000,003-element algorithm cases of the qd-lib suite
#   suite.txt          the whole qd-lib suite, and suite_groups.tsv: pass/fail per test group
#   filetests.txt, corpus.txt   the filetests' `; run:` lines and the interpreter-test kernels
#                      cross-checked on the device against the interpreter (CUDA only)
#   cub.txt            the CUB baseline (benches/cuda/cub_bench.cu; CUDA only)
#   qd.txt             qd's side (benches/examples/gpu_algorithms.rs), per-launch phases included
#   table.tsv          both sides joined: algorithm, type, n, CUB ms, qd ms, qd ÷ CUB throughput,
#                      and each side's input GB/s ÷ the copy's (the bandwidth ceiling)
#   summary.txt        one line per step: ok / FAILED / skipped, with the counts
#
# QD_GPU_DEVICE picks the device (default cuda:0; CI runs the script end to end on `cpu` and
# `vulkan`, where the CUDA-only steps say they are skipped). QD_GPU_BENCH_EXPS (default
# 20,24,28), QD_GPU_BENCH_TYPES (u32,f32,u64) and QD_GPU_BENCH_REPS (5) size the benches;
# QD_GPU_SUITE_FILTER limits the whole-suite step to matching cases. Each step has its own time
# limit. Exit status 0 when every step that ran passed.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
# open_carried, note, step: scripts/gpu-common.sh.
# shellcheck source=scripts/gpu-common.sh
. "$REPO/scripts/gpu-common.sh"
open_carried "${1:-$REPO/target/gpu-cuda}"
export QD_REPO_ROOT="$REPO" INSTA_UPDATE=no CI=true RUST_BACKTRACE=0 QD_TEST_CUDA=1
DEV=${QD_GPU_DEVICE:-cuda:0}
EXPS=${QD_GPU_BENCH_EXPS:-20,24,28}
TYPES=${QD_GPU_BENCH_TYPES:-u32,f32,u64}
REPS=${QD_GPU_BENCH_REPS:-5}


case "$DEV" in
  cuda*) cuda=1 ;;
  *) cuda=0 ;;
esac
note "device: $DEV (benches at 2^{$EXPS}, types $TYPES, $REPS runs each)"

QD_TEST_DEVICES=$DEV step "qd-lib suite, the 1,000,003-element cases" 120 "$RES/suite_1000003.txt" \
  "$BIN/lib_suite" 1000003
grep -E 'device |FAIL|test result' "$RES/suite_1000003.txt" | tee -a "$summary"
# shellcheck disable=SC2086
QD_TEST_DEVICES=$DEV step "qd-lib suite" 200 "$RES/suite.txt" "$BIN/lib_suite" ${QD_GPU_SUITE_FILTER:-}
grep -E 'device |test result' "$RES/suite.txt" | tee -a "$summary"
# Pass/fail per test group (a case's name up to its first `/`).
# shellcheck disable=SC2086
"$BIN/lib_suite" --list ${QD_GPU_SUITE_FILTER:-} 2>/dev/null | python3 -c '
import collections, re, sys
cases = [l.rsplit(": test", 1)[0] for l in sys.stdin if l.rstrip().endswith(": test")]
fails = set()
for l in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s*FAIL \[[^]]*\] (.*?): ", l)
    if m:
        fails.add(m.group(1))
groups = collections.OrderedDict()
for c in cases:
    g = groups.setdefault(c.split("/", 1)[0], [0, 0])
    g[1 if c in fails else 0] += 1
with open(sys.argv[2], "w") as out:
    out.write("group\tpassed\tfailed\n")
    for g, (ok, bad) in groups.items():
        out.write(f"{g}\t{ok}\t{bad}\n")
print(f"suite groups: {len(groups)}, with failures: {sum(1 for v in groups.values() if v[1])}")
' "$RES/suite.txt" "$RES/suite_groups.tsv" | tee -a "$summary"

if [ $cuda = 1 ]; then
  step "filetests cross-checked on $DEV" 90 "$RES/filetests.txt" "$BIN/filetests" filetests --exact --nocapture
  grep -E '^cuda .*(matched|failed)' "$RES/filetests.txt" | sort -u | tee -a "$summary"
  QD_KERNEL_CORPUS=$DIR/kernel-corpus step "interpreter-test kernels on $DEV" 90 "$RES/corpus.txt" \
    "$BIN/cuda_corpus" --nocapture
  grep -E '^cuda .*(matched|failed)' "$RES/corpus.txt" | sort -u | tee -a "$summary"
  step "CUB baseline" 120 "$RES/cub.txt" "$BIN/cub_bench" --exps "$EXPS" --types "$TYPES" --reps "$REPS"
else
  note "skipped the filetests, the kernel corpus and CUB: $DEV is not a CUDA device"
fi
step "qd algorithms on $DEV" 200 "$RES/qd.txt" "$BIN/gpu_algorithms" --device "$DEV" --exps "$EXPS" \
  --types "$TYPES" --reps "$REPS"
grep -cE '^qd	' "$RES/qd.txt" | sed 's/^/qd measurements: /' | tee -a "$summary"
grep -E '^error	' "$RES/qd.txt" "$RES/cub.txt" 2>/dev/null | head -10 | tee -a "$summary"

# The side-by-side table.
python3 - "$RES" <<'PY' | tee -a "$summary"
import os, sys
res = sys.argv[1]
def rows(name, tag):
    out = {}
    path = os.path.join(res, name)
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            f = line.rstrip("\n").split("\t")
            if f[0] == tag and len(f) >= 6:
                out[(f[1], f[2], f[3])] = (float(f[4]), float(f[5]))
    return out
cub, qd = rows("cub.txt", "cub"), rows("qd.txt", "qd")
with open(os.path.join(res, "table.tsv"), "w") as t:
    t.write("algorithm\ttype\tn\tcub_ms\tqd_ms\tqd/cub throughput\tcub GB/s / copy\tqd GB/s / copy\n")
    for key in sorted(set(cub) | set(qd), key=lambda k: (k[0], k[1], int(k[2]))):
        if key[0] == "copy":
            continue
        c, q = cub.get(key), qd.get(key)
        copy = cub.get(("copy", key[1], key[2]))
        ratio = f"{c[0] / q[0]:.2f}" if c and q else "-"
        cc = f"{c[1] / copy[1]:.2f}" if c and copy else "-"
        qc = f"{q[1] / copy[1]:.2f}" if q and copy else "-"
        t.write(f"{key[0]}\t{key[1]}\t{key[2]}\t{c[0] if c else '-'}\t{q[0] if q else '-'}\t{ratio}\t{cc}\t{qc}\n")
print(f"table.tsv: {len(qd)} qd and {len(cub)} CUB measurements")
PY
exit $failed
