#!/bin/bash
# A fully cached rebuild (issue 15 item 1; docs/cache.md): every shipped spec
# for every x86 tier, built once into a fresh cache, then rebuilt N times
# with every artifact and oracle pass from the cache. Prints the wall time
# per kernel-target of the whole command (process start, spec loading,
# cache reads, archive write) and the pipeline's own time from --report,
# best and median of the runs, against the goal of 5 ms.
# usage: bench/cached_rebuild.sh [TESSERAC] [RUNS]   (default build/tesserac, 9)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
tesserac=${1:-$here/build/tesserac}; runs=${2:-9}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
targets=x86:v2,x86:v3,x86:v4
build=("$tesserac" build "$here/specs" -t "$targets" --cache-dir "$work/cache" -o "$work/k.tfat" -q)
t0=$(date +%s%N); "${build[@]}"; t1=$(date +%s%N)
count=$(python3 -c "import json,sys; print(len(json.load(sys.stdin)['kernels']) * 3)" < <("$tesserac" inspect --json "$work/k.tfat"))
echo "cold build: $(( (t1 - t0) / 1000000 )) ms for $count kernel-targets (fills the cache)"
walls=(); pipes=()
for i in $(seq "$runs"); do
  t0=$(date +%s%N); "${build[@]}" --report "$work/r.json"; t1=$(date +%s%N)
  walls+=($(( (t1 - t0) / 1000 ))); pipes+=($(python3 -c "import json; print(json.load(open('$work/r.json'))['total_ms'])"))
done
python3 - "$count" "${walls[*]}" "${pipes[*]}" << 'PY'
import statistics, sys
n = int(sys.argv[1]); walls = [int(w) / 1000 for w in sys.argv[2].split()]; pipes = [float(p) for p in sys.argv[3].split()]
for name, xs in (("whole command (wall)", walls), ("pipeline (--report total_ms)", pipes)):
    print(f"cached rebuild, {name}: best {min(xs) / n:.2f} ms, median {statistics.median(xs) / n:.2f} ms per kernel-target "
          f"({n} kernel-targets, {len(xs)} runs; goal <= 5 ms: {'MET' if statistics.median(xs) / n <= 5 else 'MISSED'})")
PY
