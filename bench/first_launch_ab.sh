#!/bin/bash
# The cached first launch in a new process, CUDA target, before (BEFORE, default .base26: 26c9f45)
# and after (this tree), ROUNDS rounds (default 3) with the order alternating, kernellab
# DeviceArrays and torch tensors: bench/cold_start.py --phases per tree and round (each its own
# cache folder: the first run compiles, the others load).  Run on a GPU host after
# bench/device_site.sh; prints each run's table.
source bench/device_site.sh >/dev/null 2>&1 || exit 1
BEFORE=${BEFORE:-.base26}
for round in $(seq 1 ${ROUNDS:-3}); do
  if [ $((round % 2)) = 1 ]; then order="$BEFORE ."; else order=". $BEFORE"; fi
  for tree in $order; do
    name=$([ "$tree" = . ] && echo after || echo before)
    for arrays in kl torch; do
      echo "== round $round $name $arrays"
      (cd "$tree" && KERNELLAB_CACHE_DIR=/tmp/first_${name}_$arrays timeout 120 python3 bench/cold_start.py \
        --target cuda --arrays $arrays --runs ${RUNS:-6} --phases 2>&1 | grep -vE "^\s*$" | tail -14)
    done
  done
done
