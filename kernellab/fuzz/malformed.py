"""Malformed-input fuzzing: mutated kernels and bad launches must end in a user-facing error.

A case is made from its seed alone: a valid generated kernel (one part), then either a mutation
of its source (a deleted or swapped statement, a renamed name, a wrong type or constant, a call
with the wrong number of arguments, a bad axis, an operation on a pointer) or a bad launch of
it (wrong argument count, a wrong kind of argument, a bad array, a bad grid, a bad constexpr or
option).  On each target, the case passes when the kernel either runs, or raises one of
kernellab's errors whose message points at the kernel: a compile or interpreter error names the
kernel's file and line, a launch error names the kernel.  Anything else is a problem: another
exception class (an internal error), a crash (signal), a hang (timeout).

Cases run in child processes, a batch each (``run``); a child that dies or hangs is reported
for the case it was running, and the run goes on with the next case.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .data import make_arrays
from .generator import generate
from .program import Program

BODY_START = 12  # the first line after the generated kernel's prologue (0-based)

WRONG_CONSTANTS = ['"text"', "None", "1j", "(1, 2)", "[1]", "2**70", "-1", "1e400", "0.5", "True", "tl"]
WRONG_DTYPES = ["tl.int3", "tl.void", "5", '"int8"', "tl.pointer_type(tl.int8)", "None", "tl.tensor"]
BAD_AXES = ["7", "-5", "1.5", '"0"', "None", "(0, 1)"]
NEW_NAMES = ["undefined_name", "pid", "tl", "M", "rows", "kernellab", "range", "print", "len"]
POINTER_MISUSE = ["{p} >> 1", "{p} * 2", "{p} + 1.5", "{p}[:, None]", "{p} & 3", "-{p}", "~{p}", "{p} < {p}",
                  "tl.sum({p}, axis=0)", "{p}.to(tl.int8)", "tl.exp({p})", "{p} // 2", "{p} % 3"]
INSERTED = ["return 5", "tl.store(M, 1)", "tl.static_assert(M > 0)", "tl.static_assert(False, 'x')",
            "x = tl.load(M)", "tl.device_assert(rows < 0, 'boom')", "y = tl.arange(0, 3)", "y = tl.arange(5, 1)",
            "y = tl.zeros((3,), tl.float32)", "y = tl.full((2**20, 2**20), 1, tl.int8)", "y = tl.reshape(rows, (3, 7))",
            "y = tl.dot(rows, cols)", "y = tl.atomic_add(M, 1)", "y = rows[None, None, None, None, :]",
            "y = tl.broadcast_to(rows, (3,))", "y = tl.view(rows, (0,))", "y = tl.program_id(3)",
            "y = tl.load(rows)", "y = tl.store(rows, 1)", "y = rows[M]", "y = tl.where(rows, 1)", "y = pid.foo",
            "y = tl.cumsum(rows, axis=None)", "y = tl.sum(rows, axis=2)", "y = rows.load(cols)", "y = 1j * rows",
            "y = tl.arange(0, 2**40)", "y = tl.arange(0, BM, 2)", "del rows", "global M", "import os",
            "y = lambda: 1", "with open('x'): pass", "y = [r for r in range(3)]", "y = {1: 2}",
            "y = tl.constexpr(rows)", "y = mask.to(tl.float32) @ mask.to(tl.float32)", "yield 1",
            "y = rows ** 2", "y = tl.randint(rows, 0)", "y = tl.sort(pid)"]


@dataclass
class Case:
    seed: int
    what: str
    source: str
    program: Program
    launch: Callable[[Any, dict], None] | None = None  # None: the kernel's normal launch
    may_overrun: bool = False  # the launch may read or write past an array (wrong sizes)


# An access out of bounds (a bad launch's sizes, or a mutated kernel's addresses) is undefined
# behaviour on a target that does not check memory accesses (as on a GPU): the CPU target runs
# every case in its checked mode (KERNELLAB_DEBUG=1); on CUDA only cases that cannot overrun run.
# A compile-only target (compile:cuda:sm_90a) builds the source mutations (no launch).
CHECKED_MODE_TARGETS = ("cpu",)
UNCHECKED_TARGETS = ("cuda",)


def _lines(program: Program) -> list[str]:
    return program.source().splitlines()


def _statement_rows(lines: list[str]) -> list[int]:
    """Rows of top-level statements that are not loops (deleting or moving one keeps Python's
    syntax valid)."""
    return [k for k in range(BODY_START, len(lines))
            if lines[k].startswith("    ") and not lines[k].startswith("     ") and
            not lines[k].lstrip().startswith("for ") and not lines[k - 1].lstrip().startswith("for ")]


def mutate_source(rng: random.Random, program: Program) -> tuple[str, str]:
    """A mutated source of ``program`` and what was done."""
    lines = _lines(program)
    rows = _statement_rows(lines)
    row = rng.choice(rows)
    line = lines[row]
    kind = rng.choice(["delete", "swap", "rename", "constant", "dtype", "arity", "axis", "pointer", "insert",
                       "attribute"])
    if kind == "delete":
        del lines[row]
        return "\n".join(lines) + "\n", f"deleted line {row + 1}"
    if kind == "swap":
        other = rng.choice(rows)
        lines[row], lines[other] = lines[other], lines[row]
        return "\n".join(lines) + "\n", f"swapped lines {row + 1} and {other + 1}"
    if kind == "insert":
        lines.insert(row, "    " + rng.choice(INSERTED))
        return "\n".join(lines) + "\n", f"inserted line {row + 1}: {lines[row].strip()}"
    lines[row] = _mutate_line(rng, kind, line, program)
    return "\n".join(lines) + "\n", f"{kind} at line {row + 1}: {lines[row].strip()}"


def _mutate_line(rng: random.Random, kind: str, line: str, program: Program) -> str:
    names = re.findall(r"\b(p\d+_\w+|rows|cols|mask|cmask|rmask|pid|M|N|BM|BN)\b", line)
    if kind == "rename" and names:
        victim = rng.choice(names)
        return re.sub(rf"\b{victim}\b", rng.choice(NEW_NAMES), line, count=1)
    if kind == "constant":
        found = list(re.finditer(r"(?<![\w.])\d+(\.\d+)?\b", line))
        if found:
            hit = rng.choice(found)
            return line[:hit.start()] + rng.choice(WRONG_CONSTANTS) + line[hit.end():]
    if kind == "dtype" and "tl." in line:
        replaced = re.sub(r"tl\.(u?int\d+|float\d+|bfloat16|int1)\b", rng.choice(WRONG_DTYPES), line, count=1)
        if replaced != line:
            return replaced
    if kind == "axis" and "axis=" in line:
        return re.sub(r"axis=(\w+)", f"axis={rng.choice(BAD_AXES)}", line, count=1)
    if kind == "arity" and "(" in line:
        position = line.rindex(")")
        if rng.random() < 0.5:
            return line[:position] + ", 1, 2, 3, 4, 5, 6" + line[position:]
        start = line.index("(")
        return line[:start] + "()" + line[position + 1:]
    if kind == "attribute" and names:
        victim = rng.choice(names)
        return re.sub(rf"\b{victim}\b", f"{victim}.{rng.choice(['foo', 'load', 'T', 'shape[5]', 'dtype.bar'])}",
                      line, count=1)
    pointer = rng.choice([s for s in program.parameters() if s.endswith("_ptr")] or ["M"])
    target = rng.choice(names) if names else "pid"
    return re.sub(rf"\b{target}\b", "(" + rng.choice(POINTER_MISUSE).format(p=pointer) + ")", line, count=1)


# ---- bad launches ----

def _bad_argument(rng: random.Random, array: np.ndarray) -> Any:
    choices = [lambda: 3.5, lambda: "text", lambda: None, lambda: [1, 2, 3], lambda: array.astype(np.complex64),
               lambda: array.astype(object), lambda: array.astype(np.bool_), lambda: np.float32(2.0),
               lambda: array[::2], lambda: np.asfortranarray(np.stack([array, array], axis=-1)),
               lambda: memoryview(array), lambda: array.tobytes(), lambda: _read_only(array),
               lambda: array[:0], lambda: np.zeros((0,), array.dtype), lambda: 2**70, lambda: 12345,
               lambda: np.datetime64("2020-01-01"), lambda: array.view(np.uint8)]
    try:
        return rng.choice(choices)()
    except (TypeError, ValueError):  # e.g. memoryview of f16: not a case (numpy refuses it, not kernellab)
        return array.tobytes()


def _read_only(array: np.ndarray) -> np.ndarray:
    frozen = array.copy()
    frozen.setflags(write=False)
    return frozen


BAD_GRIDS = [(0,), (-1,), (2**32,), (1.5,), "grid", (1, 2, 3, 4), (), None, [2], (np.int64(2),), (2**31 - 1, 2**31),
             (1, -1), (True,), lambda: (1,), lambda meta: None, lambda meta: (meta["NOPE"],), lambda meta: "x"]
BAD_CONSTEXPRS = [3, 0, -4, 2**20, None, "x", 1.5, 2**70, True, np.int8(4)]
BAD_OPTIONS = [{"num_warps": 0}, {"num_warps": 3}, {"num_warps": -1}, {"num_stages": -1}, {"num_ctas": 0},
               {"unknown_option": 1}, {"num_warps": "4"}, {"maxnreg": -5}, {"debug": "yes"}]
BAD_SCALARS = [-1, 1.5, "text", None, 2**40, 2**70, np.array([1, 2]), np.float16(3), -2**63]


def bad_launch(rng: random.Random, program: Program) -> tuple[Callable[[Any, dict], None], str]:
    names = program.parameters()[:-2]
    kind = rng.choice(["count", "argument", "grid", "constexpr", "option", "scalar", "twice"])
    grid: Any = (program.grid,)
    scalars = [program.m, program.n]
    constexprs: dict[str, Any] = dict(program.constexprs())
    options: dict[str, Any] = {}
    replaced: dict[str, Any] = {}
    what = kind
    extra: list[Any] = []
    fewer = False
    if kind == "count":
        fewer = rng.random() < 0.5
        extra = [] if fewer else [rng.choice([1, np.zeros(3, np.float32)])]
        what = "one argument less" if fewer else "one argument more"
    elif kind == "argument":
        name = rng.choice(names)
        replaced[name] = ("bad", rng.randrange(10**6))
        what = f"bad value for {name}"
    elif kind == "grid":
        grid = rng.choice(BAD_GRIDS)
        what = f"grid {grid!r}"
    elif kind == "constexpr":
        key = rng.choice(["BM", "BN"])
        constexprs[key] = rng.choice(BAD_CONSTEXPRS)
        if rng.random() < 0.2:
            del constexprs[key]
        what = f"constexprs {constexprs}"
    elif kind == "option":
        options = rng.choice(BAD_OPTIONS)
        what = f"options {options}"
    elif kind == "scalar":
        k = rng.randrange(2)
        scalars[k] = rng.choice(BAD_SCALARS)
        what = f"scalar {'MN'[k]} = {scalars[k]!r}"
    else:
        constexprs = {**constexprs, "M": program.m}
        what = "an argument given twice"

    def run(kernel: Any, arrays: dict) -> None:
        values = []
        for name in names:
            if name in replaced:
                values.append(_bad_argument(random.Random(replaced[name][1]), arrays[name]))
            else:
                values.append(arrays[name])
        args = values + scalars
        args = args[:-1] if fewer else args + extra
        kernel[grid](*args, **constexprs, **options)
    return run, what


def make_case(seed: int) -> Case:
    rng = random.Random(seed)
    program = generate(seed, parts=1)
    if rng.random() < 0.6:
        source, what = mutate_source(rng, program)
        return Case(seed, what, source, program)
    run, what = bad_launch(rng, program)
    overrun = what.startswith(("scalar", "bad value"))
    return Case(seed, what, program.source(), program, run, overrun)


# ---- judging one case (in the child) ----

def judge(case: Case, target: str, folder: Path) -> str | None:
    """None when ``case`` ended well on ``target``, else what went wrong."""
    from ..errors import CompilationError, InterpreterError, KernelLabError
    from .runner import COMPILE_ONLY, compile_only, forced_target

    name = f"malformed_{case.seed}"
    path = folder / f"{name}.py"
    path.write_text(case.source)
    spec = importlib.util.spec_from_file_location(f"{name}_{target}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError:
        return None  # not a kernel at all: Python refuses it before kernellab sees it
    kernel = getattr(module, case.program.name)
    arrays = make_arrays(case.program)
    try:
        if target.startswith(COMPILE_ONLY):  # build only (no GPU here): source mutations, not launches
            compile_only(kernel, case.program, arrays, target[len(COMPILE_ONLY):], None)
            return None
        with forced_target(target), checked_mode(target in CHECKED_MODE_TARGETS):
            if case.launch is None:
                names = case.program.parameters()[:-2]
                kernel[(case.program.grid,)](*[arrays[n] for n in names], case.program.m, case.program.n,
                                             **case.program.constexprs())
            else:
                case.launch(kernel, arrays)
    except KernelLabError as error:
        text = str(error)
        if isinstance(error, (CompilationError, InterpreterError)) and f"{path.name}:" not in text:
            return f"{type(error).__name__} without the kernel's file and line: {text[:500]}"
        if not isinstance(error, (CompilationError, InterpreterError)) and case.program.name not in text:
            return f"{type(error).__name__} without the kernel's name: {text[:500]}"
        return None
    except Exception as error:
        return _judge_other(case, error)
    return None


@contextlib.contextmanager
def checked_mode(on: bool):
    saved = os.environ.get("KERNELLAB_DEBUG")
    if on:
        os.environ["KERNELLAB_DEBUG"] = "1"
    try:
        yield
    finally:
        if on and saved is None:
            os.environ.pop("KERNELLAB_DEBUG", None)
        elif on:
            os.environ["KERNELLAB_DEBUG"] = saved


def _judge_other(case: Case, error: Exception) -> str | None:
    """An exception that is not kernellab's: fine when user code raised it (the case's grid
    function) or it is Python's own call error naming the kernel; else an internal error."""
    frames = traceback.extract_tb(error.__traceback__)
    if frames and frames[-1].filename == __file__ and frames[-1].name == "<lambda>":
        return None  # raised inside the launch's own grid function: the user's error, kept as is
    if isinstance(error, TypeError):
        if f"{case.program.name}[grid]() got multiple values" in str(error):
            return None  # Python's own call error (as for any function, and in Triton): names the kernel
    return f"internal error {type(error).__module__}.{type(error).__name__}: {str(error)[:500]}"


