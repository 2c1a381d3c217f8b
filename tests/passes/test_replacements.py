"""Replacements (the passes' old value -> new value map) is keyed by identity: a value made
after a replaced value was freed may reuse its ``id`` and must not be taken for it."""

import gc

from kernellab.ir.core import Value
from kernellab.ir.types import f32
from kernellab.passes.rewrite import Replacements


def test_a_value_reusing_a_freed_replaced_values_id_resolves_to_itself():
    replacements = Replacements()
    new = Value(f32)
    for _ in range(64):
        old = Value(f32)
        replacements.replace(old, new)
        del old  # an erased op's results die like this (by the cycle collector) during a pass
    gc.collect()
    fresh = [Value(f32) for _ in range(4096)]
    assert [v for v in fresh if replacements.resolve(v) is not v] == []


def test_replacements_follow_chains():
    a, b, c = Value(f32), Value(f32), Value(f32)
    replacements = Replacements()
    replacements.replace(a, b)
    replacements.replace(b, c)
    assert replacements.resolve(a) is c
    assert replacements.resolve(b) is c
    assert replacements.resolve(c) is c
