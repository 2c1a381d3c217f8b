"""kl.Config: what a launch receives, equality and hashing over every option and the pre_hook."""

from __future__ import annotations

import pytest

import kernellab as kl
import kernellab.language as tl


def test_all_kwargs_holds_the_meta_parameters_and_the_options_that_are_set():
    config = kl.Config({"BLOCK_M": 64, "BLOCK_N": 32}, num_warps=8, num_stages=2)
    assert config.all_kwargs() == {"BLOCK_M": 64, "BLOCK_N": 32, "num_warps": 8, "num_ctas": 1, "num_stages": 2}
    full = kl.Config({}, maxnreg=128, ir_override="k.tile")
    assert full.all_kwargs() == {"num_warps": 4, "num_ctas": 1, "num_stages": 3, "maxnreg": 128,
                                 "ir_override": "k.tile"}


def test_defaults_are_tritons():
    config = kl.Config({"BLOCK": 16})
    assert (config.num_warps, config.num_stages, config.num_ctas, config.maxnreg, config.pre_hook,
            config.ir_override) == (4, 3, 1, None, None, None)


@pytest.mark.parametrize("change", [
    {"kwargs": {"BLOCK": 32}}, {"num_warps": 8}, {"num_stages": 4}, {"num_ctas": 2}, {"maxnreg": 64},
    {"ir_override": "other.tile"}, {"pre_hook": print},
])
def test_every_option_takes_part_in_equality_and_hashing(change):
    base = {"kwargs": {"BLOCK": 16}, "num_warps": 4, "num_stages": 3, "num_ctas": 1, "maxnreg": None,
            "ir_override": None, "pre_hook": None}
    same = kl.Config(**base)
    assert kl.Config(**base) == same and hash(kl.Config(**base)) == hash(same)
    other = kl.Config(**{**base, **change})
    assert other != same
    assert len({same, other, kl.Config(**base)}) == 2


def test_pre_hooks_compare_by_identity():
    def hook(args):
        return None

    assert kl.Config({}, pre_hook=hook) == kl.Config({}, pre_hook=hook)
    assert kl.Config({}, pre_hook=hook) != kl.Config({}, pre_hook=lambda args: None)
    assert kl.Config({}) != "not a config"


def test_str_and_repr():
    config = kl.Config({"BLOCK": 64}, num_warps=2)
    assert str(config) == ("BLOCK: 64, num_warps: 2, num_ctas: 1, num_stages: 3, maxnreg: None, "
                           "ir_override: None")
    assert repr(config) == "Config({'BLOCK': 64}, num_warps=2, num_ctas=1, num_stages=3)"


def test_bad_arguments_say_what_is_allowed():
    with pytest.raises(TypeError, match="dict of meta-parameter names"):
        kl.Config([("BLOCK", 64)])
    with pytest.raises(TypeError, match="pre_hook must be callable"):
        kl.Config({}, pre_hook="hook")


def test_digest_is_stable_and_covers_values_of_every_kind(tmp_path):
    a = kl.Config({"BLOCK": 64, "DTYPE": tl.float16, "ACT": "relu", "SCALE": 0.5})
    b = kl.Config({"BLOCK": 64, "DTYPE": tl.float16, "ACT": "relu", "SCALE": 0.5})
    assert a.digest() == b.digest() and len(a.digest()) == 64
    assert kl.Config({"BLOCK": 64, "DTYPE": tl.float32, "ACT": "relu", "SCALE": 0.5}).digest() != a.digest()
    assert kl.Config({"BLOCK": True}).digest() != kl.Config({"BLOCK": 1}).digest()
    path = tmp_path / "k.tile"
    path.write_text("one")
    first = kl.Config({}, ir_override=path)
    assert first.ir_override == str(path) and first.to_json()["ir_override"]["path"] == str(path)
    digest = first.digest()
    path.write_text("two")
    assert first.digest() != digest
