"""The options every target shares are checked by the same rules on every target: a config the
GPU would refuse is refused on the CPU target and the interpreter too."""

from __future__ import annotations

import pytest

from kernellab.backends.cpu.backend import CPUBackend
from kernellab.backends.cuda.backend import CudaBackend
from kernellab.backends.interpreter.backend import InterpreterBackend
from kernellab.backends.options import SHARED_DEFAULTS, TRITON_OPTIONS
from kernellab.errors import OutOfResources

BACKENDS = {"interpret": InterpreterBackend, "cpu": CPUBackend, "cuda": CudaBackend}


@pytest.mark.parametrize("target", BACKENDS)
def test_the_shared_defaults(target):
    options = BACKENDS[target]().options(debug=False)
    assert {name: options[name] for name in SHARED_DEFAULTS} == SHARED_DEFAULTS


@pytest.mark.parametrize("target", BACKENDS)
def test_tritons_recorded_options_are_taken_by_every_target(target):
    """What torch inductor and Triton code pass to ``compile`` (sanitize_overflow=False...) is the
    same on every target."""
    given = {"sanitize_overflow": False, "enable_reflect_ftz": False, "extern_libs": None,
             "supported_fp8_dtypes": None, "instrumentation_mode": ""}
    options = BACKENDS[target]().options(**given)
    assert {name: options[name] for name in TRITON_OPTIONS} == given


@pytest.mark.parametrize("target", BACKENDS)
@pytest.mark.parametrize("bad, message", [
    ({"num_warps": 3}, "num_warps must be a positive power of two from 1 to 32"),
    ({"num_stages": -1}, "num_stages must be an int >= 0"),
    ({"maxnreg": 0}, "maxnreg must be an int >= 1"),
    ({"maxnreg": 256}, "at most 255 registers"),
    ({"enable_fp_fusion": "no"}, "enable_fp_fusion must be True or False"),
    ({"sanitize_overflow": "no"}, "sanitize_overflow must be True or False"),
    ({"enable_reflect_ftz": 2}, "enable_reflect_ftz must be True or False"),
])
def test_the_shared_rules(target, bad, message):
    with pytest.raises(ValueError, match=message):
        BACKENDS[target]().options(**bad)


@pytest.mark.parametrize("target", BACKENDS)
@pytest.mark.parametrize("warps", [64, 128])
def test_more_warps_than_a_block_holds_is_out_of_resources(target, warps):
    """As Triton reports it when loading (an autotuner then skips the config): threads, not an
    option error."""
    with pytest.raises(OutOfResources, match=f"out of resource: threads, Required: {warps * 32}, Hardware limit: 1024"):
        BACKENDS[target]().options(num_warps=warps)
