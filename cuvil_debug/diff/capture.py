"""Capture: trace the model the way Cuvil does, run it eagerly, describe every FX node.

The eager values are the reference of every stage. They are the only tensors the diff keeps
for the whole run (one copy of the model's activations); every stage's values are
compared as they are produced and dropped.
"""

from __future__ import annotations

import linecache
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx

from cuvil.errors import FrontendError
from cuvil.frontend.fx import trace
from cuvil.frontend.provenance import display_path, node_loc
from cuvil.frontend.registry import target_name

from .metrics import RefStats, dtype_name
from .model import NodeRow

__all__ = [
    "Capture",
    "capture",
    "recapture",
    "eager_values",
    "EagerRecorder",
    "record_eager",
]


@dataclass
class Capture:
    """The traced graph, its eager values (by node name) and one row per node."""

    model: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    gm: torch.fx.GraphModule
    eager: dict[str, Any]
    rows: list[NodeRow]
    exported: Any = None  # the ExportedProgram (frontend "export")
    args: tuple[Any, ...] = ()  # the placeholders' values (export: params lifted)
    # node -> [(position, value), ...]: later values of tensors in-place ops mutate
    versions: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    _stats: dict[str, RefStats] = field(default_factory=dict, repr=False)

    def tensor(self, node: str) -> torch.Tensor | None:
        v = self.eager.get(node)
        return v if isinstance(v, torch.Tensor) else None

    def nbytes(self) -> int:
        """Bytes of the eager values kept (tensor nodes; params are the model's own)."""
        seen: dict[int, int] = {}
        for row in self.rows:
            t = self.tensor(row.name)
            if t is not None and row.op not in ("get_attr", "output"):
                seen[t.data_ptr()] = t.untyped_storage().nbytes()
        return sum(seen.values())

    def pointers(self) -> set[int]:
        return {
            t.data_ptr() for t in self.eager.values() if isinstance(t, torch.Tensor)
        }

    def stats(self, node: str) -> RefStats:
        """Scale and energy of a node's eager value (every stage compares against it)."""
        if node not in self._stats:
            self._stats[node] = RefStats.of(self.eager[node])
        return self._stats[node]


def capture(
    model: torch.nn.Module, inputs: Sequence[torch.Tensor], frontend: str = "fx"
) -> Capture:
    """Capture `model` the way the chosen frontend does (fx: Cuvil's tracer; export:
    torch.export's ATen graph, run with its params lifted to inputs) and record every
    node's eager value. The node names are the ones the frontend's IR locs carry."""
    model.eval()
    if frontend == "export":
        return _capture_export(model, inputs)
    try:
        gm = trace(model)
    except Exception as e:
        raise FrontendError(
            f"torch.fx could not trace {type(model).__name__}: {type(e).__name__}: {e}"
        ) from e
    return _captured(model, inputs, gm, tuple(inputs))


def _captured(model, inputs, gm, args, exported=None) -> Capture:
    """Run `gm` eagerly on `args`: every node's value, its rows."""
    rec = record_eager(gm, args, versions=True)
    eager = {n.name: v for n, v in rec.values.items()}
    versions = {n.name: v for n, v in rec.versions.items()}
    rows = [_row(i, n, gm, eager.get(n.name)) for i, n in enumerate(gm.graph.nodes)]
    return Capture(
        model, tuple(inputs), gm, eager, rows, exported, tuple(args), versions
    )


def recapture(cap: Capture, inputs: Sequence[torch.Tensor]) -> Capture:
    """`cap`'s graph run eagerly on other `inputs` (same shapes): another batch."""
    if cap.exported is None:
        return _captured(cap.model, inputs, cap.gm, tuple(inputs))
    return _captured(
        cap.model, inputs, cap.gm, _export_args(cap.exported, inputs), cap.exported
    )


def _export_args(ep, inputs: Sequence[torch.Tensor]) -> tuple:
    """The exported graph's placeholders' values: the user's inputs, params lifted."""
    from torch.export.graph_signature import InputKind

    user = iter(inputs)
    args = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            args.append(next(user))
        elif spec.target in ep.state_dict:
            args.append(ep.state_dict[spec.target])
        else:
            args.append(ep.constants[spec.target])
    return tuple(args)


