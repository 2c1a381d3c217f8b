#!/bin/bash
# One device call measuring every launch cost of issues 3 and 4 (results and logs under $OUT):
#   hot CUDA launches (kernellab native / Python binder, torch tensors / DeviceArrays, Triton,
#   bare cuLaunchKernel), the first launch of new processes from a warm disk cache (kernellab
#   with torch tensors and with DeviceArrays, Triton, the CPU target), and the CPU target's hot
#   launches and small vector adds on the host's cores.
# Usage (device machine, repo root, .whl carried): bash bench/launch_device_run.sh
set -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
echo "== hot CUDA launches"
timeout 35 python3 bench/launch_overhead_cuda.py --rounds 3 --out "$OUT/launch_overhead_cuda.json" 2>&1 \
  | tee "$OUT/hot_cuda.log" | tail -15
echo "== new processes, CUDA, torch tensors (kernellab, Triton)"
timeout 50 python3 bench/cold_start.py --target cuda --arrays torch --triton --runs 2 --profile \
  --json "$OUT/cold_start_cuda_torch.json" 2>&1 | tail -4
echo "== new processes, CUDA, DeviceArrays"
timeout 15 python3 bench/cold_start.py --target cuda --arrays kl --runs 4 --profile \
  --json "$OUT/cold_start_cuda_kl.json" 2>&1 | tail -3
echo "== new processes, CPU"
timeout 10 python3 bench/cold_start.py --target cpu --runs 4 --json "$OUT/cold_start_cpu.json" 2>&1 | tail -3
echo "== CPU launches"
timeout 20 python3 bench/launch_overhead.py --launches 300 --repeats 12 --save 2>&1 | tail -14
cp bench/results/launch_overhead-cpu.json "$OUT/" 2>/dev/null
echo "done"
