"""Helpers shared by the zoo corpus tests (test_zoo_corpora.py):
the triage category names, read without importing triage, and the lines of a label's
root file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def category_ids() -> set[str]:
    # categories.py alone (a table with no imports of its own package): the labellers
    # of a blind set may read it and nothing else of triage
    path = ROOT / "cuvil_debug" / "triage" / "categories.py"
    spec = importlib.util.spec_from_file_location("_zoo_categories", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses resolve the module by name
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[spec.name]
    return set(mod.CATEGORIES)


def source_lines(folder: Path, path: str) -> list[str] | None:
    """The lines of a root's file: the sample itself (in `folder`), or the installed
    library file (None when that library is not installed)."""
    if (folder / path).is_file():
        return (folder / path).read_text().splitlines()
    if "/" not in path and path.endswith(".py"):  # a single-module library (tabm.py)
        spec = importlib.util.find_spec(path[:-3])
        if spec is None or not spec.origin:
            return None
        return Path(spec.origin).read_text().splitlines()
    spec = importlib.util.find_spec(path.split("/")[0])
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(next(iter(spec.submodule_search_locations))).parent
    return (site / path).read_text().splitlines()
