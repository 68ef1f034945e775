"""``cuvil_debug.diff.bisect``: real injected bugs, found in few compiles.

Bugs are test-local: a wrong pass registered here (one action per relu, one of them
rewritten into ``cuvil.neg``), and code generation patched with ``monkeypatch`` (a relu
that forgets to clamp, inside fused kernels or everywhere; a relu that promises LLVM its
input is >= 0, which only LLVM's optimizer turns into a wrong result).
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from llvmlite import ir as llir
from torch import nn

from cuvil.codegen import fused as fused_codegen
from cuvil.codegen import scalar
from cuvil.ir import ops as O
from cuvil.passes import ModulePass, known_passes, register_pass, registry
from cuvil.passes.base import main_functions
from cuvil.passes.rewrite import replace_value
from cuvil_debug.diff import bisect as bisect_mod
from cuvil_debug.diff.bisect import (
    _llvm_passes,
    bisect,
    compile_bound,
    format_result,
)
from cuvil_debug.diff.oracle import compare_outputs as compare

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "models"
WRONG = "test-bisect-wrong"


@dataclass(frozen=True)
class WrongRelu(ModulePass):
    """One action per relu; action for relu number `target` turns it into a neg."""

    name = WRONG
    target: int = 1

    def apply(self, module, ctx) -> bool:
        changed = False
        for fn in main_functions(module):
            relus = [op for op in fn.ops if op.name == "cuvil.relu"]
            for i, op in enumerate(relus):
                if not ctx.allow_action(f"rewrite relu #{i}") or i != self.target:
                    continue
                new = O.UNARY_OPS["cuvil.neg"].build(op.operands[0])
                new.loc = op.loc
                fn.ops.insert(fn.ops.index(op), new)
                replace_value(fn, op.result, new.result)
                fn.erase(op)
                changed = True
        return changed


@dataclass(frozen=True)
class CrashingRelu(ModulePass):
    """One action per relu; applying the one for relu number `target` raises."""

    name = "test-bisect-crash"
    target: int = 2

    def apply(self, module, ctx) -> bool:
        for fn in main_functions(module):
            relus = [op for op in fn.ops if op.name == "cuvil.relu"]
            for i, _ in enumerate(relus):
                if ctx.allow_action(f"crash on relu #{i}") and i == self.target:
                    raise RuntimeError("the pass crashed")
        return False


WRONG_PIPELINE = f"dce,cse,fold-constants,{WRONG},fuse-elementwise,dce"


@pytest.fixture(scope="module", autouse=True)
def _test_passes():
    """The wrong passes are known while this module's tests run, and only then (other
    tests check that every known pass has FileCheck tests)."""
    known_passes()  # the built-in passes first
    for cls in (WrongRelu, CrashingRelu):
        register_pass(cls)
    yield
    for cls in (WrongRelu, CrashingRelu):
        registry._PASSES.pop(cls.name, None)


def load_sample(name: str):
    path = SAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bisect_sample_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Model().eval(), module.example_inputs()


@pytest.fixture(scope="module")
def mlp():
    return load_sample("mlp")


@pytest.fixture(scope="module")
def small_cnn():
    return load_sample("small_cnn")


def _within_bound(r) -> None:
    assert r.compiles <= compile_bound(r.actions), format_result(r)


# ---- Cuvil pass actions (checks by the interpreter) ---------------------------------------


@pytest.mark.parametrize("sample", ["mlp", "small_cnn"])
def test_wrong_pass_is_found(sample, request):
    model, inputs = request.getfixturevalue(sample)
    r = bisect(model, inputs, {"pipeline": WRONG_PIPELINE})
    assert r.verdict == "pass", format_result(r)
    assert r.checker == "interpreter"
    assert r.pass_spec == WRONG and r.action.pass_name == WRONG
    assert r.action.description == "rewrite relu #1"
    _within_bound(r)
    assert "cuvil.neg" in r.ir_diff and "-" in r.ir_diff
    removed = [ln for ln in r.ir_diff.splitlines() if ln.startswith("-    ")]
    added = [ln for ln in r.ir_diff.splitlines() if ln.startswith("+    ")]
    assert any("cuvil.relu" in ln for ln in removed)
    assert any("cuvil.neg" in ln for ln in added)


def test_wrong_pass_inside_o3(small_cnn):
    pipeline = (
        "dce,cse,fold-constants,fold-bn,test-bisect-wrong,layout-nhwc,"
        "fuse-epilogue,fuse-elementwise,dce,memory-hints"
    )
    model, inputs = small_cnn
    lines: list[str] = []
    r = bisect(model, inputs, {"pipeline": pipeline}, log=lines.append)
    assert r.verdict == "pass" and r.pass_spec == WRONG
    assert r.actions > 8  # fold-bn, fusion, ... ask for actions too
    _within_bound(r)
    assert lines == r.log and len(r.log) == r.compiles + 1  # + the frontend check
    # the culprit is right after the last action that is still right
    assert f"limit {r.action.index - 1} (interpreter): matches" in "\n".join(r.log)


class Deep(nn.Module):
    """Eight linear+relu layers: eight relu actions to search among."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.Sequential(
            *[m for _ in range(8) for m in (nn.Linear(16, 16), nn.ReLU())]
        )

    def forward(self, x):
        return self.layers(x)


