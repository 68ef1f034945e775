"""Markdown for a CI job summary ($GITHUB_STEP_SUMMARY): counts, one row per failing
model, and the root-cause chain of each in a collapsible block."""

from __future__ import annotations

from .results import where

__all__ = ["to_markdown"]


def to_markdown(doc: dict, new: list[dict] | None = None) -> str:
    s = doc["summary"]
    out = [
        "## Cuvil triage",
        "",
        f"{s['total']} models: {s['ok']} ok, {s['failed']} failed, {s['error']} "
        f"errors, {s['timeout']} timeouts, {s['crash']} crashes "
        f"(frontend `{doc['frontend']}`"
        + (
            ", static prediction: no model code was run"
            if doc.get("mode") == "static"
            else ""
        )
        + ")",
        "",
    ]
    if new is not None:
        out += [f"**{len(new)} new failure(s)** compared with the baseline.", ""]
    bad = [r for r in doc["results"] if r["status"] != "ok"]
    if bad:
        out += ["| Model | Category | Root cause | Confidence |", "|---|---|---|---|"]
        out += [_row(r) for r in bad] + [""]
        out += [_details(r) for r in bad if r["status"] == "failed"]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _row(r: dict) -> str:
    if r["status"] != "failed":
        return f"| `{r['model']}` | {r['status']} | {_cell(r.get('message', ''))} | |"
    loc = r.get("location") or {}
    at = f"`{where(loc)}`" if loc else "unknown"
    return f"| `{r['model']}` | `{r['category']}` | {at} | {r['confidence']:.0%} |"


def _details(r: dict) -> str:
    lines = [
        f"<details><summary><code>{r['model']}</code>: {r['title']}</summary>",
        "",
        f"- error: `{_cell(r['message'])}`",
        f"- fix: {r['hint']}",
    ]
    for i, root in enumerate(r.get("root_causes") or [], 1):
        chain = " → ".join(f"`{where(c)}` {_cell(c['text'])}" for c in root["chain"])
        lines.append(f"- candidate {i} ({root['confidence']:.0%}): {chain}")
    return "\n".join(lines + ["", "</details>", ""])
