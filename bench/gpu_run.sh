#!/bin/bash
# One device call: the CUDA codegen's GPU tests, then bench/gpu_suite.py (results under $OUT).
# Usage (on the device machine, repo root, .whl carried): bash bench/gpu_run.sh [tests|bench|all]
set -o pipefail
what=${1:-all}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
python3 -c "import llvmlite, triton, torch; print('llvmlite', llvmlite.__version__, 'triton', triton.__version__, 'torch', torch.__version__)"
if [ "$what" != bench ]; then
  # a device-side assert leaves its process's CUDA context unusable: that test runs alone, last
  assert_test="tests/language/test_debug.py::test_device_assert_in_debug_mode"
  timeout 200 python3 -m pytest tests/backends/cuda/test_codegen_gpu.py tests/language tests/tutorials -m gpu -q \
    -n 8 -p no:cacheprovider --timeout 90 --tb=short -rf --deselect "$assert_test[cuda]" > "$OUT/tests.log" 2>&1
  echo "tests exit $?"; grep -E "passed|failed" "$OUT/tests.log" | tail -3
  grep -E "^FAILED" "$OUT/tests.log" | cut -c1-230 | head -40
  KERNELLAB_CUDA_PIPELINE=0 timeout 120 python3 -m pytest tests/backends/cuda/test_codegen_gpu.py tests/tutorials \
    -m gpu -q -n 8 -p no:cacheprovider --timeout 90 --tb=short -k "dot or matmul or attention" \
    > "$OUT/tests-no-pipeline.log" 2>&1
  echo "tests without pipelining exit $?"; grep -E "passed|failed" "$OUT/tests-no-pipeline.log" | tail -2
  timeout 60 python3 -m pytest "$assert_test" -m gpu -q -p no:cacheprovider --tb=short -k cuda > "$OUT/assert.log" 2>&1
  echo "assert test exit $?"; grep -E "^E .*Error|passed|failed" "$OUT/assert.log" | head -5
fi
if [ "$what" != tests ]; then
  timeout 300 python3 bench/gpu_suite.py --out "$OUT" > "$OUT/bench.log" 2>&1
  echo "bench exit $?"; tail -14 "$OUT/bench.log"
  KERNELLAB_CUDA_PIPELINE=0 timeout 150 python3 bench/gpu_suite.py --out "$OUT" --only matmul attention \
    --label no-pipeline > "$OUT/bench-no-pipeline.log" 2>&1
  echo "bench (no pipelining) exit $?"; tail -6 "$OUT/bench-no-pipeline.log"
fi
