"""Renders a `DiffReport`, one module per format (as cuvil_debug/triage/ does): the
terminal table (`table`), the versioned JSON (`json`), one self-contained HTML page
(`html`, graph drawn by graphviz) and the FX graph as DOT (`dot`); `cells` and `words`
are what they share. docs/DIFF.md shows each."""

from .dot import render_dot
from .html import render_html
from .json import SCHEMA_PATH, report_json, validate_json
from .table import render_table

__all__ = [
    "SCHEMA_PATH",
    "render_table",
    "report_json",
    "validate_json",
    "render_html",
    "render_dot",
]
