"""Kernels of the quantization ops (ir/ops/quant*.py): int8 / bf16 linear on the GEMMs of
qgemm.py / amx.py, and quantize, dequantize, round_bf16, fake_quantize_dynamic as
pointwise loops (convolutions: qconv.py).

The instruction set comes from ``module.isa`` (cuvil.compile resolves the quantize
option's ``isa`` there), else the best the host has (cpu.resolve_isa). The weight is
packed at compile time (qgemm.pack_weight), and the per-column arrays of the epilogue
(zero-point correction, scale products, bias; padded to the packed width) are derived
constants too, computed with the same float32 torch arithmetic as the op's reference.
"""

from __future__ import annotations

import llvmlite.ir as ir
import torch

from ..errors import CodegenError
from ..ir import ops
from ..ir.core import Module, Operation
from ..ir.ops.quant import QRANGE, f32, inv_scale
from ..ir.types import DType
from .bf16gemm import to_bf16
from .cpu import resolve_isa
from .kernel import Kernel, Prepared, const_data
from .loops import for_range, i64
from .pointwise import broadcast_access, emit_pointwise, tensor_access
from .qgemm import QGemmPlan, column_sums, pack_weight, padded, plan_qgemm, qgemm_call
from .qsimd import F32, I8, I32, PTR, QEpilogue

__all__ = [
    "isa_for",
    "prepare_qlinear",
    "prepare_linear_bf16",
    "emit_quantize",
    "emit_dequantize",
    "emit_round_bf16",
    "emit_fake_quantize_dynamic",
    "epilogue_of",
    "memset",
    "NULL",
]

NULL = ir.Constant(PTR, None)


def isa_for(module: Module | None, mode: str) -> str:
    """The module's instruction set for `mode`, checked here (an AMX one also asks for
    the tile state: code run without it dies of SIGILL), else the host's best."""
    chosen = getattr(module, "isa", {}).get(mode) if module is not None else None
    return resolve_isa(mode, chosen or "auto")


def _const(op: Operation, i: int, param_data, what: str) -> torch.Tensor:
    data = const_data(op.operands[i], param_data)
    if data is None:
        raise CodegenError(
            f"'{op.name}' needs a constant {what}",
            hint="its weight and bias must be params (cuvil.param) with data",
        )
    return data


def epilogue_of(op: Operation, row_stride: int) -> QEpilogue:
    """The QEpilogue of a qlinear / qconv2d / *_bf16 op's attributes."""
    a = op.attrs
    out = str(a.get("out_dtype", DType.f32))
    lo, hi = QRANGE.get(a.get("out_dtype"), (0, 255))
    quant = out in ("u8", "i8")
    int8 = isinstance(op, (ops.QLinearOp, ops.QConv2dOp))
    return QEpilogue(
        out=out,
        corr=int8,
        mult=int8,
        bias=len(op.operands) > 2 and out != "i32",
        clamp_min=a.get("clamp_min"),
        clamp_max=a.get("clamp_max"),
        inv=inv_scale(a["out_scale"]) if quant else 1.0,
        zp=a.get("out_zero_point", 0) if quant else 0,
        qmin=a.get("out_quant_min", lo),
        qmax=a.get("out_quant_max", hi),
        row_stride=row_stride,
    )


def column_arrays(op: Operation, w: torch.Tensor, bias, plan: QGemmPlan) -> list:
    """[corr (i32), mult (f32)] (static int8), then the bias (f32), padded."""
    a, arrays = op.attrs, []
    if a.get("x_scale") is not None:
        zx = a.get("x_zero_point", 0)
        arrays.append(padded(column_sums(w) * zx, plan.np_, torch.int32))
        ws = torch.tensor(a["w_scale"], dtype=torch.float32)
        mult = torch.tensor(f32(a["x_scale"]), dtype=torch.float32) * ws
        arrays.append(padded(mult, plan.np_, torch.float32))
    if bias is not None:
        arrays.append(padded(bias, plan.np_, torch.float32))
    return arrays


def memset(k: Kernel, ptr, nbytes: int) -> None:
    void = ir.FunctionType(ir.VoidType(), [PTR, I8, ir.IntType(64), ir.IntType(1)])
    fn = k.b.module.declare_intrinsic("llvm.memset", [PTR, ir.IntType(64)], void)
    k.b.call(fn, [ptr, ir.Constant(I8, 0), i64(nbytes), ir.Constant(ir.IntType(1), 0)])


