"""``--format json``: the versioned document and its JSON Schema check."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from ..model import DiffReport
from .cells import verdict_of

# package data (pyproject.toml), so that an installed wheel validates too
SCHEMA_PATH = resources.files(__package__) / "diff.schema.json"


def report_json(report: DiffReport) -> dict[str, Any]:
    """``report.to_json()`` plus each stage result's ``verdict`` and the mapping counts
    (``accounted``); always plain JSON (odd option values become strings)."""
    doc = report.to_json()
    for row_doc, row in zip(doc["rows"], report.rows):
        for stage, s_doc in row_doc["stages"].items():
            s_doc["verdict"] = verdict_of(row.stages[stage])
    doc["accounted"] = report.accounted()
    return json.loads(json.dumps(doc, default=str, allow_nan=False))


@functools.cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def validate_json(doc: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `doc` is a valid diff report
    (schema_version 1, cuvil_debug/diff/render/diff.schema.json)."""
    _validator().validate(doc)
