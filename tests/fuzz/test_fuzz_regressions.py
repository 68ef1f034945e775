"""The random-graph tier's regression samples: every file in tests/fuzz/regressions/ is a
model the fuzzer found Cuvil crashing on or getting wrong (shrunk by
cuvil_debug.fuzz.shrink), kept with the fix. Each is replayed through fx and export at
O0 and O3 (and the configurations a sample lists in ``CONFIGS``, e.g. ``backend:O3``
for a bug of dynamo's graphs) and judged as in the fuzz run (float64 reference,
judge.py): it must be ``ok``
or, where the sample says ``EXPECT = "refused"``, a clear refusal, never a crash or a
wrong result. The files are ordinary model files too (``cuvil-debug diff FILE``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuvil_debug.fuzz.gen import run_eager, same
from cuvil_debug.fuzz.graph import Graph
from cuvil_debug.fuzz.render import load
from cuvil_debug.fuzz.runner import CONFIGS, run_graph

pytestmark = pytest.mark.fuzz

SAMPLES = sorted((Path(__file__).parent / "regressions").glob("*.py"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_regression_sample(path: Path, tmp_path: Path):
    module = load(path)
    graph = Graph.from_json(json.loads(module.GRAPH))
    outs = module.Model()(*module.example_inputs())  # the file is the graph
    values = run_eager(graph)
    assert all(same(o, values[j]) for o, j in zip(outs, graph.outputs, strict=True))
    configs = tuple(getattr(module, "CONFIGS", CONFIGS[:4]))
    record = run_graph(graph, configs, tmp_path)
    allowed = {"ok", "refused"} if module.EXPECT == "refused" else {"ok"}
    bad = {
        config: f"{r['outcome']}: {r.get('detail', '')[-400:]}"
        for config, r in record["results"].items()
        if r["outcome"] not in allowed
    }
    assert not bad, f"{path.name}: {json.dumps(bad, indent=1)}"


def test_there_are_samples():
    assert len(SAMPLES) >= 20
