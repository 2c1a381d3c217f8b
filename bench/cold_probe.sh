#!/bin/bash
# Cold-path probe (device machine, repo root, .whl carried): the cached first kernel[grid](...) of a
# new process, with its phases, for DeviceArrays, torch CUDA tensors and the CPU target.  ~60 s.
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
python3 -m compileall -q kernellab bench > /dev/null  # bytecode present, as after an install
timeout 60 python3 bench/cold_start.py --target cuda --arrays kl --runs 7 --phases --json $OUT/cold_kl.json > $OUT/cold_kl.log 2>&1; echo "cold kl exit $?"
timeout 120 python3 bench/cold_start.py --target cuda --arrays torch --runs 7 --phases --json $OUT/cold_torch.json > $OUT/cold_torch.log 2>&1; echo "cold torch exit $?"
timeout 60 python3 bench/cold_start.py --target cpu --runs 7 --phases --json $OUT/cold_cpu.json > $OUT/cold_cpu.log 2>&1; echo "cold cpu exit $?"
python3 -c "import sys; print(sys.version)"; cat $OUT/cold_kl.log $OUT/cold_torch.log $OUT/cold_cpu.log
