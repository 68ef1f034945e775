"""Which nodes of a dynamo graph Cuvil lowers, and which it refuses: all of them, in one walk.

The FX frontend stops at the first node it cannot lower. The survey is the same walk
(``FxLowering``) that records the refusal instead and goes on: the refused node's result
stands for an opaque input of its type (what an eager region would hand over), so every
later node is judged too. A node that needs a non-tensor result of a refused node (a size
computed eagerly) is refused with it. The survey's module is the whole graph's IR when
nothing is refused; otherwise the graph is split (split.py) and each region lowered again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten

from ..errors import CuvilError, FrontendError
from ..frontend.fx import FxLowering, _propagate_shapes  # the FX frontend's own steps
from ..frontend.graph import tensor_type
from ..frontend.provenance import node_loc
from ..frontend.registry import target_name
from ..ir.core import Module, Value

__all__ = ["Refusal", "Survey", "survey", "op_name", "short_path"]

COMPUTE = ("call_function", "call_method", "call_module")
_FX_NODE = re.compile(r" \(FX node '[^']*'\)")
_SPELLED = {  # Python's names for syntax, as the user wrote it
    "operator.setitem": "operator.setitem (x[...] = v)",
    "operator.getitem": "operator.getitem (x[...])",
}


@dataclass
class Refusal:
    """A node Cuvil does not compile: what it is, where the user wrote it, and why."""

    node: str
    op: str  # the torch callable or method, readable (operator.setitem, Tensor.cumsum)
    where: str | None  # file:line:col of the user's code
    reason: str  # the error's one-line message (without the location)
    follows: str | None = None  # refused only because it needs this op's eager result

    def line(self) -> str:
        why = (
            f"needs the result of {self.follows}, run eagerly" if self.follows else None
        )
        return f"{self.where or '<unknown>'}: {self.op}: {why or self.reason}"


class _Eager:
    """The result of a refused node that is not a tensor (known only when it runs)."""

    def __init__(self, node: torch.fx.Node) -> None:
        self.node = node


class Survey(FxLowering):
    """FxLowering that records refused nodes and lowers past them (module docstring)."""

    def __init__(self, gm: torch.fx.GraphModule, module: Module, inputs) -> None:
        super().__init__(gm, module, inputs)
        self.refused: dict[torch.fx.Node, Refusal] = {}

    def lower_node(self, node: torch.fx.Node) -> Any:
        if node.op not in COMPUTE:
            return super().lower_node(node)
        eager = _eager_argument(node, self.env)
        if eager is not None:
            other = eager.node
            follows = f"{op_name(other)} (line {node_loc(other).line})"
            return self._refuse(node, None, follows=follows)
        try:
            return super().lower_node(node)
        except CuvilError as e:
            return self._refuse(node, e)
        except Exception as e:  # a rule met arguments it does not handle
            err = FrontendError(
                f"cannot lower {target_name(node.target)}: {type(e).__name__}: {e}"
            )
            return self._refuse(node, err)

    def _check_type(self, node: torch.fx.Node) -> None:
        try:
            super()._check_type(node)
        except CuvilError as e:  # a lowering that disagrees with torch: run it eagerly
            self.env[node] = self._refuse(node, e)

    def bind_output(self, node: torch.fx.Node) -> None:
        try:
            super().bind_output(node)
        except CuvilError:
            if not self.refused:  # the graph itself cannot be compiled as one module
                raise
            # (a split graph's outputs are the top level's: split.py)

    def _refuse(self, node, error: CuvilError | None, follows: str | None = None):
        where = short_path(node_loc(node).source())
        reason = _reason(target_name(node.target), error)
        self.refused[node] = Refusal(node.name, op_name(node), where, reason, follows)
        return self._opaque(node)

    def _opaque(self, node: torch.fx.Node) -> Any:
        """Function inputs of the refused node's result types; `_Eager` otherwise."""
        meta = node.meta.get("tensor_meta")
        if meta is None:
            return _Eager(node)
        if hasattr(meta, "shape"):
            return self._arg(node, meta, "")
        if isinstance(meta, (tuple, list)) and all(hasattr(m, "shape") for m in meta):
            return tuple(self._arg(node, m, f".{i}") for i, m in enumerate(meta))
        return _Eager(node)

    def _arg(self, node: torch.fx.Node, meta, suffix: str) -> Value:
        t = torch.empty(tuple(meta.shape), dtype=meta.dtype, device="meta")
        return self.fn.add_arg(tensor_type(t), f"{node.name}{suffix}", node_loc(node))


def _eager_argument(node: torch.fx.Node, env: dict) -> _Eager | None:
    leaves = tree_flatten(
        torch.fx.node.map_arg((node.args, node.kwargs), lambda n: env[n])
    )[0]
    return next((x for x in leaves if isinstance(x, _Eager)), None)


def _reason(op: str, error: CuvilError | None) -> str:
    """The error's first line, without the FX node (an internal name)."""
    if error is None:
        return "an eager result"
    text = _FX_NODE.sub("", error.message.splitlines()[0])
    if text == f"unsupported op '{op}'":
        text = "not supported by Cuvil"
    elif text.startswith("unsupported op '") and text.endswith("'"):
        text = text[len("unsupported op '") : -1]  # what Cuvil does not do, as it says
    return text + (
        f" ({error.hint})" if error.hint and "docs/OPS.md" not in error.hint else ""
    )


def op_name(node: torch.fx.Node) -> str:
    if node.op == "call_module":
        return str(node.target)
    name = target_name(node.target)
    return _SPELLED.get(name, name)


def short_path(where: str | None) -> str | None:
    """A location in an installed package from the package on (``transformers/...``)."""
    if where and "site-packages/" in where:
        return where.rsplit("site-packages/", 1)[1]
    return where


def survey(
    gm: torch.fx.GraphModule, inputs: Sequence[torch.Tensor], name: str
) -> Survey:
    """Run the graph once in torch (shapes and storages into node.meta) and walk it."""
    _propagate_shapes(gm, inputs)
    walk = Survey(gm, Module(name), inputs)
    walk.run()
    return walk