def pack_rows(k: Kernel, src, rows: int, cols: int, dst, plan: QGemmPlan, conv) -> None:
    """dst[r, c] = conv(src[r, c]) for a row-major [rows, cols] source, into A rows of
    ``plan.lda`` bytes (zeroed first: the padding columns and rows stay 0)."""
    b = k.b
    esize = 4 // plan.group
    memset(k, dst, plan.mp * plan.lda)
    src_dtype = DType.f32 if plan.dtype == "bf16" or conv is not None else DType.u8
    with for_range(b, rows, name="r") as r:
        with for_range(b, cols, name="c") as c:
            x = k.load(src, b.add(b.mul(r, i64(cols)), c), src_dtype)
            y = conv(b, x) if conv is not None else x
            off = b.add(b.mul(r, i64(plan.lda)), b.mul(c, i64(esize)))
            addr = b.gep(dst, [off], inbounds=True, source_etype=I8)
            b.store(y, addr)


def prepare_qlinear(
    op: Operation, param_data, module: Module | None, threads: int = 1
) -> Prepared:
    """Static: A = the u8 input (or its padded copy); dynamic: dynamic.py quantizes it."""
    x, w_t = op.operand_types[:2]
    n, kdim = w_t.shape
    m = x.numel() // kdim
    isa = isa_for(module, "int8")
    static = op.attrs.get("x_scale") is not None
    direct = static and isa != "amx" and kdim % 4 == 0
    plan = plan_qgemm(m, n, kdim, isa, lda=kdim if direct else None)
    w = _const(op, 1, param_data, "weight")
    bias = _const(op, 2, param_data, "bias") if len(op.operands) > 2 else None
    arrays = column_arrays(op, w, bias, plan)
    ep = epilogue_of(op, row_stride=n)
    if not static:
        from .dynamic import prepare_dynamic

        return prepare_dynamic(op, plan, ep, w, bias, threads)
    scratch = [] if direct else [plan.mp * plan.lda]

    def emit(k: Kernel) -> None:
        a = k.inp(0)
        if not direct:
            pack_rows(k, a, m, kdim, k.scratch(0), plan, None)
            a = k.scratch(0)
        params = [k.extra(i) for i in range(1, 1 + len(arrays))]
        params += [NULL] * (3 - len(params))
        qgemm_call(k, plan, ep, [k.out(), a, k.extra(0), *params], threads)

    return Prepared(emit, extra=[pack_weight(w, plan), *arrays], scratch=scratch)


def prepare_linear_bf16(
    op: Operation, param_data, module: Module | None, threads: int = 1
) -> Prepared:
    """A = the input rounded to bf16 (packed rows), B = the bf16 weight packed."""
    x, w_t = op.operand_types[:2]
    n, kdim = w_t.shape
    m = x.numel() // kdim
    plan = plan_qgemm(m, n, kdim, isa_for(module, "bf16"), dtype="bf16")
    w = _const(op, 1, param_data, "weight")
    bias = _const(op, 2, param_data, "bias") if len(op.operands) > 2 else None
    arrays = column_arrays(op, w, bias, plan)
    ep = epilogue_of(op, row_stride=n)

    def emit(k: Kernel) -> None:
        pack_rows(k, k.inp(0), m, kdim, k.scratch(0), plan, to_bf16)
        bias_ptr = k.extra(1) if arrays else NULL
        args = [k.out(), k.scratch(0), k.extra(0), NULL, NULL, bias_ptr]
        qgemm_call(k, plan, ep, args, threads)

    packed = pack_weight(w.to(torch.bfloat16), plan).view(torch.int16)
    return Prepared(emit, extra=[packed, *arrays], scratch=[plan.mp * plan.lda])


# ---- pointwise ops -------------------------------------------------------------------------
def _round_clamp(b: ir.IRBuilder, t, zp, lo: float, hi: float, dtype: DType):
    """clamp(roundeven(t) + zp, lo, hi) as `dtype` (t, zp float32)."""
    fn = b.module.declare_intrinsic("llvm.roundeven", [F32])
    r = b.fadd(b.call(fn, [t]), zp)
    r = b.select(b.fcmp_ordered("<", r, ir.Constant(F32, lo)), ir.Constant(F32, lo), r)
    r = b.select(b.fcmp_ordered(">", r, ir.Constant(F32, hi)), ir.Constant(F32, hi), r)
    return b.trunc(b.fptosi(r, I32), I8) if dtype is not DType.i32 else b.fptosi(r, I32)


