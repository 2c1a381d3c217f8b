#!/usr/bin/env bash
# Triton's unit tests, unmodified, through kernellab.as_triton (interpret and cpu targets) and
# through real Triton's interpreter (the reference); on the sample conftest.py draws.  Prints per
# target how many cases pass and how many of the cases Triton passes kernellab passes, and keeps
# every outcome in $TRITON_UNIT_OUT (default: a fresh temporary folder).
#
#   TRITON_GIT=<git dir of a triton clone> TRITON_PYTHON=<python with triton 3.6 + torch + pytest> \
#     bench/triton_unit/run.sh [pytest args, e.g. test_core.py -k dot]
#
# TRITON_UNIT_OUT=<folder with a triton.log from an earlier run> reuses that reference run.
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
out=${TRITON_UNIT_OUT:-$(mktemp -d)}
mkdir -p "$out"
# The files run on a CPU-only machine: the rest need CUDA (test_matmul), a driver at collection
# (runtime/test_subproc) or the expecttest package (runtime/test_cache); runtime/test_specialize
# tests Triton's C++ specializer and its NVIDIA/AMD backend classes (triton._C), not behaviour
# a kernel sees, so it is left out too.
FILES="language/test_core.py language/test_tuple.py language/test_standard.py language/test_random.py
language/test_compile_errors.py language/test_annotations.py language/test_decorator.py
language/test_conversions.py language/test_libdevice.py language/test_block_pointer.py language/test_mxfp.py
language/test_reproducer.py language/test_frontend.py language/test_subprocess.py language/print_helper.py
runtime/test_autotuner.py runtime/test_launch.py runtime/test_driver.py"
if [ -n "${TRITON_GIT:-}" ]; then
  for f in $FILES; do
    git -C "$TRITON_GIT" show "${TRITON_REF:-release/3.6.x}:python/test/unit/$f" > "$here/$(basename "$f")"
  done
fi
# Triton's test helpers (triton._internal_testing) come from the installed Triton, on a path of
# their own so that nothing else of that install is visible to kernellab's run.
helpers="$out/helpers/triton"
mkdir -p "$helpers"
cp "$("$tr" -c 'import triton, os; print(os.path.dirname(triton.__file__))')/_internal_testing.py" "$helpers/"
# scipy, which test_random.py imports, beside them when kernellab's python lacks it
"$kl" -c 'import scipy' 2>/dev/null || "$kl" -m pip install -q --no-deps --target "$out/helpers" scipy
cd "$here"
outcomes() { grep -E '^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)' | awk '{print $1, $2}' | sort; }
# Triton's run takes ~10 minutes on two cores: an output folder holding its log keeps it
if [ ! -s "$out/triton.log" ]; then
  TRITON_INTERPRET=1 "$tr" -m pytest -q -p no:cacheprovider --continue-on-collection-errors -rA "$@" > "$out/triton.log" 2>&1 || true
fi
outcomes < "$out/triton.log" > "$out/triton"
for target in interpret cpu; do
  # Triton's helpers ask TRITON_INTERPRET whether they run in an interpreter
  interp=0; [ "$target" = interpret ] && interp=1
  TRITON_INTERPRET=$interp KERNELLAB_TARGET=$target PYTHONPATH="$root:$out/helpers" "$kl" -m kernellab.as_triton -m pytest -q \
    -p no:cacheprovider --continue-on-collection-errors -rA "$@" > "$out/$target.log" 2>&1 || true
  outcomes < "$out/$target.log" > "$out/$target"
done
ref=$(grep -c '^PASSED' "$out/triton" || true)
echo "outcomes in $out"
echo "triton interpreter: $ref passed of $(wc -l < "$out/triton")"
for target in interpret cpu; do
  both=$(comm -12 <(grep '^PASSED' "$out/triton" | cut -d' ' -f2) <(grep '^PASSED' "$out/$target" | cut -d' ' -f2) | wc -l)
  echo "kernellab $target: $(grep -c '^PASSED' "$out/$target" || true) passed; $both of triton's $ref"
done
