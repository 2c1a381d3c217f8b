"""Fault injection, damaged files: every kind of file in a warm cache flipped or truncated,
valid JSON of the wrong shape (sealed with the user's own key) in every memo, a code memo linked
to another kernel's -- a new process still launches every kernel correctly, and so does the next.
A seeded sample by default; ``pytest --long`` runs every file and fault."""

from __future__ import annotations

import json
import random

import pytest

from kernellab import cachedir

from . import faults

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fault-files")
    module = faults.kernels_file(folder / "src")
    return faults.warm(folder / "cache", module), module


def _file_cases(pristine_cache) -> list:
    files = faults.cache_files(pristine_cache)
    kinds = sorted({faults.kind_of(pristine_cache, f) for f in files})
    return [(kind, fault) for kind in kinds for fault in faults.FAULTS]


def test_every_kind_of_file_is_in_the_warm_cache(pristine):
    cache, _ = pristine
    kinds = {kind for kind, _ in _file_cases(cache)}
    expected = {"autotune", "code", "dependencies", "fingerprint", "toolchain", "entry:metadata.json", "entry:obj.bin"}
    assert expected <= kinds, kinds


def test_damaged_files_are_rebuilt(pristine, tmp_path, request):
    cache, module = pristine
    long = request.config.getoption("--long")
    cases = faults.sample(_file_cases(cache), 5, long, seed=17)
    rng = random.Random(17)
    for trial, (kind, fault) in enumerate(cases):
        copy = faults.copy_cache(cache, tmp_path / f"trial{trial}")
        files = [f for f in faults.cache_files(copy) if faults.kind_of(copy, f) == kind]
        for path in (files if long else [rng.choice(files)]):
            what = faults.FAULTS[fault](path, rng)
            faults.assert_launches(copy, module, f"{what} of {path.relative_to(copy)}")


def _reseal_json(path, mutate) -> None:
    record = cachedir.unseal_json(cachedir.sealed_name(path), path.read_bytes())
    assert record is not None, f"{path} is not sealed JSON"
    mutate(record)
    path.write_bytes(cachedir.seal_json(cachedir.sealed_name(path), record))


def _entry_mutations(key_of) -> list:
    return [("stages", [{"file": "../../x", "name": "obj", "kind": "bytes", "size": 1, "sha256": "0"}]),
            ("stages", [1]), ("stages", None), ("metadata", [1, 2]), ("format", "3"), ("key", key_of)]


_SHAPES = {  # memo kind -> (field, wrong value) resealed with the user's own key
    "dependencies": [("reads", [1]), ("reads", [[]]), ("reads", [None]), ("reads", [["name", 7]]),
                     ("reads", [["attr", "a"]]), ("text", 3), ("reads", {"a": 1})],
    "toolchain": [("answer", [1, 2]), ("answer", {"ptxas": [1]}), ("files", {"/x": "y"}), ("files", [1])],
    "autotune": [("timings", "x"), ("timings", [True]), ("timings", [-1.0]), ("failure", 42),
                 ("compile_seconds", "slow"), ("timings", None)],
    "entry:metadata.json": _entry_mutations("0" * 64),
}
_JSON_VALUES = ["[1,2]", "null", '"x"', "42", "true", "{}", '{"format": 1}']


def _shape_cases() -> list:
    cases = [(kind, field, value) for kind, fields in _SHAPES.items() for field, value in fields]
    cases += [(kind, None, value) for kind in _SHAPES for value in _JSON_VALUES]  # plain JSON: unsealed
    return cases


def test_json_of_the_wrong_shape_in_every_memo_is_ignored(pristine, tmp_path, request):
    cache, module = pristine
    long = request.config.getoption("--long")
    cases = faults.sample(_shape_cases(), 6, long, seed=23)
    for trial, (kind, field, value) in enumerate(cases):
        copy = faults.copy_cache(cache, tmp_path / f"trial{trial}")
        for path in [f for f in faults.cache_files(copy) if faults.kind_of(copy, f) == kind]:
            if field is None:
                path.write_text(value)
            else:
                _reseal_json(path, lambda record, field=field, value=value: record.__setitem__(field, value))
        faults.assert_launches(copy, module, f"{kind}: {field}={json.dumps(value)}")


def test_a_code_memo_linked_to_another_is_compiled_again(pristine, tmp_path):
    cache, module = pristine
    copy = faults.copy_cache(cache, tmp_path / "linked")
    first, *others = sorted((copy / "code").iterdir())
    for other in others:
        other.unlink()
        other.symlink_to(first)
    faults.assert_launches(copy, module, "code memos linked to one")


def test_a_flipped_bit_in_a_sealed_file_fails_its_check(tmp_path):
    payload = b"any data a cache keeps"
    sealed = cachedir.seal("code/abc.marshal", payload)
    assert cachedir.unseal("code/abc.marshal", sealed) == payload
    assert cachedir.unseal("code/abd.marshal", sealed) is None  # another name: another MAC
    for at in range(len(sealed)):
        for bit in range(8):
            damaged = bytearray(sealed)
            damaged[at] ^= 1 << bit
            assert cachedir.unseal("code/abc.marshal", bytes(damaged)) is None
    for size in range(len(sealed)):
        assert cachedir.unseal("code/abc.marshal", sealed[:size]) is None
