"""`cuvil-debug doctor`: checks of this machine for Cuvil and its tools (docs/DOCTOR.md)."""

from __future__ import annotations

from .core import FAIL, OK, WARN, Check

__all__ = ["Check", "OK", "WARN", "FAIL"]