def _channel_inputs(k: Kernel, op: Operation, shape: list[int], dtypes) -> list:
    axis = op.attrs.get("axis")
    if axis is None:
        return []
    per = [1] * len(shape)
    per[axis] = shape[axis]
    acc = broadcast_access(per, shape)
    return [(k.extra(i), acc, d) for i, d in enumerate(dtypes)]


def qparam_extras(op: Operation) -> list[torch.Tensor]:
    """Per-channel parameters as derived arrays: (inv scale or scale, zero point)."""
    a = op.attrs
    if a.get("axis") is None:
        return []
    if isinstance(op, ops.QuantizeOp):
        first = torch.tensor([1.0 / s for s in a["scale"]], dtype=torch.float32)
        zp = torch.tensor(a["zero_point"], dtype=torch.float32)
    else:
        first = torch.tensor(a["scale"], dtype=torch.float32)
        zp = torch.tensor(a["zero_point"], dtype=torch.int32)
    return [first, zp]


def emit_quantize(k: Kernel, op: Operation) -> None:
    a, out = op.attrs, k.out_type
    shape = list(out.shape)
    lo, hi = QRANGE[a["dtype"]]
    lo, hi = a.get("quant_min", lo), a.get("quant_max", hi)
    per = _channel_inputs(k, op, shape, (DType.f32, DType.f32))
    x_in = (k.inp(0), tensor_access(k.in_type(0), shape), DType.f32)

    def expr(b, xs):
        inv = xs[1] if per else ir.Constant(F32, inv_scale(a["scale"][0]))
        zp = xs[2] if per else ir.Constant(F32, float(a["zero_point"][0]))
        return _round_clamp(b, b.fmul(xs[0], inv), zp, float(lo), float(hi), out.dtype)

    emit_pointwise(
        k, shape, (k.out(), tensor_access(out), out.dtype), [x_in, *per], expr
    )


def emit_dequantize(k: Kernel, op: Operation) -> None:
    a, out, src = op.attrs, k.out_type, k.in_type(0).dtype
    shape = list(out.shape)
    per = _channel_inputs(k, op, shape, (DType.f32, DType.i32))
    x_in = (k.inp(0), tensor_access(k.in_type(0), shape), src)

    def expr(b, xs):
        q = xs[0]
        if src is not DType.i32:
            q = b.zext(q, I32) if src is DType.u8 else b.sext(q, I32)
        zp = xs[2] if per else ir.Constant(I32, a["zero_point"][0])
        s = xs[1] if per else ir.Constant(F32, f32(a["scale"][0]))
        return b.fmul(b.sitofp(b.sub(q, zp), F32), s)

    emit_pointwise(
        k, shape, (k.out(), tensor_access(out), out.dtype), [x_in, *per], expr
    )


def emit_round_bf16(k: Kernel, op: Operation) -> None:
    out = k.out_type
    shape = list(out.shape)

    def expr(b, xs):
        bits = b.zext(to_bf16(b, xs[0]), I32)
        return b.bitcast(b.shl(bits, ir.Constant(I32, 16)), F32)

    x_in = (k.inp(0), tensor_access(k.in_type(0), shape), DType.f32)
    emit_pointwise(k, shape, (k.out(), tensor_access(out), out.dtype), [x_in], expr)


def emit_fake_quantize_dynamic(k: Kernel, op: Operation) -> None:
    from .dynamic import emit_qparams

    n = k.out_type.numel()
    scale, inv, zp = emit_qparams(k, k.inp(0), n)

    def expr(b, xs):
        q = _round_clamp(b, b.fmul(xs[0], inv), zp, 0.0, 255.0, DType.i32)
        return b.fmul(b.fsub(b.sitofp(q, F32), zp), scale)

    flat = broadcast_access([n], [n])
    emit_pointwise(
        k, [n], (k.out(), flat, DType.f32), [(k.inp(0), flat, DType.f32)], expr
    )
