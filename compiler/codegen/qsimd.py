"""Vector IR for the int8 / bf16 kernels: 16-lane types, masked stores, the
requantizing epilogue (qgemm.py, amx.py and bf16gemm.py share it).

The epilogue is the float32 arithmetic of ``cuvil.qlinear`` (ir/ops/quant_linalg.py) in
the same order, with no contraction into FMAs, so a kernel's result equals the op's
reference bit for bit: ``acc - corr`` (the zero point times the weight's column sum),
``sitofp``, ``* mult``, ``+ bias``, clamp, then for an int8 result ``* inv``,
``llvm.roundeven``, ``+ zp``, clamp to the quant range, ``fptosi``, ``trunc``.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

__all__ = [
    "I8",
    "I16",
    "I32",
    "I64",
    "F32",
    "PTR",
    "V16I32",
    "V16F32",
    "V64I8",
    "BF16",
    "QEpilogue",
    "Vec",
    "counted_loop",
]

I1, I8, I16, I32, I64 = (ir.IntType(n) for n in (1, 8, 16, 32, 64))
F32 = ir.FloatType()
PTR = ir.PointerType()
V16I32 = ir.VectorType(I32, 16)
V16F32 = ir.VectorType(F32, 16)
V64I8 = ir.VectorType(I8, 64)
V16I1 = ir.VectorType(I1, 16)


class _BFloat(ir.Type):
    """LLVM's ``bfloat`` (llvmlite has no class for it): the AVX512-BF16 intrinsics'
    operand element type; values are made by bitcasting i16 / i32 vectors."""

    def _to_string(self) -> str:
        return "bfloat"

    def __eq__(self, other) -> bool:
        return isinstance(other, _BFloat)

    def __hash__(self) -> int:
        return hash("bfloat")


BF16 = _BFloat()


@dataclass(frozen=True)
class QEpilogue:
    """What a quantized GEMM does with each int32 (or float32) accumulator vector.

    out: i32 | f32 | u8 | i8; corr: subtract the i32 per-column correction; mult:
    multiply by the float32 per-column scale products; bias: add the per-column bias;
    inv/zp/qmin/qmax: requantization (u8, i8); C element (i, j) is at
    ``C + i*row_stride + j`` (16-lane stores, masked at the edge)."""

    out: str = "f32"
    corr: bool = True
    mult: bool = True  # multiply by the per-column scale products (int8)
    bias: bool = False
    clamp_min: float | None = None
    clamp_max: float | None = None
    inv: float = 1.0
    zp: int = 0
    qmin: int = 0
    qmax: int = 255
    row_stride: int = 0

    @property
    def out_type(self) -> ir.Type:
        return {"i32": I32, "f32": F32, "u8": I8, "i8": I8}[self.out]

    @property
    def out_bytes(self) -> int:
        return {"i32": 4, "f32": 4, "u8": 1, "i8": 1}[self.out]


class Vec:
    """Helpers over one IRBuilder: pointers, loads, stores, intrinsics, the epilogue."""

    def __init__(self, b: ir.IRBuilder) -> None:
        self.b = b
        self.module = b.module

    def const(self, value) -> ir.Value:
        return ir.Constant(I64, value) if isinstance(value, int) else value

    def byte_ptr(self, ptr, offset) -> ir.Value:
        return self.b.gep(ptr, [self.const(offset)], inbounds=True, source_etype=I8)

    def add(self, a, b) -> ir.Value:
        if isinstance(a, int) and isinstance(b, int):
            return self.const(a + b)
        if isinstance(b, int) and b == 0:
            return self.const(a)
        return self.b.add(self.const(a), self.const(b))

    def mul(self, a, factor: int) -> ir.Value:
        if isinstance(a, int):
            return self.const(a * factor)
        return a if factor == 1 else self.b.mul(a, self.const(factor))

    def intrinsic(self, name: str, ret, args) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name)
        return fn

    def call(self, name: str, ret, args: list) -> ir.Value:
        return self.b.call(self.intrinsic(name, ret, [a.type for a in args]), args)

    def load(self, typ, ptr, byte_offset, align: int = 1) -> ir.Value:
        return self.b.load(self.byte_ptr(ptr, byte_offset), typ=typ, align=align)

    def splat(self, scalar: ir.Value, lanes: int = 16) -> ir.Value:
        one = ir.VectorType(scalar.type, 1)
        v = self.b.insert_element(ir.Constant(one, None), scalar, ir.Constant(I32, 0))
        zeros = ir.Constant(ir.VectorType(I32, lanes), [0] * lanes)
        return self.b.shuffle_vector(v, ir.Constant(one, None), zeros)

    def vconst(self, typ, value) -> ir.Constant:
        return ir.Constant(ir.VectorType(typ, 16), [value] * 16)

    def lane_mask(self, lanes) -> ir.Value:
        """<16 x i1>: lane < `lanes` (an int, or an i64 value at run time)."""
        if isinstance(lanes, int):
            return ir.Constant(V16I1, [int(i < lanes) for i in range(16)])
        iota = ir.Constant(ir.VectorType(I64, 16), list(range(16)))
        return self.b.icmp_signed("<", iota, self.splat(lanes))

    # ---- stores --------------------------------------------------------------------
    def store(self, value, ptr, byte_offset, mask, full: bool) -> None:
        """A 16-lane vector to consecutive elements; `mask` (<16 x i1>) unless `full`."""
        addr = self.byte_ptr(ptr, byte_offset)
        if full:
            self.b.store(value, addr, align=1)
            return
        vt = value.type
        if vt.element == I8:
            return self._store_bytes(value, addr, mask)
        name = f"llvm.masked.store.v16{_suffix(vt.element)}.p0"
        fn = self.intrinsic(name, ir.VoidType(), [vt, PTR, V16I1])
        call = self.b.call(fn, [value, addr, mask], arg_attrs={1: ()})
        call.arg_attributes[1].align = 1

    def _store_bytes(self, value, addr, mask) -> None:
        """The edge of an int8 result, one byte per lane: LLVM 22 turns a masked
        ``<16 x i8>`` store of a truncated vector with one lane set into a 4-byte
        ``vmovss`` on AVX-512 targets (it overwrote the next row's first bytes)."""
        b = self.b
        known = getattr(mask, "constant", None)
        lanes = [bool(c.constant) for c in known] if isinstance(known, list) else None
        for lane in range(16):
            if lanes is not None and not lanes[lane]:
                continue
            byte = b.extract_element(value, ir.Constant(I32, lane))
            at = self.byte_ptr(addr, lane)
            if lanes is not None:
                b.store(byte, at)
                continue
            with b.if_then(b.extract_element(mask, ir.Constant(I32, lane))):
                b.store(byte, at)

    # ---- the epilogue ----------------------------------------------------------------
    def epilogue(self, ep: QEpilogue, acc, params, row, col, mask, full) -> None:
        """Finish one accumulator vector (16 columns from `col`, of row `row`) and store
        it. `params` = (corr, mult, bias) pointers to per-column arrays (padded to 16);
        `acc` is <16 x i32>, or <16 x float> for bf16 kernels (no corr then)."""
        b = self.b
        corr, mult, bias = params
        if ep.corr:
            acc = b.sub(acc, self.load(V16I32, corr, self.mul(col, 4)))
        if ep.out == "i32":
            return self._put(ep, acc, row, col, mask, full)
        y = acc if acc.type == V16F32 else b.sitofp(acc, V16F32)
        if ep.mult:
            y = b.fmul(y, self.load(V16F32, mult, self.mul(col, 4)))
        if ep.bias:
            y = b.fadd(y, self.load(V16F32, bias, self.mul(col, 4)))
        y = self.clamp(y, ep.clamp_min, ep.clamp_max)
        if ep.out == "f32":
            return self._put(ep, y, row, col, mask, full)
        t = b.fmul(y, self.vconst(F32, ep.inv))
        t = self.call("llvm.roundeven.v16f32", V16F32, [t])
        t = b.fadd(t, self.vconst(F32, float(ep.zp)))
        t = self.clamp(t, float(ep.qmin), float(ep.qmax))
        q = b.trunc(b.fptosi(t, V16I32), ir.VectorType(I8, 16))
        return self._put(ep, q, row, col, mask, full)

    def clamp(self, y, lo: float | None, hi: float | None) -> ir.Value:
        """torch.clamp on non-NaN values: a compare and a select per bound."""
        b = self.b
        if lo is not None:
            c = self.vconst(F32, lo)
            y = b.select(b.fcmp_ordered("<", y, c), c, y)
        if hi is not None:
            c = self.vconst(F32, hi)
            y = b.select(b.fcmp_ordered(">", y, c), c, y)
        return y

    def _put(self, ep: QEpilogue, value, row, col, mask, full) -> None:
        first = self.add(self.mul(row, ep.row_stride), col)
        self.store(value, self.out_ptr, self.mul(first, ep.out_bytes), mask, full)

    out_ptr: ir.Value  # set by the kernel that uses the epilogue


def _suffix(t: ir.Type) -> str:
    return "f32" if t == F32 else f"i{t.width}"


def counted_loop(b: ir.IRBuilder, count: int, carried: list, body) -> list:
    """``carried = body(iv, carried)`` for iv in range(count), the carried values in
    phis (the accumulators of a micro-kernel); `count` is known at compile time."""
    if count <= 0:
        return carried
    if count == 1:
        return body(ir.Constant(I64, 0), carried)
    pre, head = b.block, b.append_basic_block("k.loop")
    b.branch(head)
    b.position_at_end(head)
    iv = b.phi(I64, name="k")
    phis = [b.phi(v.type) for v in carried]
    new = body(iv, phis)
    nxt = b.add(iv, ir.Constant(I64, 1))
    tail, end = b.block, b.append_basic_block("k.end")
    b.cbranch(b.icmp_unsigned("<", nxt, ir.Constant(I64, count)), head, end)
    iv.add_incoming(ir.Constant(I64, 0), pre)
    iv.add_incoming(nxt, tail)
    for phi, init, out in zip(phis, carried, new, strict=True):
        phi.add_incoming(init, pre)
        phi.add_incoming(out, tail)
    b.position_at_end(end)
    return new
