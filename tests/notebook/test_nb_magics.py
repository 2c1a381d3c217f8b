"""``%%tile_kernel`` driven through IPython: options, errors at the right cell line, caching,
running, checking and timing."""

from __future__ import annotations

import re

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output
from notebook_cells import ADD_CELL, ADD_SIGNATURE, cell_line, magic

from kernellab import CompilationError
from kernellab.runtime.jit import JITFunction
from kernellab.runtime.targets import target_available

ALL_OPTIONS = ("--target", "--signature", "--args", "--constexprs", "--stages", "--grid", "--run", "--bench",
               "--check", "--config", "--kernel", "--atol", "--rtol", "--flops")
RUN_ARGS = '--args "(x, y, out, n)" --constexprs "BLOCK=256" --grid "(kl.cdiv(n, BLOCK),)" --target cpu'


def test_help_lists_every_option(shell):
    with capture_output() as captured:
        shell.run_cell("%%tile_kernel?")
    text = captured.stdout
    assert "%tile_kernel [--target TARGET]" in text and "Compile the kernel this cell defines" in text
    for option in ALL_OPTIONS:
        assert option in text, option


def test_signature_constexprs_and_config_reach_the_compiler(shell):
    result = magic(shell, ADD_SIGNATURE + ' --config "num_warps=8, num_stages=2" --target cpu', ADD_CELL)
    meta = result.compiled.metadata
    assert meta["signature"] == {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    assert meta["constexprs"] == {"BLOCK": 256}
    assert (meta["num_warps"], meta["num_stages"], meta["target"]) == (8, 2, "cpu")
    assert result.report.stage_names == ["tile", "llvm", "asm"]
    assert "tile<256xf32>" in result.report.stage("tile")["text"]


def test_the_cell_defines_its_kernels_in_the_namespace(shell):
    magic(shell, ADD_SIGNATURE + " --target cpu", ADD_CELL)
    add = shell.user_ns["add"]
    assert isinstance(add, JITFunction)
    assert "tl.store(out_ptr + offs, x + y, mask=mask)" in add.src
    x, y, out, n = (shell.user_ns[k] for k in ("x", "y", "out", "n"))
    add[(-(-n // 128),)](x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x + y)


def test_ipython_syntax_in_the_cell_keeps_its_line_numbers(shell):
    body = "blocks = %time 2 ** 8\n" + ADD_CELL.replace("tl.arange(0, BLOCK)", "tl.arange(0, n)")
    with pytest.raises(CompilationError) as caught:
        magic(shell, ADD_SIGNATURE + " --target cpu", body)
    assert shell.user_ns["blocks"] == 256
    assert caught.value.loc.line == cell_line(body, "tl.arange(0, n)") == 5


def test_stages_option_picks_stages(shell):
    result = magic(shell, ADD_SIGNATURE + " --target cpu --stages llvm,tile", ADD_CELL)
    assert result.report.stage_names == ["llvm", "tile"]


def test_args_specialize_and_pick_the_target_from_the_arrays(shell):
    result = magic(shell, '--args "(x, y, out, n)" --constexprs "BLOCK=128"', ADD_CELL)
    meta = result.compiled.metadata
    assert meta["target"] == "cpu"           # numpy arrays live on the host
    assert meta["signature"]["x_ptr"] == "*fp32"
    assert meta["specialization"]["x_ptr"] == {"divisibility": 16}


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_run_and_check(shell, target):
    result = magic(shell, RUN_ARGS.replace("--target cpu", f"--target {target}") + ' --run --check "out=x + y"',
                   ADD_CELL)
    np.testing.assert_array_equal(shell.user_ns["out"], shell.user_ns["x"] + shell.user_ns["y"])
    assert result.run["check"] == "out ok"
    assert result.run["grid"] == [-(-shell.user_ns["n"] // 256)]


def test_check_compares_with_the_last_array_by_default_and_fails_loudly(shell):
    magic(shell, RUN_ARGS + ' --check "x + y"', ADD_CELL)
    with pytest.raises(AssertionError, match="out_ptr of add differs from x - y"):
        magic(shell, RUN_ARGS + ' --check "x - y"', ADD_CELL)


@pytest.mark.skipif(target_available("cuda"), reason="a CUDA device is here: the launch would run")
def test_running_on_a_gpu_target_without_a_gpu_is_a_usage_error(shell):
    """Compiling for CUDA needs no GPU; launching does: say so, and what works here instead
    (the driver's 'libcuda.so.1: cannot open shared object file' was all a laptop showed)."""
    with pytest.raises(UsageError, match="no CUDA device") as caught:
        magic(shell, RUN_ARGS.replace("--target cpu", "--target cuda:sm_90a") + " --run", ADD_CELL)
    assert "--target cpu" in str(caught.value) and "without --run" in str(caught.value)
    assert magic(shell, RUN_ARGS.replace("--target cpu", "--target cuda:sm_90a"), ADD_CELL).report.stage("ptx")


def test_bench_reports_time_and_bandwidth(shell):
    result = magic(shell, RUN_ARGS + " --bench", ADD_CELL)
    n = shell.user_ns["n"]
    assert result.run["ms"] > 0 and result.run["ms_p20"] <= result.run["ms_p80"]
    assert result.run["GB/s"] == pytest.approx(3 * n * 4 / (result.run["ms"] * 1e-3) / 1e9)
    assert "time" in result.report.bundle["metadata"]["run"]
    assert "GB/s" in result.report.html()


def test_results_are_cached_by_cell_options_and_specialization(shell, ipython, rng):
    magics = ipython.magics_manager.registry["TileKernelMagics"]
    cell = f"# cell {rng.integers(1 << 60)}\n" + ADD_CELL     # a cell this session has not compiled yet
    first = magic(shell, ADD_SIGNATURE + " --target cpu", cell)
    again = magic(shell, ADD_SIGNATURE + " --target cpu", cell)
    assert not first.cached and again.cached
    assert again.compiled is first.compiled
    other_options = magic(shell, ADD_SIGNATURE + ' --target cpu --config "num_warps=2"', cell)
    other_text = magic(shell, ADD_SIGNATURE + " --target cpu", cell.replace("x + y", "y + x"))
    other_constexpr = magic(shell, ADD_SIGNATURE.replace("BLOCK=256", "BLOCK=128") + " --target cpu", cell)
    assert not any(r.cached for r in (other_options, other_text, other_constexpr))
    assert len({id(r.compiled) for r in (first, other_options, other_text, other_constexpr)}) == 4
    assert magics.stats["cached"] >= 1
    # running does not change what is compiled
    ran = magic(shell, RUN_ARGS + " --run", cell)
    ran_again = magic(shell, RUN_ARGS + ' --run --check "out=x+y"', cell)
    assert not ran.cached and ran_again.cached and ran_again.compiled is ran.compiled


def test_a_compile_error_raises_at_the_cell_line(shell):
    body = ADD_CELL.replace("tl.arange(0, BLOCK)", "tl.arange(0, n)")
    with pytest.raises(CompilationError) as caught:
        magic(shell, ADD_SIGNATURE + " --target cpu", body)
    error = caught.value
    assert error.loc.line == cell_line(body, "tl.arange(0, n)") == 4
    assert error.loc.file.startswith("<tile_kernel-")
    assert "offs = tl.program_id(0) * BLOCK + tl.arange(0, n)" in str(error)
    assert any("line 4 of the %%tile_kernel cell" in note for note in error.__notes__)


def test_a_failing_cell_fails_its_execution(shell):
    body = ADD_CELL.replace("x + y", "x + undefined_name")
    result = shell.run_cell(f"%%tile_kernel {ADD_SIGNATURE} --target cpu\n{body}")
    assert not result.success
    assert isinstance(result.error_in_exec, CompilationError)
    assert result.error_in_exec.loc.line == cell_line(body, "undefined_name")


def test_a_compile_error_shows_the_kernels_frame_only(shell):
    body = ADD_CELL.replace("x + y", "x + undefined_name")
    with capture_output() as captured:
        shell.run_cell(f"%%tile_kernel {ADD_SIGNATURE} --target cpu\n{body}")
    shown = re.sub(r"\x1b\[[0-9;]*m", "", captured.stdout + captured.stderr)
    line = cell_line(body, "undefined_name")
    assert f"%%tile_kernel cell, line {line}, in add" in shown
    assert "tl.store(out_ptr + offs, x + undefined_name, mask=mask)" in shown
    assert "undefined_name" in shown.splitlines()[-2] or "undefined_name" in shown.splitlines()[-1]
    # no frame of the magic's machinery, no cell dumped as the run_cell_magic call's argument
    for internal in ("run_cell_magic", "magics.py", "interactiveshell.py", "Traceback", "@kl.jit\\n"):
        assert internal not in shown, (internal, shown)


def _shown(shell, line: str, body: str) -> tuple[str, object]:
    """What running the cell prints (colours removed), and the error it ended with."""
    with capture_output() as captured:
        result = shell.run_cell(f"%%tile_kernel {line}\n{body}")
    return re.sub(r"\x1b\[[0-9;]*m", "", captured.stdout + captured.stderr), result.error_in_exec


MAGIC_FRAMES = ("run_cell_magic", "magics.py", "cell.py", "interactiveshell.py", "@kl.jit\\n")


def test_an_error_in_the_cells_python_shows_the_cell_line_not_the_magics_frames(shell):
    needle = "n_blocks = n // undefined_block"
    body = ADD_CELL + needle + "\n"
    shown, raised = _shown(shell, f"{ADD_SIGNATURE} --target cpu", body)
    assert isinstance(raised, NameError)
    assert f"%%tile_kernel cell, line {cell_line(body, needle)}" in shown and needle in shown
    assert "NameError: name 'undefined_block' is not defined" in shown.splitlines()[-1]
    for internal in MAGIC_FRAMES:
        assert internal not in shown, (internal, shown)


def test_a_failed_check_shows_the_difference_not_the_magics_frames(shell):
    shown, raised = _shown(shell, RUN_ARGS + ' --check "x - y"', ADD_CELL)
    assert isinstance(raised, AssertionError)
    assert "out_ptr of add differs from x - y" in shown and "Mismatched elements" in shown
    for internal in MAGIC_FRAMES:
        assert internal not in shown, (internal, shown)


def test_an_out_of_bounds_access_found_by_run_names_the_cell_not_its_file_name(shell):
    body = ADD_CELL.replace(", mask=mask)", ")")        # no masks: the last program reads past the end
    shown, raised = _shown(shell, RUN_ARGS.replace("--target cpu", "--target interpret") + " --run", body)
    assert type(raised).__name__ == "InterpreterError"
    line = cell_line(body, "x = tl.load(x_ptr + offs)")
    assert "out-of-bounds load through argument 'x_ptr'" in shown and f"%%tile_kernel cell:{line}:" in shown
    assert "<tile_kernel-" not in shown


def test_a_bound_without_constexpr_says_to_annotate_it(shell):
    body = ADD_CELL.replace("BLOCK: tl.constexpr", "BLOCK")
    with pytest.raises(CompilationError) as caught:
        magic(shell, '--signature "x_ptr=*fp32, y_ptr=*fp32, out_ptr=*fp32, n=i32, BLOCK=i32" --target cpu', body)
    message = caught.value.message
    assert "BLOCK is a runtime value" in message and "`BLOCK: tl.constexpr`" in message
    assert "+ offset" not in message


def test_short_spellings_of_the_options(shell):
    quoted = magic(shell, ADD_SIGNATURE + ' --config "num_warps=8, num_stages=2" --target cpu', ADD_CELL)
    words = magic(shell, "--signature x_ptr=*fp32 y_ptr=*fp32 out_ptr=*fp32 n=i32 --constexprs BLOCK=256 "
                         "--config num_warps=8 num_stages=2 --target cpu", ADD_CELL)
    for key in ("signature", "constexprs", "num_warps", "num_stages"):
        assert words.compiled.metadata[key] == quoted.compiled.metadata[key], key
    ran = magic(shell, "--args x_ptr=f32[n] y_ptr=f32[n] out_ptr=f32[n] n=1000 --constexprs BLOCK=256 "
                       "--grid kl.cdiv(n, BLOCK) --target cpu --run --check out_ptr=x_ptr + y_ptr", ADD_CELL)
    assert ran.run == {"grid": [4], "check": "out_ptr ok"}
    assert ran.compiled.metadata["signature"]["x_ptr"] == "*fp32"
    with pytest.raises(UsageError, match="'oops' is not name=value"):
        magic(shell, "--args x_ptr=f32[8] oops --constexprs BLOCK=256", ADD_CELL)
    with pytest.raises(UsageError, match="the shape must be non-negative integers"):
        magic(shell, "--args x_ptr=f32[-1] --constexprs BLOCK=256", ADD_CELL)


def test_example_arrays_are_reproducible_and_typed():
    from kernellab.notebook.cell import parse_args

    first = parse_args(["n=64", "x=f16[n, 2]", "i=i32[n]", "m=i1[3]", "s=2.5"], {})
    again = parse_args(["n=64", "x=f16[n, 2]", "i=i32[n]", "m=i1[3]", "s=2.5"], {})
    assert list(first) == ["n", "x", "i", "m", "s"]
    assert first["x"].dtype == np.float16 and first["x"].shape == (64, 2) and first["x"].std() > 0.5
    assert first["i"].dtype == np.int32 and first["m"].dtype == np.bool_ and first["s"] == 2.5
    np.testing.assert_array_equal(first["x"], again["x"])
    assert parse_args(['"(x, 3)"'], {"x": 1}) == (1, 3)     # the old form: one Python expression


@pytest.mark.parametrize("line, message", [
    ("--bogus", "unrecognized arguments"),
    ('--signature "x_ptr=*fp33, y_ptr=*fp32, out_ptr=*fp32, n=i32" --constexprs "BLOCK=256"', "fp33"),
    ('--signature "x_ptr *fp32"', "is not name=type"),
    ('--constexprs "BLOCK=256"', "--signature"),
    (ADD_SIGNATURE + " --target gpu9", "--target gpu9"),
    (ADD_SIGNATURE + " --target cpu --stages tile,ptx", "no stage 'ptx'"),
    ('--signature "x_ptr=*fp32, y_ptr=*fp32, out_ptr=*fp32, n=i32" --constexprs "BLOCK=NOPE"', "NameError"),
    (ADD_SIGNATURE + ' --target cpu --config "num_wraps=8"', "num_wraps"),
    (ADD_SIGNATURE + " --target cpu --kernel other", "--kernel other"),
    (ADD_SIGNATURE + " --target cpu --run", "--args"),
    ('--args "(x, y, out, n)" ' + ADD_SIGNATURE, "not both"),
    (RUN_ARGS.replace('"(kl.cdiv(n, BLOCK),)"', '"n / BLOCK"') + " --run", "--grid 'n / BLOCK' gives "),
    (RUN_ARGS.replace('"(kl.cdiv(n, BLOCK),)"', '"(1, 2, 3, 4)"') + " --run", "1 to 3 dimensions"),
])
def test_bad_options_are_usage_errors(shell, line, message):
    with pytest.raises(UsageError, match=message.replace("*", r"\*")):
        magic(shell, line, ADD_CELL)


def test_a_cell_without_a_kernel_is_a_usage_error(shell):
    with pytest.raises(UsageError, match="defines no @jit kernel"):
        magic(shell, "--target cpu", "value = 1\n")


HELPER_CELL = '''@kl.jit
def twice(v):
    return v + v

''' + ADD_CELL.replace("x + y", "twice(x) + y")


def test_the_last_kernel_is_compiled_unless_one_is_named(shell):
    result = magic(shell, ADD_SIGNATURE + " --target cpu", HELPER_CELL)
    assert result.kernel == "add"
    # the helper's lines are in the cell, so its inlined code links to them
    helper_line = cell_line(HELPER_CELL, "return v + v")
    assert any(source_line == helper_line for _, source_line in result.report.stage("llvm")["lines"])
    with pytest.raises(CompilationError, match="(?s)in twice.*a kernel cannot return a value"):
        magic(shell, '--signature "v=fp32" --target cpu --kernel twice', HELPER_CELL)


AUTOTUNED_CELL = '''@kl.autotune(configs=[kl.Config({"BLOCK": 128}, num_warps=2),
                      kl.Config({"BLOCK": 512}, num_warps=8)], key=["n"])
''' + ADD_CELL


def test_an_autotuned_kernel_shows_its_first_config_or_the_chosen_one(shell):
    signature = '--signature "x_ptr=*fp32, y_ptr=*fp32, out_ptr=*fp32, n=i32" --target cpu'
    first = magic(shell, signature, AUTOTUNED_CELL)
    assert first.compiled.metadata["constexprs"] == {"BLOCK": 128} and first.compiled.metadata["num_warps"] == 2
    assert any("autotuned over 2 configs" in d["message"] for d in first.report.bundle["diagnostics"])
    chosen = magic(shell, signature + ' --config "BLOCK=512, num_warps=8"', AUTOTUNED_CELL)
    assert chosen.compiled.metadata["constexprs"] == {"BLOCK": 512} and chosen.compiled.metadata["num_warps"] == 8


def test_unload_and_reload(ipython):
    ipython.run_line_magic("unload_ext", "kernellab")
    try:
        assert ipython.find_cell_magic("tile_kernel") is None
    finally:
        ipython.run_line_magic("load_ext", "kernellab")
    assert ipython.find_cell_magic("tile_kernel") is not None


def test_the_result_displays_as_the_compile_report(shell):
    result = magic(shell, ADD_SIGNATURE + " --target cpu", ADD_CELL)
    bundle = result._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.kernellab.compile+json", "text/html", "text/plain"}
    assert bundle["application/vnd.kernellab.compile+json"]["kernel"] == "add"
    assert shell.user_ns["_tile_kernel"] is result