def child_main(argv: list[str]) -> None:
    """Run cases ``first .. last - 1`` on the targets, one JSON line per finished case."""
    first, last, targets = int(argv[0]), int(argv[1]), argv[2].split(",")
    folder = Path(tempfile.mkdtemp(prefix="kernellab-malformed-"))
    for seed in range(first, last):
        case = make_case(seed)
        print(json.dumps({"seed": seed, "started": True}), flush=True)
        problems = {}
        for target in targets:
            if case.may_overrun and target in UNCHECKED_TARGETS or case.launch and target.startswith("compile:"):
                continue
            found = judge(case, target, folder)
            if found:
                problems[target] = found
        print(json.dumps({"seed": seed, "what": case.what, "problems": problems}), flush=True)


# ---- the parent ----

@dataclass
class Summary:
    cases: int = 0
    ended_well: int = 0  # ran, or raised a user-facing error
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def _describe(seed: int, what: str, detail: str) -> str:
    case = make_case(seed)
    return f"seed {seed} ({what}): {detail}\n{case.source}"


def run(count: int, seed: int, targets: list[str], batch: int = 25, timeout: float = 120.0,
        progress: Callable[[int, int], None] | None = None) -> Summary:
    """Cases ``seed .. seed + count - 1`` in child processes of ``batch`` cases each."""
    summary = Summary()
    started = time.perf_counter()
    next_seed, end = seed, seed + count
    while next_seed < end:
        last = min(end, next_seed + batch)
        finished, running, failure = _batch(next_seed, last, targets, timeout)
        for record in finished:
            summary.cases += 1
            for target, detail in record["problems"].items():
                summary.problems.append(_describe(record["seed"], record["what"], f"[{target}] {detail}"))
        if running is not None:
            summary.cases += 1
            summary.problems.append(_describe(running, make_case(running).what, failure))
            next_seed = running + 1
        else:
            next_seed = last
        if progress is not None:
            progress(next_seed - seed, len(summary.problems))
    summary.ended_well = summary.cases - len(summary.problems)
    summary.seconds = time.perf_counter() - started
    return summary


