"""Float32 vector IR for one function: the small builders the GEMM emitter is made of.

``SimdBuilder`` wraps an IRBuilder positioned in a new function's entry block: i64
arithmetic that folds constants, float pointer offsets, full or masked (``llvm.masked.*``)
vector loads and stores, splats, stack buffers, and static-count loops whose carried
values are phis (the GEMM keeps its accumulators in them). gemm.py builds the loop nest.
"""

from __future__ import annotations

import llvmlite.ir as ir

__all__ = ["SimdBuilder", "F32", "I1", "I64", "PTR"]

F32 = ir.FloatType()
I1 = ir.IntType(1)
I64 = ir.IntType(64)
PTR = ir.PointerType()


class SimdBuilder:
    """IR for `fn` (emitted into its new entry block) on <width x float> vectors."""

    def __init__(self, module: ir.Module, fn: ir.Function, width: int) -> None:
        self.module, self.fn, self.width = module, fn, width
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.vec = ir.VectorType(F32, width)
        self.mask_type = ir.VectorType(I1, width)

    def alloca(self, floats: int, name: str) -> ir.Value:
        buf = self.b.alloca(ir.ArrayType(F32, floats), name=name)
        buf.align = 64
        buf.type = PTR  # llvmlite types allocas as typed pointers; LLVM 22 has ptr
        return buf

    def i64(self, value) -> ir.Value:
        return ir.Constant(I64, value) if isinstance(value, int) else value

    def add(self, *terms) -> ir.Value:
        consts = sum(t for t in terms if isinstance(t, int))
        values = [t for t in terms if not isinstance(t, int)]
        if not values:
            return self.i64(consts)
        acc = values[0]
        for v in values[1:]:
            acc = self.b.add(acc, v)
        return self.b.add(acc, self.i64(consts)) if consts else acc

    def mul(self, value, factor: int) -> ir.Value:
        if isinstance(value, int):
            return self.i64(value * factor)
        return value if factor == 1 else self.b.mul(value, self.i64(factor))

    def gep(self, ptr, offset) -> ir.Value:
        return self.b.gep(ptr, [self.i64(offset)], inbounds=True, source_etype=F32)

    def mask(self, lanes: int) -> ir.Constant:
        bits = [int(i < lanes) for i in range(self.width)]
        return ir.Constant(self.mask_type, bits)

    def intrinsic(self, name: str, ret, args) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name)
        return fn

    def call_aligned(self, fn, args, ptr_index: int) -> ir.CallInstr:
        """Masked memory intrinsics take the alignment as a pointer attribute."""
        call = self.b.call(fn, args, arg_attrs={ptr_index: ()})
        call.arg_attributes[ptr_index].align = 4
        return call

    def load_vec(self, ptr, offset, lanes: int, align: int = 4) -> ir.Value:
        addr = self.gep(ptr, offset)
        if lanes >= self.width:
            return self.b.load(addr, typ=self.vec, align=align)
        vt = self.vec
        fn = self.intrinsic(
            f"llvm.masked.load.v{self.width}f32.p0", vt, [PTR, self.mask_type, vt]
        )
        return self.call_aligned(fn, [addr, self.mask(lanes), ir.Constant(vt, None)], 0)

    def store_vec(self, value, ptr, offset, lanes: int, align: int = 4) -> None:
        addr = self.gep(ptr, offset)
        if lanes >= self.width:
            self.b.store(value, addr, align=align)
            return
        vt = self.vec
        fn = self.intrinsic(
            f"llvm.masked.store.v{self.width}f32.p0",
            ir.VoidType(),
            [vt, PTR, self.mask_type],
        )
        self.call_aligned(fn, [value, addr, self.mask(lanes)], 1)

    def splat(self, scalar) -> ir.Value:
        vw = self.width
        one = ir.VectorType(F32, 1)
        v = self.b.insert_element(ir.Constant(one, None), scalar, self.i64(0))
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), vw), [0] * vw)
        return self.b.shuffle_vector(v, ir.Constant(one, None), zeros)

    def loop(self, count: int, carried: list, body) -> list:
        """Static-count loop: ``carried = body(iv, carried)`` for iv in range(count)."""
        if count <= 0:
            return carried
        if count == 1:
            return body(self.i64(0), carried)
        b = self.b
        pre, head = b.block, b.append_basic_block("loop")
        b.branch(head)
        b.position_at_end(head)
        iv = b.phi(I64, name="i")
        phis = [b.phi(v.type) for v in carried]
        new = body(iv, phis)
        nxt = b.add(iv, self.i64(1))
        tail, end = b.block, b.append_basic_block("loop.end")
        b.cbranch(b.icmp_unsigned("<", nxt, self.i64(count)), head, end)
        iv.add_incoming(self.i64(0), pre)
        iv.add_incoming(nxt, tail)
        for phi, init, out in zip(phis, carried, new, strict=True):
            phi.add_incoming(init, pre)
            phi.add_incoming(out, tail)
        b.position_at_end(end)
        return new

    def fma(self) -> ir.Function:
        """``llvm.fma`` on <width x float>."""
        vt = self.vec
        return self.intrinsic(f"llvm.fma.v{self.width}f32", vt, [vt, vt, vt])

    def splat_i64(self, scalar) -> ir.Value:
        vw = self.width
        one = ir.VectorType(I64, 1)
        v = self.b.insert_element(ir.Constant(one, None), scalar, self.i64(0))
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), vw), [0] * vw)
        return self.b.shuffle_vector(v, ir.Constant(one, None), zeros)
