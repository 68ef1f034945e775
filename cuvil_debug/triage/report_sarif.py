"""SARIF 2.1.0 for GitHub code scanning: a rule per category, a result at the
root-cause line, the chain as relatedLocations and as a codeFlow."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .categories import CATEGORIES
from .results import where
from .shard import SHARD_KEY

__all__ = ["to_sarif", "write_sarif", "STATUS_RULES"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/cuvil/cuvil/blob/main/docs/TRIAGE.md"
STATUS_RULES = {
    "error": ("model-load-error", "the model could not be loaded"),
    "timeout": ("capture-timeout", "capture did not finish in time"),
    "crash": ("capture-crash", "the capture process crashed"),
}


def write_sarif(doc: dict) -> str:
    return json.dumps(to_sarif(doc), indent=2) + "\n"


def to_sarif(doc: dict) -> dict:
    rules = _rules()
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = [_result(r, index) for r in doc["results"] if r["status"] != "ok"]
    sites = sorted(
        {
            loc["file"][: -len(loc["path"])]
            for r in doc["results"]
            for root in r.get("root_causes") or []
            for loc in root["chain"]
            if loc.get("package")
        }
    )
    driver = {
        "name": "cuvil-triage",
        "version": doc["tool"]["version"],
        "informationUri": INFO_URI,
        "rules": rules,
    }
    run = {
        "tool": {"driver": driver},
        "results": results,
        "columnKind": "unicodeCodePoints",
        **_base_ids(sites),
    }
    if doc.get("shard"):  # where each result goes back (cuvil-debug report merge)
        run["properties"] = {SHARD_KEY: _shard(doc)}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _shard(doc: dict) -> dict:
    """The shard record with the positions of the results SARIF lists (not ok)."""
    meta = doc["shard"]
    positions = [
        p for p, r in zip(meta["positions"], doc["results"]) if r["status"] != "ok"
    ]
    return {**meta, "positions": positions}


def _rules() -> list[dict]:
    rows = [(c.id, c.title, c.hint) for c in CATEGORIES.values()]
    rows += [(rid, text, "see the message") for rid, text in STATUS_RULES.values()]
    return [
        {
            "id": rid,
            "name": _camel(rid),
            "shortDescription": {"text": title},
            "help": {"text": hint, "markdown": f"**Fix:** {hint}"},
            "helpUri": f"{INFO_URI}#{rid}",
            "defaultConfiguration": {"level": "error"},
        }
        for rid, title, hint in rows
    ]


def _camel(rule_id: str) -> str:
    return "".join(part.capitalize() for part in rule_id.split("-"))


SITE_PACKAGES = "SITE_PACKAGES"


def _base_ids(sites: list[str]) -> dict:
    """A library's file is given relative to SITE_PACKAGES (code scanning shows only
    files of the repository; the library's line stays a related location)."""
    if not sites:
        return {}
    return {
        "originalUriBaseIds": {
            SITE_PACKAGES: {"uri": Path(sites[0]).resolve().as_uri() + "/"}
        }
    }


def _result(r: dict, index: dict) -> dict:
    rule = r.get("category") or STATUS_RULES[r["status"]][0]
    model_loc = {"file": r["model"].split(":")[0], "line": 1}
    loc = r.get("location") or model_loc
    text = f"{r['model']}: {r.get('title', r['status'])}: {r.get('message', '')}"
    if loc.get("package"):  # the primary location must be a file of the repository
        text += f" Root cause in {where(loc)}."
        chain = (r.get("root_causes") or [{}])[0].get("chain") or []
        loc = next((c for c in chain if not c.get("package")), model_loc)
    if r.get("hint"):
        text += f" Fix: {r['hint']}"
    out = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": "error",
        "message": {"text": text},
        "locations": [_physical(loc)],
        "partialFingerprints": {"cuvilTriage/v1": _fingerprint(r, rule)},
        "properties": {"model": r["model"], "confidence": r.get("confidence", 1.0)},
    }
    chain = (r.get("root_causes") or [{}])[0].get("chain") or []
    if len(chain) > 1:
        out["relatedLocations"] = [_physical(c, i + 1) for i, c in enumerate(chain)]
        out["codeFlows"] = [
            {
                "threadFlows": [
                    {
                        "locations": [
                            {
                                "location": _physical(c),
                                "nestingLevel": 0,
                                "executionOrder": i + 1,
                            }
                            for i, c in enumerate(chain)
                        ]
                    }
                ]
            }
        ]
    return out


def _physical(loc: dict, ident: int | None = None) -> dict:
    artifact = (
        {"uri": loc["path"], "uriBaseId": SITE_PACKAGES}
        if loc.get("package")
        else {"uri": loc["file"]}
    )
    out = {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": max(1, int(loc["line"]))},
        }
    }
    if loc.get("text"):
        out["message"] = {"text": loc["text"]}
        out["physicalLocation"]["region"]["snippet"] = {"text": loc["text"]}
    if loc.get("package"):
        out["properties"] = {"package": loc["package"], "version": loc.get("version")}
    if ident is not None:
        out["id"] = ident
    return out


def _fingerprint(r: dict, rule: str) -> str:
    return hashlib.sha256(f"{r['model']}|{rule}".encode()).hexdigest()[:32]
