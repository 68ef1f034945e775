"""Fault injection (cuvil_debug.faults, docs/FAULTS.md): each stage and effect breaks exactly the
value it says, damped effects hide behind ReLU / softmax, and nothing outlives `inject`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from torch import nn

import cuvil
from cuvil.errors import CodegenError, CuvilError, FrontendError, PassError
from cuvil.frontend import lower
from cuvil.ir.interpreter import Interpreter
from cuvil.passes import default_pipeline
from cuvil_debug import faults

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "models"
RTOL, ATOL = 1e-4, 1e-5


def _load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"sample_{name}", SAMPLES / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), tuple(mod.example_inputs())


@pytest.fixture(scope="module")
def mlp():
    model, xs = _load("mlp")
    with torch.no_grad():
        return model, xs, model(*xs)


@pytest.fixture(scope="module")
def cnn():
    model, xs = _load("small_cnn")
    with torch.no_grad():
        return model, xs, model(*xs)


class Head(nn.Module):
    """h = fc(x) is an output and feeds a ReLU and a softmax (so it stays its own kernel)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        h = self.fc(x)
        return h, torch.relu(h), torch.softmax(h, dim=-1)


def close(a, b) -> bool:
    return torch.allclose(a, b, rtol=RTOL, atol=ATOL)


FX = {"frontend": "fx"}  # fault specs name the nodes of Cuvil's torch.fx trace


def run(model, xs, *specs, **options):
    with faults.inject(*specs):
        compiled = cuvil.compile(
            model, xs, options={**FX, **options}, hooks=faults.hooks()
        )
    return compiled, compiled(*xs)


def values_by_name(module, xs, expand_fused=False) -> dict[str, torch.Tensor]:
    seen: dict[str, torch.Tensor] = {}

    def listen(op, outs):
        for r, t in zip(op.results, outs):
            if r.name:
                seen[r.name] = t.clone()

    Interpreter(module, [listen], expand_fused=expand_fused).run(*xs)
    return seen


# ---- specs ------------------------------------------------------------------------------
def test_parse_describe_and_spec():
    f = faults.parse("kernel:fc")
    assert f == faults.Fault("kernel", "fc", "scale")
    assert f.describe() == "wrong kernel for FX node 'fc' (scale: y * 1.0625)"
    g = faults.parse(" pass:layer1_0_relu:negative ")
    assert g == faults.Fault("pass", "layer1_0_relu", "negative")
    assert faults.parse(g.spec) == g and str(g) == "pass:layer1_0_relu:negative"
    assert set(faults.EFFECTS) == {
        *("scale", "negative", "shift", "overflow", "twice", "ulp", "accumulate")
    }
    assert "lowering" in faults.Fault("lowering", "fc").describe()


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "kernel",
        "kernel:",
        ":fc",
        "kernal:fc",
        "kernel:fc:sacle",
        "pass:fc:overflow",
        "lowering:fc:overflow",
        "kernel:fc:scale:extra",
    ],
)
def test_bad_specs_are_cuvil_errors_with_a_hint(spec):
    with pytest.raises(CuvilError) as e:
        faults.parse(spec)
    assert e.value.hint


def test_typo_gets_a_did_you_mean():
    with pytest.raises(CuvilError, match="unknown fault stage 'kernal'") as e:
        faults.parse("kernal:fc")
    assert "did you mean 'kernel'" in e.value.hint


# ---- every stage x effect ------------------------------------------------------------------
EXPECT = {
    "scale": lambda y: y * 1.0625,
    "shift": lambda y: y + 0.5,
    "negative": lambda y: torch.where(y < 0, 2 * y, y),
    "overflow": lambda y: y + 1.0,
}
CASES = [
    (s, e) for s in ("lowering", "pass", "kernel") for e in EXPECT if e != "overflow"
]


@pytest.mark.parametrize("stage,effect", [*CASES, ("kernel", "overflow")])
def test_fault_on_the_output_node_is_exactly_the_effect(mlp, stage, effect):
    model, xs, want = mlp
    compiled, got = run(model, xs, faults.Fault(stage, "fc3", effect))
    assert not close(got, want)
    torch.testing.assert_close(got, EXPECT[effect](want), rtol=RTOL, atol=ATOL)
    (record,) = faults.applied(compiled.module)
    assert record.fault == faults.Fault(stage, "fc3", effect) and record.value == "fc3"


