#!/bin/bash
# One device call for the tensor-core work (issue 12): the tensor-core GPU tests, then the matmul
# (fp16, bf16, fp8) and attention rows against Triton and torch in one process.
# Usage (device machine, repo root, .whl carried): bash bench/tensor_core_run.sh [pytest -k expr]
set -o pipefail
OUT=${OUT:-/tmp/out}
RES=/tmp/tensor_core_run
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$RES/device.txt"
echo "== tensor-core gpu tests"
timeout ${TEST_TIMEOUT:-240} python3 -m pytest tests/backends/cuda/test_tensor_cores_gpu.py -q -n 8 -p no:cacheprovider \
  --tb=line -rf ${1:+-k "$1"} > "$RES/tests.log" 2>&1
echo "tests exit $?"; grep -E "^FAILED|Error|error" "$RES/tests.log" | cut -c1-300 | head -30
echo "== benchmarks"
timeout ${BENCH_TIMEOUT:-300} python3 bench/gpu_suite.py --out "$RES" --only ${ONLY:-matmul fp8 attention} --rounds ${ROUNDS:-3} \
  > "$RES/gpu_suite.log" 2>&1
echo "gpu_suite exit $?"; grep -E "FAILED|Error" "$RES/gpu_suite.log" | cut -c1-300 | head -20
tar -czf "$OUT/tensor_core_run.tar.gz" -C "$RES" .
echo "================ summary"
grep -E "passed|failed" "$RES/tests.log" | tail -1
grep -E "^\|" "$RES/gpu_suite.log" | tail -12
