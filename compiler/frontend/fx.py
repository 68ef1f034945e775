"""The torch.fx frontend: symbolic_trace (with stack traces) -> Cuvil IR."""

from __future__ import annotations

import contextlib
import io
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten

from ..errors import FrontendError
from ..hooks import CompileHooks
from ..ir.core import Module
from ..ir.location import Loc
from .graph import GraphLowering, tensor_type
from .inplace import StorageProp, layout_copy, writes_inputs
from .module_state import preserved_state
from .modules import is_leaf
from .provenance import node_loc

__all__ = ["from_fx", "CuvilTracer", "trace"]


class CuvilTracer(torch.fx.Tracer):
    """Records stack traces; treats exactly the modules Cuvil lowers as leaves.

    Each node's stack trace is recorded with Python's traceback module: torch's own
    (``CapturedTraceback.summary``) imports torch._inductor and torch._dynamo on first
    use, a second or more of a first compile's start. The trace keeps the frames from
    the first ``forward`` on, minus torch's own, which is what the locations are read
    from (the innermost user frame, ``provenance.user_frame``), as torch's does."""

    def __init__(self) -> None:
        super().__init__()
        self.record_stack_traces = True

    def is_leaf_module(self, m: torch.nn.Module, qualname: str) -> bool:
        return is_leaf(m)

    def create_node(self, *args, **kwargs) -> torch.fx.Node:
        self.record_stack_traces = False
        try:
            node = super().create_node(*args, **kwargs)
        finally:
            self.record_stack_traces = True
        if not node.stack_trace:
            node.stack_trace = _user_stack()
        return node


_TORCH_DIR = str(Path(torch.__file__).resolve().parent)


def _user_stack() -> str | None:
    frames = traceback.extract_stack()[:-2]
    first = next((i for i, f in enumerate(frames) if f.name == "forward"), None)
    if first is None:
        return None
    kept = [f for f in frames[first:] if not f.filename.startswith(_TORCH_DIR)]
    text = "".join(traceback.StackSummary.from_list(kept).format()).strip()
    return text or None


def trace(model: torch.nn.Module, concrete_args: dict[str, Any] | None = None):
    if is_leaf(model):  # the tracer never calls the root as a leaf: give it a parent
        model = torch.nn.Sequential(model)
    tracer = CuvilTracer()
    with preserved_state(model):  # a Proxy the forward stores on itself stays here
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
    decompose: bool = True,
) -> Module:
    """Trace `model` with torch.fx and lower it to Cuvil IR (params carry their data;
    `hooks`: ``after_node`` is called after each FX node, see cuvil.hooks;
    `decompose`: lower ops without a rule through PyTorch's decompositions)."""
    traced_here = gm is None
    if gm is None:
        try:
            gm = trace(model, concrete_args)
        except Exception as e:
            raise FrontendError(
                f"torch.fx could not trace {type(model).__name__}: "
                f"{type(e).__name__}: {e}"
            ) from e
    outputs = _propagate_shapes(gm, inputs)
    # (a model that writes its inputs or params would see other ones when run again;
    # the walk refuses those writes)
    if traced_here and outputs is not None and not writes_inputs(gm):
        _check_trace(model, inputs, concrete_args, outputs)
    module = Module(type(model).__name__)
    lowering = FxLowering(gm, module, inputs)
    lowering.decompose = decompose
    lowering.run(hooks)
    return module


def _propagate_shapes(gm: torch.fx.GraphModule, inputs: Sequence[torch.Tensor]) -> Any:
    """Shape (and storage) facts into the graph's nodes; the graph's outputs of a real
    run (None for a fake one)."""
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
    prop = StorageProp(gm)
    printed = io.StringIO()  # torch's ShapeProp prints a traceback before it raises
    try:
        with torch.no_grad(), contextlib.redirect_stderr(printed):
            # a real run works on copies (an in-place op of the model must not change
            # the caller's inputs); a fake one (torch.compile's graphs) writes no data,
            # and fakes of copies would get new symbolic sizes
            real = prop.fake_mode is None
            with _seeded():  # the same random draws as the trace check's eager run
                outputs = prop.propagate(
                    *[layout_copy(x) if real else x for x in inputs]
                )
    except Exception as e:
        _replay(printed.getvalue(), failed=True)
        raise _run_failure(e, prop.failed) from e
    _replay(printed.getvalue(), failed=False)
    return outputs if real else None


def _replay(text: str, *, failed: bool) -> None:
    """What the model printed on stderr during the run, without torch's traceback."""
    if failed and "Traceback (most recent call last):" in text:
        text = text[: text.rfind("Traceback (most recent call last):")]
    sys.stderr.write(text)


def _run_failure(e: Exception, node: torch.fx.Node | None) -> FrontendError:
    """The error of the model's own code (not ShapeProp's dump), at its FX node."""
    cause = e.__cause__ if "ShapeProp error" in str(e) and e.__cause__ else e
    message = (str(cause).strip().splitlines() or [""])[0]
    where = None
    if node is not None:
        loc = node_loc(node)
        at = f" at {loc.file}:{loc.line}" if loc.file else ""
        where = f"FX node '{node.name}'{at}"
    return FrontendError(
        "the traced model failed to run on the example inputs"
        + (f" ({where})" if where else "")
        + f": {type(cause).__name__}: {message}",
        hint="check the example inputs' shapes and dtypes",
    )


def _check_trace(model, inputs, concrete_args, outputs) -> None:
    """The traced graph computes what the model computes, on the example inputs.

    torch.fx records ``y += 1`` as ``y = y + 1``, so a view of y taken before no longer
    sees the update, and Python-side values become constants: such a graph would compile
    into a silently different model.
    """
    try:
        with torch.no_grad():
            with _seeded():
                want = model(*[layout_copy(x) for x in inputs], **(concrete_args or {}))
    except Exception:  # the graph ran; a model that cannot run again is not judged
        return
    got_leaves, want_leaves = tree_flatten(outputs)[0], tree_flatten(want)[0]
    if len(got_leaves) == len(want_leaves) and all(
        _same(g, w) for g, w in zip(got_leaves, want_leaves)
    ):
        return
    raise FrontendError(
        f"the torch.fx trace of {type(model).__name__} computes other values than the "
        "model on the example inputs",
        hint="an in-place update through an alias (y += 1 with a view of y), or a "
        "Python-side value the trace froze; try frontend='export'",
    )


@contextlib.contextmanager
def _seeded():
    """A fixed CPU random state, the caller's restored afterwards."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        yield


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.device.type != "cpu" or b.device.type != "cpu":
            return True  # no data to compare (meta): the lowering judges these
        if a.layout != torch.strided or a.is_complex() or b.is_complex():
            return True  # sparse, complex: Cuvil refuses them when it lowers
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        try:
            if not a.is_floating_point():
                return torch.equal(a, b)
            return torch.allclose(a, b, equal_nan=True)
        except (NotImplementedError, RuntimeError):  # a dtype torch cannot compare
            return True  # (the lowering refuses what it cannot compute)
    return not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor)
