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
#   PART=p  (issue 17's last figures) the hot launch with every timed process on one
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
hot() {  # issue 17's hot launch, before/after
  ROUNDS=${ROUNDS:-6} timeout 330 bash bench/hot_cuda_ab.sh > "$OUT/hot_cuda_ab.txt" 2>&1
  echo "hot_cuda_ab exit $?"; tail -12 "$OUT/hot_cuda_ab.txt"
}
gpu_tests() {
  KERNELLAB_CACHE_DIR=/tmp/klcache timeout 200 python3 -m pytest tests/compat tests/pytorch tests/runtime/test_pickling.py \
    tests/language/test_extra_cuda.py tests/profiler -m gpu -q -n 4 -p no:cacheprovider --tb=short -rfs \
    > "$OUT/gpu_tests.log" 2>&1
  echo "gpu tests exit $?"; grep -E "^FAILED|^ERROR|passed|failed" "$OUT/gpu_tests.log" | cut -c1-220 | tail -20
}
first_launch() {  # the cached first launch, order alternating, with the collections in each
  ROUNDS=${FIRST_ROUNDS:-6} RUNS=5 timeout ${FIRST_TIMEOUT:-240} bash bench/first_launch_ab.sh \
    > "$OUT/first_launch_ab.txt" 2>&1
  grep -E "^==|kernellab cuda|gc in|less gc" "$OUT/first_launch_ab.txt" | cut -c1-150
}
pinned() {  # about 4 minutes
  PIN_CPU=3 ROUNDS=${ROUNDS:-8} NO_SECOND=1 timeout 200 bash bench/hot_cuda_ab.sh > "$OUT/hot_cuda_ab.txt" 2>&1
  tail -6 "$OUT/hot_cuda_ab.txt"
  PIN_CPU=3 SHIFTS=1 ARRAYS=kl ROUNDS=2 RUNS=${RUNS:-20} timeout 150 bash bench/first_launch_ab.sh \
    > "$OUT/first_launch_shifted.txt" 2>&1
  grep -hE "^==|kernellab cuda|means:|less gc" "$OUT/first_launch_shifted.txt" | cut -c1-150
}
inductor() {
  KERNELLAB_CACHE_DIR=/tmp/klcache timeout 560 python3 bench/inductor_ab.py --rounds ${ROUNDS:-2} --out "$OUT" \
    > "$OUT/inductor_ab.log" 2>&1
  echo "inductor_ab exit $?"; tail -12 "$OUT/inductor_ab.log"
}
case "$PART" in
  a) if [ -n "$TESTS_ONLY" ]; then gpu_tests; else hot; gpu_tests; first_launch; fi ;;
  f) hot; first_launch ;;
  p) pinned ;;
  b) inductor ;;
  *) echo "PART is a, b, f or p, not $PART"; exit 2 ;;
esac