def test_crashing_action_is_found():
    x = torch.randn(4, 16, generator=torch.Generator().manual_seed(0))
    r = bisect(Deep().eval(), (x,), {"pipeline": "test-bisect-crash,dce"})
    assert r.verdict == "pass", format_result(r)
    assert r.action.index == 3 and r.action.description == "crash on relu #2"
    assert "the pass crashed" in "\n".join(r.log)


@pytest.mark.parametrize("target", range(8))
def test_every_action_position(target):
    x = torch.randn(4, 16, generator=torch.Generator().manual_seed(0))
    r = bisect(Deep().eval(), (x,), {"pipeline": f"{WRONG}{{target={target}}}"})
    assert r.verdict == "pass", format_result(r)
    assert r.actions == 8 and r.action.index == target + 1
    assert r.compiles <= math.ceil(math.log2(8)) + 2


# ---- native-only divergence, code generation and LLVM ----------------------------------------


def test_clean(mlp):
    model, inputs = mlp
    r = bisect(model, inputs)
    assert r.verdict == "clean", format_result(r)
    assert r.compiles == 1 and r.action is None
    assert "clean" in format_result(r)


@pytest.fixture
def patched_codegen(monkeypatch):
    """For tests that patch code generation: the compile cache off (its IR level would
    serve a build made by the unpatched generator: the patch changes no source file)."""
    monkeypatch.setenv("CUVIL_CACHE", "0")
    return monkeypatch


def test_native_only_pass(mlp, patched_codegen):
    """Fused relu epilogues forget to clamp: the IR stays right, native code does not."""
    monkeypatch = patched_codegen
    real = fused_codegen.scalar_op

    def forgetful(b, o, vals):
        return vals[0] if o.name == "cuvil.relu" else real(b, o, vals)

    monkeypatch.setattr(fused_codegen, "scalar_op", forgetful)
    model, inputs = mlp
    r = bisect(model, inputs, {"opt_level": "O3"})
    assert r.verdict == "pass", format_result(r)
    assert r.checker == "native"
    assert r.pass_spec == "fuse-epilogue" and r.action.index == 1
    _within_bound(r)
    assert "cuvil.fused" in r.ir_diff


def test_codegen(mlp, patched_codegen):
    monkeypatch = patched_codegen
    monkeypatch.setitem(scalar.UNARY, "cuvil.relu", lambda b, x, a: x)
    model, inputs = mlp
    r = bisect(model, inputs, {"pipeline": "dce"}, llvm=False)
    assert r.verdict == "codegen" and r.llvm_compiles == 0, format_result(r)
    r = bisect(model, inputs, {"pipeline": "dce"})
    assert r.verdict == "codegen", format_result(r)
    assert r.llvm_compiles == 2 and r.llvm_passes > 100  # all passes, then none
    assert "-opt-bisect-limit=0" in r.detail


def test_llvm(mlp, patched_codegen):
    """A relu that tells LLVM `x >= 0` (llvm.assume): right until LLVM believes it."""
    monkeypatch = patched_codegen
    relu = scalar.UNARY["cuvil.relu"]

    def lying(b, x, attrs):
        b.assume(b.fcmp_ordered(">=", x, llir.Constant(x.type, 0.0)))
        return relu(b, x, attrs)

    monkeypatch.setitem(scalar.UNARY, "cuvil.relu", lying)
    model, inputs = mlp
    r = bisect(model, inputs, {"pipeline": "dce"})
    assert r.verdict == "llvm", format_result(r)
    assert r.llvm_pass and r.llvm_pass != "?"
    assert 0 < r.llvm_limit <= r.llvm_passes
    assert r.llvm_compiles <= compile_bound(r.llvm_passes)
    text = format_result(r)
    assert f"({r.llvm_limit}) {r.llvm_pass}" in text
    # the same search again: every LLVM compile runs in a child with a fresh counter
    again = bisect(model, inputs, {"pipeline": "dce"})
    assert (again.llvm_limit, again.llvm_pass) == (r.llvm_limit, r.llvm_pass)


