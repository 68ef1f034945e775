"""Kernels of the indexing ops (index, index_put, gather, scatter) and the index check.

Every index a kernel loads is checked with one unsigned compare against its dim's size
(after wrapping negatives for the ops that allow them). On a violation the kernel calls
``cuvil_index_error(kernel, index, dim, size)``, which records the first violation of a
call in the module's status word ``i64 cuvil_status[5]`` (flag, kernel number, index,
dim, size; the dim word carries ``WRAP_FLAG`` when negatives count from the end, so the
message can state the valid range), and returns; the runtime raises a CuvilRuntimeError naming the op and node
(runtime/status.py). No load or store ever uses an unchecked index.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from llvmlite import ir

from ..errors import CodegenError
from ..ir.core import Operation
from ..ir.ops.indexing import index_shape
from ..ir.types import DType, TensorType, broadcast_shapes
from .kernel import Kernel, contiguous_strides
from .loops import I64, for_range, i64, linear_offset, loop_nest
from .scalar import binary

__all__ = [
    "STATUS_SYMBOL",
    "STATUS_WORDS",
    "WRAP_FLAG",
    "checked_index",
    "check_all",
    "unchecked_indices",
    "emit_index",
    "emit_index_put",
    "emit_gather",
    "emit_scatter",
]

STATUS_SYMBOL = "cuvil_status"
STATUS_WORDS = 5  # flag, kernel number, index, dim, size
WRAP_FLAG = 1 << 32  # or-ed into the dim word: the op accepts [-size, size)
_REPORT = "cuvil_index_error"
_UNCHECKED: ContextVar[bool] = ContextVar("cuvil_unchecked_indices", default=False)


@contextmanager
def unchecked_indices() -> Iterator[None]:
    """Builds in this block emit no index checks: only benchmarks/index_checks.py uses
    it, to measure what the checks cost. Not an option: an unchecked build reads out of
    bounds on a bad index. (Its LLVM IR differs, so the object cache keeps it apart.)"""
    token = _UNCHECKED.set(True)
    try:
        yield
    finally:
        _UNCHECKED.reset(token)


def _status(llmod: ir.Module) -> ir.GlobalVariable:
    if STATUS_SYMBOL in llmod.globals:
        return llmod.globals[STATUS_SYMBOL]
    arr = ir.ArrayType(I64, STATUS_WORDS)
    g = ir.GlobalVariable(llmod, arr, name=STATUS_SYMBOL)
    g.initializer = ir.Constant(arr, None)
    return g


def _report_fn(llmod: ir.Module) -> ir.Function:
    """``void cuvil_index_error(i64 kernel, i64 index, i64 dim, i64 size)``: records
    the violation unless one is recorded already (the first one is reported)."""
    if _REPORT in llmod.globals:
        return llmod.globals[_REPORT]
    fn = ir.Function(llmod, ir.FunctionType(ir.VoidType(), [I64] * 4), _REPORT)
    fn.linkage = "internal"
    fn.attributes.add("cold")
    fn.attributes.add("noinline")
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    status = _status(llmod)
    slots = [b.gep(status, [i64(0), i64(j)], inbounds=True) for j in range(5)]
    with b.if_then(b.icmp_signed("==", b.load(slots[0]), i64(0))):
        for slot, v in zip(slots, [i64(1), *fn.args]):
            b.store(v, slot)
    b.ret_void()
    return fn


def _kernel_number(k: Kernel) -> int:
    m = re.match(r"cuvil_k(\d+)_", k.fn.name)
    return int(m.group(1)) if m else -1


def _wrapped(b: ir.IRBuilder, raw: ir.Value, size: int, wrap: bool) -> ir.Value:
    v = b.sext(raw, I64) if raw.type != I64 else raw
    if wrap:
        v = b.select(b.icmp_signed("<", v, i64(0)), b.add(v, i64(size)), v)
    return v


def checked_index(
    k: Kernel, raw: ir.Value, size: int, dim: int, wrap: bool = False, check=True
) -> ir.Value:
    """`raw` (an index loaded from memory) as an i64 in [0, size); negative ones count
    from the end with `wrap`. Out of range: report and return from the kernel. Without
    `check` only the wrap: the index tensor was validated whole by `check_all`."""
    b = k.b
    v = _wrapped(b, raw, size, wrap)
    if not check or _UNCHECKED.get():
        return v
    bad = b.icmp_unsigned(">=", v, i64(size))
    with b.if_then(bad, likely=False):
        dim_word = dim | (WRAP_FLAG if wrap else 0)
        raw64 = b.sext(raw, I64) if raw.type != I64 else raw
        args = [i64(_kernel_number(k)), raw64, i64(dim_word), i64(size)]
        b.call(_report_fn(k.fn.module), args)
        b.ret_void()
    return v


def check_all(k: Kernel, operand: int, size: int, dim: int, wrap: bool) -> None:
    """The check hoisted out of the kernel's loops: one pass over index tensor `operand`
    ors together "out of range" for every element (no branch, so LLVM vectorizes it);
    only when one is bad a second pass finds and reports the first. The loops after it
    use ``checked_index(..., check=False)``: each index is compared once, not once per
    element of the output that reads it."""
    if _UNCHECKED.get():
        return
    t, b = k.in_type(operand), k.b
    acc = k.alloca(ir.IntType(1), ir.Constant(ir.IntType(1), 0), name="badidx")
    with for_range(b, t.numel(), name="chk") as i:
        v = _wrapped(b, k.load(k.inp(operand), i, t.dtype), size, wrap)
        b.store(b.or_(b.load(acc), b.icmp_unsigned(">=", v, i64(size))), acc)
    with b.if_then(b.load(acc), likely=False):
        with for_range(b, t.numel(), name="rep") as i:
            checked_index(k, k.load(k.inp(operand), i, t.dtype), size, dim, wrap)


def _static(k: Kernel, *types: TensorType) -> None:
    for t in types:
        if not t.is_static:
            raise CodegenError(f"{k.op.name} needs static shapes, got {t}")


def _copy(k: Kernel, t: TensorType) -> None:
    """out = operand 0 (the tensor an index_put/scatter writes into)."""
    with for_range(k.b, t.numel(), name="cp") as i:
        k.store(k.load(k.inp(0), i, t.dtype), k.out(), i, t.dtype)


def _broadcast_strides(shape: Sequence[int], to: Sequence[int]) -> list[int]:
    """Element strides of a contiguous `shape` broadcast (right-aligned) to `to`."""
    st = contiguous_strides(shape)
    pad = len(to) - len(shape)
    return [0] * pad + [0 if n == 1 else s for n, s in zip(shape, st)]


_BOOL_COMBINE = {"add": "or_", "mul": "and_", "max": "or_", "min": "and_"}
_COMBINE = {
    "add": "cuvil.add",
    "mul": "cuvil.mul",
    "max": "cuvil.maximum",
    "min": "cuvil.minimum",
}


def _combine(b: ir.IRBuilder, reduce: str, old: ir.Value, new: ir.Value, dtype: DType):
    """scatter_reduce's combination of the element there with the one scattered."""
    if dtype is DType.i1:
        return getattr(b, _BOOL_COMBINE[reduce])(old, new)
    return binary(_COMBINE[reduce], dtype)(b, old, new)