def _capture_export(model: torch.nn.Module, inputs: Sequence[torch.Tensor]) -> Capture:
    from cuvil.frontend.export import export
    from cuvil.frontend.export_names import rename_like_fx
    from cuvil.frontend.inplace import functionalize

    try:
        ep = export(model, inputs, None)
    except Exception as e:
        raise FrontendError(
            f"torch.export could not export {type(model).__name__}: "
            f"{type(e).__name__}: {e}"
        ) from e
    # the graph the export frontend lowers (in-place ops functionalized), so that node
    # names match
    ep = rename_like_fx(functionalize(ep))
    return _captured(model, inputs, ep.graph_module, _export_args(ep, inputs), ep)


# in-place torch functions an FX graph calls by their operator
_INPLACE_FUNCS = {operator.iadd, operator.isub, operator.imul, operator.itruediv}


class EagerRecorder(torch.fx.Interpreter):
    """Runs a graph eagerly and keeps a copy of every node's value (by node) and, with
    `versions`, the later values of tensors that in-place ops mutate: per mutated node
    ``[(position, value), ...]``, its own value first."""

    def __init__(self, gm: torch.fx.GraphModule, versions: bool = False) -> None:
        super().__init__(gm)
        self.values: dict[torch.fx.Node, Any] = {}
        self.versions: dict[torch.fx.Node, list[tuple[int, Any]]] = {}
        self.track_versions = versions
        self.position = {n: i for i, n in enumerate(gm.graph.nodes)}

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        # a copy: a later in-place op (x += y) must not change the recorded value
        self.values[n] = snapshot(result)
        first = n.args[0] if n.args else None
        if (
            self.track_versions
            and isinstance(first, torch.fx.Node)
            and first in self.env
            and self._inplace(n)
        ):
            versions = self.versions.setdefault(
                first, [(self.position[first], self.values[first])]
            )
            versions.append((self.position[n], snapshot(self.env[first])))
        return result

    def _inplace(self, n: torch.fx.Node) -> bool:
        if n.kwargs.get("inplace") is True or n.target in _INPLACE_FUNCS:
            return True
        if n.op == "call_method":
            name = str(n.target)
            return name.endswith("_") and not name.endswith("__")
        if n.op == "call_module":
            return (
                getattr(self.module.get_submodule(n.target), "inplace", False) is True
            )
        return False


def record_eager(
    gm: torch.fx.GraphModule,
    inputs: Sequence[torch.Tensor],
    *,
    versions: bool = False,
    failure: str = "the model failed to run eagerly on its inputs",
    hint: str | None = "check the example inputs' shapes and dtypes",
) -> EagerRecorder:
    """Run `gm` on `inputs` under ``no_grad`` with an `EagerRecorder`; a model that
    fails raises FrontendError(`failure`: the exception, `hint`)."""
    rec = EagerRecorder(gm, versions)
    try:
        with torch.no_grad():
            rec.run(*inputs)
    except Exception as e:
        raise FrontendError(f"{failure}: {type(e).__name__}: {e}", hint=hint) from e
    return rec


def eager_values(
    gm: torch.fx.GraphModule, inputs: Sequence[torch.Tensor]
) -> dict[str, Any]:
    """Every node's eager value (tensors copied), by node name."""
    return {n.name: v for n, v in record_eager(gm, inputs).values.items()}


def snapshot(value: Any) -> Any:
    """`value` with its tensors copied (detached)."""
    return torch.utils._pytree.tree_map(
        lambda x: x.detach().clone() if isinstance(x, torch.Tensor) else x, value
    )


def _row(index: int, n: torch.fx.Node, gm: torch.fx.GraphModule, value) -> NodeRow:
    loc = node_loc(n)
    source = f"{display_path(loc.file)}:{loc.line}" if loc.file and loc.line else None
    code = linecache.getline(loc.file, loc.line).strip() if source else None
    if n.op == "call_module":
        target = type(gm.get_submodule(str(n.target))).__name__
    elif n.op in ("call_function", "call_method"):
        target = target_name(n.target)
    else:
        target = str(n.target)
    inputs = tuple(a.name for a in n.all_input_nodes)
    tensor = value if isinstance(value, torch.Tensor) else None
    return NodeRow(
        index=index,
        name=n.name,
        op=n.op,
        target=target,
        module=loc.module,
        source=source,
        code=code or None,
        shape=tuple(tensor.shape) if tensor is not None else None,
        dtype=dtype_name(tensor.dtype) if tensor is not None else None,
        inputs=inputs,
    )
