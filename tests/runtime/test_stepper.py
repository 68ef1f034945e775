"""Stepper: the normal native build, called kernel by kernel, every value readable."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest
import torch
from torch import nn

import cuvil
from cuvil.codegen.generator import generate
from cuvil.errors import CuvilRuntimeError
from cuvil.frontend import lower
from cuvil.ir import ops
from cuvil.ir.core import Value
from cuvil.ir.interpreter import Interpreter
from cuvil.ir.ops.fused import body_of
from cuvil.options import CompileOptions
from cuvil.passes import run_passes
from cuvil.runtime.compiled import CompiledModule
from cuvil.runtime.jit import JitModule
from cuvil.runtime.stepper import Stepper

ROOT = Path(__file__).resolve().parents[2]
TOL = {"rtol": 1e-4, "atol": 1e-5}


def _sample(name: str):
    ns = runpy.run_path(str(ROOT / "samples" / "models" / f"{name}.py"))
    return ns["Model"]().eval(), ns["example_inputs"]()


@pytest.fixture(scope="module")
def cnn():
    return _sample("small_cnn")


def _module(model, inputs, optimized: bool, **options):
    module = lower(model, list(inputs))
    return run_passes(module, CompileOptions.parse(**options)) if optimized else module


@pytest.fixture(scope="module", params=["opt", "raw"])
def built(request, cnn):
    model, inputs = cnn
    module = _module(model, inputs, request.param == "opt")
    return request.param, module, Stepper(module)


def _reference_outputs(module, inputs):
    """Every op's outputs in the reference interpreter, by op."""
    got = {}
    Interpreter(module, [lambda op, outs: got.__setitem__(id(op), outs)]).run(*inputs)
    return got


def _reference(module, op, args):
    if isinstance(op, ops.FusedOp):
        return Interpreter(module, function=body_of(module, op).name).run(*args)
    out = op.reference(*args)
    return out if isinstance(out, tuple) else (out,)


def _reshapes_of(v: Value):
    """`v` and the reshapes of it (they share its buffer)."""
    found = [v]
    for user, _ in v.uses:
        if isinstance(user, ops.ReshapeOp):
            found += _reshapes_of(user.result)
    return found


# ---- codegen: steps=True adds functions, changes nothing else --------------------------
def _code_and_metadata(program) -> tuple[str, list[str]]:
    """The LLVM IR text before its metadata, and its metadata lines (printed last)."""
    lines = program.llvm_ir.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.startswith("!")), len(lines))
    return "\n".join(lines[:first]), lines[first:]


def test_steps_leave_the_entry_and_kernels_unchanged(cnn):
    model, inputs = cnn
    module = _module(model, inputs, optimized=True)
    plain, stepped = generate(module), generate(module, steps=True)
    assert "cuvil_step" not in plain.llvm_ir and not plain.steps
    main = re.search(r'define void @"cuvil_main".*?\n}\n', plain.llvm_ir, re.S)
    assert main and main.group(0) in stepped.llvm_ir
    # the step functions are appended: everything before them is byte-identical, in
    # the code and in the debug metadata after it (the steps' own come last)
    (plain_code, plain_md), (code, md) = map(_code_and_metadata, (plain, stepped))
    assert code.startswith(plain_code.rstrip("\n"))
    assert md[: len(plain_md)] == plain_md
    calls = main.group(0).count("call void")
    assert [s.symbol for s in stepped.steps] == [
        f"cuvil_step_{i}" for i in range(calls)
    ]
    assert all(f'define void @"{s.symbol}"' in stepped.llvm_ir for s in stepped.steps)


