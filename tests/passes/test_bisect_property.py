"""Property: for random elementwise/matmul graphs, every bisect prefix is a correct program.

For each graph the O3 pipeline asks for T actions; with ``bisect_limit=N`` for every N in
0..T the module verifies and the interpreter gives eager's result; two prefixes (half and
all actions) are also compiled and run natively.
"""

from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuvil.ir import DType, Function, Module, TensorType, verify
from cuvil.ir import ops as O
from cuvil.ir.interpreter import interpret
from cuvil.options import CompileOptions
from cuvil.passes import PassContext, PassPipeline, default_pipeline
from cuvil.pipeline import compile_module

T = TensorType((4, 8), DType.f32)
KINDS = [
    "relu",
    "tanh",
    "neg",
    "add",
    "mul",
    "sub",
    "linear",
    "matmul",
    "scale",
    "dup",
    "dead",
]


def build(recipe: list[tuple[str, int, int]]) -> Module:
    """A module from a recipe: (kind, operand pick, operand pick) per op."""
    gen = torch.Generator().manual_seed(0)
    m = Module("g")
    fn = m.add_function(Function("forward"))
    vals = [fn.add_arg(T, "x"), fn.add_arg(T, "y")]
    m.add_param("w", torch.randn(8, 8, generator=gen) / 3)
    m.add_param("b", torch.randn(8, generator=gen))
    w = fn.append(O.ParamOp.of(m, "w")).result
    b = fn.append(O.ParamOp.of(m, "b")).result
    for kind, i, j in recipe:
        a, c = vals[i % len(vals)], vals[j % len(vals)]
        op = _op(fn, kind, a, c, w, b)
        if kind != "dead":
            vals.append(op.result)
    fn.set_outputs([vals[-1]])
    return verify(m)


def _op(fn: Function, kind: str, a, c, w, b):
    unary = {
        "relu": O.UNARY_OPS["cuvil.relu"],
        "tanh": O.UNARY_OPS["cuvil.tanh"],
        "neg": O.UNARY_OPS["cuvil.neg"],
        "dead": O.UNARY_OPS["cuvil.sigmoid"],
    }
    binary = {
        "add": "cuvil.add",
        "mul": "cuvil.mul",
        "sub": "cuvil.sub",
        "dup": "cuvil.add",
    }
    if kind in unary:
        return fn.append(unary[kind].build(a))
    if kind in binary:
        if kind == "dup":  # the same add twice: something for CSE
            fn.append(O.BINARY_OPS["cuvil.add"].build(a, c))
        return fn.append(O.BINARY_OPS[binary[kind]].build(a, c))
    if kind == "linear":
        return fn.append(O.LinearOp.build(a, w, b))
    if kind == "matmul":
        return fn.append(O.MatmulOp.build(a, w))
    k = fn.append(O.ConstantOp.build(value=torch.tensor(0.5))).result
    return fn.append(O.BINARY_OPS["cuvil.mul"].build(a, k))


recipes = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(0, 20), st.integers(0, 20)),
    min_size=1,
    max_size=9,
)
XS = [torch.randn(4, 8, generator=torch.Generator().manual_seed(s)) for s in (1, 2)]


def _eager(recipe) -> torch.Tensor:
    return interpret(build(recipe), XS)[0]  # before any pass: op-by-op torch


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes)
def test_every_bisect_prefix_verifies_and_matches_eager(recipe):
    want = _eager(recipe)
    pipeline = default_pipeline("O3")
    total = len(PassPipeline(pipeline).run(build(recipe)).actions)
    for n in range(total + 1):
        module = build(recipe)
        ctx = PassPipeline(pipeline, verify_each=True).run(module, PassContext(n))
        assert len(ctx.applied) == n
        torch.testing.assert_close(interpret(module, XS)[0], want, rtol=1e-4, atol=1e-5)
    for n in sorted({total // 2, total}):
        module = build(recipe)
        cm = compile_module(
            module, CompileOptions.parse(pipeline=pipeline, bisect_limit=n)
        )
        torch.testing.assert_close(cm(*XS), want, rtol=1e-4, atol=1e-5)
