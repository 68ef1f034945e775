"""In-place ops (``x.add_(y)``, ``F.relu(x, inplace=True)``, ``nn.ReLU6(inplace=True)``):
which nodes mutate, which rule computes them, and when rebinding is a correct lowering.

The walk lowers ``x.op_(...)`` as ``x = x.op(...)``, rebinding every node whose result is
that very tensor (x, an earlier in-place result, ``x.contiguous()``). That is exact unless
the written storage is read later through another alias (a view taken before the write,
the tensor a view came from, ``x.detach()``) or belongs to a model input, parameter or
buffer: those are refused. Aliasing is observed, not guessed: the FX frontend's shape
propagation records every node's storage and tensor (``StorageProp``). The export
frontend functionalizes its graph instead (``functionalize``), and where torch cannot,
reads the same facts from export's fake values.
"""

from __future__ import annotations

import operator
import traceback
from collections.abc import Callable
from typing import Any

import torch
import torch.fx
from torch._subclasses.fake_tensor import is_fake
from torch.export import ExportedProgram
from torch.export.graph_signature import OutputKind
from torch.fx.node import map_aggregate
from torch.fx.passes.shape_prop import ShapeProp
from torch.multiprocessing.reductions import StorageWeakRef

from .registry import LOWERINGS, lookup, target_name
from .tensormeta import tensor_metadata

__all__ = [
    "StorageProp",
    "functionalize",
    "fallback_rule",
    "is_inplace",
    "check_rebind",
    "same_tensor",
    "writes_inputs",
    "FROZEN",
    "layout_copy",
    "record_eager_layouts",
]

STORAGE = "cuvil_storage"  # node.meta key: the address of the node's storage object
# node.meta keys: the id of the node's tensor (equal for an in-place op's result and its
# input); an export placeholder that is a parameter or buffer
TENSOR, STATE = "cuvil_tensor", "cuvil_state"
# a tensor forward() makes from constants alone (torch.zeros(3)): torch.fx runs that
# call while tracing and stores its result as one constant every call shares
FROZEN = "a tensor the fx trace froze into a constant"
LAYOUT = "cuvil_layout"  # node.meta key: (strides, storage offset) of the eager tensor
_INPLACE_FUNCS = {operator.iadd, operator.isub, operator.imul, operator.itruediv}


class StorageProp(ShapeProp):
    """ShapeProp that also records each tensor result's storage in ``node.meta``.

    The results stay alive until the run ends, so no two live tensors' storages can
    share an address by reuse: equal addresses mean one storage. A tensor whose storage
    cannot be read has no entry, and the walk refuses to rebind it.
    """

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        super().__init__(gm)
        self._keep: list[torch.Tensor] = []
        self.failed: torch.fx.Node | None = None  # the node whose run raised

    def run_node(self, n: torch.fx.Node) -> Any:
        try:
            real = self.fake_mode is None
            result = self._run_real(n) if real else super().run_node(n)
        except Exception:
            self.failed = self.failed or n
            raise
        n.meta.pop(STORAGE, None)
        n.meta.pop(TENSOR, None)
        if isinstance(result, torch.Tensor):
            try:  # fake tensors (torch.compile) have storages too
                n.meta[STORAGE] = StorageWeakRef(result.untyped_storage()).cdata
            except Exception:  # no storage facts: the walk is strict for this node
                return result
            n.meta[TENSOR] = id(result)
            n.meta[LAYOUT] = (tuple(result.stride()), result.storage_offset())
            self._keep.append(result)
        return result

    def _run_real(self, n: torch.fx.Node) -> Any:
        """``ShapeProp.run_node`` without a fake mode (the same ``node.meta``, the same
        error), without its import of sympy (tensormeta.py)."""
        try:
            result = torch.fx.Interpreter.run_node(self, n)
        except Exception as e:
            traceback.print_exc()
            raise RuntimeError(
                f"ShapeProp error for: node={n.format_node()} with meta={n.meta}"
            ) from e
        found = False

        def meta_of(obj: Any) -> Any:
            nonlocal found
            if isinstance(obj, torch.Tensor):
                found = True
                return tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, meta_of)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result