@pytest.mark.parametrize("stage", ["lowering", "pass", "kernel"])
@pytest.mark.parametrize("node", ["block1_relu", "block2_pool"])
def test_cnn_faults_in_nhwc_and_fused_conv_kernels(cnn, stage, node):
    model, xs, want = cnn
    compiled, got = run(model, xs, f"{stage}:{node}")
    assert not close(got, want)
    if stage == "kernel":  # O3: block1_relu is a fused conv+relu kernel in NHWC
        (record,) = faults.applied(compiled.module)
        assert record.value == node and record.at.startswith("kernel cuvil_k")


def test_kernel_fault_on_a_member_of_a_fused_elementwise_kernel():
    class Chain(nn.Module):
        def forward(self, x):
            y = torch.exp(x)
            return torch.relu(y * 2 - 3) + y

    xs = (torch.randn(4, 33, generator=torch.Generator().manual_seed(3)),)
    want = Chain()(*xs)
    compiled, got = run(Chain(), xs, "kernel:exp:shift")
    assert [k.op_name for k in compiled.program.kernels] == ["cuvil.fused"]
    # the fused kernel's output is the root's value: `add`, not `exp`, is what changed
    (record,) = faults.applied(compiled.module)
    assert record.value == "add"
    torch.testing.assert_close(got, want + 0.5, rtol=RTOL, atol=ATOL)


def test_multithreaded_gemm_kernel(mlp):
    model, _, _ = mlp
    xs = (torch.randn(64, 784, generator=torch.Generator().manual_seed(1)),)
    with torch.no_grad():
        want = model(*xs)
    _, got = run(model, xs, "kernel:fc3:shift", num_threads=4)
    torch.testing.assert_close(got, want + 0.5, rtol=RTOL, atol=ATOL)
    # fc2 is a fused GEMM + ReLU kernel whose rows are split over threads
    _, got = run(model, xs, "kernel:fc2", num_threads=4)
    assert not close(got, want)


def test_lowering_fault_with_the_export_frontend(mlp):
    # export's aten.linear nodes carry fx's names (frontend/export_names.py)
    model, xs, want = mlp
    compiled, got = run(model, xs, "lowering:fc3", frontend="export")
    torch.testing.assert_close(got, want * 1.0625, rtol=RTOL, atol=ATOL)


