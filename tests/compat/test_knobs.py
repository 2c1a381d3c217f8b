"""``kernellab.knobs`` with Triton's knob API (descriptors naming environment variables: a
value set wins, else the variable, else the default; ``propagate_env``, ``knobs.env``,
``del``, ``copy``, ``reset``, ``scope``) and backed by ``kernellab.config`` for the knobs
kernellab acts on."""

from __future__ import annotations

import os
import shutil
import uuid

import pytest

from kernellab import config, knobs


@pytest.fixture
def variable(monkeypatch):
    """A fresh variable name, removed afterwards; propagate_env restored."""
    name = f"KL_TEST_{uuid.uuid4().hex[:8].upper()}"
    monkeypatch.setattr(knobs, "propagate_env", True)
    yield name
    os.environ.pop(name, None)


def _group(name: str):
    class example_knobs(knobs.base_knobs):
        text = knobs.env_str(name + "_TEXT", "fallback")
        flag = knobs.env_bool(name + "_FLAG", True)
        maybe = knobs.env_opt_bool(name + "_MAYBE")
        number = knobs.env_int(name + "_NUMBER", 7)
        optional = knobs.env_opt_str(name + "_OPTIONAL")

    return example_knobs()


def test_a_value_set_wins_over_the_variable_which_wins_over_the_default(variable, monkeypatch):
    group = _group(variable)
    assert group.knobs == {"text": "fallback", "flag": True, "maybe": None, "number": 7, "optional": None}
    monkeypatch.setenv(variable + "_TEXT", "from the environment")
    monkeypatch.setenv(variable + "_NUMBER", "12")
    assert group.text == "from the environment" and group.number == 12
    group.text = "set"
    monkeypatch.setenv(variable + "_TEXT", "changed later")
    assert group.text == "set"
    del group.text
    assert group.text == "changed later"
    group.text = "again"  # written to the variable too
    monkeypatch.setenv(variable + "_TEXT", "then this")
    group.text = knobs.env  # Triton's way back to the variable
    assert group.text == "then this"


@pytest.mark.parametrize("truthy, falsy", [("1", "0"), ("y", "n"), ("Yes", "no"), ("ON", "off"), ("true", "False")])
def test_booleans_read_as_triton_reads_them(variable, monkeypatch, truthy, falsy):
    group = _group(variable)
    monkeypatch.setenv(variable + "_MAYBE", truthy)
    monkeypatch.setenv(variable + "_FLAG", falsy)
    assert group.maybe is True and group.flag is False
    monkeypatch.setenv(variable + "_MAYBE", falsy)
    assert group.maybe is False
    monkeypatch.setenv("KERNELLAB_PRINT_AUTOTUNING", truthy)
    assert config.print_autotuning()


def test_setting_writes_the_variable_unless_propagation_is_off(variable, monkeypatch):
    group = _group(variable)
    group.flag = False
    assert os.environ[variable + "_FLAG"] == "0"
    monkeypatch.setattr(knobs, "propagate_env", False)
    group.number = 3
    assert group.number == 3 and variable + "_NUMBER" not in os.environ


def test_copy_reset_and_scope(variable, monkeypatch):
    group = _group(variable)
    monkeypatch.setattr(knobs, "propagate_env", False)
    group.flag, group.maybe = False, True
    second = group.copy()
    second.text = "only the copy"
    assert group.text == "fallback" and second.flag is False and second.maybe is True
    second.reset()
    assert second.knobs == {"text": "fallback", "flag": True, "maybe": None, "number": 7, "optional": None}
    assert group.flag is False and group.maybe is True
    monkeypatch.setattr(knobs, "propagate_env", True)
    monkeypatch.setenv(variable + "_OPTIONAL", "before")
    with group.scope():
        group.optional = "inside"
        group.flag = True
        assert os.environ[variable + "_OPTIONAL"] == "inside"
    assert group.optional == "before" and group.flag is False and os.environ[variable + "_OPTIONAL"] == "before"


def test_a_class_knob_names_module_and_class(variable, monkeypatch):
    class with_class(knobs.base_knobs):
        manager = knobs.env_class(variable, "dict")

    group = with_class()
    assert group.manager is None
    monkeypatch.setenv(variable, "collections:OrderedDict")
    import collections
    assert group.manager is collections.OrderedDict
    monkeypatch.setenv(variable, "collections:deque")
    with pytest.raises(RuntimeError, match="not a dict"):
        group.manager  # noqa: B018


