"""Shrinking a failing graph while it fails the same way, and saving it as a sample.

``shrink(graph, config, outcome, key, pool)`` tries smaller graphs, keeping the first
that still ends ``outcome`` with the same ``key`` on ``config`` (a ``wrong`` result
only needs to stay wrong), and starts over until nothing smaller fails:

1. one output alone, or an output's operand instead of it;
2. *cut* a node: its value becomes a new input holding the value eager computed there
   (the ops below it go; the values reaching the rest are the same), latest nodes
   first, so a deep graph collapses to the op that fails;
3. *bypass* a node: its readers read one of its operands of the same type instead;
4. simpler inputs: dims halved (the values sliced), then small integer values.

Nodes nobody reads, and inputs and parameters nothing reads, are dropped after every
step. Each candidate runs in a pool worker, so a crash while shrinking a crash is just
another answer. ``save(graph, ...)`` writes the model file of regression samples.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import torch

from .gen import run_eager
from .graph import Graph
from .render import render
from .values import TensorSpec, literal, make

__all__ = ["shrink", "prune", "cut", "save", "save_failures"]

BUDGET = 250  # candidate runs per failure


def _walk(arg: Any, fn) -> Any:
    """`arg` with every ``{"x"|"v": i}`` reference mapped through `fn(ref) -> ref`."""
    if isinstance(arg, list):
        return [_walk(a, fn) for a in arg]
    if isinstance(arg, dict):
        if "x" in arg or "v" in arg:
            return fn(arg)
        if "tuple" in arg:
            return {"tuple": _walk(arg["tuple"], fn)}
    return arg


def _refs_of(node) -> list[dict]:
    """The ``{"x"|"v": i}`` references among a node's arguments."""
    found: list[dict] = []

    def keep(ref: dict) -> dict:
        found.append(ref)
        return ref

    _walk([node.args, list(node.kwargs.values())], keep)
    return found


def _rewire(graph: Graph, fn) -> None:
    for node in graph.nodes:
        node.args = _walk(node.args, fn)
        node.kwargs = {k: _walk(v, fn) for k, v in node.kwargs.items()}


def _reads(graph: Graph) -> tuple[set[int], set[int], set[str]]:
    """(nodes, inputs, state names) the live part of the graph reads."""
    live, inputs, state = set(graph.outputs), set(), set()
    for j in range(len(graph.nodes) - 1, -1, -1):
        if j not in live:
            continue
        node = graph.nodes[j]
        found = _refs_of(node)
        _collect_state([node.args, list(node.kwargs.values())], state)
        if node.kind == "module":
            state |= {k for k in graph.state if k.startswith(f"{node.module}.")}
        live |= {r["v"] for r in found if "v" in r}
        inputs |= {r["x"] for r in found if "x" in r}
    return live, inputs, state


def _collect_state(arg: Any, found: set[str]) -> None:
    if isinstance(arg, list):
        for a in arg:
            _collect_state(a, found)
    elif isinstance(arg, dict):
        if "p" in arg:
            found.add(arg["p"])
        if "tuple" in arg:
            _collect_state(arg["tuple"], found)


def prune(graph: Graph) -> Graph:
    """`graph` without the nodes, inputs and state entries nothing reads."""
    g = copy.deepcopy(graph)
    live, used_inputs, used_state = _reads(g)
    nodes = sorted(live)
    new_node = {old: new for new, old in enumerate(nodes)}
    inputs = sorted(used_inputs)
    new_input = {old: new for new, old in enumerate(inputs)}
    g.nodes = [g.nodes[j] for j in nodes]
    g.inputs = [g.inputs[i] for i in inputs]
    g.state = {k: v for k, v in g.state.items() if k in used_state}
    _rewire(
        g, lambda r: {"v": new_node[r["v"]]} if "v" in r else {"x": new_input[r["x"]]}
    )
    g.outputs = [new_node[j] for j in g.outputs]
    return g


def with_leaves(graph: Graph) -> Graph:
    """`graph` returning also the values nothing reads (dead code for export, but fx
    lowers it: a failure may sit there; outputs are dropped one by one later)."""
    g = copy.deepcopy(graph)
    read: set[int] = set()
    for node in g.nodes:
        read |= {r["v"] for r in _refs_of(node) if "v" in r}
    tuples = {
        r["v"]
        for n in g.nodes
        if n.kind in ("getitem", "getattr")
        for r in _refs_of(n)
        if "v" in r
    }
    leaves = [j for j in range(len(g.nodes)) if j not in read and j not in tuples]
    g.outputs = sorted(set(g.outputs) | set(leaves))
    return g


def cut(graph: Graph, j: int, value: torch.Tensor) -> Graph:
    """Node `j` replaced by a new input holding `value` (then pruned)."""
    g = copy.deepcopy(graph)
    spec = TensorSpec(
        list(value.shape),
        str(value.dtype).removeprefix("torch."),
        values=literal(value),
    )
    g.inputs.append(spec)
    x = len(g.inputs) - 1
    _rewire(g, lambda r: {"x": x} if r.get("v") == j else r)
    if j in g.outputs:
        return graph  # an output stays computed
    return prune(g)


