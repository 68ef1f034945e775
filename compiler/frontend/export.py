"""The torch.export frontend: an ExportedProgram (ATen ops) -> Cuvil IR."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.fx
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from ..errors import FrontendError
from ..hooks import CompileHooks
from ..ir.core import Module
from .export_names import renamed_like_fx
from .graph import GraphLowering, tensor_type
from .inplace import functionalize, record_eager_layouts
from .module_state import preserved_state
from .provenance import node_loc

__all__ = ["from_export", "export"]


def export(
    model: torch.nn.Module, inputs: Sequence[torch.Tensor], dynamic_shapes: Any = None
) -> ExportedProgram:
    try:
        with preserved_state(model):
            return torch.export.export(
                model, tuple(inputs), dynamic_shapes=dynamic_shapes
            )
    except Exception as e:
        raise FrontendError(
            f"torch.export could not export {type(model).__name__}: "
            f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        ) from e


class ExportLowering(GraphLowering):
    def __init__(self, ep: ExportedProgram, module: Module) -> None:
        super().__init__(ep.graph, module, None)
        self.ep = ep
        self.specs = {s.arg.name: s for s in ep.graph_signature.input_specs}

    def bind_placeholder(self, node: torch.fx.Node):
        spec = self.specs.get(node.name)
        if spec is None or spec.kind == InputKind.USER_INPUT:
            val = node.meta.get("val")
            if not isinstance(val, torch.Tensor):
                raise FrontendError(
                    f"input '{node.name}' is a {type(val).__name__}, not a tensor"
                )
            return self.fn.add_arg(tensor_type(val), node.name, node_loc(node))
        if spec.kind in (
            InputKind.PARAMETER,
            InputKind.BUFFER,
            InputKind.CONSTANT_TENSOR,
        ):
            data = self.ep.state_dict.get(spec.target)
            if data is None:
                data = self.ep.constants.get(spec.target)
            return self.cx.lazy(spec.target, data, at_first_use=True)
        raise FrontendError(
            f"unsupported exported input kind {spec.kind.name} ({node.name})"
        )

    def bind_attr(self, node: torch.fx.Node):
        obj = self.ep.graph_module
        for part in str(node.target).split("."):
            obj = getattr(obj, part)
        return obj

    def expected(self, node: torch.fx.Node):
        val = node.meta.get("val")
        return val if isinstance(val, torch.Tensor) else None


def from_export(
    model: torch.nn.Module | ExportedProgram,
    inputs: Sequence[torch.Tensor] = (),
    *,
    dynamic_shapes: Any = None,
    hooks: CompileHooks | None = None,
    decompose: bool = True,
) -> Module:
    """Export `model` with torch.export (or take an ExportedProgram) and lower it
    (`hooks`: ``after_node`` is called after each FX node, see cuvil.hooks;
    `decompose`: lower ops without a rule through PyTorch's decompositions)."""
    ep = (
        model
        if isinstance(model, ExportedProgram)
        else export(model, inputs, dynamic_shapes)
    )
    name = (
        type(model).__name__ if not isinstance(model, ExportedProgram) else "exported"
    )
    module = Module(name)
    # in-place ops -> out-of-place ones (refused on inputs)
    functional = functionalize(ep)
    if inputs and any(_reads_layout(n) for n in functional.graph.nodes):
        record_eager_layouts(functional, inputs)
    # fx's node names (export_names.py); a program the caller gave gets its own back
    with renamed_like_fx(functional, restore=functional is model):
        lowering = ExportLowering(functional, module)
        lowering.decompose = decompose
        lowering.run(hooks)
    out_spec = getattr(ep.call_spec, "out_spec", None)
    if out_spec is not None:  # the user's output structure, not the graph's flat tuple
        module.output_spec = out_spec
    return module


#: ops whose lowering reads the eager strides of their inputs (inplace.eager_layout)
_LAYOUT_READERS = ("as_strided", "as_strided_copy", "scaled_dot_product")


def _reads_layout(node: torch.fx.Node) -> bool:
    name = getattr(node.target, "__name__", "")
    return node.op == "call_function" and name.lstrip("_").startswith(_LAYOUT_READERS)
