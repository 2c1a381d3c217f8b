#!/bin/bash
# Issue 17's hot CUDA launch before/after on one GPU host: bench/launch_overhead_cuda.py of BEFORE
# (default .base26, the tree of 26c9f45) and of this tree, ROUNDS rounds (default 5) of HOT_ROUNDS
# each, the order alternating between rounds (odd rounds BEFORE first), then each tree's second
# launch in a new process profiled (bench/cold_start.py --profile second; SECOND_RUNS runs).
# Everything goes to one log, $OUT/hot_cuda_ab.log (the device returns few files); the rows and
# the per-round ratios print last.
source bench/device_site.sh || exit 1
OUT=${OUT:-/tmp/out}; BEFORE=${BEFORE:-.base26}; LOG="$OUT/hot_cuda_ab.log"; mkdir -p "$OUT"; : > "$LOG"
run_tree() {  # tree name round
  echo "== $2 round $3" >> "$LOG"
  (cd "$1" && KERNELLAB_CACHE_DIR=/tmp/hot_$2 timeout 60 $PIN python3 bench/launch_overhead_cuda.py \
    --rounds ${HOT_ROUNDS:-1}) 2>&1 | grep -E "^kernellab kernel|^Triton" >> "$LOG"
}
for round in $(seq 1 ${ROUNDS:-5}); do
  if [ $((round % 2)) = 1 ]; then run_tree "$BEFORE" before $round; run_tree . after $round
  else run_tree . after $round; run_tree "$BEFORE" before $round; fi
done
for tree in $([ -z "$NO_SECOND" ] && echo "$BEFORE" .); do  # NO_SECOND=1: no second-launch profiles
  name=$([ "$tree" = . ] && echo after || echo before)
  echo "== second launch, $name" >> "$LOG"
  (cd "$tree" && KERNELLAB_CACHE_DIR=/tmp/second_$name timeout 60 python3 bench/cold_start.py --target cuda \
    --runs ${SECOND_RUNS:-3} --profile second --print-profile) 2>&1 | head -40 >> "$LOG"
done
python3 - "$LOG" <<'PY'
import re, statistics, sys
rows = {}
tree = rnd = None
for line in open(sys.argv[1]):
    m = re.match(r"== (before|after) round (\d+)", line)
    if m:
        tree, rnd = m.group(1), int(m.group(2))
        continue
    m = re.match(r"(kernellab kernel\[grid\]\(\.\.\.\), [^,]+, [A-Za-z ]+?|Triton kernel\[grid\]\(\.\.\.\), torch tensors)\s+([\d.]+)", line)
    if m and tree:
        rows.setdefault(m.group(1).strip(), {}).setdefault(rnd, {})[tree] = float(m.group(2))
print(f"{'row':58s} {'before':>8s} {'after':>8s}  after/before per round")
for row, rounds in rows.items():
    pairs = [(r["before"], r["after"]) for _, r in sorted(rounds.items()) if "before" in r and "after" in r]
    if not pairs:
        continue
    before, after = statistics.median(b for b, _ in pairs), statistics.median(a for _, a in pairs)
    print(f"{row:58s} {before:8.2f} {after:8.2f}  " + " ".join(f"{a / b:.2f}" for b, a in pairs))
PY
grep -A3 "== second launch" "$LOG"
