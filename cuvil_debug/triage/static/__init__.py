"""Static triage: predict a capture failure from the source and AST alone, executing
no model code (`cuvil-debug triage --static`, for untrusted pull requests).

The model file is parsed, never imported. From the entry (an nn.Module class, or a
factory whose `return SomeClass(...)` names one, also from an installed library such
as transformers, whose source is found with importlib.util.find_spec and read, not
imported) a taint pass walks forward() and what it reaches (methods, helpers,
submodule classes) with the kinds of value each name holds: a tensor derived from an
input (`value`), an input or a view of it (`input`), a boolean mask, a symbolic size
(`size`), a Python number taken out of a tensor (`pyvalue`), a container, a non-tensor
forward() parameter. CONSTRUCTS (predicates on a node and those kinds) find risky
constructs; STATIC_RULES (data) says which category each predicts, under which
frontends and with what weight; the def-use graph of rootcause.py ranks root causes.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import os
import time
from pathlib import Path

from ..categories import CATEGORIES
from ..load import DEFAULT_ENTRY, split_spec
from ..rootcause import DefUseGraph, rank_roots
from ..source import Func, index_file
from .entry import StaticError, _entry_class, _example_inputs, _forward_env
from .program import Program, Risk, locate_class
from .rules import (
    CONSTRUCTS,
    OTHER_MASS,
    STATIC_RULES,
    STATIC_SCALE,
    TEMPERATURE,
    StaticRule,
)
from .walker import analyse


# ---- the result ----------------------------------------------------------------------
def static_result(spec: str, frontend: str = "fx", entry: str | None = None) -> dict:
    """A result dict in the schema of results.to_result, with "mode": "static"."""
    from ..results import relpath

    t0 = time.perf_counter()
    base = {"model": spec, "mode": "static", "frontend": frontend}
    target, attr = split_spec(spec)
    entry = attr or entry or DEFAULT_ENTRY
    try:
        prog, forward = _analyse(target, entry, frontend)
    except StaticError as e:
        return {**base, "status": "error", "message": str(e), "duration_s": _dt(t0)}
    risks = sorted(prog.risks.values(), key=lambda r: (-r.rule.weight, r.order))
    out = {**base, "duration_s": _dt(t0)}
    if not risks:
        return {**out, "status": "ok", "message": "no capture risk found statically"}
    top = risks[0]
    scores: dict[str, float] = {}
    for r in risks:
        scores[r.rule.category] = max(scores.get(r.rule.category, 0.0), r.rule.weight)
    probs = _softmax(scores)
    category = top.rule.category
    roots = _roots(prog, risks, top)
    index = index_file(top.file)
    text = index.text(top.line) if index else ""
    alts = sorted(
        ((c, p) for c, p in probs.items() if c != category),
        key=lambda kv: kv[1],
        reverse=True,
    )[:2]
    return {
        **out,
        "status": "failed",
        "category": category,
        "title": CATEGORIES[category].title,
        "confidence": round(probs[category] * STATIC_SCALE, 3),
        "alternatives": [
            {"category": c, "confidence": round(p * STATIC_SCALE, 3)} for c, p in alts
        ],
        "message": f"static prediction (no model code was run): {top.rule.says} at "
        f"{relpath(top.file)}:{top.line}: {text}"[:300],
        "hint": CATEGORIES[category].hint,
        "location": roots[0]["location"] if roots else _loc(top.file, top.line),
        "failing": _loc(top.file, top.line),
        "root_causes": roots,
        "signals": sorted({f"static:{r.construct}" for r in risks}),
    }


def _analyse(target: str, entry: str, frontend: str) -> tuple[Program, Func]:
    path = _model_path(target)
    index = index_file(str(path))
    if index is None:
        raise StaticError(f"'{target}' is not valid Python source")
    prog = Program(frontend="export" if frontend == "auto" else frontend)
    prog.use(index)
    prog.user_root = str(path.parent) + os.sep
    prog.dynamic_shapes = any(
        isinstance(n, ast.FunctionDef) and n.name == "dynamic_shapes"
        for n in index.tree.body
    )
    cls = _entry_class(prog, index, entry)
    forward = prog.methods(cls).get("forward")
    if forward is None:
        raise StaticError(f"class {cls.name} in '{cls.index.path}' has no forward()")
    env = _forward_env(prog, forward, _example_inputs(index), index)
    init = prog.methods(cls).get("__init__")
    if init is not None and init.file == cls.index.path:
        analyse(prog, init, {})
    analyse(prog, forward, env)
    return prog, forward


def _model_path(target: str) -> Path:
    path = Path(target)
    if target.endswith(".py") or path.exists():
        if not path.is_file():
            raise StaticError(f"'{target}' does not exist")
        return path.resolve()
    top, *rest = target.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
        for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
            if candidate.is_file():
                return candidate
    elif spec and spec.origin and not rest:
        return Path(spec.origin)
    raise StaticError(f"cannot find the source of '{target}'")


def _roots(prog: Program, risks: list[Risk], top: Risk) -> list[dict]:
    category = top.rule.category
    same = [r for r in risks if r.rule.category == category]
    if category in {"non-tensor-argument", "unsupported-io-type"} and top.param:
        params = [r for r in same if r.param is not None][:3]
        z = sum(math.exp(r.rule.weight) for r in params)
        return [
            {
                "location": _loc(r.file, r.line),
                "confidence": round(math.exp(r.rule.weight) / z, 3),
                "chain": [_loc(r.file, r.line)],
            }
            for r in params
        ]
    graph = DefUseGraph(list(prog.files.values()))
    start = (top.file, top.line)
    paths = graph.walk_back(start)
    for r in same[1:]:  # the other risky lines of the category are candidates too
        paths.setdefault((r.file, r.line), [(r.file, r.line)])
    return [
        {
            "location": _loc(c.file, c.line),
            "confidence": c.confidence,
            "chain": [_loc(f, n) for f, n in c.chain],
        }
        for c in rank_roots(graph, start, paths, category)
    ]


def _loc(file: str, line: int) -> dict:
    from ..results import relpath

    index = index_file(file)
    return {
        "file": relpath(file),
        "line": line,
        "text": index.text(line) if index else "",
    }


def _softmax(scores: dict[str, float]) -> dict[str, float]:
    exp = {c: math.exp(s / TEMPERATURE) for c, s in scores.items()}
    z = sum(exp.values()) + OTHER_MASS
    return {c: v / z for c, v in exp.items()}


def _dt(t0: float) -> float:
    return round(time.perf_counter() - t0, 4)


# LINE_FACTS are shared with the captured mode: the def-use graph reads them


__all__ = ["STATIC_RULES", "CONSTRUCTS", "StaticRule", "static_result", "locate_class"]
