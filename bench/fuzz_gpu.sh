#!/bin/bash
# The differential fuzzing run on the H200 (interpret, cpu, cuda) plus a list of gpu tests:
#   PROCS processes x KERNELS kernels x 4 programs, seeds SEED0 + KERNELS * i.
# Logs in $OUT/fuzz_gpu/ (written there as they run); the per-process summaries print last.
OUT=${OUT:-/tmp/out}; RES=$OUT/fuzz_gpu; PROCS=${PROCS:-14}; KERNELS=${KERNELS:-180}; SEED0=${SEED0:-20261203}
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1
for i in $(seq 0 $((PROCS - 1))); do
  KERNELLAB_CACHE_DIR=/tmp/fuzz$i timeout ${FUZZ_TIMEOUT:-320} python3 -m kernellab.fuzz --n $KERNELS \
    --seed $((SEED0 + KERNELS * i)) --targets interpret,cpu,cuda > "$RES/fuzz_$i.log" 2>&1 &
done
wait
if [ -n "$TESTS" ]; then
  timeout 90 python3 -m pytest -q -p no:cacheprovider --timeout 80 --tb=short -rfs $TESTS > "$RES/tests.log" 2>&1
  echo "tests: $(tail -1 "$RES/tests.log")"
fi
for f in "$RES"/fuzz_*.log; do
  echo "$(basename $f): $(grep -h 'programs in' $f || echo "unfinished $(grep -o '[0-9]*/[0-9]* \[' $f | tail -1) $(grep -o 'found=[0-9]*' $f | tail -1)")"
done