def test_the_knobs_kernellab_acts_on_reach_its_settings_without_the_environment(monkeypatch):
    """A value set on kernellab's groups is what kernellab does, even when not written to the
    environment (propagate_env off) or when the variable changes afterwards."""
    for name in ("TRITON_PRINT_AUTOTUNING", "KERNELLAB_PRINT_AUTOTUNING", "TRITON_DISABLE_LINE_INFO",
                 "TRITON_DEFAULT_FP_FUSION", "TRITON_CACHE_AUTOTUNING", "KERNELLAB_CACHE_AUTOTUNING"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(knobs, "propagate_env", False)
    with knobs.autotuning.scope(), knobs.compilation.scope(), knobs.language.scope():
        knobs.autotuning.print = True
        knobs.compilation.disable_line_info = True
        knobs.language.default_fp_fusion = False
        assert "TRITON_PRINT_AUTOTUNING" not in os.environ
        assert config.print_autotuning() and not config.line_info() and not config.default_fp_fusion()
        monkeypatch.setenv("TRITON_DISABLE_LINE_INFO", "0")
        assert knobs.compilation.disable_line_info and not config.line_info()
        del knobs.compilation.disable_line_info
        assert config.line_info()
    assert not config.print_autotuning() and config.default_fp_fusion()
    monkeypatch.setenv("TRITON_CACHE_AUTOTUNING", "yes")  # Triton's variable alone
    assert knobs.autotuning.cache and config.cache_autotuning()


def test_a_knob_reads_what_kernellab_does(monkeypatch):
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    monkeypatch.setenv("KERNELLAB_DEBUG", "1")
    assert knobs.runtime.debug  # either variable turns debug on
    monkeypatch.setenv("KERNELLAB_CACHE", "0")
    assert knobs.compilation.always_compile


def test_the_dump_knobs_dump(monkeypatch, tmp_path):
    monkeypatch.delenv("KERNELLAB_DUMP_DIR", raising=False)
    monkeypatch.delenv("TRITON_DUMP_DIR", raising=False)
    with knobs.compilation.scope(), knobs.cache.scope():
        assert config.dump_dir() is None
        knobs.cache.home_dir = str(tmp_path)
        knobs.compilation.dump_ir = True
        assert knobs.cache.dump_dir == str(tmp_path / ".triton" / "dump")
        assert config.dump_dir() == tmp_path / ".triton" / "dump"
        knobs.cache.dump_dir = str(tmp_path / "here")
        assert config.dump_dir() == tmp_path / "here"


def test_unknown_knobs_and_inert_ones(monkeypatch):
    with pytest.raises(AttributeError, match="has no knob 'nope'"):
        knobs.cache.nope = 1
    with knobs.runtime.scope(), knobs.nvidia.scope():
        with pytest.warns(UserWarning, match="does not act on it"):
            knobs.runtime.add_stages_inspection_hook = print
        with pytest.warns(UserWarning, match="does not act on it"):
            knobs.nvidia.dump_nvptx = True
    assert knobs.runtime.add_stages_inspection_hook is None
    assert knobs.amd.use_block_pingpong is None or isinstance(knobs.amd.use_block_pingpong, bool)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="no ptxas on PATH")
def test_the_nvidia_tools_follow_the_variables(monkeypatch, tmp_path):
    from kernellab.backends.cuda import tools

    monkeypatch.delenv("KERNELLAB_PTXAS", raising=False)
    monkeypatch.delenv("TRITON_PTXAS_PATH", raising=False)
    found = knobs.nvidia.ptxas
    assert found.path == tools.find_ptxas() and found.version.count(".") == 1
    copy = tmp_path / "ptxas-special"
    shutil.copy(shutil.which("ptxas"), copy)
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(copy))
    assert knobs.nvidia.ptxas.path == str(copy) == tools.find_ptxas()
    with knobs.nvidia.scope():
        monkeypatch.setattr(knobs, "propagate_env", False)
        knobs.nvidia.ptxas = found.path
        assert knobs.nvidia.ptxas.path == found.path == tools.find_ptxas()
    assert tools.find_ptxas() == str(copy)
