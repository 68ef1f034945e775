"""The torch.fx frontend: symbolic_trace (with stack traces) -> Cuvil IR."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.fx
from torch._subclasses.fake_tensor import is_fake

from ..errors import FrontendError
from ..hooks import CompileHooks
from ..ir.core import Module
from ..ir.location import Loc
from .graph import GraphLowering, tensor_type
from .inplace import StorageProp
from .modules import is_leaf
from .provenance import node_loc

__all__ = ["from_fx", "CuvilTracer", "trace"]


class CuvilTracer(torch.fx.Tracer):
    """Records stack traces; treats exactly the modules Cuvil lowers as leaves."""

    def __init__(self) -> None:
        super().__init__()
        self.record_stack_traces = True

    def is_leaf_module(self, m: torch.nn.Module, qualname: str) -> bool:
        return is_leaf(m)


def trace(model: torch.nn.Module, concrete_args: dict[str, Any] | None = None):
    if is_leaf(model):  # the tracer never calls the root as a leaf: give it a parent
        model = torch.nn.Sequential(model)
    tracer = CuvilTracer()
    graph = tracer.trace(model, concrete_args=concrete_args)
    return torch.fx.GraphModule(tracer.root, graph, type(model).__name__)


class FxLowering(GraphLowering):
    def __init__(
        self, gm: torch.fx.GraphModule, module: Module, inputs: Sequence[torch.Tensor]
    ):
        super().__init__(gm.graph, module, gm)
        self.inputs = list(inputs)
        self.arg_index = 0

    def bind_placeholder(self, node: torch.fx.Node):
        if self.arg_index >= len(self.inputs):
            raise FrontendError(
                f"forward() takes an argument '{node.target}' but only "
                f"{len(self.inputs)} example inputs were given"
            )
        x = self.inputs[self.arg_index]
        self.arg_index += 1
        if not isinstance(x, torch.Tensor):
            raise FrontendError(
                f"input '{node.target}' is a {type(x).__name__}, not a tensor",
                hint="pass non-tensor arguments as concrete_args",
            )
        loc = Loc(node=node.name, file=node_loc(node).file, line=node_loc(node).line)
        return self.fn.add_arg(tensor_type(x), node.name, loc)

    def bind_attr(self, node: torch.fx.Node):
        obj = self.root
        for part in str(node.target).split("."):
            obj = getattr(obj, part)
        if isinstance(obj, torch.Tensor):
            return self.cx.lazy(str(node.target), obj)
        return obj

    def expected(self, node: torch.fx.Node):
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            return None
        return torch.empty(0).new_empty(meta.shape, dtype=meta.dtype)


def from_fx(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    *,
    concrete_args: dict[str, Any] | None = None,
    gm: torch.fx.GraphModule | None = None,
    hooks: CompileHooks | None = None,
) -> Module:
    """Trace `model` with torch.fx and lower it to Cuvil IR (params carry their data;
    `hooks`: ``after_node`` is called after each FX node, see cuvil.hooks)."""
    if gm is None:
        try:
            gm = trace(model, concrete_args)
        except Exception as e:
            raise FrontendError(
                f"torch.fx could not trace {type(model).__name__}: "
                f"{type(e).__name__}: {e}"
            ) from e
    _propagate_shapes(gm, inputs)
    module = Module(type(model).__name__)
    FxLowering(gm, module, inputs).run(hooks)
    return module


def _propagate_shapes(gm: torch.fx.GraphModule, inputs: Sequence[torch.Tensor]) -> None:
    names = [
        str(n.target) for n in gm.graph.nodes if n.op == "placeholder" and not n.args
    ]
    if len(inputs) < len(
        names
    ):  # checked first: ShapeProp's own message is a trace dump
        raise FrontendError(
            f"forward() takes an argument '{names[len(inputs)]}' but only "
            f"{len(inputs)} example inputs were given"
        )
    try:
        with torch.no_grad():
            prop = StorageProp(gm)
            # a real run works on copies (an in-place op of the model must not change
            # the caller's inputs); a fake one (torch.compile's graphs) writes no data,
            # and fakes of copies would get new symbolic sizes
            real = prop.fake_mode is None
            prop.propagate(*[_copy(x) if real else x for x in inputs])
    except Exception as e:
        raise FrontendError(
            f"the traced model failed to run on the example inputs: "
            f"{type(e).__name__}: {e}"
        ) from e


def _copy(x: Any) -> Any:
    if not isinstance(x, torch.Tensor) or is_fake(x):
        return x
    return x.clone()
