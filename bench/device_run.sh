#!/bin/bash
# One device call for the whole GPU side: every `gpu` test (cuda target, notebooks included),
# the issue-4 benchmark rows against Triton and torch, and the launch costs (hot and cold).
# Everything lands in $OUT/device_run.tar.gz (logs and result files); a short table prints last.
# Usage (device machine, repo root, .whl and .nbwhl carried): bash bench/device_run.sh
set -o pipefail
OUT=${OUT:-/tmp/out}
RES=/tmp/device_run
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$RES/device.txt"
python3 -c "import llvmlite, triton, torch; print('llvmlite', llvmlite.__version__, 'triton', triton.__version__, 'torch', torch.__version__)" | tee -a "$RES/device.txt"

echo "== gpu tests"
timeout ${TEST_TIMEOUT:-200} python3 -m pytest tests -m gpu -q -n 8 -p no:cacheprovider --timeout 120 --tb=short -rfs \
  --ignore=tests/extension > "$RES/gpu_tests.log" 2>&1
echo "gpu tests exit $?"; grep -E "^FAILED|^ERROR|^SKIPPED" "$RES/gpu_tests.log" | cut -c1-200 | head -20

echo "== benchmarks (bandwidth rows, tensor-core rows)"
timeout ${BENCH_TIMEOUT:-240} python3 bench/gpu_suite.py --out "$RES" --rounds ${ROUNDS:-2} \
  --only add softmax layernorm matmul fp8 attention > "$RES/gpu_suite.log" 2>&1
echo "gpu_suite exit $?"
if [ -f bench/torch_overhead.py ]; then
  echo "== torch integration overhead"
  timeout 60 python3 bench/torch_overhead.py --out "$RES" > "$RES/torch_overhead.log" 2>&1; echo "torch exit $?"
fi

echo "== launch costs"
timeout 35 python3 bench/launch_overhead_cuda.py --rounds 3 --out "$RES/launch_overhead_cuda.json" \
  > "$RES/hot_cuda.log" 2>&1; echo "hot exit $?"
timeout 50 python3 bench/cold_start.py --target cuda --arrays torch --triton --runs 2 \
  --json "$RES/cold_start_cuda_torch.json" > "$RES/cold_torch.log" 2>&1; echo "cold torch exit $?"
timeout 15 python3 bench/cold_start.py --target cuda --arrays kl --runs 4 \
  --json "$RES/cold_start_cuda_kl.json" > "$RES/cold_kl.log" 2>&1; echo "cold kl exit $?"

tar -czf "$OUT/device_run.tar.gz" -C "$RES" .
echo "================ summary"
grep -E "passed|failed" "$RES/gpu_tests.log" | tail -1
grep -E "^\|" "$RES/gpu_suite.log" | tail -12
[ -f "$RES/torch_overhead.log" ] && tail -8 "$RES/torch_overhead.log"
tail -12 "$RES/hot_cuda.log"
tail -4 "$RES/cold_torch.log"
tail -3 "$RES/cold_kl.log"
