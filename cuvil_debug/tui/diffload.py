"""A `cuvil-debug diff --format json` report as a TUI target: read and checked (schema
`cuvil-diff`, this version's `schema_version`), and the IR it diffed rebuilt from it.

The report holds the printed IR after the passes (``ir_after``: the module the opt and
native stages ran, injected faults included) and before them (``ir_before``); the TUI
shows the first that is there, so nothing is lowered again. Every failure is one
CuvilError naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cuvil.errors import CuvilError
from cuvil.ir import Module, parse_module, verify

from ..diff.model import SCHEMA_VERSION

__all__ = ["check_report", "is_report_path", "read_report", "report_base", "report_ir"]

HINT = "write one with: cuvil-debug diff MODEL --format json -o diff.json"


def is_report_path(target: str) -> bool:
    return target.endswith(".json")


def read_report(path: str | Path) -> dict[str, Any]:
    """The report in `path`, checked against the schema of this version."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = getattr(e, "strerror", None) or str(e)
        raise CuvilError(f"cannot read the file ({reason})", where=where) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise CuvilError(
            f"not JSON ({e.msg}), so not a diff report",
            where=f"{where}:{e.lineno}:{e.colno}",
            hint=HINT,
        ) from None
    return check_report(doc, where)


def check_report(doc: Any, where: str) -> dict[str, Any]:
    """`doc` when it is a diff report of this schema_version, else a CuvilError."""
    if not isinstance(doc, dict) or doc.get("schema") != "cuvil-diff":
        raise CuvilError(
            'JSON but not a cuvil-debug diff report (no "schema": "cuvil-diff")',
            where=where,
            hint=HINT,
        )
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise CuvilError(
            f"a diff report of schema_version {version!r}; this cuvil-debug reads "
            f"schema_version {SCHEMA_VERSION}",
            where=where,
            hint="rerun the diff with this cuvil-debug",
        )
    _validate(doc, where)
    return doc


def _validate(doc: dict[str, Any], where: str) -> None:
    import jsonschema

    from ..diff.render.json import validate_json

    try:
        validate_json(doc)
    except jsonschema.ValidationError as e:
        at = "/".join(str(p) for p in e.absolute_path) or "the top level"
        message = e.message if len(e.message) <= 100 else e.message[:97] + "..."
        raise CuvilError(
            f"not a valid diff report: at {at}: {message}", where=where
        ) from None


def report_ir(doc: dict[str, Any], where: str) -> Module:
    """The module the report diffed: ``ir_after`` when the passes ran, else
    ``ir_before`` (parsed and verified; weights are not in a report)."""
    key = "ir_after" if doc.get("ir_after") else "ir_before"
    text = doc.get(key)
    if not text:
        raise CuvilError(
            "the diff report holds no IR (ir_before, ir_after)", where=where
        )
    module = parse_module(text, file=f"{where}[{key}]")
    verify(module)
    return module


def report_base(doc: dict[str, Any], path: str | Path) -> Path:
    """Where the report's relative source paths are looked up from: the folder the
    diff ran in when the report records it and it exists, else the report's folder."""
    cwd = doc.get("cwd")
    if cwd and Path(cwd).is_dir():
        return Path(cwd)
    return Path(path).parent
