"""Captures one model in this process and records what failed: the exception chain,
its traceback frames, the forward signature and the kinds of the inputs."""

from __future__ import annotations

import contextlib
import inspect
import re
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .draft import _draft, _guard_failure
from .evidence import _is_code, _user_roots, code_stack
from .frames import _frame
from .load import LoadError, load
from .replay import VALUE_READ, nearest_stack, op_origins, replay_target

__all__ = ["FRONTENDS", "STAGES", "Capture", "collect", "error_info"]


_STACK_LINE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


STAGES = ("lower", "compile")


# how the model is captured: torch.fx symbolic tracing (plain fx leaves: every torch.nn
# module but Sequential, as torch.fx.symbolic_trace does), torch.export non-strict and
# strict, and torch.compile(fullgraph=True) with Cuvil as dynamo's backend
FRONTENDS = ("fx", "export", "export-strict", "dynamo")


@dataclass(frozen=True)
class Capture:
    """How to capture: the frontend, how far to go (`stage`), Cuvil's own fx leaves
    instead of plain torch.fx ones, and no_grad (default: grad mode as the user runs
    the model, i.e. enabled)."""

    frontend: str = "fx"
    stage: str = "lower"
    cuvil_leaves: bool = False
    no_grad: bool = False

    def grad_mode(self):
        import torch

        return torch.no_grad() if self.no_grad else contextlib.nullcontext()


def collect(
    spec: str,
    frontend: str = "fx",
    entry: str | None = None,
    stage: str = "lower",
    *,
    cuvil_leaves: bool = False,
    no_grad: bool = False,
) -> dict:
    """The triage record of `spec`: status ok / failed / error, and evidence.
    `stage` is how far to go: lower to Cuvil IR, or compile to native code too."""
    capture = Capture(frontend, stage, cuvil_leaves, no_grad)
    start = time.perf_counter()
    record = {"spec": spec, "frontend": frontend, "status": "ok", "stage": stage}
    try:
        loaded = load(spec, entry)
    except LoadError as e:
        record.update(
            status="error",
            stage="load",
            message=str(e),
            error=error_info(e.cause) if e.cause else None,
        )
    else:
        record.update(_describe(loaded))
        record.update(_capture(loaded, capture))
        _replay(record, loaded, capture)
        if _needs_draft(record, capture):
            record["draft"] = _draft(loaded, capture)
    record["duration_s"] = round(time.perf_counter() - start, 4)
    return record


def _capture(loaded, capture: Capture) -> dict:
    from cuvil.frontend.module_state import functorch_kept, preserved_state

    try:  # the eager run below meets the model as written, not as a capture left it
        with capture.grad_mode(), preserved_state(loaded.model), functorch_kept():
            _compile(loaded, capture)
    except Exception as e:  # noqa: BLE001 - every failure is evidence
        error = error_info(e)
    else:
        return {}
    # eager runs outside the except block, so its errors do not chain to the capture's
    out = {
        "status": "failed",
        "stage": "capture",
        "error": error,
        "eager": _run_eager(loaded, capture),
    }
    return out


def _replay(record: dict, loaded, capture: Capture) -> None:
    """Where the eager run makes what the capture failed on (replay.py): the op Cuvil
    refused (export names only forward()'s line), or the value read that made an
    unbacked symbol (torch names the symbol); of several reads, the one nearest
    the failing code."""
    error = record.get("error")
    target = replay_target(error) if error else None
    if not (target and record["eager"]["ok"]):
        return
    user = _user_roots(record)
    model, inputs, grad = loaded.model, tuple(loaded.inputs), capture.grad_mode()
    stacks = op_origins(model, inputs, target, grad, 64 if target == VALUE_READ else 1)
    goal = code_stack(error["chain"], user)
    record["origin"] = nearest_stack(stacks, goal, lambda f: _is_code(f, user))
    record["origin_op"] = target


def _needs_draft(record: dict, capture: Capture) -> bool:
    """Export failed on a guard and its traceback names no line of the model's code
    (a constraint violation): draft_export (a second, slower export) says where."""
    error = record.get("error")
    if not (capture.frontend.startswith("export") and error and _guard_failure(error)):
        return False
    return not code_stack(error["chain"], _user_roots(record))


def _compile(loaded, capture: Capture) -> None:
    if capture.frontend not in FRONTENDS:
        raise ValueError(
            f"unknown frontend {capture.frontend!r}; use one of {FRONTENDS}"
        )
    if capture.frontend == "dynamo":
        _dynamo(loaded, capture)
        return
    module = _lower(loaded, capture)
    if capture.stage == "compile":
        from cuvil.options import CompileOptions
        from cuvil.pipeline import compile_module

        compile_module(module, CompileOptions(frontend=_cuvil_frontend(capture)))


