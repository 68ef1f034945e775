"""Writes a tool's output to stdout or to a user's path, never over an existing one
unless asked to, atomically, never through a link: the compiler's (``cuvil.args`` for
-o, ``cuvil.userpaths`` underneath), shared by cuvil-opt and cuvil-debug."""

from __future__ import annotations

from cuvil.args import OutputError, check_output, write_output
from cuvil.userpaths import check_dir, check_file, write_file, write_in_dir

__all__ = [
    "OutputError",
    "check_output",
    "write_output",
    "check_file",
    "check_dir",
    "write_file",
    "write_in_dir",
]