def _batch(first: int, last: int, targets: list[str], timeout: float) -> tuple[list[dict], int | None, str]:
    """Run a child; its finished records, and the case it died or hung in (with how)."""
    command = [sys.executable, "-c", "import sys; from kernellab.fuzz.malformed import child_main; "
               "child_main(sys.argv[1:])", str(first), str(last), ",".join(targets)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [_root(), os.environ.get("PYTHONPATH")])))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        output, code, how = done.stdout, done.returncode, ""
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        code, how = None, f"hung (no result in {timeout:.0f} s)"
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    finished = [r for r in records if "problems" in r]
    started = [r["seed"] for r in records if r.get("started")]
    if code == 0:
        return finished, None, ""
    if code is not None:
        how = f"the process died (exit status {code}{_signal_name(code)})"
    if started and finished and started[-1] == finished[-1]["seed"]:  # every case ended: it died exiting
        finished[-1]["problems"]["(exit)"] = f"{how} after cases {first}..{started[-1]}: one of them broke memory"
        return finished, None, ""
    return finished, started[-1] if started else first, how


def _signal_name(code: int) -> str:
    if code >= 0:
        return ""
    import signal

    try:
        return f", {signal.Signals(-code).name}"
    except ValueError:
        return ""


def _root() -> str:
    return str(Path(__file__).resolve().parents[2])
