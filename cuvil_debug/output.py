"""Writes a tool's text output to stdout or to a file, never over an existing file
unless asked to."""

from __future__ import annotations

import sys
from pathlib import Path

from cuvil.errors import CuvilError

__all__ = ["OutputError", "check_output", "write_output"]


class OutputError(CuvilError):
    """An output file could not be written (it exists, or its folder does not)."""


def write_output(text: str, path: str | None, *, force: bool = False) -> None:
    """Print `text` when `path` is None or '-'; else write it to `path`."""
    if path is None or path == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    target = Path(path)
    check_output(path, force=force)
    # "x" creates the file exclusively: no race can make us overwrite a user's file.
    try:
        with target.open("w" if force else "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        raise _exists(target) from None


def check_output(path: str | None, *, force: bool = False) -> None:
    """Raise OutputError if a file could not be written at `path`; a tool calls this
    before its slow work so that a bad -o fails at once."""
    if path is None or path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"output '{target}' is a directory; give a file path to -o")
    if target.exists() and not force:
        raise _exists(target)
    if not target.parent.is_dir():
        raise OutputError(
            f"cannot write '{target}': folder '{target.parent}' does not exist; "
            "create it first"
        )


def _exists(target: Path) -> OutputError:
    return OutputError(
        f"output '{target}' already exists; pass --force to overwrite it "
        "or choose another -o path"
    )
