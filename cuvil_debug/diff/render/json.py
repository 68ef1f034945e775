"""``--format json``: the versioned document and its JSON Schema check."""

from __future__ import annotations

import functools
import json
import math
from dataclasses import fields
from importlib import resources
from typing import Any

from ..model import (
    DiffReport,
    Divergence,
    Metrics,
    NodeRow,
    StageResult,
    Tolerance,
    TruthError,
)
from ..status import Stage, Status
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


def report_from_json(doc: dict[str, Any]) -> DiffReport:
    """The `DiffReport` a document of `report_json` describes (validated first:
    jsonschema.ValidationError when it is not one); the metrics' strings "inf",
    "-inf", "nan" become floats again."""
    validate_json(doc)
    rows = [_row(r) for r in doc["rows"]]
    first = doc["first"]
    if first is not None:
        first = Divergence(**{**first, "metrics": _metrics(first["metrics"])})
    tolerances = {k: Tolerance(**v) for k, v in doc["tolerances"].items()}
    keep = {f.name for f in fields(DiffReport)} - {"rows", "first", "tolerances"}
    rest = {k: v for k, v in doc.items() if k in keep}
    rest["stages"] = tuple(Stage(s) for s in rest["stages"])
    rest["inputs"] = [(tuple(s), d) for s, d in rest["inputs"]]
    return DiffReport(rows=rows, first=first, tolerances=tolerances, **rest)


def _row(doc: dict[str, Any]) -> NodeRow:
    stages = {Stage(k): _stage(v) for k, v in doc["stages"].items()}
    shape = tuple(doc["shape"]) if doc.get("shape") is not None else None
    inputs = tuple(doc.get("inputs", ()))
    return NodeRow(**{**doc, "stages": stages, "shape": shape, "inputs": inputs})


def _stage(doc: dict[str, Any]) -> StageResult:
    known = {f.name for f in fields(StageResult)}
    s = {k: v for k, v in doc.items() if k in known}  # not "verdict": it is derived
    s["status"] = Status(s["status"])
    s["with_nodes"] = tuple(s.get("with_nodes", ()))
    s["propagated"] = _metrics(s.get("propagated"))
    s["isolated"] = _metrics(s.get("isolated"))
    return StageResult(**s)


def _metrics(doc: dict[str, Any] | None) -> Metrics | None:
    if doc is None:
        return None
    m = {k: _NUMBERS.get(v, v) if isinstance(v, str) else v for k, v in doc.items()}
    m["dtype"] = doc["dtype"]
    for key in ("judge", "measure"):
        if key in doc:
            m[key] = doc[key]
    for key in ("truth", "eager"):
        if m.get(key) is not None:
            m[key] = TruthError(**{k: _number(v) for k, v in m[key].items()})
    index = m.get("worst_index")
    return Metrics(**{**m, "worst_index": tuple(index) if index else index})


_NUMBERS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _number(v):
    return _NUMBERS.get(v, v) if isinstance(v, str) else v
