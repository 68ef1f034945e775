"""cuvil-debug diff on every sample: clean compiles raise no alarm; a bug injected at each
stage (frontend lowering, pass, kernel, and one hidden by a later ReLU/softmax) is found at
the right FX node, in the right stage, with the right pass."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cuvil_debug import faults
from cuvil_debug.diff.engine import DiffOptions, run_diff
from cuvil_debug.diff.mapping import fx_value_names, map_stage
from cuvil_debug.diff.model import STATUSES
from cuvil_debug.loader import load_model

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"
NAMES = ["mlp", "small_cnn", "transformer_block", "resnet18"]

# (fault spec, node the diff must name, stage, damped: the model output stays right)
CASES = {
    "mlp": [
        ("lowering:relu_1", "relu_1", "ir", False),
        ("pass:relu", "relu", "opt", False),
        ("kernel:fc3", "fc3", "native", False),
        ("pass:fc1:negative", "fc1", "opt", True),  # ReLU hides it
    ],
    "small_cnn": [
        ("lowering:block2_pool", "block2_pool", "ir", False),
        ("pass:block1_relu", "block1_relu", "opt", False),
        ("kernel:block1_pool", "block1_pool", "native", False),
        ("pass:block1_bn:negative", "block1_bn", "opt", True),  # ReLU hides it
    ],
    "transformer_block": [
        ("lowering:ffn_act", "ffn_act", "ir", False),
        ("pass:attn_out_proj", "attn_out_proj", "opt", False),  # inside a fused kernel
        ("kernel:softmax", "softmax", "native", False),
        ("kernel:truediv:shift", "truediv", "native", True),  # softmax hides it
    ],
    "resnet18": [
        ("lowering:layer3_1_relu", "layer3_1_relu", "ir", False),
        ("pass:layer1_1_relu_1", "layer1_1_relu_1", "opt", False),
        ("kernel:maxpool", "maxpool", "native", False),
        ("kernel:layer2_0_relu", "layer2_0_relu", "native", False),  # a fused kernel
        ("pass:layer2_0_bn1:negative", "layer2_0_bn1", "opt", True),  # ReLU hides it
    ],
}


@cache
def sample(name: str):
    loaded = load_model(str(SAMPLES / f"{name}.py"))
    return loaded.model, loaded.inputs


@cache
def clean(name: str):
    model, inputs = sample(name)
    return run_diff(model, inputs)


@pytest.mark.parametrize("name", NAMES)
def test_clean_compile_reports_no_divergence(name):
    report = clean(name)
    assert report.first is None, report.first
    assert report.outputs_ok == {"ir": True, "opt": True, "native": True}
    bad = [
        (r.name, st)
        for r in report.rows
        for st, s in r.stages.items()
        if s.diverges or s.introduced
    ]
    assert bad == []


@pytest.mark.parametrize(
    "opts",
    [
        DiffOptions(opt_level="O0"),
        DiffOptions(opt_level="O2", num_threads=2),
        DiffOptions(enable_fusion=False),
    ],
    ids=["O0", "O2-2threads", "no-fusion"],
)
@pytest.mark.parametrize("name", ["small_cnn", "transformer_block"])
def test_no_false_alarm_at_other_settings(name, opts):
    model, inputs = sample(name)
    report = run_diff(model, inputs, opts)
    assert report.first is None, report.first
    assert all(report.outputs_ok.values())


@pytest.mark.parametrize("name", NAMES)
def test_every_fx_node_is_accounted_for_in_every_stage(name):
    report = clean(name)
    model, inputs = sample(name)
    from cuvil.frontend.fx import trace

    nodes = [n.name for n in trace(model).graph.nodes]
    assert [r.name for r in report.rows] == nodes
    for r in report.rows:
        assert set(r.stages) == {"ir", "opt", "native"}
        for stage, s in r.stages.items():
            assert s.status in STATUSES, (r.name, stage, s.status)
            lazy = s.status == "fused" and stage == "native"  # members "auto"
            if lazy and s.propagated is None:
                assert s.note.startswith("not measured: its fused kernel"), s.note
            elif s.status in ("value", "alias", "fused") and r.is_tensor:
                assert s.propagated is not None, (r.name, stage, "not measured")
                assert s.isolated is not None
            if s.status == "folded":
                assert s.value and s.op, (r.name, stage)


def test_fused_and_folded_nodes_are_reported_as_such():
    report = clean("resnet18")
    conv1 = report.row("layer1_0_conv1").stages["opt"]
    assert conv1.status == "folded" and conv1.value == "layer1_0_bn1"
    bn1 = report.row("layer1_0_bn1").stages["native"]
    # clean: the fused kernel's output is no worse than eager, no member recomputed
    assert bn1.status == "fused" and bn1.propagated is None
    assert bn1.kernel.startswith("cuvil_k") and report.memory["twins"] == 0
    relu = report.row("layer1_0_relu").stages["native"]
    assert relu.status == "value" and relu.layout == "nhwc"
    assert report.row("layer1_0_conv1").stages["ir"].status == "value"


@pytest.mark.parametrize(
    "name,spec,node,stage,damped",
    [(n, *case) for n, cases in CASES.items() for case in cases],
    ids=[f"{n}-{c[0]}" for n, cases in CASES.items() for c in cases],
)
def test_injected_fault_is_found_at_its_node_stage_and_pass(
    name, spec, node, stage, damped
):
    model, inputs = sample(name)
    with faults.inject(faults.parse(spec)):
        report = run_diff(model, inputs)
    first = report.first
    assert first is not None, f"{spec}: no divergence found"
    assert (first.node, first.stage) == (node, stage), first
    assert first.source and first.source.startswith("samples/models/")
    if stage == "opt":
        assert first.pass_name and first.pass_name.startswith("inject-fault"), first
    elif stage == "ir":
        assert first.culprit.startswith("frontend")
    else:
        assert "kernel cuvil_k" in first.culprit
    assert first.output_affected is not damped
    # nothing before the faulty node is blamed
    index = report.row(node).index
    for r in report.rows[:index]:
        assert not any(s.introduced for s in r.stages.values()), r.name
    # later stages inherit the error without being blamed for it in stage order (a
    # member of a fused kernel whose output the error does not reach is not measured)
    for later in report.stages[report.stages.index(stage) + 1 :]:
        s = report.row(node).stages[later]
        assert s.diverges or (s.status == "fused" and s.propagated is None), s


def test_propagated_and_isolated_modes_tell_introduced_from_inherited():
    model, inputs = sample("mlp")
    with faults.inject(faults.parse("lowering:relu")):
        report = run_diff(model, inputs, DiffOptions(stages=("ir",)))
    relu = report.row("relu").stages["ir"]
    fc2 = report.row("fc2").stages["ir"]
    assert relu.introduced and relu.propagated.max_abs > 0
    assert fc2.diverges and fc2.inherited and fc2.isolated.ok


def test_static_check_lists_shape_and_dtype_mismatches():
    from cuvil.frontend.fx import from_fx
    from cuvil.ir.types import DType, TensorType

    model, inputs = sample("mlp")
    report = clean("mlp")
    module = from_fx(model, inputs)
    v = module.fx_values["relu"]
    v.type = TensorType((1, 7), DType.f16)  # what a frontend bug would produce
    smap = map_stage(module, report.rows, fx_value_names(module))
    problems = smap.results["relu"].static
    assert any("shape" in p for p in problems) and any("dtype" in p for p in problems)


def test_nan_in_a_stage_is_a_divergence():
    from cuvil_debug.diff.metrics import compare
    from cuvil_debug.diff.model import Tolerance

    ref = torch.ones(4)
    got = ref.clone()
    got[2] = float("nan")
    m = compare(got, ref, Tolerance(1e-4, 1e-5))
    assert not m.ok and m.nan == 1
    ints = compare(torch.tensor([1, 2]), torch.tensor([1, 3]), Tolerance(0, 0))
    assert not ints.ok and ints.mismatched == 1


@pytest.mark.parametrize(
    "name,node", [("resnet18", "layer3_0_relu"), ("transformer_block", "ffn_act")]
)
def test_bisect_finds_the_injected_pass_action_within_the_bound(name, node):
    from cuvil_debug.diff.bisect import bisect, compile_bound, format_result

    model, inputs = sample(name)
    with faults.inject(faults.parse(f"pass:{node}")):
        r = bisect(model, inputs, llvm=False)
    assert r.verdict == "pass", format_result(r)
    assert r.pass_spec.startswith("inject-fault") and node in r.pass_spec
    assert r.actions >= 3  # the real passes' actions are searched too
    assert r.compiles <= compile_bound(r.actions), format_result(r)


def test_resnet18_reduces_to_a_repro_that_reproduces_on_its_own(tmp_path):
    """The acceptance case: an injected divergence in ResNet-18, reduced to at most 10
    nodes; the written repro.py, run alone, reproduces it (exit 1)."""
    import subprocess
    import sys

    from cuvil_debug.diff.reduce import reduce_model
    from cuvil_debug.diff.repro import write_repro

    model, inputs = sample("resnet18")
    spec = "kernel:layer3_0_relu"
    with faults.inject(faults.parse(spec)):
        report = run_diff(model, inputs, DiffOptions(members=False))
        assert report.first.node == "layer3_0_relu"
        result = reduce_model(model, inputs, {}, target_node=report.first.node)
    assert result.kind == "diverges"
    assert 1 <= result.nodes <= 10, result.summary()
    write_repro(result, tmp_path, options={}, faults=[spec])
    proc = subprocess.run(
        [sys.executable, "repro.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "REPRODUCED" in proc.stdout


class _Drawn(torch.nn.Module):
    def __init__(self, c: int, h: int, k: int) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(c, h, k, padding=k // 2)
        self.bn = torch.nn.BatchNorm2d(h)
        self.fc = torch.nn.Linear(h, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return torch.softmax(self.fc(y), dim=-1)


@settings(max_examples=6, deadline=None)
@given(
    c=st.integers(1, 4),
    h=st.integers(2, 12),
    k=st.sampled_from([1, 3]),
    size=st.integers(4, 12),
    spec=st.sampled_from(
        [None, "lowering:fc", "pass:relu", "kernel:fc", "pass:bn:negative"]
    ),
)
def test_drawn_shapes_clean_or_faulty(c, h, k, size, spec):
    torch.manual_seed(0)
    model = _Drawn(c, h, k).eval()
    with torch.no_grad():  # running stats away from the defaults
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    inputs = (torch.randn(2, c, size, size),)
    with faults.inject(*([faults.parse(spec)] if spec else [])):
        report = run_diff(model, inputs)
    if spec is None:
        assert report.first is None, report.first
        return
    stage = {"lowering": "ir", "pass": "opt", "kernel": "native"}[spec.split(":")[0]]
    assert (report.first.node, report.first.stage) == (spec.split(":")[1], stage)


@pytest.mark.parametrize("name", NAMES)
def test_export_frontend_clean(name):
    model, inputs = sample(name)
    report = run_diff(model, inputs, DiffOptions(frontend="export"))
    assert report.first is None, report.first
    assert report.options["frontend"] == "export"
    assert all(report.outputs_ok.values())


@pytest.mark.parametrize(
    "spec,node,stage",
    [
        ("lowering:relu_1", "relu_1", "ir"),
        ("pass:relu", "relu", "opt"),
        ("kernel:fc3", "fc3", "native"),
    ],
)
def test_export_frontend_finds_faults_by_fx_style_node_names(spec, node, stage):
    # export's ATen nodes carry fx's names (a leaf module's value is named by its path),
    # so a fault or a breakpoint names the same node under both frontends
    model, inputs = sample("mlp")
    with faults.inject(faults.parse(spec)):
        report = run_diff(model, inputs, DiffOptions(frontend="export"))
    assert (report.first.node, report.first.stage) == (node, stage)
    assert report.row(node).target.startswith("aten.")


class _InPlace(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x):
        y = self.fc(x)
        z = y * 2.0  # reads y before it is mutated
        y += 1.0
        y = torch.relu(y)
        return y + z


@pytest.mark.parametrize("frontend", ["fx", "export"])
def test_inplace_ops_compare_each_node_at_its_own_time(frontend):
    """A node mutated later by an in-place op is compared with its value when it was
    computed (eager records a copy then; the IR maps the node to the value it had)."""
    report = run_diff(
        _InPlace().eval(), (torch.randn(3, 6),), DiffOptions(frontend=frontend)
    )
    assert report.first is None, report.first
    fc = next(r for r in report.rows if r.name in ("fc", "linear"))
    assert fc.stages["ir"].status == "value" and fc.stages["ir"].propagated.exact
