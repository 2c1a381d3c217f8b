#!/usr/bin/env bash
# Triton's unit tests, unmodified, through kernellab.as_triton and through real Triton (the
# reference), on the sample conftest.py draws.  Prints per target and per file how many cases
# pass and how many of the cases Triton passes kernellab passes, and keeps every outcome in
# $TRITON_UNIT_OUT (default: a fresh temporary folder).
#
#   TRITON_GIT=<git dir of a triton clone> TRITON_PYTHON=<python with triton 3.6 + torch + pytest> \
#     bench/triton_unit/run.sh [pytest args, e.g. test_core.py -k dot]
#
# TARGET=host (default): the reference is Triton's interpreter (TRITON_INTERPRET=1); kernellab
#   runs on its interpret and cpu targets; `--device cpu`.
# TARGET=cuda: the reference is Triton compiled for the GPU; kernellab runs with
#   KERNELLAB_TARGET=cuda; `--device cuda`; the CUDA-only files too (see CUDA_FILES); both runs
#   at once (JOBS workers each, default 8) with a per-case timeout (CASE_TIMEOUT, default 60 s,
#   pytest-timeout) and a limit on each whole run (RUN_TIMEOUT, default 360 s: it is then
#   interrupted, and the cases done so far count).  test_debug.py runs apart, each case in a
#   child process (--forked, as Triton's CI runs it: a failed device assert ends the process's
#   CUDA context; DEBUG_TIMEOUT, default 80 s), when pytest-forked is there; else it is left out.
#   bench/triton_unit/device_run.sh runs it on the device machine.
#
# JOBS: pytest-xdist workers (default 2 on the host; none when xdist is missing).
# TRITON_UNIT_OUT=<folder with a triton.log from an earlier run> reuses that reference run.
# KL_PYTHON: kernellab's python (default the repository's .venv); it may have Triton installed:
#   the alias takes the name `triton` before anything imports it, in every process of the run
#   (alias/sitecustomize.py: xdist workers and the tests' subprocesses too), and conftest.py
#   stops the run if a kernellab run sees the real Triton.
#
# TRITON_GIT (with TRITON_REF, default release/3.6.x): the test files are taken from that commit
# into this folder (not kept in the repository, see .gitignore).  Without it the files already
# here are used.  The `fetch` tool's snapshot of github:woct0rdho/triton-windows carries the
# upstream release/3.6.x branch; any clone of github.com/triton-lang/triton does.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kl=${KL_PYTHON:-$root/.venv/bin/python}
tr=${TRITON_PYTHON:?set TRITON_PYTHON to a python with triton installed}
case $tr in /*) ;; */*) tr=$PWD/$tr;; esac  # the runs start in this folder
case $kl in /*) ;; */*) kl=$PWD/$kl;; esac
target=${TARGET:-host}
out=${TRITON_UNIT_OUT:-$(mktemp -d)}
mkdir -p "$out"
# The files that run on a CPU-only machine in Triton's interpreter.  Left out: runtime/test_subproc
# (a driver at collection), runtime/test_cache (the expecttest package), and the files testing
# Triton's own C++ and compiler internals rather than what a kernel does, which no other
# implementation can pass: runtime/test_specialize (triton._C's specializer, Triton's NVIDIA/AMD
# backend classes, gluon), tools/test_linear_layout (triton._C's LinearLayout), runtime/test_build
# (Triton's C-extension builder), tools/test_aot (Triton's AOT compiler and TTGIR files).  Every
# other file of python/test/unit fails or skips every case there.
FILES="language/test_core.py language/test_tuple.py language/test_standard.py language/test_random.py
language/test_compile_errors.py language/test_annotations.py language/test_decorator.py
language/test_conversions.py language/test_libdevice.py language/test_block_pointer.py language/test_mxfp.py
language/test_reproducer.py language/test_frontend.py language/test_subprocess.py language/print_helper.py
language/test_tensor_descriptor.py language/test_line_info.py test_debug.py test_knobs.py
instrumentation/test_gpuhello.py runtime/test_autotuner.py runtime/test_launch.py runtime/test_driver.py"
# The files that need a GPU (on the host Triton's interpreter fails or skips all their cases).
# Triton's cuda/ folder (a package) comes as cuda_unit/: its test_libdevice.py and
# test_tensor_descriptor.py share names with language/'s, and a package named `cuda` would hide
# cuda-python's.
CUDA_FILES="language/test_matmul.py language/test_pipeliner.py language/test_warp_specialization.py
cuda/__init__.py cuda/test_tensor_descriptor.py cuda/test_tma_descriptor.py cuda/test_tma_store_gemm.py
cuda/test_mixed_io.py cuda/test_libdevice.py"
if [ -n "${TRITON_GIT:-}" ]; then
  mkdir -p "$here/cuda_unit"
  for f in $FILES $CUDA_FILES; do
    case $f in cuda/*) dest="$here/cuda_unit/${f#cuda/}";; *) dest="$here/$(basename "$f")";; esac
    git -C "$TRITON_GIT" show "${TRITON_REF:-release/3.6.x}:python/test/unit/$f" > "$dest"
  done
fi
# Triton's test helpers (triton._internal_testing) come from the installed Triton, on a path of
# their own so that nothing else of that install is visible to kernellab's run.
helpers="$out/helpers/triton"
mkdir -p "$helpers"
cp "$("$tr" -c 'import triton, os; print(os.path.dirname(triton.__file__))')/_internal_testing.py" "$helpers/"
# scipy, which test_random.py imports, on both sides' paths when a python lacks it
site="$out/site"
if ! "$kl" -c 'import scipy' 2>/dev/null || ! "$tr" -c 'import scipy' 2>/dev/null; then
  [ -d "$site/scipy" ] || "$kl" -m pip install -q --no-deps --retries 0 --timeout 10 --target "$site" scipy \
    || echo "no scipy (offline?): test_random.py will fail at collection where it is missing"
fi
cd "$here"

common=(-p no:cacheprovider --continue-on-collection-errors -rA)
forked=()
if [ "$target" = cuda ]; then
  jobs=${JOBS:-8}
  # -v: a line per case as it ends, so that an interrupted run still tells what it did
  common+=(-v --device cuda)
  "$tr" -c 'import pytest_timeout' 2>/dev/null && "$kl" -c 'import pytest_timeout' 2>/dev/null \
    && common+=(--timeout "${CASE_TIMEOUT:-60}")
  args=("$@")
  if [ ${#args[@]} -eq 0 ]; then
    args=(. --ignore=test_debug.py)
    "$tr" -c 'import pytest_forked' 2>/dev/null && "$kl" -c 'import pytest_forked' 2>/dev/null && forked=(test_debug.py)
  fi
  targets=cuda
else
  jobs=${JOBS:-2}
  common+=(-q --device cpu)
  args=("$@")
  # the host run leaves out the GPU-only files (pytest would collect them from `.`)
  if [ ${#args[@]} -eq 0 ]; then
    for f in $FILES; do case $f in *_helper.py) ;; *) args+=("$(basename "$f")");; esac; done
  fi
  targets="interpret cpu"
fi
xdist() { "$1" -c 'import xdist' 2>/dev/null && [ "$jobs" -gt 1 ] && echo "-n $jobs"; true; }
# limit SECONDS command...: on the GPU, interrupted after SECONDS (pytest then reports what it ran)
limit() { local s=$1; shift; if [ "$target" = cuda ]; then timeout -s INT -k 20 "$s" "$@"; else "$@"; fi; }
main_limit=${RUN_TIMEOUT:-360} forked_limit=${DEBUG_TIMEOUT:-80}
# "STATUS id" per case, from -rA's summary and -v's lines ("[gw3] [ 12%] PASSED path::case",
# "path::case PASSED [ 12%]"), the id relative to this folder
outcomes() {
  awk '{ st = ""; id = ""
         for (i = 1; i <= NF && i <= 5; i++) if ($i ~ /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)$/) { st = $i; break }
         if (st == "") next
         for (j = 1; j <= NF && j <= 6; j++) if ($j ~ /::/ || $j ~ /\.py$/) { id = $j; break }
         if (id == "") next
         sub(/^bench\/triton_unit\//, "", id); print st, id }' | sort -u
}

reference() {  # Triton's run; an output folder holding its log keeps it
  [ -s "$out/triton.log" ] && return 0
  local interp=1; [ "$target" = cuda ] && interp=0
  local env=(TRITON_UNIT_EXPECT=triton TRITON_INTERPRET=$interp PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}")
  limit "$main_limit" env "${env[@]}" "$tr" -m pytest "${common[@]}" $(xdist "$tr") "${args[@]}" \
    > "$out/triton.log" 2>&1 || true
  [ ${#forked[@]} -eq 0 ] || limit "$forked_limit" env "${env[@]}" "$tr" -m pytest "${common[@]}" $(xdist "$tr") --forked \
    "${forked[@]}" >> "$out/triton.log" 2>&1 || true
}
ours() {  # kernellab's run on target $1
  # Triton's helpers ask TRITON_INTERPRET whether they run in an interpreter
  local interp=0; [ "$1" = interpret ] && interp=1
  local env=(TRITON_UNIT_EXPECT=kernellab TRITON_INTERPRET=$interp KERNELLAB_TARGET=$1
             PYTHONPATH="$here/alias:$root:$out/helpers:$site${PYTHONPATH:+:$PYTHONPATH}")
  local run=("$kl" -m kernellab.as_triton -m pytest -p kernellab.as_triton.pytest_plugin "${common[@]}" $(xdist "$kl"))
  limit "$main_limit" env "${env[@]}" "${run[@]}" "${args[@]}" > "$out/$1.log" 2>&1 || true
  [ ${#forked[@]} -eq 0 ] || limit "$forked_limit" env "${env[@]}" "${run[@]}" --forked "${forked[@]}" \
    >> "$out/$1.log" 2>&1 || true
}
start=$SECONDS
if [ "$target" = cuda ]; then  # one GPU, 16 cores: both runs at once
  reference & ours cuda & wait
else
  reference
  for t in $targets; do ours "$t"; done
fi
for t in triton $targets; do outcomes < "$out/$t.log" > "$out/$t"; done

echo "outcomes in $out ($((SECONDS - start)) s)"
passed() { { grep '^PASSED' "$out/$1" || true; } | cut -d' ' -f2 | sort -u; }
ref=$(passed triton | wc -l)
echo "triton ($target reference): $ref passed of $(cut -d' ' -f2 "$out/triton" | sort -u | wc -l) cases"
for t in $targets; do
  both=$(comm -12 <(passed triton) <(passed "$t") | wc -l)
  # cases Triton passed that this run never reached (an interrupted run)
  unreached=$(comm -23 <(passed triton) <(cut -d' ' -f2 "$out/$t" | sort -u) | wc -l)
  echo "kernellab $t: $(passed "$t" | wc -l) passed; $both of triton's $ref ($unreached of them not reached)"
done
# per file: Triton's passes, and kernellab's passes among them
{
  printf '%-38s %8s' file triton
  for t in $targets; do printf ' %10s' "$t"; done; echo
  for f in $(passed triton | sed 's/::.*//' | sort -u); do
    printf '%-38s %8s' "$f" "$(passed triton | grep -c "^$f::" || true)"
    for t in $targets; do
      printf ' %10s' "$(comm -12 <(passed triton | grep "^$f::") <(passed "$t") | wc -l)"
    done; echo
  done
} | tee "$out/table.txt"