def _cuvil_frontend(capture: Capture) -> str:
    return "fx" if capture.frontend == "fx" else "export"


def _lower(loaded, capture: Capture):
    """Capture as the user would (torch.fx.symbolic_trace, torch.export.export), then
    hand the graph to Cuvil: the errors are the ones the user's own capture raises."""
    import torch

    from cuvil.frontend import lower

    model, inputs = loaded.model, tuple(loaded.inputs)
    if capture.frontend == "fx":
        if capture.cuvil_leaves:
            return lower(model, inputs, frontend="fx")
        root = torch.nn.Sequential(model) if _is_plain_leaf(model) else model
        tracer = torch.fx.Tracer()
        tracer.record_stack_traces = True  # locations only; the graph is the same
        gm = torch.fx.GraphModule(root, tracer.trace(root))
        return lower(model, inputs, frontend="fx", gm=gm)
    strict = capture.frontend == "export-strict"
    grad = contextlib.nullcontext()
    if loaded.dynamic_shapes is not None:  # the steps of cuvil.compile(dynamic_shapes=)
        _prove_dims(model, inputs, loaded.dynamic_shapes, strict)
        grad = torch.no_grad()  # its export runs without grad (frontend.capture)
    # the given shape as a static model: what cuvil.compile compiles, also for a
    # model with dynamic dims (each shape is compiled once torch.export proved them)
    with grad:
        ep = torch.export.export(model, inputs, strict=strict)
    return lower(ep, inputs, frontend="export")


def _prove_dims(model, inputs: tuple, spec, strict: bool) -> None:
    """cuvil.compile's steps with dynamic_shapes, each failure raised as its own:
    Cuvil's check of the spec (dims of tensor inputs only), the user's export with
    it, then torch.export proving the dims on inputs widened past size 1."""
    import torch

    from cuvil.errors import FrontendError
    from cuvil.frontend.dynamic_shapes import derive_dims, normalize
    from cuvil.frontend.module_state import preserved_state

    normalize(model, inputs, spec, False)
    with preserved_state(model):  # as cuvil.compile's own exports (a cache it wrote)
        torch.export.export(model, inputs, dynamic_shapes=spec, strict=strict)
    try:
        derive_dims(model, inputs, spec)
    except FrontendError as e:  # torch's error, raised as torch raised it: Cuvil's
        cause = e.__cause__  # wrapper adds only its own frames
        if cause is None:
            raise
    else:
        return
    raise cause


def _is_plain_leaf(model) -> bool:
    """torch.fx never calls the root as a leaf: a bare torch.nn module gets a parent."""
    import torch

    return type(model).__module__.startswith("torch.nn") and not isinstance(
        model, torch.nn.Sequential
    )


def _dynamo(loaded, capture: Capture) -> None:
    """torch.compile(model, backend=cuvil, fullgraph=True): a graph break is an error,
    and so is an op Cuvil refuses (strict: by default the backend runs it eagerly)."""
    import functools

    import torch

    from cuvil.backend import cuvil_backend

    strict = functools.partial(cuvil_backend, options={"fallback": "strict"})
    torch._dynamo.reset()  # the backend compiles to native code: stage is "compile"
    torch.compile(loaded.model, backend=strict, fullgraph=True)(*loaded.inputs)


def _run_eager(loaded, capture: Capture) -> dict:
    """Does the model run at all? With dynamo off: a library that torch.compile's an op
    lazily (torchvision's detection models) would otherwise start a C++ build here
    (190 s measured), only to say what a plain eager run says."""
    import torch

    try:
        with capture.grad_mode(), torch._dynamo.config.patch(disable=True):
            loaded.model(*loaded.inputs)
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": error_info(e)}
    return {"ok": True}


def _describe(loaded) -> dict:
    model = type(loaded.model)
    return {
        "model": {
            "class": model.__name__,
            "file": _source_file(model),
            "line": _source_line(model),
            "forward": _forward(model),
        },
        "inputs": [_kind(x) for x in loaded.inputs],
        "file": loaded.file,
    } | _instance_forward(loaded.model)


def _instance_forward(model: Any) -> dict:
    """A forward set on the instance (`self.forward = module.forward`, a wrapper a
    library installs): torch.fx traces the class's forward, never this one."""
    fn = vars(model).get("forward")
    if fn is None:
        return {}
    fn = _real_forward(getattr(fn, "__func__", fn))
    return {"instance_forward": {"file": _source_file(fn), "line": _source_line(fn)}}


