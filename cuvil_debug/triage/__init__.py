"""`cuvil-debug triage`: classify compile failures, trace them to the root-cause line
and report them for people and CI (docs/TRIAGE.md)."""

from __future__ import annotations

from .api import expand_specs, new_failures, report_doc, triage
from .categories import CATEGORIES
from .classify import Diagnosis, classify
from .collect import collect

__all__ = [
    "CATEGORIES",
    "Diagnosis",
    "classify",
    "collect",
    "expand_specs",
    "new_failures",
    "report_doc",
    "triage",
]
