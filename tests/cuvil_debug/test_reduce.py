"""``cuvil_debug.diff.reduce``: delta-debug real divergences and compile errors down to a
few FX nodes, and write standalone repros.

Divergences come from lowering rules patched with ``monkeypatch`` to be wrong for one FX
node (matched on ``cx.node_name``), or, for the repro run in a separate process, from a
``cuvil_debug.faults`` kernel fault that the repro re-applies itself.
"""

from __future__ import annotations

import ast
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from cuvil.errors import CuvilError
from cuvil.frontend import lower, registry
from cuvil.frontend import modules as frontend_modules
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module
from cuvil_debug import faults
from cuvil_debug.diff.reduce import ReduceResult, compare, reduce_model
from cuvil_debug.diff.repro import write_repro
from cuvil_debug.loader import load_model

ROOT = Path(__file__).resolve().parents[2]
RESNET = ROOT / "samples" / "models" / "resnet18.py"
FAST = {"opt_level": "O0"}  # the bugs below do not depend on LLVM's optimizer


class Small(nn.Module):
    """Three relus (torch.relu, F.relu, Tensor.relu) between linears and adds."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 8)

    def forward(self, x):
        a = torch.relu(self.fc1(x))
        b = F.relu(self.fc2(a)) + a
        c = (b * 0.5).relu()
        return self.fc3(c - a)


class Unsupported(nn.Module):
    """torch.special.bessel_j0 (no Cuvil lowering, no decomposition) between two linears."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = torch.special.bessel_j0(h) * 0.1
        return self.fc2(torch.tanh(h))


class InPlace(nn.Module):
    """relu reads `y` after y.add_(1) mutated it: its cut input is the mutated value."""

    def forward(self, x):
        y = x * 2
        y.add_(1)
        return torch.relu(y) * 3


def small_inputs():
    return (torch.randn(4, 16, generator=torch.Generator().manual_seed(1)),)


def _wrong(rule, node: str):
    """`rule`, but the value of FX node `node` becomes relu(x) * 1.5 + 0.25."""

    def wrong(cx, *args, **kwargs):
        value = rule(cx, *args, **kwargs)
        if cx.node_name == node:
            value = registry.lookup(torch.mul)(cx, value, 1.5)
            value = registry.lookup(torch.add)(cx, value, 0.25)
        return value

    return wrong


@pytest.fixture
def wrong_relu(monkeypatch):
    """Make the functional/method relu lowering wrong for one FX node name."""

    def patch(node: str) -> None:
        for key in (torch.relu, F.relu, "relu"):
            monkeypatch.setitem(
                registry.LOWERINGS, key, _wrong(registry.LOWERINGS[key], node)
            )

    return patch


def compile_reduced(result: ReduceResult, options=FAST):
    """Compile the reduced graph as the reducer does (node names kept)."""
    gm = result.gm
    inputs = tuple(t.clone() for t in result.inputs)
    module = lower(gm, inputs, "fx", gm=gm)
    return compile_module(module, CompileOptions.parse(options))


def still_diverges(result: ReduceResult) -> str | None:
    with torch.no_grad():
        want = result.gm(*(t.clone() for t in result.inputs))
        got = compile_reduced(result)(*(t.clone() for t in result.inputs))
    flat = lambda v: list(v) if isinstance(v, tuple | list) else [v]  # noqa: E731
    return compare(flat(got), flat(want), result.rtol, result.atol)


def compute_nodes(result: ReduceResult) -> list[str]:
    return [
        n.name
        for n in result.gm.graph.nodes
        if n.op not in ("placeholder", "get_attr", "output")
    ]


# ---- divergences --------------------------------------------------------------------------


def test_small_model_reduces_to_the_wrong_relu(wrong_relu):
    wrong_relu("relu_1")  # the F.relu
    lines = []
    result = reduce_model(Small(), small_inputs(), FAST, log=lines.append)
    assert result.kind == "diverges"
    assert compute_nodes(result) == ["relu_1"]
    assert result.nodes == 1 and result.original_nodes == 9
    assert "max abs" in result.detail and "relu_1" in result.detail
    assert 1 <= result.checks <= 20 and lines
    # the cut input is the eager value of fc2's output
    assert [n.name for n in result.gm.graph.nodes if n.op == "placeholder"] == ["fc2"]
    model = Small()
    with torch.no_grad():
        want = model.fc2(torch.relu(model.fc1(small_inputs()[0])))
    torch.testing.assert_close(result.inputs[0], want)
    assert still_diverges(result)


def test_target_node_starts_from_its_slice(wrong_relu):
    wrong_relu("relu_1")
    result = reduce_model(Small(), small_inputs(), FAST, target_node="relu_1")
    assert compute_nodes(result) == ["relu_1"]
    assert result.checks == 1  # the target alone diverges: nothing else compiled


def test_target_downstream_of_the_bug_keeps_producer_and_consumer(wrong_relu):
    wrong_relu("relu_1")
    result = reduce_model(Small(), small_inputs(), FAST, target_node="add")
    # add alone (inputs = eager values) is right; add with its relu producer is not
    assert set(compute_nodes(result)) == {"relu_1", "add"}
    assert still_diverges(result)


