#!/bin/bash
# Installs the Python packages carried to the device machine into /tmp/site (sourced by the
# device scripts; exports PYTHONPATH). The image's llvmlite is older than ours, so llvmlite 0.50
# travels, either as its wheel or, to stay under the 64 MiB a call may carry, as a .tar.xz of its
# installed files (libllvmlite.so stripped: 39 MB against the wheel's 60 MB). IPython, nbclient
# and their needs travel as wheels in .nbwhl for the notebook tests.
mkdir -p /tmp/site
for archive in .whl/*.tar.xz; do
    [ -e "$archive" ] && tar -xJf "$archive" -C /tmp/site
done
wheels=$(ls .whl/*.whl .nbwhl/*.whl 2>/dev/null)
if [ -n "$wheels" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site $wheels || return 1
fi
export PYTHONPATH=/tmp/site:$PWD
# kernellab's start-up hook, which pip install puts into site-packages (the triton alias in the
# Python children of an aliased process: torch inductor's compile workers).
cp kernellab/as_triton/kernellab_as_triton.pth "$(python3 -c 'import site; print(site.getsitepackages()[0])')/" \
    2>/dev/null || echo "kernellab_as_triton.pth not installed: the alias will not reach child processes"
# PIN_CPU=N: the A/B scripts put every timed process on CPU N ($PIN: taskset), both trees on one core
PIN=""
if [ -n "$PIN_CPU" ] && command -v taskset >/dev/null; then PIN="taskset -c $PIN_CPU"; fi