# ---- (a) run() is the normal build -------------------------------------------------------
def test_run_matches_the_normal_build_and_eager(built, cnn):
    kind, module, st = built
    model, inputs = cnn
    st.bind(*inputs)
    (got,) = st.run()
    program = generate(module)
    normal = CompiledModule(module, program, JitModule(program, 3), {})
    torch.testing.assert_close(got, normal(*inputs), rtol=0, atol=0)
    with torch.no_grad():
        torch.testing.assert_close(got, model(*inputs), **TOL)
    if kind == "opt":
        compiled = cuvil.compile(model, inputs)
        torch.testing.assert_close(got, compiled(*inputs), **TOL)


# ---- (b) propagated: each step's results equal the interpreter's ---------------------------
def test_each_step_matches_the_interpreter(built, cnn):
    kind, module, st = built
    _, inputs = cnn
    want = _reference_outputs(module, inputs)
    st.bind(*inputs)
    compared, layouts = 0, set()
    for s in st.steps:
        st.step(s.index)
        if s.op is None:
            continue
        for r, w in zip(s.results, want[id(s.op)]):
            for v in _reshapes_of(r):  # read right after the step that made it
                ref = want[id(v.owner)][0] if v is not r else w
                torch.testing.assert_close(st.read(v), ref, **TOL)
                compared += 1
                layouts.add(v.type.layout)
    assert compared >= len([s for s in st.steps if s.op is not None])
    if kind == "opt":
        assert "nhwc" in layouts
        assert any(isinstance(s.op, ops.FusedOp) for s in st.steps)
    # params (including ones passes derived, like folded batch norm) read as their data
    for op in module.main.ops:
        if isinstance(op, ops.ParamOp):
            assert torch.equal(st.read(op.result), module.param_data[op.symbol()])


# ---- (c) isolated: write operands, step, compare with the op's meaning ----------------------
def test_written_operands_drive_the_step(built, cnn):
    kind, module, st = built
    _, inputs = cnn
    st.bind(*inputs)
    gen = torch.Generator().manual_seed(1)
    for s in st.steps:
        if s.op is None:
            continue
        for v in s.operands:
            if st.program.slot_of(v).kind not in ("param", "const"):
                st.write(v, torch.randn(tuple(v.type.shape), generator=gen))
        args = [st.read(v) for v in s.operands]  # as written (round trip)
        st.step(s.index)
        for r, w in zip(s.results, _reference(module, s.op, args)):
            torch.testing.assert_close(st.read(r), w, **TOL)


def test_zeros_into_relu_give_zeros(cnn):
    model, inputs = cnn
    module = _module(model, inputs, optimized=False)
    st = Stepper(module, opt_level="O1")
    st.bind(*inputs)
    (relu,) = [s for s in st.steps if s.op is not None and s.op.name == "cuvil.relu"][
        :1
    ]
    for s in st.steps[: relu.index]:
        st.step(s.index)
    st.step(relu.index)
    assert st.read(relu.results[0]).abs().sum() > 0
    st.write(relu.operands[0], torch.zeros(tuple(relu.operands[0].type.shape)))
    st.step(relu.index)
    assert not st.read(relu.results[0]).any()


# ---- in-place reuse, outputs returned through reshapes and twice ----------------------------
class Chain(nn.Module):
    def forward(self, x, y):
        a = torch.exp(x)  # a dies at b: b reuses a's buffer
        b = torch.relu(a)
        c = b + b
        d = torch.sigmoid(c) * y
        return d, c.view(-1), d, x  # a reshape of c, d twice, an input


