"""Inlining: every ``call`` whose callee lacks ``noinline=True`` is replaced by a copy of the
callee's body (values remapped; the copied ops keep their own source locations).  Callees are
flattened first, so a chain of calls inlines completely; a cycle of inlinable functions is an
error.  Afterwards functions that the kernel no longer reaches are removed.

A function body ends in its only ``return`` (structured control flow), so the returned values
simply replace the call's results.
"""

from __future__ import annotations

from ..ir.core import Function, Module, Op, replace_all_uses
from .rewrite import blocks, clone_op, erase


def inline(module: Module) -> Module:
    """Inline calls to inlinable functions, then drop functions the kernel does not reach."""
    inliner = _Inliner(module)
    for function in list(module.functions.values()):
        inliner.flatten(function)
    remove_unreachable_functions(module)
    return module


class _Inliner:
    def __init__(self, module: Module):
        self.module = module
        self.flattened: set[str] = set()
        self.active: list[str] = []

    def callee(self, call: Op) -> Function:
        name = call.attrs["callee"]
        if name not in self.module.functions:
            raise ValueError(f"call to undefined function @{name} (the module has: "
                             f"{', '.join('@' + n for n in self.module.functions)})")
        return self.module.functions[name]

    def flatten(self, function: Function) -> None:
        """Inline every inlinable call inside ``function`` (callees first)."""
        if function.name in self.flattened:
            return
        if function.name in self.active:
            cycle = " -> ".join("@" + n for n in self.active[self.active.index(function.name):] + [function.name])
            raise ValueError(f"recursive calls cannot be inlined: {cycle}; mark one of them noinline=True")
        self.active.append(function.name)
        for block in list(blocks(function)):
            for op in list(block.ops):
                if op.name != "call":
                    continue
                callee = self.callee(op)
                if callee.attrs.get("noinline"):
                    continue
                self.flatten(callee)
                _inline_call(function, op, callee)
        self.active.pop()
        self.flattened.add(function.name)


def _inline_call(caller: Function, call: Op, callee: Function) -> None:
    body = callee.body.ops
    if not body or body[-1].name != "return":
        raise ValueError(f"@{callee.name} does not end in return; verify the module before inlining")
    mapping = {id(arg): value for arg, value in zip(callee.args, call.operands)}
    block = call.parent
    index = block.ops.index(call)
    for op in body[:-1]:
        block.insert(index, clone_op(op, mapping))
        index += 1
    returned = [mapping.get(id(v), v) for v in body[-1].operands]
    for result, value in zip(call.results, returned):
        replace_all_uses(caller, result, value)
    erase(call)


def remove_unreachable_functions(module: Module) -> Module:
    """Drop every function that the kernel cannot reach through calls."""
    if not module.functions:
        return module
    reachable = {module.kernel.name}
    pending = [module.kernel]
    while pending:
        for op in pending.pop().walk():
            name = op.attrs.get("callee") if op.name == "call" else None
            if name in module.functions and name not in reachable:
                reachable.add(name)
                pending.append(module.functions[name])
    for name in [n for n in module.functions if n not in reachable]:
        del module.functions[name]
    return module
