#!/bin/bash
# Where the tutorial matmul's warps stall, kernellab against Triton (issue 12): Nsight Compute's
# warp-state statistics and its per-instruction (SASS) stall samples for one launch of each
# compiler's 128x128x64 matmul.  Results in $OUT/ncu_stalls.tar.gz.
# Usage (device machine, repo root, .whl carried): [WARPS=4] bash bench/ncu_stalls.sh
set -o pipefail
OUT=${OUT:-/tmp/out}
RES=/tmp/ncu_stalls
mkdir -p "$OUT" "$RES"
source bench/device_site.sh || exit 1
export PYTHONUNBUFFERED=1 KERNELLAB_CACHE_DIR=/tmp/klcache
tool=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for warps in ${WARPS:-4}; do
  timeout 100 "$tool" --clock-control none --set none --section WarpStateStats --section SourceCounters \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -k regex:matmul -c 2 \
    -o "$RES/mm$warps" -f python3 bench/ncu_probe.py --only matmul --launches 1 --warps $warps > "$RES/run$warps.log" 2>&1
  echo "ncu ($warps warps) exit $?"
  "$tool" -i "$RES/mm$warps.ncu-rep" --page details --print-details all > "$RES/details$warps.txt" 2>&1
  "$tool" -i "$RES/mm$warps.ncu-rep" --page source --csv --print-source sass > "$RES/source$warps.csv" 2>&1
  echo "pages exit $? ($(wc -l < "$RES/source$warps.csv") source lines)"
done
tar -czf "$OUT/ncu_stalls.tar.gz" -C "$RES" --exclude='*.ncu-rep' .
grep -E "Stall|stall|Warp Cycles|Issue Slots|Eligible|Pipe|Tensor" "$RES"/details*.txt | head -80
