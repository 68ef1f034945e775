"""Every pass of the default pipeline does work linear in the size of the IR.

The work is counted, not timed: every Python function call and every call into C
(``sys.setprofile``) while the O3 pipeline runs over elementwise chains of n and 4n ops
(issue 19: a 1000-op chain spent 0.9 s in passes, 100 ops 4 ms; ``cse`` fused the
location of every replaced constant into a growing list, ``fuse-elementwise`` numbered
the whole function per group, erasing scanned use lists and the op list). A linear
pipeline does about 4x the calls on 4x the ops; the bound leaves 25% for the constant
parts (the pipeline's own setup, a handful of fused groups more or less).
"""

from __future__ import annotations

import sys

import pytest
import torch

from cuvil.frontend import lower
from cuvil.ir.core import Function, Module
from cuvil.ir.location import Loc, fuse
from cuvil.ir.ops.binary import AddOp
from cuvil.ir.types import DType, TensorType
from cuvil.options import CompileOptions
from cuvil.passes import run_passes


class Chain(torch.nn.Module):
    """n elementwise ops in a row: unary ops, ops with a repeated scalar constant
    (``cse`` merges the constants), or ops that all read one second input."""

    def __init__(self, n: int, kind: str) -> None:
        super().__init__()
        self.n, self.kind = n, kind

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        for i in range(self.n):
            if self.kind == "scalars":
                x = (
                    torch.sin(x)
                    if i % 3 == 0
                    else (x * 1.01 if i % 3 == 1 else x + 0.5)
                )
            elif self.kind == "unary":
                x = torch.sin(x) if i % 2 else torch.relu(x)
            else:
                x = x * y if i % 2 else x + y
        return x


def _work(n: int, kind: str) -> int:
    module = lower(Chain(n, kind), [torch.randn(4, 8), torch.randn(4, 8)], "fx")
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        run_passes(module, CompileOptions())  # the O3 default pipeline
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("kind", ["scalars", "unary", "shared-input"])
def test_pass_work_grows_linearly_with_the_chain(kind):
    small, large = _work(150, kind), _work(600, kind)
    assert large <= 4 * small * 1.25, (kind, small, large, large / small)


def test_fuse_keeps_first_occurrences_in_order():
    a, b, c = (Loc(node=n, file="m.py", line=i) for i, n in enumerate("abc"))
    assert fuse(a, fuse(b, a), c, fuse(c, b)).parts == (a, b, c)
    assert fuse(a, a) == a and fuse().is_unknown


def _chain(n: int) -> tuple[Function, list]:
    t = TensorType((4,), DType.f32)
    fn = Function("f")
    v = fn.add_arg(t, "x")
    made = []
    for _ in range(n):
        op = fn.append(AddOp.build(v, v))
        made.append(op)
        v = op.result
    fn.set_outputs([v])
    return fn, made


def test_erase_and_replace_leave_the_op_list_in_order():
    fn, ops = _chain(6)
    held = fn.ops  # the same list object, compacted in place
    last = ops[-1]
    ops[-2].result.replace_all_uses_with(ops[-3].result)
    fn.erase(ops[-2])
    new = AddOp.build(ops[-3].result, ops[-3].result)
    last.result.replace_all_uses_with(new.result)
    fn.set_outputs([new.result])
    fn.replace_op(last, new)
    assert fn.ops is held and fn.ops == [*ops[:4], new]
    assert all((op, i) in op.operands[i].uses for op in fn.ops for i in range(2))
    assert not ops[-2].operands and (ops[-2], 0) not in ops[-3].result.uses


def test_use_lists_add_and_remove_in_constant_time_and_read_like_lists():
    fn, ops = _chain(3)
    x = fn.args[0]
    assert list(x.uses) == [(ops[0], 0), (ops[0], 1)] and len(x.uses) == 2
    ops[1].set_operand(0, x)
    assert (ops[1], 0) in x.uses and (ops[1], 0) not in ops[0].result.uses
    with pytest.raises(ValueError):
        ops[0].result.uses.remove((ops[1], 0))
    assert Module().functions == []