def test_inplace_reshaped_and_copied_outputs():
    x, y = torch.randn(8, 8), torch.randn(8, 8)
    module = lower(Chain(), [x, y])
    run_passes(
        module, CompileOptions(pipeline="dce,cse,fold-constants,dce,memory-hints")
    )
    st = Stepper(module)
    st.bind(x, y)
    want = _reference_outputs(module, [x, y])
    for s in st.steps:
        st.step(s.index)
        for r, w in zip(s.results, want[id(s.op)] if s.op else ()):
            torch.testing.assert_close(st.read(r), w, **TOL)
    copies = [s for s in st.steps if s.op is None]
    assert sorted(s.output for s in copies) == [2, 3]
    outs = st.run()
    for g, w in zip(outs, Chain()(x, y)):
        torch.testing.assert_close(g, w, **TOL)
    out_c = module.main.outputs[1]  # the reshape: it shares c's buffer (output 1)
    assert st.program.slot_of(out_c) == st.program.slot_of(out_c.owner.operands[0])
    torch.testing.assert_close(st.read(out_c), outs[1])
    # the in-place relu took its operand's buffer: stepping it overwrites the operand
    relu = next(s for s in st.steps if s.op is not None and s.op.name == "cuvil.relu")
    assert relu.op.attrs.get("inplace") == 0
    a, b = relu.operands[0], relu.results[0]
    assert st.program.slot_of(a) == st.program.slot_of(b)
    st.write(a, -torch.ones(tuple(a.type.shape)))
    st.step(relu.index)
    assert not st.read(a).any()


# ---- (d) user tensors are never written ------------------------------------------------------
def test_user_inputs_are_not_modified(cnn):
    model, inputs = cnn
    module = _module(model, inputs, optimized=True)
    st = Stepper(module)
    strided = torch.randn(1, 32, 32, 3).permute(0, 3, 1, 2)  # not contiguous
    before = strided.clone()
    st.bind(strided)
    x = module.main.args[0]
    st.write(x, torch.zeros(tuple(x.type.shape)))
    st.run()
    assert torch.equal(strided, before)
    st.bind(strided)
    (got,) = st.run()
    with torch.no_grad():
        torch.testing.assert_close(got, model(before), **TOL)


# ---- (e) errors ------------------------------------------------------------------------------
def test_errors(cnn):
    model, inputs = cnn
    module = _module(model, inputs, optimized=True)
    st = Stepper(module)
    fused_op = next(op for op in module.main.ops if isinstance(op, ops.FusedOp))
    with pytest.raises(CuvilRuntimeError, match="bind"):
        st.step(0)
    with pytest.raises(CuvilRuntimeError, match="bind"):
        st.read(fused_op.result)
    st.bind(*inputs)
    param = next(op.result for op in module.main.ops if isinstance(op, ops.ParamOp))
    with pytest.raises(CuvilRuntimeError, match="param"):
        st.write(param, torch.zeros(tuple(param.type.shape)))
    inner = body_of(module, fused_op).ops[0].result  # inside a fused body: no buffer
    other = lower(model, list(inputs)).main.args[0]  # another module's value
    for foreign in (inner, other):
        assert not st.owns(foreign)
        with pytest.raises(CuvilRuntimeError, match="not a value of"):
            st.read(foreign)
    assert st.owns(module.main.args[0]) and st.owns(fused_op.result)
    with pytest.raises(CuvilRuntimeError, match="shape"):
        st.write(fused_op.result, torch.zeros(3))
    with pytest.raises(CuvilRuntimeError, match="step 99"):
        st.step(99)
    with pytest.raises(CuvilRuntimeError, match="input 0"):
        st.bind(torch.zeros(2, 2))


class Affine(nn.Module):
    def forward(self, x):
        return x * 1.5 + 2.0


@pytest.mark.parametrize("opt_level", ["O0", "O3"])
def test_constants_read_as_their_values(opt_level):
    """From the LLVM global, or (folded away by LLVM) from the op's value."""
    x = torch.randn(4, 4)
    module = lower(Affine(), [x])
    st = Stepper(module, opt_level=opt_level)
    st.bind(x)
    consts = [op for op in module.main.ops if isinstance(op, ops.ConstantOp)]
    assert consts
    for op in consts:
        assert torch.equal(st.read(op.result), op.attrs["value"])
        with pytest.raises(CuvilRuntimeError, match="const"):
            st.write(op.result, op.attrs["value"])
    torch.testing.assert_close(st.run()[0], x * 1.5 + 2.0)
