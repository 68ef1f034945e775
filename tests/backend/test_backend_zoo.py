"""The model zoo through ``torch.compile(model, backend="cuvil")``: architectures nobody
here wrote, compiled as a user would (no CUVIL_FALLBACK), compared with eager (float32:
rtol 1e-4, atol 1e-5), and the report checked: Cuvil code ran in every one.

Normal tier: BART (its ``shift_tokens_right`` assigns items, which Cuvil refuses: the
test shows the graph split around them, everything else compiled) and Llama at batch
sizes 1, 2, 8. Slow tier: the 21 Hugging Face architectures and ResNet-18 and AlexNet
(the 23 of benchmarks/bench_backend.py), batch sequences (also with ``dynamic=True``)
and gradients (through AOTAutograd) of a few.
Latency is a benchmark (benchmarks/bench_backend.py, BENCHMARKS.md), not a test.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from models import SPECS, case, find

import cuvil
import cuvil.backend

RTOL, ATOL = 1e-4, 1e-5
ARCHITECTURES = [s.name for s in SPECS] + ["resnet18", "alexnet"]
# the ops each architecture runs eagerly (by name, with the count of nodes); any other
# architecture compiles whole
EAGER = {
    "bart": {"operator.setitem (x[...] = v)": 2, "Tensor.masked_fill_": 1},
}


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.delenv("CUVIL_FALLBACK", raising=False)
    torch._dynamo.reset()
    cuvil.backend.reset()
    yield
    torch._dynamo.reset()


def _eager_counts(build) -> dict[str, int]:
    counts: dict[str, int] = {}
    for op in build.eager_ops:
        name = op.split(" at ")[0]
        counts[name] = counts.get(name, 0) + 1
    return counts


def check(name: str, batches=(2,)) -> None:
    spec = find(name)
    model, _ = case(spec, mask=spec.masked)
    compiled = torch.compile(model, backend="cuvil")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", cuvil.backend.EagerFallbackWarning)
        for batch in batches:
            _, xs = case(spec, mask=spec.masked, batch=batch)
            before = cuvil.backend.report().cuvil_runs
            got, want = compiled(*xs), model(*xs)
            assert want.abs().max() > 1e-3, "a vacuous comparison"
            torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL)
            assert cuvil.backend.report().cuvil_runs > before, (
                f"no Cuvil code, b{batch}"
            )
    report = cuvil.backend.report()
    for graph in report.graphs:
        assert graph.weights.endswith("constant(s)") or graph.weights == "none"
        for build in graph.builds:
            assert _eager_counts(build) == EAGER.get(name, {}), str(report)


def test_bart_splits_around_item_assignment_only():
    check("bart")
    (graph,) = cuvil.backend.report().graphs
    (build,) = graph.builds
    assert build.kind == "split" and len(build.regions) == 3
    assert {r.op for r in build.refused} == {"operator.setitem (x[...] = v)"}
    assert all("modeling_bart.py:6" in r.where for r in build.refused)
    assert sum(r.ops for r in build.regions) > 150  # all but three ops in Cuvil


def test_llama_batch_sizes_1_2_8_in_sequence():
    check("llama", batches=(1, 2, 8, 1))


@pytest.mark.slow
@pytest.mark.parametrize("name", ARCHITECTURES)
def test_architecture_matches_eager_with_cuvil_code(name):
    check(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "resnet"])
@pytest.mark.parametrize("dynamic", [None, True])
def test_batch_sizes_1_2_8_in_sequence(name, dynamic):
    spec = find(name)
    model, _ = case(spec, mask=spec.masked)
    compiled = torch.compile(model, backend="cuvil", dynamic=dynamic)
    with torch.no_grad():
        for batch in (1, 2, 8, 2):
            _, xs = case(spec, mask=spec.masked, batch=batch)
            before = cuvil.backend.report().cuvil_runs
            torch.testing.assert_close(compiled(*xs), model(*xs), rtol=RTOL, atol=ATOL)
            assert cuvil.backend.report().cuvil_runs > before
    assert cuvil.backend.report().eager_runs == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama", "bert", "resnet"])
def test_gradients_match_eager(name):
    model, xs = case(find(name), mask=find(name).masked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cuvil.backend.EagerFallbackWarning)
        torch.compile(model, backend="cuvil")(*xs).square().mean().backward()
    got = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    model(*xs).square().mean().backward()
    want = {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
    assert got.keys() == want.keys() and len(want) > 10
    for n, g in want.items():
        torch.testing.assert_close(got[n], g, rtol=RTOL, atol=ATOL, msg=n)
    assert cuvil.backend.report().cuvil_runs >= 1