def test_resnet18_wrong_relu_reduces_to_a_few_nodes(monkeypatch):
    loaded = load_model(str(RESNET))
    rule = frontend_modules.MODULE_LOWERINGS[nn.ReLU]
    monkeypatch.setitem(
        frontend_modules.MODULE_LOWERINGS,
        nn.ReLU,
        _wrong(rule, "layer2_1_relu_1"),
    )
    # start downstream of the bug (a later node, as the diff may name when the relu
    # is fused into its consumer): the window has to pull the wrong relu in
    result = reduce_model(
        loaded.model, loaded.inputs, FAST, target_node="layer3_0_conv1"
    )
    assert result.kind == "diverges"
    assert result.original_nodes == 69
    assert 1 <= result.nodes <= 10
    assert "layer2_1_relu_1" in compute_nodes(result)
    assert compute_nodes(result)[-1] == "layer3_0_conv1"
    assert still_diverges(result)


def test_inplace_mutation_is_in_the_saved_input(wrong_relu):
    wrong_relu("relu")
    x = torch.randn(3, 5)
    result = reduce_model(InPlace(), (x,), FAST, target_node="relu")
    assert compute_nodes(result) == ["relu"]
    torch.testing.assert_close(result.inputs[0], x * 2 + 1)


def test_max_checks_stops_early_with_an_interesting_graph(wrong_relu):
    wrong_relu("relu_2")
    result = reduce_model(Small(), small_inputs(), FAST, max_checks=3)
    assert result.checks <= 3
    assert "relu_2" in compute_nodes(result)
    assert still_diverges(result)


def test_nothing_to_reduce_and_unknown_target_are_errors():
    with pytest.raises(CuvilError, match="nothing to reduce"):
        reduce_model(Small(), small_inputs(), FAST)
    with pytest.raises(CuvilError, match="'nope' is not a compute node"):
        reduce_model(Small(), small_inputs(), FAST, target_node="nope")


# ---- compile errors -----------------------------------------------------------------------


def test_compile_error_reduces_to_the_unsupported_op():
    result = reduce_model(Unsupported(), small_inputs(), FAST)
    assert result.kind == "compile-error"
    assert compute_nodes(result) == ["special_bessel_j0"]
    assert "unsupported op 'torch._C._special.special_bessel_j0'" in result.detail
    with pytest.raises(CuvilError, match="special_bessel_j0"):
        compile_reduced(result)


# ---- repro.py -----------------------------------------------------------------------------


def imported_modules(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module.split(".")[0])
    return names


def run_repro(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "repro.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_repro_with_a_fault_reproduces_in_a_separate_process(tmp_path):
    spec = "kernel:relu_1:scale"
    with faults.inject(faults.parse(spec)):
        result = reduce_model(Small(), small_inputs(), FAST, target_node="relu_1")
    assert compute_nodes(result) == ["relu_1"]
    paths = write_repro(result, tmp_path, options=FAST, faults=[spec])
    assert paths == [tmp_path / "repro.py", tmp_path / "repro.pt"]
    text = paths[0].read_text()
    # cuvil.compile retraces the repro's module: relu_1 is its first relu there
    assert "FAULTS = ['kernel:relu:scale']" in text
    assert "relu <- relu_1: torch.nn.functional.relu" in text
    assert "test_reduce.py:" in text  # the model line of each node
    # re-applying FAULTS needs the toolkit's fault injection (cuvil_debug.faults)
    allowed = {"contextlib", "copy", "sys", "pathlib", "torch", "cuvil", "cuvil_debug"}
    assert imported_modules(text) <= allowed
    proc = run_repro(tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "REPRODUCED" in proc.stdout and "max abs" in proc.stdout


def test_repro_without_faults_needs_only_torch_and_cuvil(tmp_path):
    result = reduce_model(Unsupported(), small_inputs(), FAST)
    (py, _) = write_repro(result, tmp_path, options=FAST)
    allowed = {"copy", "sys", "pathlib", "torch", "cuvil"}  # the standard library
    assert imported_modules(py.read_text()) <= allowed


def test_compile_error_repro_exits_1(tmp_path, capsys):
    result = reduce_model(Unsupported(), small_inputs(), FAST)
    write_repro(result, tmp_path / "bessel.py", options=FAST)
    assert (tmp_path / "bessel.pt").exists()
    # run in this process (the subprocess path is tested above): exits 1, says why
    with pytest.raises(SystemExit) as exit_:
        runpy.run_path(str(tmp_path / "bessel.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert exit_.value.code == 1, out
    assert (
        "REPRODUCED" in out
        and "unsupported op 'torch._C._special.special_bessel_j0'" in out
    )


def test_write_repro_does_not_overwrite_without_force(tmp_path, wrong_relu):
    wrong_relu("relu_1")
    result = reduce_model(Small(), small_inputs(), FAST, target_node="relu_1")
    (tmp_path / "repro.py").write_text("mine\n")
    with pytest.raises(CuvilError, match=r"repro\.py' already exists.*--force"):
        write_repro(result, tmp_path, options=FAST)
    assert (tmp_path / "repro.py").read_text() == "mine\n"
    assert not (tmp_path / "repro.pt").exists()
    write_repro(result, tmp_path, options=FAST, force=True)
    assert "class Repro" in (tmp_path / "repro.py").read_text()
    loaded = torch.load(tmp_path / "repro.pt", weights_only=False)
    assert len(loaded["inputs"]) == 1 and "attrs" in loaded
