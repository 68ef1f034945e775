"""Loads a model for triage: any example inputs (tensors or not), clear load errors."""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Loaded", "LoadError", "load", "split_spec"]

DEFAULT_ENTRY = "Model"
_counter = itertools.count()


class LoadError(Exception):
    """The spec names no loadable model; `cause` is the user-code exception, if any."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


@dataclass
class Loaded:
    model: Any
    inputs: tuple
    dynamic_shapes: Any
    file: str | None


def split_spec(spec: str) -> tuple[str, str | None]:
    """`file.py:Entry` / `pkg.mod:Entry` -> (target, entry)."""
    head, colon, attr = spec.rpartition(":")
    if colon and attr.isidentifier() and head:
        return head, attr
    return spec, None


def load(spec: str, entry: str | None = None) -> Loaded:
    target, attr = split_spec(spec)
    entry = attr or entry or DEFAULT_ENTRY
    is_module = not target.endswith(".py") and not Path(target).exists()
    module = _import(target) if is_module else _exec_file(target)
    model = _build(module, entry, spec)
    inputs = _inputs(module, spec)
    shapes = _dynamic_shapes(module, spec)
    return Loaded(model, inputs, shapes, getattr(module, "__file__", None))


def _dynamic_shapes(module: types.ModuleType, spec: str) -> Any:
    """torch.export's `dynamic_shapes=`: a `dynamic_shapes()` function or a
    `DYNAMIC_SHAPES` constant (not both)."""
    fn, const = (
        getattr(module, "dynamic_shapes", None),
        getattr(module, "DYNAMIC_SHAPES", None),
    )
    if fn is not None and const is not None:
        raise LoadError(
            f"'{spec}' defines both dynamic_shapes() and DYNAMIC_SHAPES; keep one"
        )
    if fn is not None:
        return _call(fn, spec) if callable(fn) else fn
    return const


def _exec_file(spec: str) -> types.ModuleType:
    path = Path(spec)
    if not path.exists():
        raise LoadError(f"'{spec}' does not exist")
    if path.is_dir() or path.suffix != ".py":
        raise LoadError(f"'{spec}' is not a Python file (expected a .py file)")
    code = _compile(path, spec)
    name = f"cuvil_triage_{next(_counter)}_{path.stem}"
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location(name, path.resolve())
    )
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        exec(code, module.__dict__)
    except BaseException as e:  # noqa: BLE001 - user code may raise anything
        raise LoadError(f"importing '{spec}' failed: {type(e).__name__}: {e}", e) from e
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def _compile(path: Path, spec: str) -> types.CodeType:
    try:
        return compile(path.read_text(encoding="utf-8"), str(path.resolve()), "exec")
    except (UnicodeDecodeError, ValueError):
        raise LoadError(f"'{spec}' is not Python source (cannot decode it)") from None
    except SyntaxError as e:
        raise LoadError(
            f"'{spec}' is not valid Python: line {e.lineno}: {e.msg}"
        ) from None


def _import(name: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except BaseException as e:  # noqa: BLE001
        raise LoadError(f"cannot import '{name}': {type(e).__name__}: {e}", e) from e


def _build(module: types.ModuleType, entry: str, spec: str) -> Any:
    import torch

    factory = getattr(module, entry, None)
    if factory is None or not callable(factory):
        raise LoadError(
            f"'{spec}' defines no model: no class or factory '{entry}' "
            f"(define {entry}(nn.Module) or pass --entry NAME)"
        )
    model = _call(factory, spec)
    if not isinstance(model, torch.nn.Module):
        raise LoadError(
            f"{entry}() in '{spec}' returned a {type(model).__name__}, not an nn.Module"
        )
    return model.eval()


def _inputs(module: types.ModuleType, spec: str) -> tuple:
    fn = getattr(module, "example_inputs", None)
    if not callable(fn):
        raise LoadError(
            f"'{spec}' defines no example_inputs(); add one returning "
            "a tuple of forward() arguments"
        )
    value = _call(fn, spec)
    return value if isinstance(value, tuple | list) else (value,)


def _call(fn: Any, spec: str) -> Any:
    try:
        return fn()
    except BaseException as e:  # noqa: BLE001
        name = getattr(fn, "__name__", "factory")
        raise LoadError(
            f"{name}() in '{spec}' failed: {type(e).__name__}: {e}", e
        ) from e
