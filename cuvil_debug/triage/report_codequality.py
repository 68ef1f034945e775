"""GitLab Code Quality JSON (the Code Climate subset GitLab reads: description,
check_name, fingerprint, severity, location.path, location.lines.begin): one issue
per model that failed, at its root-cause line in the repository."""

from __future__ import annotations

import json

from .report_sarif import STATUS_RULES, _fingerprint
from .results import relpath, where

__all__ = ["to_codequality", "write_codequality", "SEVERITY"]

# a failed capture is the model's to fix; a crash or hang of the capture is worse
SEVERITY = {
    "failed": "major",
    "error": "major",
    "timeout": "critical",
    "crash": "critical",
}


def write_codequality(doc: dict) -> str:
    return json.dumps(to_codequality(doc), indent=2) + "\n"


def to_codequality(doc: dict) -> list[dict]:
    return [_issue(r) for r in doc["results"] if r["status"] != "ok"]


def _issue(r: dict) -> dict:
    rule = r.get("category") or STATUS_RULES[r["status"]][0]
    loc = _repo_location(r)
    text = f"{r['model']}: {r.get('title', r['status'])}: {r.get('message', '')}"
    first = r.get("location") or {}
    if first.get("package"):  # GitLab shows only files of the repository
        text += f" Root cause in {where(first)}."
    if r.get("hint"):
        text += f" Fix: {r['hint']}"
    return {
        "description": text.strip(),
        "check_name": rule,
        "fingerprint": _fingerprint(r, rule),
        "severity": SEVERITY[r["status"]],
        "location": {"path": loc["path"], "lines": {"begin": loc["line"]}},
    }


def _repo_location(r: dict) -> dict:
    """The root-cause line if it is in the repository, else the first repository
    line of its chain, else line 1 of the model file."""
    model_file = r["model"].split(":")[0]
    fallback = {"file": model_file, "line": 1}
    loc = r.get("location") or fallback
    if loc.get("package"):
        chain = (r.get("root_causes") or [{}])[0].get("chain") or []
        loc = next((c for c in chain if not c.get("package")), fallback)
    return {"path": relpath(loc["file"]), "line": max(1, int(loc.get("line") or 1))}