# ---- damped errors: the node is wrong, the output is not --------------------------------------
@pytest.mark.parametrize("stage", ["lowering", "pass"])
def test_negative_before_relu_is_damped_in_the_mlp(mlp, stage):
    model, xs, want = mlp
    with torch.no_grad():
        fc1 = model.fc1(xs[0])
    with faults.inject(f"{stage}:fc1:negative"):
        compiled = cuvil.compile(model, xs, options=FX, hooks=faults.hooks())
        before = lower(model, xs, hooks=faults.hooks())
    assert close(compiled(*xs), want)
    module = before if stage == "lowering" else compiled.module
    seen = values_by_name(module, xs, expand_fused=True)
    assert not close(seen["fc1"], fc1)
    torch.testing.assert_close(seen["fc1"], EXPECT["negative"](fc1))
    torch.testing.assert_close(seen["fc1_prefault"], fc1, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("stage", ["lowering", "pass", "kernel"])
@pytest.mark.parametrize("effect", ["negative", "shift"])
def test_damped_by_relu_or_softmax(stage, effect):
    model = Head().eval()
    xs = (torch.randn(4, 16, generator=torch.Generator().manual_seed(2)),)
    with torch.no_grad():
        h, relu, soft = model(*xs)
    _, (got_h, got_relu, got_soft) = run(model, xs, f"{stage}:fc:{effect}")
    torch.testing.assert_close(got_h, EXPECT[effect](h), rtol=RTOL, atol=ATOL)
    assert not close(got_h, h)
    assert close(got_relu, relu) == (effect == "negative")
    assert close(got_soft, soft) == (effect == "shift")


# ---- scope ----------------------------------------------------------------------------------
def test_faults_vanish_after_the_block_and_nest(mlp):
    model, xs, want = mlp
    a, b = faults.Fault("pass", "fc3"), faults.Fault("kernel", "fc2", "shift")
    clean = default_pipeline("O3")
    assert faults.active() == ()
    with faults.inject(a) as added:
        assert added == (a,) and faults.active() == (a,)
        extras = faults.hooks().passes
        assert default_pipeline("O3", extras=extras) == clean.replace(
            "fold-constants", "fold-constants,inject-fault{node=fc3,effect=scale}"
        )
        assert default_pipeline("O0", extras=extras) == (
            "inject-fault{node=fc3,effect=scale}"
        )
        with faults.inject(b):
            assert faults.active() == (a, b)
            assert not close(
                cuvil.compile(model, xs, options=FX, hooks=faults.hooks())(*xs), want
            )
        assert faults.active() == (a,)
    assert faults.active() == () and default_pipeline("O3") == clean
    assert close(cuvil.compile(model, xs, options=FX, hooks=faults.hooks())(*xs), want)


def test_inject_restores_on_exceptions(mlp):
    with pytest.raises(RuntimeError), faults.inject("pass:fc3"):
        raise RuntimeError("boom")
    assert faults.active() == () and "inject-fault" not in default_pipeline("O1")


def test_explicit_pipeline_is_left_alone(mlp):
    model, xs, want = mlp
    compiled, got = run(model, xs, "pass:fc3", pipeline="dce,cse")
    assert close(got, want)
    assert [p.name for p in compiled.module.passes] == ["dce", "cse"]


def test_faulty_objects_are_not_reused_by_clean_compiles(mlp, monkeypatch, tmp_path):
    model, xs, want = mlp  # the object cache key is the LLVM IR: a fault changes it
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUVIL_CACHE", "1")
    for spec in ("kernel:fc3", "pass:fc3", "lowering:fc3"):
        _, got = run(model, xs, spec)
        assert not close(got, want)
        assert close(cuvil.compile(model, xs, options=FX)(*xs), want)


# ---- the pass ----------------------------------------------------------------------------
def test_pass_fault_is_one_action_that_bisection_finds(mlp):
    model, xs, want = mlp
    compiled, got = run(model, xs, "pass:fc2:shift")
    assert not close(got, want)
    (info,) = [p for p in compiled.module.passes if "inject-fault" in p.name]
    assert info.name == "inject-fault{node=fc2,effect=shift}"
    assert info.actions == 1 and info.changed
    names = [p.name for p in compiled.module.passes]
    assert names[names.index(info.name) - 1] == "fold-constants"
    limit = info.first_action
    _, got = run(model, xs, "pass:fc2:shift", bisect_limit=limit - 1)
    assert close(got, want)
    _, got = run(model, xs, "pass:fc2:shift", bisect_limit=limit)
    assert not close(got, want)


def test_inject_fault_pass_is_registered_and_parses():
    from cuvil.passes import known_passes, parse_pipeline

    assert "inject-fault" in known_passes()
    (p,) = parse_pipeline("inject-fault{node=fc,effect=negative}")
    assert (p.node, p.effect) == ("fc", "negative")
    assert p.spec() == "inject-fault{node=fc,effect=negative}"
    assert parse_pipeline(p.spec()) == [p]
    for bad in ("inject-fault", "inject-fault{node=fc,effect=overflow}"):
        with pytest.raises(PassError):
            parse_pipeline(bad)


# ---- the kernel's LLVM-only bug ---------------------------------------------------------------
def test_overflow_is_wrong_only_after_llvms_optimizer(mlp):
    model, xs, want = mlp
    _, got = run(model, xs, "kernel:fc3:overflow")
    torch.testing.assert_close(got, want + 1.0, rtol=RTOL, atol=ATOL)
    _, got = run(model, xs, "kernel:fc3:overflow", opt_level="O0")
    assert close(got, want)
    _, got = run(model, xs, "kernel:fc3:overflow", llvm_bisect_limit=0)
    assert close(got, want)


# ---- refusals --------------------------------------------------------------------------------
def test_unknown_nodes_are_refused_with_a_did_you_mean(mlp):
    model, xs, _ = mlp
    for spec, error in [
        ("lowering:fc4", FrontendError),
        ("pass:fc4", PassError),
        ("kernel:fc4", CodegenError),
    ]:
        with pytest.raises(error, match="'fc4'") as e, faults.inject(spec):
            cuvil.compile(model, xs, options=FX, hooks=faults.hooks())
        assert "did you mean" in e.value.hint


def test_nodes_without_a_kernel_or_float_value_are_refused():
    class View(nn.Module):  # the reshape of a contiguous value is an alias: no kernel
        def forward(self, x):
            return (x * 2).reshape(-1)

    with pytest.raises(CodegenError, match="no kernel computes FX node 'reshape'"):
        run(View(), (torch.randn(3, 4),), "kernel:reshape")

    class Argmax(nn.Module):
        def forward(self, x):
            return x.argmax(1), x * 2

    x = (torch.randn(3, 4),)
    for stage in ("lowering", "pass", "kernel"):
        with pytest.raises(CuvilError, match="need a float tensor"):
            run(Argmax(), x, f"{stage}:argmax")
