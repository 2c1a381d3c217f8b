#!/bin/bash
# Issue 17's hot CUDA launch before/after on one GPU host, interleaved: bench/launch_overhead_cuda.py
# of BEFORE (default .base26, the tree of 26c9f45) and of this tree, ROUNDS times each, then each
# tree's second launch in a new process profiled (bench/cold_start.py --profile second).
# Logs and JSON in $OUT/hot_cuda_ab/; the rows print last.
source bench/device_site.sh || exit 1
OUT=${OUT:-/tmp/out}; BEFORE=${BEFORE:-.base26}; RES="$OUT/hot_cuda_ab"; mkdir -p "$RES"
for round in $(seq 1 ${ROUNDS:-2}); do
  for tree in "$BEFORE" .; do
    name=$([ "$tree" = . ] && echo after || echo before)
    (cd "$tree" && KERNELLAB_CACHE_DIR=/tmp/hot_$name timeout 60 python3 bench/launch_overhead_cuda.py --rounds ${HOT_ROUNDS:-2} \
      --out "$RES/hot_${name}_$round.json") > "$RES/hot_${name}_$round.log" 2>&1
  done
done
for tree in "$BEFORE" .; do
  name=$([ "$tree" = . ] && echo after || echo before)
  (cd "$tree" && KERNELLAB_CACHE_DIR=/tmp/second_$name timeout 60 python3 bench/cold_start.py --target cuda --runs ${SECOND_RUNS:-5} \
    --profile second --print-profile) > "$RES/second_$name.log" 2>&1
done
for f in "$RES"/hot_*.log; do echo "== $(basename $f)"; grep -E "^kernellab kernel|^Triton" "$f"; done
for f in "$RES"/second_*.log; do echo "== $(basename $f)"; sed -n 1,3p "$f"; done
