"""Walks an FX graph node by node and lowers it into a Cuvil IR function.

Shared by both frontends; they differ only in how placeholders and attributes become values
(``bind_placeholder``/``bind_attr``) and how a node's expected type is read (``expected``).
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten, tree_map

from ..errors import CuvilError, FrontendError, UnsupportedOpError
from ..hooks import CompileHooks, NodeLowered
from ..ir.core import Function, Module, Trait, Value
from ..ir.types import DType, SymDim, TensorType
from . import (  # noqa: F401  (registers the rules)
    lower_activation,
    lower_attention,
    lower_factory,
    lower_index,
    lower_math,
    lower_mathx,
    lower_maxpool,
    lower_nn,
    lower_norm,
    lower_pool3d,
    lower_quant,
    lower_rearrange,
    lower_reduce,
    lower_resample,
    lower_scan,
    lower_scatter,
    lower_shape,
)
from .context import LazyTensor, LoweringContext, cuvil_dtype
from .decompose import decompose
from .inplace import FROZEN, check_rebind, fallback_rule, is_inplace, same_tensor
from .lower_factory import lowers_factory
from .module_state import functorch_kept
from .modules import MODULE_LOWERINGS
from .provenance import node_loc
from .registry import lookup, target_name

__all__ = ["GraphLowering", "tensor_type"]

_RANDOM = {
    torch.rand,
    torch.randn,
    torch.randint,
    torch.rand_like,
    torch.randn_like,
    torch.randint_like,
    torch.bernoulli,
    torch.multinomial,
    torch.normal,
    torch.randperm,
    torch.poisson,
}


def _random(target: Any) -> bool:
    """Draws random numbers: never folded into a constant (each call draws anew). The
    ATen forms export records (``aten.rand.default``) carry torch's
    ``nondeterministic_seeded`` tag; folding one made every call of a compiled
    ViT-MAE mask the same patches."""
    if isinstance(target, torch._ops.OpOverloadPacket):
        target = getattr(target, "default", None)
    if isinstance(target, torch._ops.OpOverload):
        return torch.Tag.nondeterministic_seeded in target.tags
    try:
        return target in _RANDOM
    except TypeError:  # an unhashable target
        return False


def tensor_type(t: torch.Tensor) -> TensorType:
    """The IR type of a real or fake tensor; symbolic sizes become named SymDims."""
    dims = tuple(
        int(d) if isinstance(d, int) or str(d).isdigit() else SymDim(str(d))
        for d in t.shape
    )
    return TensorType(dims, cuvil_dtype(t.dtype))


class GraphLowering:
    """Lowers one FX graph. Subclasses fill in placeholders and attribute access."""

    def __init__(
        self, graph: torch.fx.Graph, module: Module, root: torch.nn.Module | None
    ):
        self.graph, self.root = graph, root
        self.fn = module.add_function(Function("forward"))
        self.cx = LoweringContext(module, self.fn)
        self.env: dict[torch.fx.Node, Any] = {}
        # a node with no rule is lowered through PyTorch's decomposition (decompose.py)
        # unless this is False; never inside a decomposition (one level deep)
        self.decompose, self._decomposing = True, False

    # ---- hooks for the frontends -----------------------------------------------------------
    def bind_placeholder(self, node: torch.fx.Node) -> Any:
        raise NotImplementedError

    def bind_attr(self, node: torch.fx.Node) -> Any:
        raise NotImplementedError

    def expected(self, node: torch.fx.Node) -> Any:
        """torch's own tensor (or fake tensor) for the node's result, when known."""
        return None

    # ---- the walk ------------------------------------------------------------------------
    def run(self, hooks: CompileHooks | None = None) -> Function:
        # the graph's own `_vmap_increment_nesting` nodes run for real: a node that
        # fails between one and its decrement must not leave the process inside vmap
        with functorch_kept():
            return self._run(hooks)

    def _run(self, hooks: CompileHooks | None) -> Function:
        after_node = hooks.after_node if hooks is not None else None
        # what each FX node became when it was lowered (an IR Value, a Python value, a
        # LazyTensor or a tuple of those; a later in-place op rebinds the env, not this):
        # the diff maps FX nodes to IR values through it
        values = self.cx.module.fx_values = {}
        for node in self.graph.nodes:
            self.cx.loc, self.cx.node_name = node_loc(node), node.name
            self.cx.fx_node = node
            start = len(self.fn.ops)
            try:
                self.env[node] = self.lower_node(node)
                _name_inner(self.fn.ops[start:], self.env[node], node.name)
                if after_node is not None:  # a tool's seam (cuvil.hooks)
                    after_node(NodeLowered(node, self.graph, self.cx, self.env))
            except CuvilError as e:
                raise self._with_location(e, node) from None
            except Exception as e:  # a rule met arguments it does not handle
                err = FrontendError(
                    f"cannot lower {target_name(node.target)} (FX node '{node.name}'): "
                    f"{type(e).__name__}: {e}",
                    hint="if the model runs in eager mode, this is a Cuvil frontend bug",
                )
                raise self._with_location(err, node) from e
            self._check_type(node)
            values[node.name] = self.env[node]
        return self.fn

    def lower_node(self, node: torch.fx.Node) -> Any:
        if node.op == "placeholder":
            return self.bind_placeholder(node)
        if node.op == "get_attr":
            return self.bind_attr(node)
        if node.op == "output":
            return self.bind_output(node)
        if node.target is operator.getitem and not node.users:
            return None  # a result nobody reads (export keeps them): not computed
        args, kwargs = self._args(node)
        if node.op == "call_module":
            result = self.call_module(node, args, kwargs)
        else:
            result = self.call(node, args, kwargs)
        return self._apply_inplace(node, result)

    def _args(self, node: torch.fx.Node) -> tuple[tuple, dict]:
        lookup_env = lambda n: self.env[n]  # noqa: E731
        args = torch.fx.node.map_arg(node.args, lookup_env)
        kwargs = torch.fx.node.map_arg(node.kwargs, lookup_env)
        return args, kwargs

    def call(self, node: torch.fx.Node, args: tuple, kwargs: dict) -> Any:
        target = node.target
        rule = lookup(target) or fallback_rule(target)
        leaves = tree_flatten((args, kwargs))[0]
        has_value = any(isinstance(x, Value) for x in leaves)
        has_lazy = any(isinstance(x, LazyTensor) for x in leaves)
        factory = lowers_factory(target, args)
        if (
            not has_value
            and (not has_lazy or rule is None)
            and not _random(target)
            and not factory
        ):
            return self._evaluate(node, args, kwargs)
        if rule is None and self.decompose and not self._decomposing:
            return self._decompose(node, args, kwargs)
        if rule is None:
            raise UnsupportedOpError(
                target_name(target),
                node=node.name,
                hint="see docs/OPS.md for the supported ops",
            )
        kwargs = _numpy_names(node, kwargs)
        _check_arguments(rule, target, node, self.cx, args, kwargs)
        return rule(self.cx, *args, **kwargs)

    def _decompose(self, node: torch.fx.Node, args: tuple, kwargs: dict) -> Any:
        self._decomposing = True
        try:
            return decompose(node, args, kwargs, self.call, self.cx)
        finally:
            self._decomposing = False

    def call_module(self, node: torch.fx.Node, args: tuple, kwargs: dict) -> Any:
        sub = self.root.get_submodule(node.target)
        rule = MODULE_LOWERINGS.get(type(sub))
        if rule is None:
            name = f"{type(sub).__module__}.{type(sub).__qualname__}"
            raise UnsupportedOpError(
                name, node=node.name, hint="see docs/OPS.md for the supported modules"
            )
        return rule(self.cx, sub, str(node.target), *args, **kwargs)

    def _evaluate(self, node: torch.fx.Node, args: tuple, kwargs: dict) -> Any:
        """Run a node on compile-time values (sizes, constants, params) in Python."""
        real = tree_map(
            lambda x: x.data if isinstance(x, LazyTensor) else x, (args, kwargs)
        )
        args, kwargs = real
        if node.op == "call_method":
            return getattr(args[0], node.target)(*args[1:], **kwargs)
        return node.target(*args, **kwargs)

    def _apply_inplace(self, node: torch.fx.Node, result: Any) -> Any:
        """``x.add_(y)`` rebinds x to the new value, so later uses see the mutation
        (refused where another alias would still read the old one: inplace.py), cast
        to x's dtype (``half_x += float_y`` stays half). Returns the node's value."""
        first = node.args[0] if node.args else None
        if (
            not isinstance(first, torch.fx.Node)
            or not isinstance(result, Value)
            or not is_inplace(node, self.root)
        ):
            return result
        why = check_rebind(node, first)
        if why == "unknown":  # no storage facts (a graph given as is): be strict
            why = _strict_reason(self.env.get(first))
        if why is not None:
            raise UnsupportedOpError(
                f"in-place '{target_name(node.target)}' on {why}",
                node=node.name,
                hint=_HINTS.get(why, _STATE_HINT if "buffer" in why else _INPLACE_HINT),
            )
        dtype = _written_dtype(self.env.get(first))
        if dtype is not None and dtype != result.type.dtype:
            result = self.cx.cast(result, dtype)
        for alias in same_tensor(node, first):  # every name of the written tensor
            self.env[alias] = result
        return result

    def bind_output(self, node: torch.fx.Node) -> None:
        leaves, spec = tree_flatten(
            _mutable(torch.fx.node.map_arg(node.args[0], lambda n: self.env[n]))
        )
        self.cx.module.output_spec = spec
        outputs = []
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, (LazyTensor, torch.Tensor)):
                leaf = self.cx.value(leaf)
            if not isinstance(leaf, Value):
                raise FrontendError(
                    f"output {i} is a {type(leaf).__name__}, not a tensor",
                    hint="return only tensors from forward()",
                )
            outputs.append(leaf)
        if not outputs:
            raise FrontendError(
                "forward() returns no tensor", hint="return at least one tensor"
            )
        self.fn.set_outputs(outputs)

    # ---- checks and errors -------------------------------------------------------------
    def _check_type(self, node: torch.fx.Node) -> None:
        got, want = self.env.get(node), self.expected(node)
        if not isinstance(got, Value) or not isinstance(want, torch.Tensor):
            return
        expect = tensor_type(want)
        if got.type.dtype != expect.dtype or not _shapes_agree(
            got.type.shape, expect.shape
        ):
            raise FrontendError(
                f"lowering of {target_name(node.target)} produced {got.type} but torch "
                f"computes {expect}",
                where=self.cx.loc.describe(),
                hint="this is a bug in Cuvil's frontend; please report it with the model",
            )

    def _with_location(self, e: CuvilError, node: torch.fx.Node) -> CuvilError:
        if e.where is None:
            e.where = self.cx.loc.source() or self.cx.loc.describe()
        if isinstance(e, UnsupportedOpError) and e.node is None:
            e.node = node.name
        if e.note is None:
            e.note = _source_note(self.cx.loc)
        return e


def _name_inner(ops, result: Any, name: str) -> None:
    """A rule that emits several ops names them all after the node; only the node's
    result keeps the name, the ops before it are ``node.inner`` (the diff finds a
    node's value by its name in the optimized stages, and must not find an
    intermediate)."""
    keep = {id(v) for v in tree_flatten(result)[0] if isinstance(v, Value)}
    for op in ops:
        for r in op.results:
            if r.name == name and id(r) not in keep:
                r.name = f"{name}.inner"


@functools.cache
def _signature(rule: Callable) -> inspect.Signature:
    return inspect.signature(rule)


_NUMPY_NAMES = {"keepdims": "keepdim", "axis": "dim"}


def _numpy_names(node: torch.fx.Node, kwargs: dict) -> dict:
    """torch's argument parser takes NumPy's names for two keywords of its builtin
    functions and tensor methods (``x.sum(-1, keepdims=True)``, ``axis=``); fx records
    them as written. Python functions (F.*) and ATen overloads never see them."""
    target = node.target
    builtin = node.op == "call_method" or (
        getattr(target, "__module__", None) in ("torch", "torch._C._VariableFunctions")
        and not isinstance(target, torch._ops.OpOverload)
        and not inspect.isfunction(target)
    )
    if not builtin or not any(k in _NUMPY_NAMES for k in kwargs):
        return kwargs
    return {
        _NUMPY_NAMES.get(k, k) if _NUMPY_NAMES.get(k) not in kwargs else k: v
        for k, v in kwargs.items()
    }


def _check_arguments(rule, target, node, cx, args: tuple, kwargs: dict) -> None:
    """An argument the rule has no parameter for is one it does not implement: refuse
    it by name instead of failing inside the rule with a TypeError."""
    try:
        _signature(rule).bind(cx, *args, **kwargs)
    except TypeError as e:
        raise UnsupportedOpError(
            f"{target_name(target)} with these arguments ({e})",
            node=node.name,
            hint="see docs/OPS.md for the supported forms",
        ) from None


_INPLACE_HINT = "use the out-of-place form (x = x + y)"
_STATE_HINT = (
    "a compiled model keeps no state; a model that updates its buffers (batch_norm "
    "statistics) is in training mode: call model.eval() before compiling"
)


_HINTS = {
    FROZEN: "torch.fx ran the factory call while tracing (its arguments are all "
    "constants), so every call would share one tensor: capture with frontend='export' "
    "(the default), or make the tensor from an input (x.new_zeros(...)), or use the "
    "out-of-place form",
}


def _strict_reason(old: Any) -> str | None:
    if isinstance(old, LazyTensor | torch.Tensor):
        return "a parameter, buffer or constant"
    if isinstance(old, Value) and old.owner is None:
        return "a model input"
    if isinstance(old, Value) and old.owner.has_trait(Trait.VIEW):
        return "a view of another tensor"
    return None


def _shapes_agree(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(
        x == y or isinstance(x, SymDim) or isinstance(y, SymDim) for x, y in zip(a, b)
    )


def _source_note(loc) -> str | None:
    import linecache

    file, line = getattr(loc, "file", None), getattr(loc, "line", None)
    if not file or not line:
        return None
    text = linecache.getline(file, line).rstrip()
    return f"  {line} | {text}" if text else None


Rule = Callable[..., Any]


def _written_dtype(x: Any) -> DType | None:
    """The element type of the tensor an in-place op writes: an IR value, a
    compile-time tensor (a param or a constant folded at capture) or a torch tensor."""
    if isinstance(x, Value):
        return x.type.dtype
    data = x.data if isinstance(x, LazyTensor) else x
    return cuvil_dtype(data.dtype) if isinstance(data, torch.Tensor) else None


def _mutable(out):
    """`out` with fx's immutable lists and dicts (what `map_arg` makes of the output
    node's argument) turned back into the plain ones the model returns, so the caller
    gets a `list` / `dict` it can change, as eager gives it."""
    if isinstance(out, list):
        return [_mutable(v) for v in out]
    if isinstance(out, dict):
        return {k: _mutable(v) for k, v in out.items()}
    if type(out) is tuple:
        return tuple(_mutable(v) for v in out)
    return out
