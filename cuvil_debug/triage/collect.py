"""Captures one model in this process and records what failed: the exception chain,
its traceback frames, the forward signature and the kinds of the inputs."""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
import sysconfig
import time
import traceback
from pathlib import Path
from typing import Any

from .load import LoadError, load

__all__ = ["STAGES", "collect", "error_info", "is_user_file"]

_LIB_DIRS = tuple(
    str(Path(p).resolve())
    for p in {
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
    }
)
_STACK_LINE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


STAGES = ("lower", "compile")


def collect(
    spec: str, frontend: str = "fx", entry: str | None = None, stage: str = "lower"
) -> dict:
    """The triage record of `spec`: status ok / failed / error, and evidence.
    `stage` is how far to go: lower to Cuvil IR, or compile to native code too."""
    start = time.perf_counter()
    record = {"spec": spec, "frontend": frontend, "status": "ok"}
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
        record.update(_capture(loaded, frontend, stage))
    record["duration_s"] = round(time.perf_counter() - start, 4)
    return record


def _capture(loaded, frontend: str, stage: str) -> dict:
    kwargs = {"dynamic_shapes": loaded.dynamic_shapes} if loaded.dynamic_shapes else {}
    try:
        _compile(loaded, frontend, stage, kwargs)
    except Exception as e:  # noqa: BLE001 - every failure is evidence
        error = error_info(e)
    else:
        return {}
    # eager runs outside the except block, so its errors do not chain to the capture's
    return {
        "status": "failed",
        "stage": "capture",
        "error": error,
        "eager": _run_eager(loaded),
    }


def _compile(loaded, frontend: str, stage: str, kwargs: dict) -> None:
    from cuvil.frontend import lower

    module = lower(loaded.model, loaded.inputs, frontend=frontend, **kwargs)
    if stage == "compile":
        from cuvil.options import CompileOptions
        from cuvil.pipeline import compile_module

        compile_module(module, CompileOptions(frontend=frontend))


def _run_eager(loaded) -> dict:
    """Does the model run at all? With dynamo off: a library that torch.compile's an op
    lazily (torchvision's detection models) would otherwise start a C++ build here
    (190 s measured), only to say what a plain eager run says."""
    import torch

    try:
        with torch.no_grad(), torch._dynamo.config.patch(disable=True):
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
    }


def _forward(model: type) -> dict:
    fn = model.forward
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
    return {"type": type(x).__name__, "module": type(x).__module__}


def _source_file(obj: Any) -> str | None:
    try:
        return str(Path(inspect.getsourcefile(obj)).resolve())
    except (TypeError, OSError):
        return None


def _source_line(obj: Any) -> int | None:
    try:
        return inspect.getsourcelines(obj)[1]
    except (TypeError, OSError):
        return None


def error_info(exc: BaseException) -> dict:
    """The exception chain, outermost first, each with its frames."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(_one(exc))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return {"chain": chain}


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
    return info


def _frame(file: str, line: int | None, func: str) -> dict:
    return {
        "file": _resolve(file),
        "line": line or 0,
        "func": func,
        "user": is_user_file(file),
        "cuvil": _in_cuvil(file),
    }


def _resolve(file: str) -> str:
    return file if file.startswith("<") else str(Path(file).resolve())


def is_user_file(file: str) -> bool:
    """True for the model author's code: not the stdlib, site-packages or Cuvil."""
    if file.startswith("<") or not file.endswith(".py"):
        return False
    path = _resolve(file)
    return (
        not path.startswith(_LIB_DIRS)
        and not _in_cuvil(path)
        and "/site-packages/" not in path
    )


def _in_cuvil(file: str) -> bool:
    return not file.startswith("<") and _resolve(file).startswith(_cuvil_dirs())


@functools.cache
def _cuvil_dirs() -> tuple[str, ...]:
    import cuvil
    import cuvil_debug

    return tuple(
        str(Path(m.__file__).resolve().parent) + os.sep for m in (cuvil, cuvil_debug)
    )


if __name__ == "__main__":  # pragma: no cover - manual debugging aid
    import json

    print(json.dumps(collect(sys.argv[1], *(sys.argv[2:3] or ["fx"])), indent=1))
