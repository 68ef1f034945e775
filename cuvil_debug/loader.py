"""Loads a user's model and example inputs from `path/to/file.py` or `package.module:attr`.

Every user mistake becomes a ModelLoadError (a FrontendError) whose one-line message says
what is wrong, where (file:line when there is one) and how to fix it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import itertools
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from cuvil.errors import FrontendError

__all__ = [
    "LoadedModel",
    "ModelLoadError",
    "load_model",
    "DEFAULT_ENTRY",
    "INPUTS_FN",
]

DEFAULT_ENTRY = "Model"
INPUTS_FN = "example_inputs"
_counter = itertools.count()


class ModelLoadError(FrontendError):
    """A model spec could not be turned into a model and its example inputs."""


@dataclass(frozen=True)
class LoadedModel:
    """A model in eval mode, the inputs to run it on, and where it came from."""

    model: nn.Module
    inputs: tuple[torch.Tensor, ...]
    source: str
    name: str


def load_model(spec: str, entry: str | None = None) -> LoadedModel:
    """Load `spec` (a .py path or `package.module:attr`); `entry` names the model class
    or zero-argument factory (default `Model`)."""
    if _looks_like_module_spec(spec):
        return _load_from_module(spec, entry)
    path, _, attr = spec.rpartition(":")
    if path.endswith(".py") and attr.isidentifier():  # path/to/file.py:Entry
        return _load_from_file(path, _one_entry(spec, attr, entry))
    return _load_from_file(spec, entry)


def _one_entry(spec: str, attr: str, entry: str | None) -> str:
    if entry and entry != attr:
        raise ModelLoadError(
            f"'{spec}' already names the entry '{attr}'; "
            f"drop --entry {entry} or the ':{attr}'"
        )
    return attr


def _looks_like_module_spec(spec: str) -> bool:
    """`package.module:attr` (or `package.module:`), not an existing path."""
    mod_name, colon, _ = spec.partition(":")
    dotted = all(part.isidentifier() for part in mod_name.split("."))
    is_file = mod_name.endswith(".py") or Path(spec).exists()
    return bool(colon) and dotted and not is_file


# ---- path/to/file.py ---------------------------------------------------------------------


def _load_from_file(spec: str, entry: str | None) -> LoadedModel:
    path = _check_file(spec)
    module = _exec_file(path, spec)
    name = entry or DEFAULT_ENTRY
    model = _build(module, name, spec, path)
    inputs = _inputs(module, spec, path)
    return LoadedModel(model.eval(), inputs, spec, path.stem)


def _check_file(spec: str) -> Path:
    path = Path(spec)
    if not path.exists():
        raise ModelLoadError(
            f"model file '{spec}' does not exist; give the path to a .py file that "
            f"defines {DEFAULT_ENTRY} and {INPUTS_FN}(), or package.module:attr"
        )
    if path.is_dir():
        raise ModelLoadError(f"'{spec}' is a directory; give the path to a .py file")
    if path.suffix != ".py":
        raise ModelLoadError(
            f"'{spec}' is not a Python file (expected a .py file, or package.module:attr)"
        )
    return path.resolve()


def _exec_file(path: Path, spec: str) -> types.ModuleType:
    """Run the file as a fresh module under a unique name; its folder is importable."""
    mod_name = f"cuvil_user_model_{next(_counter)}_{path.stem}"
    try:
        source = path.read_text(encoding="utf-8")
        code = compile(source, str(path), "exec")
    except UnicodeDecodeError as e:
        raise ModelLoadError(f"'{spec}' is not Python source: {e.reason}") from None
    except SyntaxError as e:
        where = f"{spec}:{e.lineno or 1}:{e.offset or 1}"
        raise ModelLoadError(
            f"syntax error: {e.msg}; fix the model file", where=where
        ) from None
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location(mod_name, path)
    )
    sys.modules[mod_name] = module
    sys.path.insert(0, str(path.parent))
    try:
        exec(code, module.__dict__)
    except (Exception, SystemExit) as e:
        del sys.modules[mod_name]
        raise _failed("importing the model file failed", e, spec, path) from None
    finally:
        if str(path.parent) in sys.path:
            sys.path.remove(str(path.parent))
    return module


# ---- package.module:attr ------------------------------------------------------------------


def _load_from_module(spec: str, entry: str | None) -> LoadedModel:
    mod_name, _, attr = spec.partition(":")
    if attr:
        entry = _one_entry(spec, attr, entry)
    module = _import(mod_name, spec)
    path = (
        Path(module.__file__).resolve() if getattr(module, "__file__", None) else None
    )
    model = _build(module, entry or DEFAULT_ENTRY, spec, path)
    inputs = _inputs(module, spec, path)
    return LoadedModel(model.eval(), inputs, spec, mod_name.rpartition(".")[2])


def _import(mod_name: str, spec: str) -> types.ModuleType:
    try:
        return importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name and (mod_name == e.name or mod_name.startswith(e.name + ".")):
            raise ModelLoadError(
                f"cannot import module '{mod_name}' (from '{spec}'): no module named "
                f"'{e.name}'; check the name, install the package or add it to PYTHONPATH"
            ) from None
        raise _failed(f"importing '{mod_name}' failed", e, spec, None) from None
    except (Exception, SystemExit) as e:
        raise _failed(f"importing '{mod_name}' failed", e, spec, None) from None


# ---- entry and inputs -------------------------------------------------------------------


def _build(
    module: types.ModuleType, name: str, spec: str, path: Path | None
) -> nn.Module:
    entry = _lookup(module, name, spec, _entry_fix(module, name))
    if not _is_module_class(entry) and not callable(entry):
        raise ModelLoadError(
            f"'{name}' in '{spec}' is a {type(entry).__name__}, not an nn.Module "
            "subclass or a zero-argument function returning one"
        )
    model = _call(entry, f"{name}()", spec, path)
    if not isinstance(model, nn.Module):
        raise ModelLoadError(
            f"{name}() in '{spec}' returned a {type(model).__name__}, not an nn.Module; "
            "make it return the model"
        )
    return model


def _inputs(module: types.ModuleType, spec: str, path: Path | None) -> tuple:
    fix = f"add def {INPUTS_FN}() -> tuple[torch.Tensor, ...] returning one batch"
    fn = _lookup(module, INPUTS_FN, spec, fix)
    if not callable(fn):
        raise ModelLoadError(f"'{INPUTS_FN}' in '{spec}' is not a function; {fix}")
    return _as_tensors(_call(fn, f"{INPUTS_FN}()", spec, path), spec)


def _as_tensors(value: Any, spec: str) -> tuple[torch.Tensor, ...]:
    got = (value,) if isinstance(value, torch.Tensor) else value
    if not isinstance(got, tuple | list) or not got:
        what = (
            "an empty sequence"
            if isinstance(got, tuple | list)
            else type(value).__name__
        )
        raise ModelLoadError(
            f"{INPUTS_FN}() in '{spec}' returned {what}; "
            "return a tuple of torch.Tensor, one per forward() argument"
        )
    bad = [
        f"#{i} is {type(v).__name__}"
        for i, v in enumerate(got)
        if not isinstance(v, torch.Tensor)
    ]
    if bad:
        raise ModelLoadError(
            f"{INPUTS_FN}() in '{spec}' must return tensors, but element "
            f"{', '.join(bad)}; wrap each value with torch.tensor(...)"
        )
    return tuple(got)


def _lookup(module: types.ModuleType, name: str, spec: str, fix: str) -> Any:
    if not hasattr(module, name):
        raise ModelLoadError(f"'{spec}' defines no '{name}'; {fix}")
    return getattr(module, name)


def _entry_fix(module: types.ModuleType, name: str) -> str:
    found = [
        n
        for n, v in vars(module).items()
        if _is_module_class(v) and v.__module__ == module.__name__
    ]
    hint = f" (it defines: {', '.join(found)})" if found else ""
    if name == DEFAULT_ENTRY:
        return f"define class {DEFAULT_ENTRY}(nn.Module) or pass --entry NAME{hint}"
    return f"check the entry name{hint}"


def _is_module_class(value: Any) -> bool:
    return inspect.isclass(value) and issubclass(value, nn.Module)


def _call(fn: Callable[[], Any], what: str, spec: str, path: Path | None) -> Any:
    try:
        return fn()
    except (Exception, SystemExit) as e:
        raise _failed(f"{what} failed", e, spec, path) from None


def _failed(
    what: str, exc: BaseException, spec: str, path: Path | None
) -> ModelLoadError:
    """An error for an exception raised by user code, located at its deepest line in
    the model file (or, without one, the deepest line of the traceback)."""
    where = _user_frame(exc, spec, path)
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    fix = _fix_for(exc)
    return ModelLoadError(f"{what}: {detail}; {fix}", where=where)


def _fix_for(exc: BaseException) -> str:
    if isinstance(exc, ModuleNotFoundError):
        return "install the missing package or fix the import"
    if isinstance(exc, ImportError):
        return "fix the import"
    return "fix the model code (rerun with --traceback for the full stack)"


def _user_frame(exc: BaseException, spec: str, path: Path | None) -> str | None:
    frames = list(_walk(exc.__traceback__))
    for filename, lineno in reversed(frames):
        if path is not None and _same_file(filename, path):
            return (
                f"{spec}:{lineno}" if spec.endswith(".py") else f"{filename}:{lineno}"
            )
    if frames and path is None:
        filename, lineno = frames[-1]
        return f"{filename}:{lineno}"
    return None


def _walk(tb: types.TracebackType | None):
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith("<frozen") and filename != __file__:
            yield filename, tb.tb_lineno
        tb = tb.tb_next


def _same_file(filename: str, path: Path) -> bool:
    try:
        return Path(filename).resolve() == path
    except OSError:
        return False