def functionalize(ep: ExportedProgram) -> ExportedProgram:
    """`ep` ready for the walk's in-place handling. Where every in-place op writes only
    its first argument and rebinding it is exact (``check_rebind`` over export's fake
    values: no input, parameter or buffer written, no other alias read later, as the
    FX frontend judges it), `ep` itself, annotated: the walk lowers ``x.op_()`` as
    ``x = x.op()``. Otherwise torch's own functionalization (``run_decompositions``, a
    second trace: 0.5-0.8 s of ResNet-18's capture, whose in-place ReLUs need none of
    it); where that writes a model input or buffer, `ep` annotated, and the walk
    refuses the op that writes."""
    mutating = [n for n in ep.graph.nodes if _mutates(n)]
    if not mutating:
        return ep
    user = {
        s.arg.name
        for s in ep.graph_signature.input_specs
        if s.kind.name == "USER_INPUT"
    }
    _annotate_from_vals(ep.graph, user)
    if all(_rebinds(n) for n in mutating):
        return ep
    functional = ep.run_decompositions({})
    kinds = {s.kind for s in functional.graph_signature.output_specs}
    if kinds <= {OutputKind.USER_OUTPUT}:
        return functional
    return ep


def _rebinds(node: torch.fx.Node) -> bool:
    """Does the walk lower `node` exactly by rebinding: it writes its first argument
    only (not an ``out=``), a node, and ``check_rebind`` finds nothing against it?"""
    first = node.args[0] if node.args else None
    schema = node.target._schema
    written = [
        a.alias_info is not None and a.alias_info.is_write for a in schema.arguments
    ]
    if (
        not isinstance(first, torch.fx.Node)
        or written[:1] != [True]
        or any(written[1:])
    ):
        return False
    return check_rebind(node, first) is None


def _annotate_from_vals(graph: torch.fx.Graph, user_inputs: set[str]) -> None:
    """Storage facts from export's fake values (``node.meta["val"]``); an in-place op's
    result is its first argument's tensor."""
    for n in graph.nodes:
        val = n.meta.get("val")
        if not isinstance(val, torch.Tensor):
            continue
        n.meta[STORAGE] = StorageWeakRef(val.untyped_storage()).cdata
        first = n.args[0] if n.args else None
        same = _mutates(n) and isinstance(first, torch.fx.Node) and TENSOR in first.meta
        n.meta[TENSOR] = first.meta[TENSOR] if same else id(val)
        if n.op == "placeholder" and n.name not in user_inputs:
            n.meta[STATE] = True


def layout_copy(x: Any) -> Any:
    """A copy with the same strides and storage offset (the layout as_strided reads:
    clone() makes a strided or expanded tensor contiguous)."""
    if not isinstance(x, torch.Tensor) or is_fake(x):
        return x
    storage = x.untyped_storage()
    copy = torch.UntypedStorage(storage.nbytes())
    copy.copy_(storage)
    return torch.empty(0, dtype=x.dtype).set_(
        copy, x.storage_offset(), x.size(), x.stride()
    )


def record_eager_layouts(ep: ExportedProgram, inputs: Any) -> None:
    """Run `ep`'s graph on copies of the example `inputs` and its own state, recording
    each tensor's eager layout (``LAYOUT``, read before export's fake value): fake
    kernels choose strides of their own (max_pool1d of a transposed input: (4, 1, 2)
    fake, (4, 2, 1) eager; fuzz 7303226), and as_strided reads the storage. Left
    unrecorded where the run fails: the rule then trusts only inputs' layouts."""
    args, user = [], iter(inputs)
    specs = {s.arg.name: s for s in ep.graph_signature.input_specs}
    for node in ep.graph.find_nodes(op="placeholder"):
        spec = specs.get(node.name)
        if spec is None or spec.kind.name == "USER_INPUT":
            args.append(layout_copy(next(user, None)))
        else:
            data = ep.state_dict.get(spec.target, ep.constants.get(spec.target))
            args.append(layout_copy(data))
    if any(is_fake(a) or not isinstance(a, torch.Tensor) for a in args):
        return
    try:
        with torch.no_grad():
            StorageProp(ep.graph_module).propagate(*args)
    except Exception:
        for node in ep.graph.nodes:
            node.meta.pop(LAYOUT, None)


