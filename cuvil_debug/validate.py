"""Checks `.cuvilir` files: parse, then verify; collects every error with its location."""

from __future__ import annotations

from pathlib import Path

from cuvil.errors import CuvilError
from cuvil.ir import verify_all
from cuvil.opt import read_ir

__all__ = ["read_ir", "validate_file", "format_error"]


def validate_file(
    path: str | Path, max_constant_bytes: int | None = None
) -> list[CuvilError]:
    """Every error in the file: the first parse error, or all verifier errors."""
    try:
        module = read_ir(path, max_constant_bytes)
    except CuvilError as e:
        return [e]
    return list(verify_all(module))


def format_error(err: CuvilError, path: str | Path) -> str:
    """`file:line:col: error: message` (the file alone when the error has no position),
    followed by the error's note (the source line and a caret) when it has one."""
    head = str(err) if err.where else f"{path}: error: {err}"
    return f"{head}\n{err.note}" if err.note else head