def _bypasses(graph: Graph, j: int, values: list[Any]):
    """Graphs where node j's readers read one of j's operands of the same type."""
    mine = values[j]
    if not isinstance(mine, torch.Tensor) or j in graph.outputs:
        return
    for ref in _refs_of(graph.nodes[j]):
        other = values[ref["v"]] if "v" in ref else None
        if "x" in ref:
            other = make(graph.inputs[ref["x"]])
        if (
            isinstance(other, torch.Tensor)
            and other.shape == mine.shape
            and other.dtype == mine.dtype
        ):
            g = copy.deepcopy(graph)
            _rewire(g, lambda r, ref=ref: dict(ref) if r.get("v") == j else r)
            yield prune(g)


def _smaller_inputs(graph: Graph):
    """Inputs with a dim halved (values sliced), then with small integer values."""
    for i, spec in enumerate(graph.inputs):
        t = make(spec)
        for d, size in enumerate(spec.shape):
            if size > 1:
                g = copy.deepcopy(graph)
                part = t.narrow(d, 0, max(size // 2, 1))
                g.inputs[i] = TensorSpec(
                    list(part.shape),
                    spec.dtype,
                    values=literal(part),
                    layout=spec.layout,
                )
                yield g
        if t.is_floating_point() and spec.profile != "small":
            g = copy.deepcopy(graph)
            g.inputs[i] = TensorSpec(
                spec.shape, spec.dtype, spec.seed, "small", spec.layout
            )
            yield g


def _earlier_outputs(graph: Graph, values: list[Any]):
    """Graphs returning an operand of an output instead of it (the last op goes)."""
    for j in graph.outputs:
        for ref in _refs_of(graph.nodes[j]):
            if "v" in ref and isinstance(values[ref["v"]], torch.Tensor):
                g = copy.deepcopy(graph)
                g.outputs = sorted((set(g.outputs) - {j}) | {ref["v"]})
                yield prune(g)


def candidates(graph: Graph):
    """Smaller graphs, most promising first (see the module docstring)."""
    if len(graph.outputs) > 1:
        for j in graph.outputs:
            g = copy.deepcopy(graph)
            g.outputs = [j]
            yield prune(g)
    try:
        values = run_eager(graph)
    except Exception:
        return
    yield from _earlier_outputs(graph, values)
    for j in range(len(graph.nodes) - 1, -1, -1):
        if isinstance(values[j], torch.Tensor) and j not in graph.outputs:
            yield cut(graph, j, values[j])
    for j in range(len(graph.nodes) - 1, -1, -1):
        yield from _bypasses(graph, j, values)
    yield from _smaller_inputs(graph)


def _fails(answer: dict, config: str, outcome: str, key: str) -> bool:
    r = answer.get("results", {}).get(config)
    if r is None or r["outcome"] != outcome:
        return False
    return outcome == "wrong" or r.get("key") == key


def shrink(
    graph: Graph, config: str, outcome: str, key: str, pool, budget: int = BUDGET
) -> Graph:
    """The smallest graph found that still fails like `graph` (see the docstring)."""
    best, runs = with_leaves(graph), 0
    progress = True
    while progress and runs < budget:
        progress = False
        for cand in candidates(best):
            if runs >= budget:
                break
            if json.dumps(cand.to_json()) == json.dumps(best.to_json()):
                continue
            runs += 1
            answer = pool.run(
                {"id": runs, "graph": cand.to_json(), "configs": [config]}
            )
            if _fails(answer, config, outcome, key):
                best, progress = cand, True
                break
    return best


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40]


def save(
    graph: Graph,
    path: Path,
    config: str,
    outcome: str,
    detail: str,
    note: str = "",
    expect: str = "ok",
) -> Path:
    """Write `graph` as a regression sample: a model file with its values, the failure
    it showed (`note`: what it was and what fixed it), ``EXPECT`` (``ok``, or
    ``refused`` where the fix is a clear refusal) and the graph's data (``GRAPH``)
    for the fuzz judge."""
    first = detail.strip().splitlines()[-1] if detail.strip() else ""
    doc = (
        f"Fuzz regression sample (cuvil_debug.fuzz, graph seed {graph.seed}).\n\n"
        + (f"{note.strip()}\n\n" if note else "")
        + f"Found as: {outcome} on {config}: {first[:300]}\n"
        "Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0\n"
        "and O3; alone: `cuvil-debug diff THIS_FILE`.\n"
    )
    text = render(graph, literal=True, doc=doc)
    blob = json.dumps(graph.to_json())
    if config.startswith("backend"):  # replayed through dynamo too
        text += (
            f"\n\nCONFIGS = {['fx:O0', 'fx:O3', 'export:O0', 'export:O3', config]!r}"
        )
    text += (
        f"\n\nEXPECT = {expect!r}\n"
        "# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)\n"
        f"GRAPH = {blob!r}\n"
    )
    path.write_text(text)
    return path


def save_failures(tally, folder: Path, per_kind: int, jobs: int) -> list[Path]:
    """Shrink and save up to `per_kind` failures of each kind of a run's tally."""
    from .pool import Pool

    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    with Pool(max(jobs, 1)) as pool:
        for kind, records in sorted(tally.failures.items()):
            outcome = kind.split(":", 1)[0]
            key = kind.split(": ", 1)[1]
            for rec in records[:per_kind]:
                if rec.get("graph") is None:
                    continue
                small = shrink(
                    Graph.from_json(rec["graph"]), rec["config"], outcome, key, pool
                )
                name = f"{outcome}_{_slug(key)}_{rec['seed']}.py"
                saved.append(
                    save(small, folder / name, rec["config"], outcome, rec["detail"])
                )
    return saved