def _forward(model: type) -> dict:
    fn = _real_forward(model.forward)
    params = []
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        params.append(
            {
                "name": p.name,
                "kind": p.kind.name,
                "default": _default(p.default),
                "annotation": _annotation(p.annotation),
            }
        )
    return {"file": _source_file(fn), "line": _source_line(fn), "params": params}


def _real_forward(fn: Any) -> Any:
    """forward() under its decorators: through functools.wraps' __wrapped__, else
    the function named forward that a wrapper closes over."""
    fn = inspect.unwrap(fn)
    seen = set()
    while getattr(fn, "__name__", "forward") != "forward" and id(fn) not in seen:
        seen.add(id(fn))
        cells = [c.cell_contents for c in getattr(fn, "__closure__", None) or ()]
        inner = [c for c in cells if inspect.isfunction(c)]
        named = [c for c in inner if c.__name__ == "forward"]
        if not (named or inner):
            break
        fn = inspect.unwrap((named or inner)[0])
    return fn


def _default(value: Any) -> str | None:
    return None if value is inspect.Parameter.empty else repr(value)[:40]


def _annotation(value: Any) -> str | None:
    if value is inspect.Parameter.empty:
        return None
    return value if isinstance(value, str) else inspect.formatannotation(value)


def _kind(x: Any) -> dict:
    import torch

    if isinstance(x, torch.Tensor):
        return {"type": "Tensor", "dtype": str(x.dtype), "shape": list(x.shape)}
    kind = {"type": type(x).__name__, "module": type(x).__module__}
    for base in (tuple, list, dict):  # a namedtuple, an OrderedDict...
        if isinstance(x, base) and type(x) is not base:
            kind["container"] = base.__name__
    return kind


def _source_file(obj: Any) -> str | None:
    try:
        return str(Path(inspect.getsourcefile(obj)).resolve())
    except (TypeError, OSError):
        return None


def _source_line(obj: Any) -> int | None:
    """The `def`/`class` line itself, not the first decorator's."""
    try:
        lines, first = inspect.getsourcelines(obj)
    except (TypeError, OSError):
        return None
    for i, text in enumerate(lines):
        if text.lstrip().startswith(("def ", "async def ", "class ")):
            return first + i
    return first


def error_info(exc: BaseException) -> dict:
    """The exception chain, outermost first, each with its frames (a backend's own
    error inside dynamo's BackendCompilerFailed is part of the chain)."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(_one(exc))
        inner = getattr(exc, "inner_exception", None)
        exc = (
            inner
            if isinstance(inner, BaseException) and id(inner) not in seen
            else exc.__cause__
            or (None if exc.__suppress_context__ else exc.__context__)
        )
    return {"chain": chain}


# what torch already computed about a failure, read before any message regex:
# dynamo's UserError kind (DYNAMIC_CONTROL_FLOW, CONSTRAINT_VIOLATION...) and case,
# its graph-break type, the op a fake-tensor error names, the guard a data-dependent
# error could not decide
_FIELDS = ("error_type", "case_name", "gb_type", "func", "cond")


_BASES_SKIPPED = {"object", "BaseException", "Exception"}


def _one(exc: BaseException) -> dict:
    frames = [
        _frame(f.filename, f.lineno, f.name)
        for f in traceback.extract_tb(exc.__traceback__)
    ]
    text = str(exc)
    info = {
        "type": type(exc).__name__,
        "module": type(exc).__module__,
        "message": text[:4000],
        "frames": frames,
        "message_frames": [
            _frame(f, int(n), fn) for f, n, fn in _STACK_LINE.findall(text)
        ],
    }
    for attr in ("where", "hint", "target", "node"):
        if getattr(exc, attr, None) is not None:
            info[attr] = str(getattr(exc, attr))
    info["bases"] = [
        c.__name__ for c in type(exc).__mro__[1:] if c.__name__ not in _BASES_SKIPPED
    ]
    fields = {a: _field(getattr(exc, a, None)) for a in _FIELDS}
    info["fields"] = {a: v for a, v in fields.items() if v}
    stack = getattr(exc, "real_stack", None)  # dynamo: the traced code's own frames
    if stack:
        info["user_stack"] = [_frame(f.filename, f.lineno, f.name) for f in stack]
    return info


def _field(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return getattr(value, "name", None) or str(value)[:200]  # an enum by its name


if __name__ == "__main__":  # pragma: no cover - manual debugging aid
    import json

    print(json.dumps(collect(sys.argv[1], *(sys.argv[2:3] or ["fx"])), indent=1))