@contextmanager
def _index_walk(k: Kernel, x: TensorType, dims: list[int], first: int, wrap=True):
    """Loops over the shape of ``x[indices]`` (operands first.. are the index tensors);
    yields (position in that shape, element offset into a contiguous x)."""
    idx_t = [k.in_type(first + j) for j in range(len(dims))]
    bshape = broadcast_shapes(*(t.shape for t in idx_t))
    target = index_shape(x.shape, dims, bshape)
    rest = [d for d in range(x.rank) if d not in dims]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    at, nb = (dims[0] if adjacent else 0), len(bshape)
    xst = contiguous_strides(x.shape)
    for j, d in enumerate(dims):
        check_all(k, first + j, x.shape[d], d, wrap)
    with loop_nest(k.b, list(target), name="ix") as pos:
        bpos = pos[at : at + nb]
        rpos = pos[:at] + pos[at + nb :]
        off = linear_offset(k.b, rpos, [xst[d] for d in rest])
        for j, (d, t) in enumerate(zip(dims, idx_t)):
            ioff = linear_offset(k.b, bpos, _broadcast_strides(t.shape, bshape))
            raw = k.load(k.inp(first + j), ioff, t.dtype)
            v = checked_index(k, raw, x.shape[d], d, wrap=wrap, check=False)
            term = k.b.mul(v, i64(xst[d])) if xst[d] != 1 else v
            off = k.b.add(off, term)
        yield pos, target, off


