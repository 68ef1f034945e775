"""The fallback for a node with no Cuvil rule: PyTorch's own decomposition, lowered op by op.

The node's call is traced with ``make_fx`` on fake tensors of its operands' types through
PyTorch's decomposition tables (the Core ATen ones first, then the rest of
``torch._decomp``), restricted to the ops Cuvil has no rule for. The small graph of ATen
ops that comes out is lowered with the ordinary rules, one level deep (an op left without
a rule there refuses the whole node). The lowering context's location and node name are
left as the original node's, so every emitted op carries its FX node, module path and
source line, and the diff maps them back to that one node::

    %y = aten.hardsigmoid(%x)   ->   cuvil.add, cuvil.clamp, cuvil.div   (all loc "y")
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import cache
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten, tree_unflatten

from ..errors import FrontendError, UnsupportedOpError
from ..ir.core import Value
from ..ir.types import SymDim
from .context import LazyTensor, LoweringContext
from .registry import lookup, target_name

__all__ = ["decompose", "decomposition_graph", "decomposition_table"]

LowerCall = Callable[[torch.fx.Node, tuple, dict], Any]
_STRUCTURAL = {operator.getitem}


@cache
def _tables() -> tuple[dict, dict]:
    """Core ATen's table, and torch._decomp's own ATen-level decompositions beyond it
    (the rest of its table is torch._refs, which decomposes into prims Cuvil has not)."""
    from torch._decomp import core_aten_decompositions, decomposition_table

    core = dict(core_aten_decompositions())
    extra = {
        op: fn
        for op, fn in decomposition_table.items()
        if op not in core
        and getattr(fn, "__module__", "") == "torch._decomp.decompositions"
    }
    return core, extra


def decomposition_table() -> dict:
    """PyTorch's decompositions of the ops Cuvil has no rule for."""
    core, extra = _tables()
    return {op: fn for op, fn in {**extra, **core}.items() if lookup(op) is None}


def decompose(
    node: torch.fx.Node, args: tuple, kwargs: dict, call: LowerCall, cx: LoweringContext
) -> Any:
    """Lower `node` (no rule of its own) through its decomposition; `call` lowers one
    ATen node of the decomposition with the ordinary rules, into `cx`."""
    what = target_name(node.target)
    if not _is_torch_target(node):
        raise UnsupportedOpError(
            what, node=node.name, hint="see docs/OPS.md for the supported ops"
        )
    _refuse_inplace(node, what)
    leaves, spec = tree_flatten((args, kwargs))
    slots = [i for i, x in enumerate(leaves) if _is_tensor(x)]
    gm = _trace(node, leaves, spec, slots, what)
    _check_graph(gm, node, what)
    origin = (what, node.name)
    return _lower_graph(gm, [leaves[i] for i in slots], call, cx, origin)


def decomposition_graph(
    target: Any, args: tuple, kwargs: dict | None = None
) -> torch.fx.GraphModule:
    """The ATen graph a call of `target` on real tensors decomposes into (for docs)."""
    mode = _fake_mode()
    fakes = [_fake(a, mode) if isinstance(a, torch.Tensor) else a for a in args]
    call = lambda *xs: target(*xs, **(kwargs or {}))  # noqa: E731
    return _make_fx(call, fakes)


def _is_torch_target(node: torch.fx.Node) -> bool:
    """ATen ops, Tensor methods and torch's functions: not the user's own functions
    (a function kept opaque with torch.fx.wrap stays a call Cuvil has no rule for)."""
    target = node.target
    if node.op == "call_method" or isinstance(target, torch._ops.OpOverload):
        return True
    module = getattr(target, "__module__", None) or ""
    return module == "torch" or module.startswith("torch.")


def _refuse_inplace(node: torch.fx.Node, what: str) -> None:
    name = (
        what.rsplit(".", 2)[-2]
        if isinstance(node.target, torch._ops.OpOverload)
        else what
    )
    if (name.endswith("_") and not name.endswith("__")) or node.kwargs.get("inplace"):
        raise UnsupportedOpError(
            what,
            node=node.name,
            hint="in-place forms are not decomposed; use the out-of-place form",
        )


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Value, LazyTensor, torch.Tensor))


def _trace(node, leaves, spec, slots, what: str) -> torch.fx.GraphModule:
    """make_fx of the node's call, its tensor operands as fake tensors of their types."""
    mode = _fake_mode()
    fakes = [_example(leaves[i], node, what, mode) for i in slots]

    def call(*tensors):
        filled = list(leaves)
        for i, t in zip(slots, tensors):
            filled[i] = t
        a, k = tree_unflatten(filled, spec)
        if node.op == "call_method":
            return getattr(a[0], node.target)(*a[1:], **k)
        return node.target(*a, **k)

    try:
        return _make_fx(call, fakes)
    except Exception as e:
        raise UnsupportedOpError(
            what,
            node=node.name,
            hint=f"it has no Cuvil rule and PyTorch could not decompose it "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})",
        ) from e


