"""`cuvil-debug bench`: compiled vs eager latency, compile time and memory of a model,
and a regression check against an earlier report (docs/PROFILING.md)."""

from __future__ import annotations

from .cli import add_parser, run_bench
from .report import FORMATS, render, schema

__all__ = ["add_parser", "run_bench", "render", "schema", "FORMATS"]
