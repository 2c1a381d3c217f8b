#!/bin/bash
# The next H200 call (2026-12-05, a session without a device loan prepared it), two parts:
#   PART=a  issue 17's hot launch before/after (ROUNDS=6 bash bench/hot_cuda_ab.sh: 26c9f45 = .base26
#           against this tree, order alternating, second launch profiled), then the gpu tests of the
#           torch inductor path (tests/compat/test_as_triton_children.py, tests/runtime/test_pickling.py)
#           and every other gpu test of tests/compat and tests/pytorch, and tl.extra.cuda's
#           (programmatic dependent launch: gdc_wait, gdc_launch_dependents) and the profiler's
#           (kernel times by CUDA events against do_bench), then bench/first_launch_ab.sh
#           (the cached first launch, order alternating)                        (carry .whl, .base26)
#   PART=b  bench/inductor_ab.py: torch.compile's generated Triton kernels compiled by Triton 3.6 and
#           by kernellab through the alias, same models, same run                (carry .whl)
#   PART=p  (the next H200 call: issue 17's last figures) the hot launch with every timed process on one
#           core (PIN_CPU=3 ROUNDS=8 bash bench/hot_cuda_ab.sh) and the DeviceArray cached first launch
#           spread over the garbage collector's cycle (SHIFTS=1 bash bench/first_launch_ab.sh)
#                                                                        (carry .whl, .base26)
#   TESTS_ONLY=1 with PART=a: the gpu tests alone; PART=f: part a without the gpu tests
# Logs and results go to $OUT; a short table prints last.
set -o pipefail
OUT=${OUT:-/tmp/out}
PART=${PART:-a}
mkdir -p "$OUT"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader | tee "$OUT/device.txt"
if [ "$PART" = p ]; then  # the pinned A/B (see the header); about 4 minutes
  PIN_CPU=3 ROUNDS=${ROUNDS:-8} NO_SECOND=1 timeout 200 bash bench/hot_cuda_ab.sh > "$OUT/hot_cuda_ab.txt" 2>&1
  tail -6 "$OUT/hot_cuda_ab.txt"; cp "$OUT/hot_cuda_ab.log" "$OUT/hot_cuda_ab_pinned.log" 2>/dev/null
  PIN_CPU=3 SHIFTS=1 ARRAYS=kl ROUNDS=2 RUNS=${RUNS:-20} timeout 150 bash bench/first_launch_ab.sh \
    > "$OUT/first_launch_shifted.txt" 2>&1
  grep -hE "^==|kernellab cuda|means:|less gc" "$OUT/first_launch_shifted.txt" | cut -c1-150
  exit 0
fi
if [ "$PART" = f ] || { [ "$PART" = a ] && [ -z "$TESTS_ONLY" ]; }; then
  ROUNDS=${ROUNDS:-6} timeout 330 bash bench/hot_cuda_ab.sh > "$OUT/hot_cuda_ab.txt" 2>&1
  echo "hot_cuda_ab exit $?"
fi
if [ "$PART" = a ]; then
  KERNELLAB_CACHE_DIR=/tmp/klcache timeout 200 python3 -m pytest tests/compat tests/pytorch tests/runtime/test_pickling.py tests/language/test_extra_cuda.py tests/profiler \
    -m gpu -q -n 4 -p no:cacheprovider --tb=short -rfs > "$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $?"; grep -E "^FAILED|^ERROR|passed|failed" "$OUT/gpu_tests.log" | cut -c1-220 | tail -20
  [ -n "$TESTS_ONLY" ] && exit 0
fi
if [ "$PART" = a ] || [ "$PART" = f ]; then
  tail -12 "$OUT/hot_cuda_ab.txt"
  # the cached first launch, order alternating (DeviceArrays were +0.1-0.7 ms on the H100 in 2 rounds)
  ROUNDS=${FIRST_ROUNDS:-6} RUNS=5 timeout ${FIRST_TIMEOUT:-240} bash bench/first_launch_ab.sh > "$OUT/first_launch_ab.txt" 2>&1
  grep -E "^==|kernellab cuda|gc in|less gc" "$OUT/first_launch_ab.txt" | cut -c1-150
else
  KERNELLAB_CACHE_DIR=/tmp/klcache timeout 560 python3 bench/inductor_ab.py --rounds ${ROUNDS:-2} --out "$OUT" \
    > "$OUT/inductor_ab.log" 2>&1
  echo "inductor_ab exit $?"; tail -12 "$OUT/inductor_ab.log"
fi
