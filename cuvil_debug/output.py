"""Writes a tool's text output to stdout or to a file, never over an existing file
unless asked to: the compiler's (``cuvil.args``), shared by cuvil-opt and cuvil-debug."""

from __future__ import annotations

from cuvil.args import OutputError, check_output, write_output

__all__ = ["OutputError", "check_output", "write_output"]
