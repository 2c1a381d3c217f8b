#!/bin/bash
# The session's measurement on the H200 in two back-to-back device calls (each within the
# device's 10 minutes; the machine stays warm between them, keeping /tmp/site and the carried
# wheels):
#   PART=a  every `gpu` test but the notebooks', the side-by-side suite (bandwidth rows, matmul
#           fp16/bf16/fp8, the persistent and TMA matmuls, attention) against Triton and torch,
#           kernellab.torch's host cost, the hot and cold launch costs;          (.whl carried)
#   PART=b  a 10,240-program differential fuzzing run on interpret, cpu and cuda (bench/fuzz_gpu.sh), the gpu tests
#           changed since part a, the CUDA-graph capture probe, the cache-hardening before/after of
#           the cached launch, and the notebooks' gpu tests when .nbwhl is carried.
#           (.whl and .base26 carried: a tree of commit 26c9f45, before the hardening)
# Results in $OUT/final_<part>.tar.gz; a short table prints last.
set -o pipefail
OUT=${OUT:-/tmp/out}
PART=${PART:-a}
RES=/tmp/final_$PART
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee "$RES/device.txt"

if [ "$PART" = a ]; then
  echo "== gpu tests"
  timeout ${TEST_TIMEOUT:-150} python3 -m pytest tests -m gpu -q -n 8 -p no:cacheprovider --timeout 150 --tb=short -rfs \
    --ignore=tests/extension --ignore=tests/notebook > "$RES/gpu_tests.log" 2>&1
  echo "gpu tests exit $?"; grep -E "^FAILED|^ERROR" "$RES/gpu_tests.log" | cut -c1-220 | head -40
  echo "== suite"
  timeout ${BENCH_TIMEOUT:-260} python3 bench/gpu_suite.py --out "$RES" --rounds ${ROUNDS:-3} \
    --only add softmax layernorm matmul fp8 persistent tma hostdesc attention > "$RES/gpu_suite.log" 2>&1
  echo "gpu_suite exit $?"; grep -E "FAILED" "$RES/gpu_suite.log" | cut -c1-220 | head -10
  echo "== torch overhead"
  timeout 60 python3 bench/torch_overhead.py --rounds 5 --out "$RES" > "$RES/torch_overhead.log" 2>&1
  echo "torch exit $?"
  echo "== launch costs"
  timeout 35 python3 bench/launch_overhead_cuda.py --rounds 3 --out "$RES/launch_overhead_cuda.json" \
    > "$RES/hot_cuda.log" 2>&1; echo "hot exit $?"
  timeout 40 python3 bench/cold_start.py --target cuda --arrays torch --triton --runs 3 \
    --json "$RES/cold_start_cuda_torch.json" > "$RES/cold_torch.log" 2>&1; echo "cold torch exit $?"
else
  echo "== differential fuzzing on interpret, cpu and cuda: 16 processes x 160 kernels x 4 programs"
  OUT="$RES" PROCS=16 KERNELS=160 FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-200} bash bench/fuzz_gpu.sh
  echo "== gpu tests changed since part a"
  timeout 120 python3 -m pytest -q -n 8 -p no:cacheprovider --timeout 100 --tb=short -rfs -m gpu \
    tests/language/test_tuples.py tests/backends/cuda/test_tensor_cores_gpu.py tests/pytorch tests/runtime \
    > "$RES/gpu_tests_b.log" 2>&1
  echo "gpu tests exit $?"; grep -E "^FAILED|^ERROR" "$RES/gpu_tests_b.log" | cut -c1-220 | head -10
  echo "== graph probe"
  timeout 60 python3 bench/graph_probe.py > "$RES/graph_probe.txt" 2>&1; echo "graph probe exit $?"
  echo "== cache before/after"
  timeout 100 python3 bench/torch_cold_ab.py .base26 . --runs 6 --cuda gpu --json "$RES/torch_cold_ab.json" \
    > "$RES/torch_cold_ab.log" 2>&1; echo "cold ab exit $?"
  timeout 80 python3 bench/cache_ab.py .base26 . --cuda --rounds 2 --runs 5 --json "$RES/cache_ab.json" \
    > "$RES/cache_ab.log" 2>&1; echo "cache ab exit $?"
  if [ -d .nbwhl ]; then
    echo "== notebook gpu tests"
    timeout ${NB_TIMEOUT:-100} python3 -m pytest tests/notebook -m gpu -q -n 4 -p no:cacheprovider --timeout 90 \
      --tb=short -rfs > "$RES/nb_tests.log" 2>&1
    echo "notebook tests exit $?"
  fi
fi
tar -czf "$OUT/final_$PART.tar.gz" -C "$RES" .
echo "================ summary ($PART)"
for f in gpu_tests.log gpu_tests_b.log nb_tests.log; do [ -f "$RES/$f" ] && echo "$f: $(grep -E 'passed|failed' "$RES/$f" | tail -1)"; done
[ -f "$RES/gpu_suite.log" ] && sed -n '/^| workload/,$p' "$RES/gpu_suite.log" | head -20
[ -f "$RES/torch_overhead.log" ] && tail -8 "$RES/torch_overhead.log"
[ -f "$RES/hot_cuda.log" ] && tail -8 "$RES/hot_cuda.log"
[ -f "$RES/cold_torch.log" ] && tail -3 "$RES/cold_torch.log"
ls "$RES"/fuzz_gpu/fuzz_*.log >/dev/null 2>&1 && grep -h "programs in" "$RES"/fuzz_gpu/fuzz_*.log
[ -f "$RES/graph_probe.txt" ] && cat "$RES/graph_probe.txt"
[ -f "$RES/torch_cold_ab.log" ] && tail -6 "$RES/torch_cold_ab.log"
[ -f "$RES/cache_ab.log" ] && tail -8 "$RES/cache_ab.log"
exit 0
