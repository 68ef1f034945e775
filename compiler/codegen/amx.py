"""AMX GEMMs: int8 (``tdpbusd``, u8 x s8 -> int32) and bf16 (``tdpbf16ps`` -> float32).

The kernel configures all eight tile registers as 16 rows x 64 bytes (``ldtilecfg``,
palette 1) and computes 32 x 32 output blocks with 2 x 2 accumulator tiles (tmm0-3),
two A tiles (tmm4-5: 16 rows of 64 bytes of A = 64 int8 or 32 bf16 of k) and two B
tiles (tmm6-7: 16 rows of the packed weight, qgemm.pack_weight's layout, stride 64).
The accumulators are stored to a stack block and finished by the shared vector epilogue
(qsimd.Vec.epilogue), row by row, skipping the padding rows and columns.

LLVM exposes the tile instructions as intrinsics on immediate tile numbers
(``llvm.x86.ldtilecfg``, ``tileloadd64``, ``tdpbusd``, ``tdpbf16ps``, ``tilestored64``,
``tilezero``, ``tilerelease``), which is what this emits; the ``.internal`` forms
(``x86_amx`` values, LLVM's tile register allocation) need a type llvmlite does not
have. The A buffer must hold ``plan.mp`` rows of ``plan.lda >= kp`` bytes (zero padded):
a tile load reads 16 whole rows. The OS must have granted the tile state (cpu.py).
"""

from __future__ import annotations

import llvmlite.ir as ir

from .loops import for_range
from .qgemm import QGemmPlan, new_function
from .qsimd import I8, I16, I64, PTR, V16F32, V16I32, QEpilogue, Vec

__all__ = ["emit_amx_gemm"]

_VOID = ir.VoidType()


def _tile_config(v: Vec) -> ir.Value:
    """A 64-byte tile configuration: palette 1, tiles 0-7 of 16 rows x 64 bytes."""
    b = v.b
    cfg = b.alloca(ir.ArrayType(I8, 64), name="tilecfg")
    cfg.align = 64
    b.store(ir.Constant(ir.ArrayType(I8, 64), [0] * 64), cfg)
    cfg.type = PTR  # llvmlite types allocas as typed pointers; LLVM 22 has ptr
    b.store(ir.Constant(I8, 1), v.byte_ptr(cfg, 0))
    for t in range(8):
        b.store(ir.Constant(I16, 64), v.byte_ptr(cfg, 16 + 2 * t))
        b.store(ir.Constant(I8, 16), v.byte_ptr(cfg, 48 + t))
    return cfg


class _Tiles:
    """The tile intrinsics on immediate tile numbers."""

    def __init__(self, v: Vec) -> None:
        self.v = v

    def _call(self, name: str, *args) -> None:
        fn = self.v.intrinsic(f"llvm.x86.{name}", _VOID, [a.type for a in args])
        self.v.b.call(fn, list(args))

    def config(self, cfg) -> None:
        self._call("ldtilecfg", cfg)

    def zero(self, t: int) -> None:
        self._call("tilezero", ir.Constant(I8, t))

    def load(self, t: int, ptr, stride: int) -> None:
        self._call("tileloadd64", ir.Constant(I8, t), ptr, ir.Constant(I64, stride))

    def store(self, t: int, ptr, stride: int) -> None:
        self._call("tilestored64", ir.Constant(I8, t), ptr, ir.Constant(I64, stride))

    def dot(self, name: str, c: int, a: int, b: int) -> None:
        self._call(name, *(ir.Constant(I8, x) for x in (c, a, b)))

    def release(self) -> None:
        self._call("tilerelease")


def emit_amx_gemm(
    module: ir.Module, name: str, plan: QGemmPlan, ep: QEpilogue
) -> ir.Function:
    """``void f(ptr C, ptr A, ptr B, ptr corr, ptr mult, ptr bias)`` on AMX tiles."""
    fn = new_function(module, name, 6)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    v = Vec(b)
    v.out_ptr, a, bp = fn.args[0], fn.args[1], fn.args[2]
    tiles = _Tiles(v)
    tiles.config(_tile_config(v))
    cbuf = b.alloca(ir.ArrayType(I8, 4096), name="ctiles")
    cbuf.align = 64
    cbuf.type = PTR
    with for_range(b, plan.np_ // 32, name="jt") as jt:
        with for_range(b, plan.mp // 32, name="it") as it:
            _block(v, tiles, plan, a, bp, it, jt)
            for t in range(4):
                tiles.store(t, v.byte_ptr(cbuf, t * 1024), 64)
            _finish(v, plan, ep, cbuf, it, jt, tuple(fn.args[3:6]))
    tiles.release()
    b.ret_void()
    return fn


def _block(v: Vec, tiles: _Tiles, plan: QGemmPlan, a, bp, it, jt) -> None:
    """The 2 x 2 accumulator tiles of output block (it, jt) over all of k."""
    rows_per_panel = plan.kp // plan.group  # 64-byte rows of one 16-column B panel
    chunk = 64 // (4 // plan.group)  # k per tile (64 int8 / 32 bf16)
    op = "tdpbusd" if plan.dtype == "int8" else "tdpbf16ps"
    for t in range(4):
        tiles.zero(t)
    with for_range(v.b, plan.kp // chunk, name="kt") as kt:
        k_bytes = v.mul(kt, 64)
        for half in range(2):
            row = v.add(v.mul(it, 32), 16 * half)
            tiles.load(
                4 + half, v.byte_ptr(a, v.add(v.mul(row, plan.lda), k_bytes)), plan.lda
            )
            panel = v.add(v.mul(jt, 2), half)
            offset = v.mul(v.add(v.mul(panel, rows_per_panel), v.mul(kt, 16)), 64)
            tiles.load(6 + half, v.byte_ptr(bp, offset), 64)
        for t in range(4):
            tiles.dot(op, t, 4 + t // 2, 6 + t % 2)


def _finish(v: Vec, plan: QGemmPlan, ep: QEpilogue, cbuf, it, jt, params) -> None:
    """The epilogue of each stored accumulator row that is inside [m] x [n]."""
    b = v.b
    acc_type = V16I32 if plan.dtype == "int8" else V16F32
    cols_full = plan.n % 32 == 0
    for t in range(4):
        col = v.mul(v.add(v.mul(jt, 2), t % 2), 16)
        lanes = b.sub(ir.Constant(I64, plan.n), col)
        with for_range(b, 16, name="rr") as rr:
            row = v.add(v.add(v.mul(it, 32), 16 * (t // 2)), rr)
            inside = b.icmp_signed("<", row, ir.Constant(I64, plan.m))
            if not cols_full:
                inside = b.and_(inside, b.icmp_signed(">", lanes, ir.Constant(I64, 0)))
            with b.if_then(inside):
                acc = v.load(acc_type, cbuf, v.add(t * 1024, v.mul(rr, 64)), align=64)
                mask = None if cols_full else v.lane_mask(lanes)
                v.epilogue(ep, acc, params, row, col, mask, cols_full)
