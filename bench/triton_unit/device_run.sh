#!/bin/bash
# Triton 3.6's unit tests on the GPU machine in one call: real Triton compiled for the GPU (the
# reference) against kernellab's cuda target through the alias, both at once (run.sh
# TARGET=cuda: pytest -n 8 each, a per-case timeout, ~6 minutes for the main run and ~1.5 for
# test_debug.py).  Logs and outcomes land in $OUT/triton_unit_cuda.tar.gz; the table prints last.
#
# Usage (device machine, repository root; carried: .whl, and bench/triton_unit with the test
# files run.sh fetched there with TRITON_GIT=..., since the machine reaches no network):
#   bash bench/triton_unit/device_run.sh
# REFERENCE=<folder holding an earlier run's triton.log> (carried) reuses that Triton run: only
# kernellab's side runs (half the machine's cores are then not shared with Triton's run).
set -o pipefail
OUT=${OUT:-/tmp/out}
RES=/tmp/triton_unit_cuda
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 KERNELLAB_CACHE_DIR=/tmp/klcache TRITON_CACHE_DIR=/tmp/tritoncache
rm -rf "$KERNELLAB_CACHE_DIR" "$TRITON_CACHE_DIR"  # both compile everything they run
if [ -n "${REFERENCE:-}" ]; then
  cp "$REFERENCE/triton.log" "$RES/triton.log" || exit 1
  echo "Triton's reference run reused from $REFERENCE/triton.log"
fi
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  python3 -c "import llvmlite, triton, torch; print('llvmlite', llvmlite.__version__, 'triton', triton.__version__, 'torch', torch.__version__)"
  for m in xdist pytest_timeout pytest_forked scipy; do python3 -c "import $m" 2>/dev/null && echo "$m: yes" || echo "$m: no"; done
} 2>&1 | tee "$RES/device.txt"
if [ ! -s bench/triton_unit/test_core.py ] || [ ! -s bench/triton_unit/cuda_unit/test_tma_descriptor.py ]; then
  echo "the test files are missing: fetch them with TRITON_GIT=... bench/triton_unit/run.sh and carry bench/triton_unit"
  exit 1
fi
TARGET=cuda JOBS=${JOBS:-8} TRITON_PYTHON=python3 KL_PYTHON=python3 TRITON_UNIT_OUT="$RES" \
  timeout -k 10 ${TOTAL_TIMEOUT:-540} bash bench/triton_unit/run.sh > "$RES/run.txt" 2>&1
echo "run.sh exit $?"
tar -czf "$OUT/triton_unit_cuda.tar.gz" -C "$RES" --exclude=./helpers --exclude=./site .
echo "================ summary"
cat "$RES/device.txt"
cat "$RES/run.txt"
