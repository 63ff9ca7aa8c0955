# Shell functions the GPU-machine scripts share (sourced, not run):
#   scripts/gpu-vulkan-build.sh, gpu-cuda-build.sh: `executables` (the test and bench executables
#     cargo's JSON messages name, as `TARGET PACKAGE PATH` lines);
#   scripts/gpu-vulkan-check.sh, gpu-cuda-check.sh: `open_carried DIR` (the carried build: sets
#     DIR, BIN, RES — $OUT or DIR/results, emptied — and summary, unpacks bin.tar.xz, failed=0),
#     `note` (a line to stdout and $summary) and `step NAME LIMIT_S LOG COMMAND…` (runs with a
#     time limit, appends to LOG, notes the outcome and sets failed=1 when it fails).

executables() {
  python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"], m["package_id"].split("#")[0].rsplit("/", 1)[-1], m["executable"])
'
}

note() { echo "$*" | tee -a "$summary"; }

step() {
  local name=$1 limit=$2 log=$3
  shift 3
  echo "=== $name: $*" >> "$log"
  local t0=$SECONDS
  timeout "$limit" "$@" >> "$log" 2>&1
  local rc=$?
  local dt=$((SECONDS - t0))
  if [ $rc -eq 0 ]; then
    note "ok      $name (${dt}s)"
  else
    failed=1
    note "FAILED  $name (exit $rc$([ $rc -eq 124 ] && echo ", over ${limit}s"), ${dt}s; see $(basename "$log"))"
  fi
}

open_carried() {
  DIR=$(cd "$1" && pwd)
  RES=${OUT:-$DIR/results}
  mkdir -p "$RES"
  rm -f "$RES"/*.txt "$RES"/*.tsv
  BIN=$DIR/bin
  if [ ! -d "$BIN" ] && [ -f "$DIR/bin.tar.xz" ]; then
    xz -dc "$DIR/bin.tar.xz" | tar -C "$DIR" -xf -
  fi
  summary=$RES/summary.txt
  : > "$summary"
  failed=0
}
