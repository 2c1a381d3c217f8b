#!/bin/bash
# One device call for the tensor-core work (issue 12): the matmul (fp16, bf16, fp8) and attention
# rows against Triton and torch in one process, with A/B variants of kernellab's code launched
# through ir_override in the same process (`base`: the PTX of the package in .base/kernellab when
# it is carried, e.g. a worktree copy of the commit before a change; `nowide`: this
# run's PTX edited, see below), then the GPU tests (TESTS: the paths; by default every `gpu`
# test but the notebooks'), then Nsight Compute on the matmul and attention.  STEPS picks the
# steps (default "bench tests ncu"), so that each call stays within the device's 10 minutes.
# Usage (device machine, repo root, .whl carried): STEPS="bench" bash bench/tensor_core_run.sh
set -o pipefail
OUT=${OUT:-/tmp/out}
RES=/tmp/tensor_core_run
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 PYTHONFAULTHANDLER=1 KERNELLAB_CACHE_DIR=/tmp/klcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$RES/device.txt"
ONLY=${ONLY:-matmul fp8 persistent attention}
STEPS=" ${STEPS:-bench tests ncu} "

if [[ "$STEPS" == *" bench "* ]]; then
# nowide: this run's PTX with ptx.widen_offsets undone (mul.wide.s32 again for the cvt + shl of
# the 64-bit offsets, shifts 1-4), i.e. the code generator before that change
undo() { echo "cvt\\.s64\\.s32 \\t(%rd\\d+), (%r\\d+);\\n\\tshl\\.b64 \\t\\1, \\1, $1;=>mul.wide.s32 \\t\\1, \\2, $2;"; }
variants=(--variant "nowide=sub:$(undo 1 2) && $(undo 2 4) && $(undo 3 8) && $(undo 4 16)")
if [ -d .base/kernellab ]; then
  echo "== PTX of the base package"
  KERNELLAB_CACHE_DIR=/tmp/klcache-base timeout ${DUMP_TIMEOUT:-150} python3 bench/gpu_suite.py --kernellab-path .base \
    --dump-ptx /tmp/base-ptx --no-time --only $ONLY > "$RES/base_dump.log" 2>&1
  echo "base dump exit $? ($(ls /tmp/base-ptx 2>/dev/null | wc -l) files)"
  variants+=(--variant base=/tmp/base-ptx)
fi
echo "== benchmarks"
timeout ${BENCH_TIMEOUT:-300} python3 bench/gpu_suite.py --out "$RES" --only $ONLY --rounds ${ROUNDS:-3} \
  "${variants[@]}" > "$RES/gpu_suite.log" 2>&1
echo "gpu_suite exit $?"; grep -E "FAILED|Error" "$RES/gpu_suite.log" | cut -c1-300 | head -20
fi

if [[ "$STEPS" == *" tests "* ]]; then
  echo "== gpu tests"
  timeout ${TEST_TIMEOUT:-200} python3 -m pytest ${TESTS:-tests} -m gpu -q -n 8 -p no:cacheprovider --timeout 120 \
    --tb=short -rfs --ignore=tests/extension --ignore=tests/notebook > "$RES/tests.log" 2>&1
  echo "tests exit $?"; grep -E "^FAILED|^ERROR" "$RES/tests.log" | cut -c1-300 | head -30
fi

if [[ "$STEPS" == *" ncu "* ]]; then
  tool=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -n "$tool" ]; then
    echo "== ncu"
    timeout ${NCU_TIMEOUT:-150} "$tool" --clock-control none --section SchedulerStats --section WarpStateStats \
      --section Occupancy --section LaunchStats -k regex:'matmul|attn' python3 bench/ncu_probe.py \
      > "$RES/ncu.txt" 2>&1
    echo "ncu exit $?"
  fi
fi
tar -czf "$OUT/tensor_core_run.tar.gz" -C "$RES" .
echo "================ summary"
[ -f "$RES/tests.log" ] && grep -E "passed|failed" "$RES/tests.log" | tail -1
[ -f "$RES/gpu_suite.log" ] && sed -n '/^| workload/,$p' "$RES/gpu_suite.log" | head -40
[ -f "$RES/ncu.txt" ] && grep -E "==PROF==|matmul|attn|Issue Slots Busy|Warp Cycles Per Issued|No Eligible|Achieved Occupancy|Registers Per|One or More" "$RES/ncu.txt" | head -60
