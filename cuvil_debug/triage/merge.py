"""Merges the reports of the runs of a `--shard K/N` sweep (`cuvil-debug triage`, or
`cuvil-debug diff` over many models; JSON, SARIF or JUnit) into the report of the
unsharded run: every result back at its place, the counts summed, SARIF's rules and
artifacts once each, the shard records dropped. A JSON report's kind is its
``schema``; `JsonKind` says how that kind is recounted and what its shards share."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cuvil.errors import CuvilError

from .api import summary
from .report_junit import document, suite_element
from .results import SCHEMA
from .shard import SHARD_KEY

__all__ = [
    "FORMATS",
    "JsonKind",
    "TRIAGE",
    "format_of",
    "merge_files",
    "merge_json",
    "merge_sarif",
    "merge_junit",
]

FORMATS = ("json", "sarif", "junit")
_SUFFIXES = {".sarif": "sarif", ".json": "json", ".xml": "junit"}
_HINT = "give every shard's report of one `--shard K/N` sweep (triage or diff)"


@dataclass(frozen=True)
class JsonKind:
    """A JSON report kind: how its `summary` is recounted from the results, and the
    keys (`same`) every shard of one sweep must agree on."""

    summary: Callable[[list], dict]
    same: tuple[str, ...]


TRIAGE = JsonKind(summary, ("frontend", "stage", "mode"))


def format_of(path: str) -> str | None:
    """The format a file name says (`x.sarif`, `x.sarif.json`: sarif; `.json`,
    `.xml`: json, junit), or None."""
    name = Path(path).name.lower()
    if name.endswith(".sarif.json"):
        return "sarif"
    return _SUFFIXES.get(Path(name).suffix)


def merge_files(
    paths: Sequence[str], fmt: str, kinds: Mapping[str, JsonKind] | None = None
) -> str:
    """The merged report of the shard files `paths` in `fmt`; `kinds`: the JSON
    report kinds by schema (default: triage's)."""
    texts = []
    for path in paths:
        try:
            texts.append(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as e:
            raise CuvilError(f"cannot read {path}: {e}") from None
    if fmt == "json":
        return merge_json(texts, list(paths), kinds or {SCHEMA: TRIAGE})
    merge = {"sarif": merge_sarif, "junit": merge_junit}[fmt]
    return merge(texts, list(paths))


# ---- the shard records ---------------------------------------------------------------
def _check(metas: list, paths: list[str], complete: bool) -> None:
    """Every shard 1..N once, of one sweep; positions disjoint (`complete`: and
    covering every model of the sweep)."""
    for meta, path in zip(metas, paths):
        if (
            not isinstance(meta, dict)
            or not {"index", "count", "total", "positions"} <= meta.keys()
        ):
            raise CuvilError(
                f"{path}: not a shard's report (no shard record: was it written "
                f"with --shard K/N?)",
                hint=_HINT,
            )
    first = metas[0]
    for meta, path in zip(metas, paths):
        if (meta["count"], meta["total"]) != (first["count"], first["total"]):
            raise CuvilError(
                f"{path}: shard {meta['index']}/{meta['count']} of {meta['total']} "
                f"models, but {paths[0]} is of {first['count']} shards and "
                f"{first['total']} models",
                hint=_HINT,
            )
    _check_indices(metas, paths)
    _check_positions(metas, paths, complete)


def _check_indices(metas: list, paths: list[str]) -> None:
    seen: dict[int, str] = {}
    for meta, path in zip(metas, paths):
        if meta["index"] in seen:
            raise CuvilError(
                f"shard {meta['index']}/{meta['count']} given twice: "
                f"{seen[meta['index']]} and {path}",
                hint=_HINT,
            )
        seen[meta["index"]] = path
    missing = sorted(set(range(1, metas[0]["count"] + 1)) - seen.keys())
    if missing:
        raise CuvilError(
            f"shard {missing[0]}/{metas[0]['count']} is missing "
            f"({len(missing)} of {metas[0]['count']} not given)",
            hint=_HINT,
        )


def _check_positions(metas: list, paths: list[str], complete: bool) -> None:
    seen: set[int] = set()
    total = metas[0]["total"]
    for meta, path in zip(metas, paths):
        mine = set(meta["positions"])
        if (
            mine & seen
            or len(mine) != len(meta["positions"])
            or any(not 0 <= p < total for p in mine)
        ):
            raise CuvilError(f"{path}: its shard record overlaps another's", hint=_HINT)
        seen |= mine
    if complete and len(seen) != total:
        raise CuvilError(
            f"the shards hold {len(seen)} of the sweep's {total} models", hint=_HINT
        )


def _ordered(metas: list, parts: list[list], paths: list[str]) -> list:
    """The items of every shard, by their position in the unsharded report."""
    placed = []
    for meta, items, path in zip(metas, parts, paths):
        if len(items) != len(meta["positions"]):
            raise CuvilError(
                f"{path}: {len(items)} results but its shard record places "
                f"{len(meta['positions'])} (was the file edited?)",
                hint=_HINT,
            )
        placed += zip(meta["positions"], items)
    return [item for _, item in sorted(placed, key=lambda pair: pair[0])]


def _load_json(text: str, path: str) -> dict:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise CuvilError(f"{path}: not JSON ({e})", hint=_HINT) from None
    if not isinstance(doc, dict):
        raise CuvilError(f"{path}: not a report (a JSON {type(doc).__name__})")
    return doc


# ---- JSON ----------------------------------------------------------------------------
def merge_json(
    texts: list[str], paths: list[str], kinds: Mapping[str, JsonKind] | None = None
) -> str:
    kinds = kinds or {SCHEMA: TRIAGE}
    docs = [_load_json(t, p) for t, p in zip(texts, paths)]
    schema = docs[0].get("schema")
    for doc, path in zip(docs, paths):
        if doc.get("schema") not in kinds or doc.get("schema") != schema:
            raise CuvilError(
                f"{path}: not a {_kind_name(schema, kinds)} JSON report (schema "
                f"{doc.get('schema')!r})",
                hint="--format json reports merge with --format json ones of the "
                "same tool",
            )
    kind = kinds[schema]
    metas = [d.get("shard") for d in docs]
    _check(metas, paths, complete=True)
    for doc, path in zip(docs, paths):
        for key in kind.same:
            if doc.get(key) != docs[0].get(key):
                raise CuvilError(
                    f"{path}: {key} {doc.get(key)!r}, but {paths[0]} has "
                    f"{docs[0].get(key)!r}",
                    hint=_HINT,
                )
    results = _ordered(metas, [d["results"] for d in docs], paths)
    out = {k: v for k, v in docs[0].items() if k != "shard"}
    out["summary"], out["results"] = kind.summary(results), results
    return json.dumps(out, indent=1) + "\n"


def _kind_name(schema, kinds: Mapping[str, JsonKind]) -> str:
    """'cuvil-triage/1' -> 'triage'; an unknown schema: the kinds known."""
    if schema in kinds:
        return str(schema).removeprefix("cuvil-").split("/")[0]
    return " or ".join(k.removeprefix("cuvil-").split("/")[0] for k in kinds)


# ---- SARIF ---------------------------------------------------------------------------
def merge_sarif(texts: list[str], paths: list[str]) -> str:
    docs = [_load_json(t, p) for t, p in zip(texts, paths)]
    for doc, path in zip(docs, paths):
        if doc.get("version") != "2.1.0" or len(doc.get("runs") or []) != 1:
            raise CuvilError(f"{path}: not a SARIF 2.1.0 log of one run", hint=_HINT)
    runs = [d["runs"][0] for d in docs]
    metas = [(r.get("properties") or {}).get(SHARD_KEY) for r in runs]
    _check(metas, paths, complete=False)
    rules = _unique(
        [x for r in runs for x in r["tool"]["driver"].get("rules", [])],
        lambda rule: rule["id"],
    )
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    artifacts, moved = _artifacts(runs)
    parts = [
        [_reindex(res, rule_index, moved[i]) for res in r.get("results", [])]
        for i, r in enumerate(runs)
    ]
    results = _ordered(metas, parts, paths)
    return (
        json.dumps(
            {**docs[0], "runs": [_run(runs, rules, results, artifacts)]}, indent=2
        )
        + "\n"
    )


def _unique(items: list, key: Callable) -> list:
    out, seen = [], set()
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out


def _artifacts(runs: list[dict]) -> tuple[list, list[dict]]:
    """The runs' artifacts once each (by location), and per run old -> new index."""
    out, where, moved = [], {}, []
    for run in runs:
        mine = {}
        for old, artifact in enumerate(run.get("artifacts") or []):
            key = json.dumps(artifact.get("location"), sort_keys=True)
            if key not in where:
                where[key] = len(out)
                out.append(artifact)
            mine[old] = where[key]
        moved.append(mine)
    return out, moved


def _reindex(node, rule_index: dict, moved: dict):
    """A result with its ruleIndex and artifactLocation indexes made the merged ones."""
    if isinstance(node, list):
        return [_reindex(x, rule_index, moved) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _reindex(v, rule_index, moved) for k, v in node.items()}
    if "ruleIndex" in out and out.get("ruleId") in rule_index:
        out["ruleIndex"] = rule_index[out["ruleId"]]
    location = out.get("artifactLocation")
    if isinstance(location, dict) and location.get("index") in moved:
        out["artifactLocation"] = {**location, "index": moved[location["index"]]}
    return out


def _run(runs: list[dict], rules: list, results: list, artifacts: list) -> dict:
    first = runs[0]
    run = {
        k: v
        for k, v in first.items()
        if k not in ("properties", "artifacts", "originalUriBaseIds")
    }
    run["tool"] = {
        **first["tool"],
        "driver": {**first["tool"]["driver"], "rules": rules},
    }
    run["results"] = results
    if artifacts:
        run["artifacts"] = artifacts
    bases: dict = {}
    for r in runs:  # the same base id in two shards: the first by URI, as unsharded
        for name, base in (r.get("originalUriBaseIds") or {}).items():
            bases[name] = min(
                bases.get(name, base), base, key=lambda b: b.get("uri", "")
            )
    if bases:
        run["originalUriBaseIds"] = bases
    props = {k: v for k, v in (first.get("properties") or {}).items() if k != SHARD_KEY}
    if props:
        run["properties"] = props
    return run


# ---- JUnit ---------------------------------------------------------------------------
def merge_junit(texts: list[str], paths: list[str]) -> str:
    suites = [_suite(t, p) for t, p in zip(texts, paths)]
    metas = [_junit_meta(s) for s in suites]
    _check(metas, paths, complete=True)
    cases = _ordered(metas, [s.findall("testcase") for s in suites], paths)
    suite = suite_element(
        tests=sum(int(s.get("tests", 0)) for s in suites),
        failures=sum(int(s.get("failures", 0)) for s in suites),
        errors=sum(int(s.get("errors", 0)) for s in suites),
        time=sum(float(s.get("time", 0)) for s in suites),
        name=suites[0].get("name") or "cuvil-triage",
    )
    for case in cases:
        suite.append(case)
    return document(suite)


def _suite(text: str, path: str) -> ET.Element:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise CuvilError(f"{path}: not XML ({e})", hint=_HINT) from None
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if root.tag not in ("testsuite", "testsuites") or len(suites) != 1:
        raise CuvilError(f"{path}: not a JUnit report of one testsuite", hint=_HINT)
    return suites[0]


def _junit_meta(suite: ET.Element) -> dict | None:
    props = {
        p.get("name"): p.get("value", "") for p in suite.findall("properties/property")
    }
    if "cuvil.shard" not in props:
        return None
    try:
        index, count = (int(x) for x in props["cuvil.shard"].split("/"))
        return {
            "index": index,
            "count": count,
            "total": int(props.get("cuvil.total", "")),
            "positions": [int(x) for x in props.get("cuvil.positions", "").split()],
        }
    except ValueError:
        return None
