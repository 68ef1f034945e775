"""The report of `cuvil-debug diff` over many models (a sweep, sweep.py): one result
per model, and its formats (terminal table, JSON, Markdown, JUnit, SARIF).

A result says how that model's diff ended (docs/DIFF.md, "Many models"):

    ok        no divergence (below every --fail-on condition): the diff's exit 0
    diverged  a divergence (or a --fail-on condition): the diff's exit 1, with the
              first diverging node, its stage and culprit when there is one
    error     the diff could not run the model: it does not load, lowering refused
              an op, the model called sys.exit, ran out of memory ...
    timeout   the model's diff ran past --timeout and was stopped
    crash     its worker died (a signal, os._exit) or Cuvil failed (a bug)

The JSON document (``schema`` ``cuvil-diff-sweep/1``) carries a shard record under
``shard`` when written by ``--shard K/N``; JUnit and SARIF carry it as triage's do,
so `cuvil-debug report merge` joins the shards (triage/merge.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import xml.etree.ElementTree as ET

from ..triage.report_junit import document, shard_properties, suite_element
from ..triage.shard import SHARD_KEY

__all__ = [
    "SCHEMA",
    "STATUSES",
    "SUITE",
    "summary",
    "sweep_doc",
    "render_sweep",
    "to_junit",
    "to_markdown",
    "to_sarif",
]

SCHEMA = "cuvil-diff-sweep/1"
STATUSES = ("ok", "diverged", "error", "timeout", "crash")
SUITE = "cuvil-diff"
INFO_URI = "https://github.com/cuvil/cuvil/blob/main/docs/DIFF.md"
RULES = {  # SARIF rule id -> (status, title)
    "divergence": ("diverged", "a compiled stage's value differs from PyTorch eager"),
    "diff-error": ("error", "the diff could not run the model"),
    "diff-timeout": ("timeout", "the diff did not finish within --timeout"),
    "diff-crash": ("crash", "the diff's worker process died"),
}
_RULE_OF = {status: rule for rule, (status, _) in RULES.items()}


def summary(results: list[dict]) -> dict:
    """The counts: total, and how many models of each status."""
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    return {"total": len(results), **counts}


def sweep_doc(results: list[dict], frontend: str, settings: dict) -> dict:
    """The versioned JSON document of a sweep (`settings`: the diff's options that
    decide its results, the same in every shard of one sweep)."""
    from cuvil import __version__

    return {
        "schema": SCHEMA,
        "tool": {"name": "cuvil-debug diff", "version": __version__},
        "frontend": frontend,
        "settings": settings,
        "summary": summary(results),
        "results": results,
    }


def render_sweep(doc: dict, fmt: str, width: int = 160, tty: bool = False) -> str:
    """The document as `fmt`: table, json, markdown, junit or sarif."""
    if fmt == "json":
        return json.dumps(doc, indent=1) + "\n"
    if fmt == "markdown":
        return to_markdown(doc)
    if fmt == "junit":
        return to_junit(doc)
    if fmt == "sarif":
        return json.dumps(to_sarif(doc), indent=2) + "\n"
    return to_table(doc, width, tty)


def verdict(r: dict) -> str:
    """One line of what a model's diff found."""
    first = r.get("first")
    if r["status"] == "diverged" and first:
        where = f" ({first['source']})" if first.get("source") else ""
        return (
            f"{first['node']} in {first['stage']}{where}: {first['reason']}; "
            f"culprit: {first['culprit']}"
        )
    return r.get("message") or {"ok": "no divergence"}.get(r["status"], "")


# ---- terminal and Markdown -----------------------------------------------------------
def to_table(doc: dict, width: int = 160, tty: bool = False) -> str:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=None, show_lines=False, expand=False)
    for name, kw in (
        ("model", {"overflow": "fold"}),
        ("result", {"no_wrap": True}),
        ("first divergence / why", {"overflow": "fold"}),
        ("s", {"justify": "right", "no_wrap": True}),
    ):
        table.add_column(name, **kw)
    style = {"ok": "green", "diverged": "red"}
    for r in doc["results"]:
        status = r["status"]
        table.add_row(  # Text: a model's message is not rich markup
            Text(r["model"]),
            Text(status, style=style.get(status, "yellow")),
            Text(verdict(r) if status != "ok" else ""),
            f"{r.get('duration_s') or 0:.1f}",
        )
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=tty, no_color=not tty)
    if doc["results"]:
        console.print(table)
    console.print(_counts(doc), highlight=False)
    return buffer.getvalue()