def emit_index(k: Kernel, op: Operation) -> None:
    x = k.in_type(0)
    _static(k, x, k.out_type, *op.operand_types[1:])
    dims = list(op.attrs["dims"])
    ost = contiguous_strides(k.out_type.shape)
    wrap = bool(op.attrs.get("wrap", True))
    with _index_walk(k, x, dims, 1, wrap) as (pos, _, off):
        v = k.load(k.inp(0), off, x.dtype)
        k.store(v, k.out(), linear_offset(k.b, pos, ost), x.dtype)


def emit_index_put(k: Kernel, op: Operation) -> None:
    x, vals = k.in_type(0), k.in_type(1)
    _static(k, x, vals, *op.operand_types[2:])
    dims, acc = list(op.attrs["dims"]), bool(op.attrs.get("accumulate", False))
    wrap = bool(op.attrs.get("wrap", True))
    _copy(k, x)
    with _index_walk(k, x, dims, 2, wrap) as (pos, target, off):
        voff = linear_offset(k.b, pos, _broadcast_strides(vals.shape, target))
        v = k.load(k.inp(1), voff, x.dtype)
        if acc:
            v = _combine(k.b, "add", k.load(k.out(), off, x.dtype), v, x.dtype)
        k.store(v, k.out(), off, x.dtype)


def _along(k: Kernel, x: TensorType, it: TensorType, dim: int, pos) -> ir.Value:
    """The offset into contiguous x of `pos` with pos[dim] replaced by index[pos]."""
    raw = k.load(
        k.inp(1), linear_offset(k.b, pos, contiguous_strides(it.shape)), it.dtype
    )
    v = checked_index(k, raw, x.shape[dim], dim, check=False)
    xst = contiguous_strides(x.shape)
    others = [p for d, p in enumerate(pos) if d != dim]
    off = linear_offset(k.b, others, [s for d, s in enumerate(xst) if d != dim])
    return k.b.add(off, k.b.mul(v, i64(xst[dim])))


def emit_gather(k: Kernel, op: Operation) -> None:
    x, it = k.in_type(0), k.in_type(1)
    _static(k, x, it)
    dim = op.attrs["dim"]
    check_all(k, 1, x.shape[dim], dim, wrap=False)
    with loop_nest(k.b, list(it.shape), name="g") as pos:
        v = k.load(k.inp(0), _along(k, x, it, dim, pos), x.dtype)
        k.store(
            v, k.out(), linear_offset(k.b, pos, contiguous_strides(it.shape)), x.dtype
        )


def emit_scatter(k: Kernel, op: Operation) -> None:
    x, it, src = k.in_type(0), k.in_type(1), k.in_type(2)
    _static(k, x, it, src)
    dim, reduce = op.attrs["dim"], op.attrs.get("reduce", "none")
    check_all(k, 1, x.shape[dim], dim, wrap=False)
    _copy(k, x)
    with loop_nest(k.b, list(it.shape), name="s") as pos:
        off = _along(k, x, it, dim, pos)
        v = k.load(
            k.inp(2), linear_offset(k.b, pos, contiguous_strides(src.shape)), x.dtype
        )
        if reduce != "none":
            v = _combine(k.b, reduce, k.load(k.out(), off, x.dtype), v, x.dtype)
        k.store(v, k.out(), off, x.dtype)