def test_frontend(mlp, monkeypatch):
    real = bisect_mod.lower

    def wrong_lower(model, inputs, frontend, hooks=None):
        module = real(model, inputs, frontend, hooks=hooks)
        module.param_data["fc3.bias"] = module.param_data["fc3.bias"] + 1
        return module

    monkeypatch.setattr(bisect_mod, "lower", wrong_lower)
    model, inputs = mlp
    r = bisect(model, inputs)
    assert r.verdict == "frontend" and r.compiles == 0, format_result(r)


# ---- cuvil_debug.faults: documented injected bugs ---------------------------------------------

FAULT_NODES = {"mlp": ("relu_1", "fc2"), "small_cnn": ("block2_relu", "block1_conv")}


@pytest.mark.parametrize("sample", ["mlp", "small_cnn"])
@pytest.mark.parametrize("which", [0, 1])
def test_fault_pass(sample, which, request):
    faults = pytest.importorskip("cuvil_debug.faults")
    model, inputs = request.getfixturevalue(sample)
    node = FAULT_NODES[sample][which]
    with faults.inject(faults.parse(f"pass:{node}")):
        r = bisect(model, inputs)
    assert r.verdict == "pass", format_result(r)
    assert r.pass_spec.startswith("inject-fault") and node in r.pass_spec
    assert r.action.pass_name == r.pass_spec
    assert f"FX node '{node}'" in r.action.description
    _within_bound(r)
    assert any(
        ln.startswith("+") and "cuvil.mul" in ln for ln in r.ir_diff.splitlines()
    )


def test_fault_kernel_overflow_is_llvm(mlp, capfd):
    faults = pytest.importorskip("cuvil_debug.faults")
    model, inputs = mlp
    with faults.inject(faults.Fault("kernel", "fc2", "overflow")):
        r = bisect(model, inputs)
    assert r.verdict == "llvm", format_result(r)
    # EarlyCSE folds the overflowing compare (docs/FAULTS.md)
    assert r.llvm_pass == "early-cse" and "fc2" in r.llvm_function
    assert "BISECT:" not in capfd.readouterr().err  # LLVM's lines stay in the children
    assert r.llvm_compiles <= compile_bound(r.llvm_passes)
    _within_bound(r)
    assert f"llvm pass: ({r.llvm_limit}) {r.llvm_pass}" in format_result(r)


def test_fault_kernel_scale_is_codegen(mlp):
    faults = pytest.importorskip("cuvil_debug.faults")
    model, inputs = mlp
    with faults.inject("kernel:fc2"):
        r = bisect(model, inputs)
    assert r.verdict == "codegen", format_result(r)
    assert r.checker == "native" and r.llvm_compiles == 2
    _within_bound(r)


def test_fault_lowering_is_frontend(small_cnn):
    faults = pytest.importorskip("cuvil_debug.faults")
    model, inputs = small_cnn
    with faults.inject("lowering:block2_relu"):
        r = bisect(model, inputs)
    assert r.verdict == "frontend" and r.compiles == 0, format_result(r)
    assert r.action is None and r.ir_diff is None


# ---- pieces ------------------------------------------------------------------------------


def test_compare():
    a = torch.tensor([1.0, float("nan"), 3.0])
    assert not compare([a], [a.clone()], 1e-4, 1e-5).diverges
    c = compare([a + 1], [a], 1e-4, 1e-5)
    assert c.diverges and c.error == pytest.approx(1.0) and "2 of 3" in c.what
    nan = compare([torch.tensor([float("nan")])], [torch.tensor([0.0])], 1e-4, 1e-5)
    assert nan.diverges and math.isinf(nan.error)
    assert compare([torch.zeros(2)], [torch.zeros(3)], 1e-4, 1e-5).diverges
    assert compare([a], [a, a], 1e-4, 1e-5).diverges


def test_llvm_passes():
    log = [
        "BISECT: running pass (1) annotation2metadata on [module]",
        "BISECT: NOT running pass (2) early-cse on function (cuvil_k2_fc3)",
        "not a bisect line",
    ]
    assert _llvm_passes(log) == [
        (1, "annotation2metadata", "[module]"),
        (2, "early-cse", "function (cuvil_k2_fc3)"),
    ]


def test_compile_bound():
    assert [compile_bound(n) for n in (0, 1, 2, 3, 4, 17, 1024)] == [
        2,
        2,
        3,
        4,
        4,
        7,
        12,
    ]