def eager_layout(node: Any) -> tuple[tuple[int, ...], int] | None:
    """(strides, storage offset) of the tensor `node` computes in eager mode: what
    StorageProp saw, or export's fake value of an input (a computed tensor's fake
    strides need not be eager's); None when unknown (symbolic strides too)."""
    if not isinstance(node, torch.fx.Node):
        return None
    if LAYOUT in node.meta:
        return node.meta[LAYOUT]
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor) and node.op == "placeholder":
        try:
            return tuple(int(s) for s in val.stride()), int(val.storage_offset())
        except Exception:  # symbolic
            return None
    return None


def _mutates(node: torch.fx.Node) -> bool:
    t = node.target
    return isinstance(t, torch._ops.OpOverload) and t._schema.is_mutable


# ---- rules for in-place spellings ---------------------------------------------------------
def fallback_rule(target: Any) -> Callable | None:
    """A rule for `target` found by its library name, or the out-of-place form's rule for
    an in-place spelling (``x.sigmoid_``, ``torch.relu_``, ``F.elu_``)."""
    if callable(target) and not isinstance(target, torch._ops.OpOverload):
        rule = LOWERINGS.get(target_name(target))
        if rule is not None:
            return rule
    base = _out_of_place(target)
    return None if base is None else lookup(base)


def _out_of_place(target: Any) -> Any:
    name = _name(target)
    if not name.endswith("_") or name.endswith("__"):
        return None
    if isinstance(target, str):
        return name[:-1]
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return getattr(torch.ops.aten, name[:-1], None)
    for space in (torch, torch.nn.functional):
        if getattr(space, name, None) is target:
            return getattr(space, name[:-1], None)
    return None


def _name(target: Any) -> str:
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.OpOverload):
        return target.overloadpacket.__name__
    return getattr(target, "__name__", "")


def is_inplace(node: torch.fx.Node, root: torch.nn.Module | None) -> bool:
    """Whether `node` writes its first argument."""
    if node.op == "call_module":
        return getattr(root.get_submodule(node.target), "inplace", False) is True
    if node.kwargs.get("inplace") is True or node.target in _INPLACE_FUNCS:
        return True
    if isinstance(node.target, torch._ops.OpOverload):
        return node.target._schema.is_mutable
    return _out_of_place(node.target) is not None


# ---- when rebinding is exact --------------------------------------------------------------
def check_rebind(node: torch.fx.Node, mutated: torch.fx.Node) -> str | None:
    """Why lowering `node` (which writes `mutated`) by rebinding would be wrong, if it
    would; None when every later read goes through `mutated` or `node` itself."""
    key = mutated.meta.get(STORAGE)
    if key is None:
        return "unknown"
    order = {n: i for i, n in enumerate(node.graph.nodes)}
    here = order[node]
    for other in node.graph.nodes:
        if other.meta.get(STORAGE) != key or order[other] >= here:
            continue
        if other.op == "get_attr" and str(other.target).startswith("_tensor_constant"):
            return FROZEN  # fx's: a tensor forward() made from constants
        if other.op == "get_attr" or other.meta.get(STATE):
            return "a parameter or buffer"
        if other.op == "placeholder":
            return "a model input"
        if other.meta.get(TENSOR) == mutated.meta.get(TENSOR):
            continue  # the very tensor (x.add_(1).mul_(2), contiguous()): rebound too
        if any(order[u] > here for u in other.users):
            return f"'{other.name}', which shares its storage and is read later"
    return None


def writes_inputs(gm: torch.fx.GraphModule) -> bool:
    """Whether an in-place node of `gm` writes a model input, parameter or buffer."""
    for n in gm.graph.nodes:
        first = n.args[0] if n.args else None
        if isinstance(first, torch.fx.Node) and is_inplace(n, gm):
            if check_rebind(n, first) in ("a model input", "a parameter or buffer"):
                return True
    return False


def same_tensor(node: torch.fx.Node, mutated: torch.fx.Node) -> list[torch.fx.Node]:
    """The nodes before `node` whose result is the tensor `mutated` itself (an in-place
    op returns its input; ``contiguous()`` of a contiguous tensor too)."""
    key = mutated.meta.get(TENSOR)
    if key is None:
        return [mutated]
    found = []
    for other in node.graph.nodes:
        if other is node:
            return found
        if other.meta.get(TENSOR) == key:
            found.append(other)
    return found