def _counts(doc: dict) -> str:
    s = doc["summary"]
    return (
        f"{s['total']} model(s): {s['ok']} ok, {s['diverged']} diverged, "
        f"{s['error']} error(s), {s['timeout']} timeout(s), {s['crash']} crash(es)"
    )


def to_markdown(doc: dict) -> str:
    out = ["## Cuvil diff", "", _counts(doc) + f" (frontend `{doc['frontend']}`)", ""]
    bad = [r for r in doc["results"] if r["status"] != "ok"]
    if bad:
        out += ["| Model | Result | First divergence / why |", "|---|---|---|"]
        out += [
            f"| `{_cell(r['model'])}` | {r['status']} | {_cell(verdict(r))} |"
            for r in bad
        ]
        out.append("")
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# ---- JUnit ---------------------------------------------------------------------------
def to_junit(doc: dict) -> str:
    results = doc["results"]
    suite = suite_element(
        tests=len(results),
        failures=sum(r["status"] == "diverged" for r in results),
        errors=sum(r["status"] in ("error", "timeout", "crash") for r in results),
        time=sum(r.get("duration_s") or 0 for r in results),
        name=SUITE,
    )
    if doc.get("shard"):  # where each testcase goes back (cuvil-debug report merge)
        suite.append(shard_properties(doc["shard"]))
    for r in results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"cuvil.diff.{doc['frontend']}",
            name=r["model"],
            time=f"{r.get('duration_s') or 0:.3f}",
        )
        if r["status"] == "diverged":
            ET.SubElement(case, "failure", type="divergence", message=verdict(r))
        elif r["status"] != "ok":
            bad = ET.SubElement(case, "error", type=r["status"], message=verdict(r))
            bad.text = r.get("message", "")
    return document(suite)


# ---- SARIF ---------------------------------------------------------------------------
def to_sarif(doc: dict) -> dict:
    rules = [
        {
            "id": rule,
            "name": "".join(p.capitalize() for p in rule.split("-")),
            "shortDescription": {"text": title},
            "helpUri": f"{INFO_URI}#many-models",
            "defaultConfiguration": {"level": "error"},
        }
        for rule, (_, title) in RULES.items()
    ]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    driver = {
        "name": SUITE,
        "version": doc["tool"]["version"],
        "informationUri": INFO_URI,
        "rules": rules,
    }
    results = [_result(r, index) for r in doc["results"] if r["status"] != "ok"]
    run = {"tool": {"driver": driver}, "results": results}
    if doc.get("shard"):  # the positions of the results SARIF lists (not ok)
        meta = doc["shard"]
        listed = [
            p for p, r in zip(meta["positions"], doc["results"]) if r["status"] != "ok"
        ]
        run["properties"] = {SHARD_KEY: {**meta, "positions": listed}}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    }


def _result(r: dict, index: dict) -> dict:
    rule = _RULE_OF[r["status"]]
    path, line = _location(r)
    fingerprint = hashlib.sha256(f"{r['model']}|{rule}".encode()).hexdigest()[:32]
    return {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": "error",
        "message": {"text": f"{r['model']}: {r['status']}: {verdict(r)}"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": path},
                    "region": {"startLine": line},
                }
            }
        ],
        "partialFingerprints": {"cuvilDiff/v1": fingerprint},
        "properties": {"model": r["model"]},
    }


def _location(r: dict) -> tuple[str, int]:
    """The first divergence's line in the model's source, else the model file."""
    source = (r.get("first") or {}).get("source") or ""
    path, _, line = source.rpartition(":")
    if path and line.isdigit():
        return path, max(1, int(line))
    return r["model"].split(":")[0], 1
