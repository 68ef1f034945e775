"""``torch.compile(model, backend="cuvil")`` (docs/BACKEND.md): weights as constants,
graphs split around refused ops, a build per shape, gradients, the report.

Every test compiles real models through real torch.compile and compares with eager
(float32: rtol 1e-4, atol 1e-5). The ops Cuvil cannot know are custom ops
(backend_models.py), as a user's extension defines them.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import pytest
import torch

import cuvil
import cuvil.backend
from cuvil.backend import EagerFallbackWarning

sys.path.insert(0, str(Path(__file__).resolve().parent))
import backend_models as bm  # noqa: E402

HERE = Path(__file__).with_name("backend_models.py")


def close(got, want):
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def line_of(marker: str) -> int:
    lines = HERE.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.delenv("CUVIL_FALLBACK", raising=False)
    monkeypatch.delenv("CUVIL_DEBUG", raising=False)
    torch._dynamo.reset()
    cuvil.backend.reset()
    yield
    torch._dynamo.reset()


def only_build():
    (graph,) = cuvil.backend.report().graphs
    (build,) = graph.builds
    return graph, build


# ---- weights as constants ------------------------------------------------------------------
def test_weights_are_constants_and_fold_as_in_cuvil_compile():
    model, x = bm.ConvBn().eval(), torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        close(torch.compile(model, backend="cuvil")(x), model(x))
    graph, build = only_build()
    assert graph.weights == "8 constant(s)" and build.kind == "cuvil"
    # the same kernels as cuvil.compile (batch norm folded into the convolution)
    assert build.regions[0].kernels == len(cuvil.compile(model, [x]).kernels)


def test_weights_indexed_and_sliced_by_buffers_compile():
    model, x = bm.Buffers().eval(), torch.randn(3, 8)
    with torch.no_grad():
        close(torch.compile(model, backend="cuvil")(x), model(x))
    graph, build = only_build()
    assert graph.weights == "3 constant(s)" and build.kind == "cuvil", build.refused


def test_attributes_of_weights_compile():
    model, x = bm.WeightAttrs().eval(), torch.randn(2, 3)
    with torch.no_grad():
        close(torch.compile(model, backend="cuvil")(x), model(x))
    graph, build = only_build()
    assert graph.weights == "2 constant(s)" and build.kind == "cuvil", build.refused


def test_a_changed_weight_recompiles_and_then_becomes_an_input():
    model, x = bm.Mlp().eval(), torch.randn(3, 8)
    compiled = torch.compile(model, backend="cuvil")
    changes = [
        lambda: model.fc1.weight.mul_(2),  # in place: the version counter
        lambda: setattr(model.fc2.bias, "data", torch.randn(4)),  # new storage
        lambda: model.load_state_dict(bm.Mlp(width=16).state_dict()),
    ]
    with torch.no_grad():
        close(compiled(x), model(x))
        for i, change in enumerate(changes):
            change()
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                close(compiled(x), model(x))  # never stale
            last = i == len(changes) - 1
            assert bool(seen) == last, [str(w.message) for w in seen]
        assert "inputs of its compiled code" in str(seen[0].message)
        assert issubclass(seen[0].category, cuvil.backend.BackendWarning)
        model.fc1.bias.add_(1)  # an input now: seen without a rebuild
        close(compiled(x), model(x))
    graph = cuvil.backend.report().graphs[0]
    assert graph.weight_changes == 3 and graph.weights == "4 input(s)"
    assert len(graph.builds) == 4  # the first, two rebuilds, the one with inputs


def test_without_dynamos_guards_weights_and_shapes_are_still_checked():
    """docs/BACKEND.md's speed advice: under skip_guard_eval_unsafe dynamo skips most
    of its guards; Cuvil's weight guard still runs (a changed weight rebuilds, never
    stale), and a new shape is an error (dynamo's: it refuses to recompile)."""
    model, x = bm.Mlp().eval(), torch.randn(3, 8)
    compiled = torch.compile(model, backend="cuvil")
    with torch.no_grad():
        close(compiled(x), model(x))
        with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
            close(compiled(x), model(x))
            model.fc1.weight.mul_(2)
            close(compiled(x), model(x))
            model.fc2.bias.data = torch.randn(4)
            close(compiled(x), model(x))
            with pytest.raises(RuntimeError, match="Recompilation|expected tensor"):
                compiled(torch.randn(5, 8))
    graph = cuvil.backend.report().graphs[0]
    assert graph.weight_changes == 2 and len(graph.builds) == 3


def test_buffers_the_forward_writes_stay_inputs_and_are_written_once():
    model, twin = bm.Stateful().train(), bm.Stateful().train()
    compiled = torch.compile(model, backend="cuvil")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", EagerFallbackWarning)  # training batch norm
        for _ in range(3):
            x = torch.randn(3, 4)
            close(compiled(x), twin(x))
    for name, buffer in twin.named_buffers():
        close(dict(model.named_buffers())[name], buffer)
    assert cuvil.backend.report().graphs[0].weights == "4 constant(s)"  # fc and bn's


# ---- partitioning ---------------------------------------------------------------------------
def test_a_refused_op_runs_alone_eagerly_and_every_one_is_named():
    model, x = bm.Refusing().eval(), torch.randn(5, 8)
    compiled = torch.compile(model, backend="cuvil")
    with torch.no_grad(), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            close(compiled(x), model(x))
    _, build = only_build()
    assert build.kind == "split" and len(build.regions) == 3
    assert [op.split(" at ")[0] for op in build.eager_ops] == [
        "cuviltest.shift",
        "torch.bucketize",
    ]
    lines = {r.op: r.where for r in build.refused}
    assert f"backend_models.py:{line_of('LINE_BUCKET')}:" in lines["torch.bucketize"]
    assert f"backend_models.py:{line_of('LINE_SHIFT')}:" in lines["cuviltest.shift"]
    # one warning, naming both; Cuvil code ran in every region of every call
    (warning,) = [w for w in seen if issubclass(w.category, EagerFallbackWarning)]
    assert "cuviltest.shift" in str(warning.message) and "bucketize" in str(
        warning.message
    )
    report = cuvil.backend.report()
    assert report.cuvil_runs == 9 and report.eager_runs == 3
    assert report.kernel_runs == 3 * sum(r.kernels for r in build.regions) > 0
    text = str(report)
    assert "refused ops (2)" in text and "region 2:" in text


@pytest.mark.parametrize("how", ["env", "option"])
def test_strict_mode_raises_naming_every_refused_op(how, monkeypatch):
    model, x = bm.Refusing().eval(), torch.randn(5, 8)
    if how == "env":
        monkeypatch.setenv("CUVIL_FALLBACK", "0")
        compiled = torch.compile(model, backend="cuvil")
    else:
        opts = {"fallback": "strict"}
        compiled = torch.compile(model, backend="cuvil", options=opts)
    with torch.no_grad(), pytest.raises(cuvil.UnsupportedOpError) as e:
        compiled(x)
    text = str(e.value)
    assert "cannot compile 2 op(s)" in text
    assert f"backend_models.py:{line_of('LINE_SHIFT')}" in text
    assert f"backend_models.py:{line_of('LINE_BUCKET')}" in text
    assert not re.search(r"FX node|dynamo|BackendCompilerFailed|GraphModule", text)


def test_a_bad_fallback_mode_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("CUVIL_FALLBACK", "sometimes")
    compiled = torch.compile(bm.Mlp().eval(), backend="cuvil")
    with torch.no_grad(), pytest.raises(cuvil.CuvilError, match="CUVIL_FALLBACK='s"):
        compiled(torch.randn(2, 8))
    monkeypatch.delenv("CUVIL_FALLBACK")
    torch._dynamo.reset()
    compiled = torch.compile(bm.Mlp(), backend="cuvil", options={"opt_level": "O7"})
    with torch.no_grad(), pytest.raises(cuvil.CuvilError, match="opt_level='O7'"):
        compiled(torch.randn(2, 8))


@pytest.mark.parametrize("variant", ["setitem", "custom_op", "then_inplace"])
def test_eager_writes_reach_every_alias_in_order(variant):
    model, x = bm.Writes(variant).eval(), torch.randn(4, 8)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", EagerFallbackWarning)
        close(torch.compile(model, backend="cuvil")(x), model(x))
    _, build = only_build()
    assert build.kind == "split" and build.regions


# ---- shapes --------------------------------------------------------------------------------
@pytest.mark.parametrize("dynamic", [None, True, False])
def test_batch_sizes_in_sequence_all_run_cuvil_code(dynamic):
    model = bm.Mlp().eval()
    compiled = torch.compile(model, backend="cuvil", dynamic=dynamic)
    with torch.no_grad():
        for batch in (1, 2, 8, 1, 2):
            x = torch.randn(batch, 8)
            before = cuvil.backend.report().cuvil_runs
            close(compiled(x), model(x))
            assert cuvil.backend.report().cuvil_runs == before + 1, batch
    report = cuvil.backend.report()
    assert report.eager_runs == 0
    assert {b.kind for g in report.graphs for b in g.builds} == {"cuvil"}


def test_a_shape_cuvil_fails_on_runs_eagerly_and_the_others_stay(monkeypatch):
    from cuvil.backend import runner

    real = runner.compile_module

    def failing_for_batch_8(module, opts):
        if module.main.args[0].type.shape[0] == 8:
            raise cuvil.CodegenError("no kernel for batch 8 (a test's failure)")
        return real(module, opts)

    monkeypatch.setattr(runner, "compile_module", failing_for_batch_8)
    model = bm.Mlp().eval()
    compiled = torch.compile(model, backend="cuvil", dynamic=True)
    with torch.no_grad(), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for batch in (2, 8, 2, 3):
            x = torch.randn(batch, 8)
            close(compiled(x), model(x))
    (warning,) = seen
    assert "no Cuvil code runs" in str(warning.message) and "(8x8)" in str(
        warning.message
    )
    kinds = {
        b.shapes: (b.kind, b.calls) for b in cuvil.backend.report().graphs[0].builds
    }
    assert kinds == {
        "(2x8)": ("cuvil", 2),
        "(8x8)": ("eager", 1),
        "(3x8)": ("cuvil", 1),
    }


# ---- autograd ------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [bm.Mlp, bm.ConvBn], ids=["mlp", "conv_bn"])
def test_backward_matches_eager(make):
    model = make().eval()
    x = torch.randn(3, 8) if make is bm.Mlp else torch.randn(2, 3, 8, 8)
    x.requires_grad_(True)
    with warnings.catch_warnings():  # batch norm's saved statistics run eagerly
        warnings.simplefilter("ignore", EagerFallbackWarning)
        out = torch.compile(model, backend="cuvil")(x)
    assert out.grad_fn is not None
    out.square().sum().backward()
    got = [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]
    model.zero_grad()
    x.grad = None
    model(x).square().sum().backward()
    want = [p.grad for p in model.parameters()] + [x.grad]
    for g, w in zip(got, want):
        close(g, w)
    assert cuvil.backend.report().cuvil_runs >= 1  # the forward ran as Cuvil code


def test_autograd_error_mode_raises_before_the_forward():
    model = bm.Mlp().eval()
    calls = []
    model.fc1.register_forward_hook(lambda *a: calls.append(1))
    compiled = torch.compile(model, backend="cuvil", options={"autograd": "error"})
    with pytest.raises(cuvil.CuvilError, match="needs gradients") as e:
        compiled(torch.randn(2, 8))
    assert "torch.no_grad()" in e.value.hint and not calls
    with torch.no_grad():  # the inference graph compiles normally
        compiled(torch.randn(2, 8))


# ---- the report ----------------------------------------------------------------------------
def test_cuvil_debug_prints_each_build(monkeypatch, capfd):
    monkeypatch.setenv("CUVIL_DEBUG", "2")
    model = bm.Mlp().eval()
    with torch.no_grad():
        torch.compile(model, backend="cuvil")(torch.randn(2, 8))
    err = capfd.readouterr().err
    assert re.search(
        r"cuvil backend: graph 0 \(.*backend_models.py:\d+\) \(2x8\): cuvil", err
    )
    assert "cuvil backend:   region 0:" in err
