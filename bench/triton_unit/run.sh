#!/usr/bin/env bash
# Triton's unit tests, unmodified, through kernellab.as_triton (interpret and cpu targets) and
# through real Triton's interpreter; prints per target: passed, and how many of the cases
# Triton passes kernellab passes.  Copy the test files (github.com/triton-lang/triton,
# python/test/unit/language/...) into bench/triton_unit/ first; they are not kept in this repository.
#   KL_PYTHON=.venv/bin/python TRITON_PYTHON=/path/to/venv-with-triton/bin/python bench/triton_unit/run.sh test_tuple.py
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kl=${KL_PYTHON:-$root/.venv/bin/python}
tr=${TRITON_PYTHON:?set TRITON_PYTHON to a python with triton installed}
out=$(mktemp -d)
cd "$here"
outcomes() { grep -E '^(PASSED|FAILED|ERROR)' | awk '{print $1, $2}' | sort; }
TRITON_INTERPRET=1 "$tr" -m pytest -q -p no:cacheprovider -rA "$@" 2>&1 | outcomes > "$out/triton" || true
for target in interpret cpu; do
  KERNELLAB_TARGET=$target PYTHONPATH=$root "$kl" -m kernellab.as_triton -m pytest -q -p no:cacheprovider -rA "$@" \
    2>&1 | outcomes > "$out/$target" || true
done
ref=$(grep -c '^PASSED' "$out/triton" || true)
echo "triton interpreter: $ref passed of $(wc -l < "$out/triton")"
for target in interpret cpu; do
  both=$(comm -12 <(grep '^PASSED' "$out/triton" | cut -d' ' -f2) <(grep '^PASSED' "$out/$target" | cut -d' ' -f2) | wc -l)
  echo "kernellab $target: $(grep -c '^PASSED' "$out/$target" || true) passed; $both of triton's $ref"
done
