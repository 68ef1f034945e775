"""One result per model: the record and its diagnosis as the JSON-ready dict every
report format is written from (schema `cuvil-triage/1`, see docs/TRIAGE.md)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .categories import CATEGORIES
from .classify import Diagnosis, classify
from .frames import package_of
from .messages import LIBRARY_HINTS
from .source import index_file

__all__ = ["SCHEMA", "STATUSES", "to_result", "relpath", "where"]

SCHEMA = "cuvil-triage/1"
STATUSES = ("ok", "failed", "error", "timeout", "crash")


def relpath(path: str | None) -> str | None:
    """Paths relative to the working directory when inside it (SARIF wants that)."""
    if not path:
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else Path(rel).as_posix()


def to_result(record: dict) -> dict:
    status = record.get("status", "crash")
    result = {
        "model": record.get("spec"),
        "status": status,
        "frontend": record.get("frontend"),
        "duration_s": record.get("duration_s"),
    }
    if status == "ok":
        result["stage"] = record.get("stage")  # how far the model got
    elif status == "failed":
        result.update(_diagnosed(record, classify(record)))
    elif status != "ok":
        result["message"] = record.get("message") or status
    if record.get("output"):  # what the model printed during its capture (truncated)
        result["output"] = record["output"]
    return result


def _diagnosed(record: dict, d: Diagnosis) -> dict:
    roots = [_root(c) for c in d.roots]
    return {
        "category": d.category,
        "title": CATEGORIES[d.category].title,
        "confidence": d.confidence,
        "alternatives": [
            {"category": c, "confidence": round(p, 3)} for c, p in d.alternatives
        ],
        "message": _message(record),
        "hint": _hint(d, record, roots),
        "location": roots[0]["location"] if roots else None,
        "failing": _loc(*d.failing) if d.failing else None,
        "root_causes": roots,
        "signals": d.signals,
    }


def _hint(d: Diagnosis, record: dict, roots: list[dict]) -> str:
    """The category's fix, or for a root cause in a library's code the concrete
    workaround (LIBRARY_HINTS), saying whose line it is."""
    loc = roots[0]["location"] if roots else {}
    package = loc.get("package")
    if not package:
        return d.hint
    frontend = record.get("frontend") or "fx"
    for h in LIBRARY_HINTS:
        if (
            h.package in (package, "*")
            and d.category in h.categories
            and frontend.startswith(h.frontends)
        ):
            return f"the line is in {where(loc)}: {h.text}"
    return f"the line is in {where(loc)}: {d.hint}"


def _root(c) -> dict:
    return {
        "location": _loc(c.file, c.line),
        "confidence": c.confidence,
        "chain": [_loc(f, n) for f, n in c.chain],
    }


def _loc(file: str, line: int) -> dict:
    index = index_file(file)
    out = {
        "file": relpath(file),
        "line": line,
        "text": index.text(line) if index else "",
    }
    package = package_of(file)
    if package:  # a library's line: say whose it is
        out.update(package=package, version=_version(package), path=_site_path(file))
    return out


def where(loc: dict) -> str:
    """`file:line`, or for a library's line `transformers 5.24.0
    models/bert/modeling_bert.py:637 (not your code)`."""
    if loc.get("package"):
        return (
            f"{loc['package']} {loc.get('version') or ''} "
            f"{loc['path'].split('/', 1)[-1]}:{loc['line']} (not your code)"
        ).replace("  ", " ")
    return f"{loc['file']}:{loc['line']}"


def _site_path(file: str) -> str:
    """The path below site-packages: `transformers/models/bert/modeling_bert.py`."""
    return Path(file).as_posix().split("/site-packages/", 1)[-1]


@functools.cache
def _version(package: str) -> str | None:
    from importlib import metadata

    for dist in metadata.packages_distributions().get(package, [package]):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def _message(record: dict) -> str:
    """Cuvil's one-line summary, or torch's own error when eager fails or the
    summary only wraps it (ShapeProp)."""
    chain = (record.get("error") or {}).get("chain") or [{}]
    eager = ((record.get("eager") or {}).get("error") or {}).get("chain")
    exc = eager[-1] if eager else chain[0]
    if "ShapeProp error" in exc.get("message", ""):
        exc = chain[-1]
    text = exc.get("message", "").strip()
    first = text.splitlines()[0] if text else ""
    return f"{exc.get('type', 'Error')}: {first}"[:300]
