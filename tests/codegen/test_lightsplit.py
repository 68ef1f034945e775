"""The hand-vectorized kernels compiled apart, without LLVM's IR passes
(codegen/lightsplit.py): the text split, its refusals, the build it gives (the same
results, bit for bit, as the whole module through O3), and the compile-time helpers
beside it (the collector pause, rolled loops)."""

from __future__ import annotations

import gc

import llvmlite.binding as llvm
import pytest
import torch
from llvmlite import ir
from torch import nn

import cuvil
from cuvil import collector
from cuvil.codegen import lightsplit
from cuvil.codegen.loops import for_range
from cuvil.codegen.target import init_llvm, optimize
from cuvil.runtime import jit

F32, I64, PTR = ir.FloatType(), ir.IntType(64), ir.PointerType()


def _module() -> ir.Module:
    """main() calls light `k` (reads an internal constant, calls an intrinsic) and
    light `bad` (writes a mutable global, so it must stay in the main part)."""
    m = ir.Module("t")
    zeros = ir.GlobalVariable(m, ir.ArrayType(F32, 4), "k.zeros")
    zeros.linkage, zeros.global_constant = "internal", True
    zeros.initializer = ir.Constant(zeros.value_type, None)
    flag = ir.GlobalVariable(m, I64, "flag")
    flag.initializer = ir.Constant(I64, 0)
    fabs = ir.Function(m, ir.FunctionType(F32, [F32]), "llvm.fabs.f32")
    k = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR]), "k")
    b = ir.IRBuilder(k.append_basic_block("entry"))
    v = b.load(b.gep(zeros, [ir.Constant(I64, 0), ir.Constant(I64, 1)]), typ=F32)
    b.store(b.call(fabs, [v]), k.args[0])
    b.ret_void()
    bad = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR]), "bad")
    b = ir.IRBuilder(bad.append_basic_block("entry"))
    b.store(ir.Constant(I64, 1), flag)
    b.ret_void()
    main = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR]), "main")
    b = ir.IRBuilder(main.append_basic_block("entry"))
    b.call(k, [main.args[0]])
    b.call(bad, [main.args[0]])
    b.ret_void()
    lightsplit.mark(k)
    lightsplit.mark(bad)
    return m


def test_split_cuts_what_stands_alone_and_the_parts_link():
    m = _module()
    assert lightsplit.light_names(m) == ("k", "bad")
    parts = lightsplit.split(str(m), lightsplit.light_names(m))
    assert parts is not None and parts.names == ("k",)  # `bad` writes a global
    init_llvm()
    main, light = llvm.parse_assembly(parts.main), llvm.parse_assembly(parts.light)
    assert main.get_function("k").is_declaration
    assert not main.get_function("bad").is_declaration
    assert {f.name for f in light.functions if not f.is_declaration} == {"k"}
    optimize(main, 3, light)
    main.verify()
    assert not main.get_function("k").is_declaration


def test_split_refuses_nothing_to_cut():
    m = _module()
    assert lightsplit.split(str(m), ()) is None
    assert lightsplit.split(str(m), ("bad",)) is None
    assert lightsplit.split(str(m), ("main",)) is None  # not marked: calls the rest


class _Block(nn.Module):
    """conv + BN + ReLU twice with a residual, pooling and a linear: conv and GEMM
    micro-kernels, with and without a residual epilogue."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = (
            nn.Conv2d(8, 16, 3, padding=1),
            nn.Conv2d(16, 16, 3, padding=1),
        )
        self.bn = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        y = torch.relu(self.bn(self.c1(x)))
        y = torch.relu(self.c2(y) + y)
        return self.fc(nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


@pytest.fixture(scope="module")
def model_and_input():
    torch.manual_seed(0)
    model = _Block().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    return model, torch.randn(2, 8, 11, 13)


def test_light_build_matches_the_whole_module_through_o3(model_and_input, monkeypatch):
    model, x = model_and_input
    monkeypatch.setenv("CUVIL_CACHE", "0")
    light = cuvil.compile(model, [x])
    assert light.jit.light and all(
        n.startswith(("cuvil_conv", "cuvil_gemm")) for n in light.jit.light
    )
    monkeypatch.setattr(jit, "split_parts", lambda program, opt: None)
    whole = cuvil.compile(model, [x])
    assert whole.jit.light == ()
    got, want = light(x), whole(x)
    assert torch.equal(got, want)  # no fast-math in the kernels: the same bits
    torch.testing.assert_close(got, model(x), rtol=1e-4, atol=1e-5)


def test_light_build_through_the_llvm_worker(model_and_input, monkeypatch):
    """A bisected build (a child process) splits the same way: the same results."""
    model, x = model_and_input
    monkeypatch.setenv("CUVIL_CACHE", "0")
    built = cuvil.compile(model, [x], options={"llvm_bisect_limit": 10**6})
    assert built.jit.light
    torch.testing.assert_close(built(x), model(x), rtol=1e-4, atol=1e-5)


def test_collector_paused_nests_and_restores():
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()  # off before: off after
    finally:
        gc.enable()


@pytest.mark.parametrize("unroll", [True, False])
def test_rolled_loop_stays_a_loop_through_o3(unroll):
    m = ir.Module("t")
    g = ir.Function(m, ir.FunctionType(ir.VoidType(), [I64]), "g")  # opaque work
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "f")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    with for_range(b, 7, name="y", unroll=unroll) as y:
        b.call(g, [y])
    b.ret_void()
    init_llvm()
    mod = llvm.parse_assembly(str(m))
    optimize(mod, 3)
    calls = str(mod).count("call void @g(")
    assert calls == (7 if unroll else 1)  # O3 unrolls it fully unless told not to