def _make_fx(call: Callable, fakes: list) -> torch.fx.GraphModule:
    from torch.fx.experimental.proxy_tensor import make_fx

    table = decomposition_table()
    gm = make_fx(call, decomposition_table=table, tracing_mode="fake")(*fakes)
    if any(_mutates(n.target) for n in gm.graph.nodes):
        # a decomposition that mutates its own temporaries (clamp_min_ in
        # cosine_similarity) traced again, functionalized: out-of-place ops
        pure = torch.func.functionalize(gm)
        gm = make_fx(pure, decomposition_table=table, tracing_mode="fake")(*fakes)
    return gm


def _mutates(target: Any) -> bool:
    return isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable


def _example(x: Any, node: torch.fx.Node, what: str, mode) -> torch.Tensor:
    if isinstance(x, Value):
        if any(isinstance(d, SymDim) for d in x.type.shape):
            raise UnsupportedOpError(
                what,
                node=node.name,
                hint="it has no Cuvil rule, and its decomposition needs static shapes",
            )
        with mode:
            return torch.empty(tuple(x.type.shape), dtype=x.type.dtype.torch)
    return _fake(x.data if isinstance(x, LazyTensor) else x, mode)


def _fake(t: torch.Tensor, mode) -> torch.Tensor:
    with mode:  # an empty of the same type: no data copied, none needed
        return torch.empty(tuple(t.shape), dtype=t.dtype)


def _fake_mode():
    """One fake mode per decomposition: make_fx refuses inputs from several."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    return FakeTensorMode()


def _inner_ops(gm: torch.fx.GraphModule) -> list:
    return [
        n.target
        for n in gm.graph.nodes
        if n.op == "call_function" and n.target not in _STRUCTURAL
    ]


def describe(gm: torch.fx.GraphModule) -> str:
    """The ATen ops of a decomposition, once each, in order of first use."""
    names = dict.fromkeys(target_name(t) for t in _inner_ops(gm))
    return ", ".join(names)


def _check_graph(gm: torch.fx.GraphModule, node: torch.fx.Node, what: str) -> None:
    """Refuse what cannot be lowered as a pure function of the operands."""
    targets = _inner_ops(gm)
    same = [t for t in targets if t == node.target or lookup(t) is None]
    if targets and len(targets) == len(same) == 1:
        raise UnsupportedOpError(
            what, node=node.name, hint="see docs/OPS.md for the supported ops"
        )
    for t in targets:
        if not isinstance(t, torch._ops.OpOverload):
            continue
        if t._schema.is_mutable or torch.Tag.nondeterministic_seeded in t.tags:
            kind = "mutates a tensor" if t._schema.is_mutable else "is random"
            raise UnsupportedOpError(
                what,
                node=node.name,
                hint=f"it has no Cuvil rule and its decomposition uses {t}, which {kind}",
            )


def _lower_graph(gm, operands, call: LowerCall, cx: LoweringContext, origin) -> Any:
    """Lower the decomposition's nodes with the ordinary rules; return its output.

    The node's result values keep its name; the values inside are named
    ``node.inner`` (the diff finds a node's value by name in the optimized stages)."""
    env: dict[torch.fx.Node, Any] = {}
    placeholders = iter(operands)
    results = set(gm.graph.output_node().all_input_nodes)
    for sub in gm.graph.nodes:
        cx.node_name = origin[1] if sub in results else f"{origin[1]}.{sub.name}"
        if sub.op == "placeholder":
            env[sub] = next(placeholders)
        elif sub.op == "get_attr":
            env[sub] = getattr(gm, sub.target)
        elif sub.op == "output":
            cx.node_name = origin[1]
            return torch.fx.node.map_arg(sub.args[0], lambda n: env[n])
        else:
            a = torch.fx.node.map_arg(sub.args, lambda n: env[n])
            k = torch.fx.node.map_arg(sub.kwargs, lambda n: env[n])
            env[sub] = _lower_one(sub, a, k, call, gm, origin)
    cx.node_name = origin[1]
    raise FrontendError(f"the decomposition of {origin[0]} has no output")


def _lower_one(sub, args, kwargs, call: LowerCall, gm, origin: tuple) -> Any:
    what, name = origin
    try:
        result = call(sub, args, kwargs)
    except UnsupportedOpError as e:
        raise UnsupportedOpError(
            what,
            node=name,
            hint=f"it has no Cuvil rule; PyTorch decomposes it into {describe(gm)}, "
            f"but {e.target} blocks that ({e.hint or 'no rule'})",
        ) from None
    _check_type(sub, result, what)
    return result


def _check_type(sub: torch.fx.Node, result: Any, what: str) -> None:
    want = sub.meta.get("val")
    if not isinstance(result, Value) or not isinstance(want, torch.Tensor):
        return
    if result.type.dtype.torch != want.dtype or tuple(result.type.shape) != tuple(
        want.shape
    ):
        raise FrontendError(
            f"lowering {target_name(sub.target)} in the decomposition of {what} "
            f"produced {result.type} but torch computes {tuple(want.shape)} {want.dtype}",
            hint="this is a bug in Cuvil's frontend; please report it with the model",
        )
