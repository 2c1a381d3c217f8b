#!/bin/bash
# The cached first launch in a new process, CUDA target, before (BEFORE, default .base26: 26c9f45)
# and after (this tree), ROUNDS rounds (default 3) with the order alternating, kernellab
# DeviceArrays and torch tensors: bench/cold_start.py --phases per tree and round (each its own
# cache folder: the first run compiles, the others load).  This tree's cold_start.py (and its
# tiny_kernels, launch_phases) measures both trees (--root), with the garbage collections that fell
# into each first launch.  Run on a GPU host after bench/device_site.sh; prints each run's table.
source bench/device_site.sh >/dev/null 2>&1 || exit 1
# SHIFTS=1: the runs spread over the garbage collector's cycle (cold_start.py --gc-shifts: a
# collection then falls into as many first launches as the launch's allocations make likely, in
# both trees, rather than wherever one process's history puts it); ARRAYS (default "kl torch");
# PIN_CPU=N: the processes on CPU N (taskset).
BEFORE=${BEFORE:-.base26}
SHIFT_FLAG=$([ -n "$SHIFTS" ] && echo --gc-shifts)
for round in $(seq 1 ${ROUNDS:-3}); do
  if [ $((round % 2)) = 1 ]; then order="$BEFORE ."; else order=". $BEFORE"; fi
  for tree in $order; do
    name=$([ "$tree" = . ] && echo after || echo before)
    for arrays in ${ARRAYS:-kl torch}; do
      echo "== round $round $name $arrays"
      KERNELLAB_CACHE_DIR=/tmp/first_${name}_$arrays timeout 120 $PIN python3 bench/cold_start.py --root "$tree" \
        --target cuda --arrays $arrays --runs ${RUNS:-6} --phases $SHIFT_FLAG 2>&1 | grep -vE "^\s*$" | tail -17
    done
  done
done
