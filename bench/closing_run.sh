#!/bin/bash
# The 2026-12-04 session's H200 measurements in two back-to-back device calls (each within the
# device's 10 minutes; the second finds the machine warm):
#   PART=x  the GPU tests (all but the notebooks'), attention rows against Triton and torch with
#           a variant of kernellab from .base (its PTX run in the same process: tensor_core_run.sh),
#           the cached first launch before/after the cache hardening (bench/cache_ab.py, .base26 =
#           a tree of commit 26c9f45) on the CUDA target, and the hot launch.
#           carry: .whl .base .base26
#   PART=y  Triton 3.6's unit tests on the GPU, real Triton against kernellab's cuda target
#           (bench/triton_unit/device_run.sh).   carry: .whl bench/triton_unit
# Results under $OUT; a short table prints last.
set -o pipefail
OUT=${OUT:-/tmp/out}
PART=${PART:-x}
mkdir -p "$OUT"
if [ "$PART" = y ]; then
  bash bench/triton_unit/device_run.sh
  exit $?
fi
RES=/tmp/closing_x
mkdir -p "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$RES/device.txt"
echo "== gpu tests"
timeout 150 python3 -m pytest tests -m gpu -q -n 8 -p no:cacheprovider --timeout 120 --tb=short -rf \
  --ignore=tests/extension --ignore=tests/notebook > "$RES/gpu_tests.log" 2>&1
echo "gpu tests exit $?"; grep -E "^FAILED|^ERROR|passed|failed" "$RES/gpu_tests.log" | cut -c1-200 | tail -12
echo "== attention, kernellab against .base's variant"
OUT=$RES ONLY=attention ROUNDS=${ROUNDS:-2} STEPS=bench BENCH_TIMEOUT=240 bash bench/tensor_core_run.sh 2>&1 | sed -n "/================ summary/,\$p" | head -45
echo "== cached first launch, 26c9f45 against this tree"
timeout 120 python3 bench/cache_ab.py .base26 . --cuda --rounds ${CACHE_ROUNDS:-4} --runs 5 \
  --json "$RES/cache_ab_cuda.json" > "$RES/cache_ab.log" 2>&1
echo "cache_ab exit $?"; tail -12 "$RES/cache_ab.log"
echo "== hot launch"
timeout 40 python3 bench/launch_overhead_cuda.py --rounds 3 --out "$RES/launch_overhead_cuda.json" > "$RES/hot.log" 2>&1
echo "hot exit $?"; tail -6 "$RES/hot.log"
cp /tmp/tensor_core_run/*.json /tmp/tensor_core_run/*.md "$RES/" 2>/dev/null
tar -czf "$OUT/closing_x.tar.gz" -C "$RES" .
