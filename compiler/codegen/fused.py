"""Code generation for ``cuvil.fused``: one kernel for a whole fused body.

- Elementwise bodies: one pointwise loop nest over the output shape; every input is read
  broadcast (``broadcast_access``) and the body's ops become scalar expressions (the
  UNARY/BINARY tables of scalar.py), so intermediates never touch memory.
- Contraction bodies (linear / matmul / conv, then elementwise ops): the GEMM of
  gemm_ops (a channels-last conv: ``conv_nhwc``) with the elementwise tail as its ``epilogue`` on <16 x float> vectors and a
  residual ``add`` first or last in the tail as the GEMM's ``residual`` ("pre"/"post").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from llvmlite import ir

from ..errors import CodegenError
from ..ir import ops
from ..ir.core import Function, Module, Operation, Trait, Value
from ..ir.ops.fused import body_of
from ..ir.types import DType
from . import gemm_ops
from .bfloat import round_to_bf16
from .gemm_ops import NULL, conv_nhwc, float_ptr, gemm_fn
from .gemm_plan import pack_a, plan_gemm
from .im2col import ConvShape, conv_shape, im2col
from .kernel import Kernel, Prepared, const_data
from .loops import i64, loop_nest
from .parallel import gemm_call
from .pointwise import emit_pointwise, tensor_access
from .scalar import binary, emit_cast, unary

__all__ = ["prepare_fused"]


def prepare_fused(
    op: Operation, module: Module | None, param_data, threads: int = 1
) -> Prepared:
    if module is None:
        raise CodegenError("cuvil.fused needs its module to find the body function")
    body = body_of(module, op)
    if len(body.outputs) != 1:
        raise CodegenError(
            f"fused body @{body.name} has {len(body.outputs)} results; "
            "code generation supports one"
        )
    if body.ops and body.ops[0].has_trait(Trait.CONTRACTION):
        return _prepare_contraction(op, body, param_data, threads)
    consts = _scalar_constants(body, list(op.operands), param_data)
    return Prepared(lambda k: _emit_pointwise(k, op, body, consts))


# ---- elementwise bodies ---------------------------------------------------------------------
def _scalar_constants(
    body: Function, outer: list[Value], param_data
) -> dict[int, float]:
    """Body args fed by one-element float constants: their values (folded into the
    code, so e.g. ``pow(x, 3.0)`` becomes ``x*x*x``, scalar.py)."""
    out = {}
    for a, v in zip(body.args, outer, strict=True):
        data = const_data(v, param_data)
        if data is not None and data.numel() == 1 and a.type.dtype.is_float:
            out[id(a)] = float(data.reshape(-1)[0])
    return out


def _emit_pointwise(
    k: Kernel, op: Operation, body: Function, consts: dict[int, float]
) -> None:
    t = op.results[0].type
    shape = list(t.shape)
    inputs = [
        (k.inp(i), tensor_access(v.type, shape), v.type.dtype)
        for i, v in enumerate(op.operands)
    ]
    out = (k.out(), tensor_access(t), t.dtype)
    emit_pointwise(k, shape, out, inputs, lambda b, xs: _evaluate(k, body, xs, consts))


def _evaluate(
    k: Kernel, body: Function, xs: list[ir.Value], consts: dict[int, float]
) -> ir.Value:
    """The body on register values; each member op's instructions carry its own
    location, so a line breakpoint or a crash names the member (debuginfo.py). A
    bfloat16 result is rounded after each op, as eager and the unfused kernels do (a
    float register kept the chain's float value: fuzz 7021247, -log(sinh(x)) an ulp
    off, which round(decimals=1) turned into 0.1)."""
    env = {
        id(a): ir.Constant(x.type, consts[id(a)]) if id(a) in consts else x
        for a, x in zip(body.args, xs, strict=True)
    }
    for o in body.ops:
        with k.located(o.loc):
            vals = [env[id(v)] for v in o.operands]
            out = scalar_op(k.b, o, vals)
            if o.results[0].type.dtype is DType.bf16 and o.name != "cuvil.cast":
                out = round_to_bf16(k.b, out)  # each op's result, as eager's
            env[id(o.results[0])] = out
    return env[id(body.outputs[0])]


def scalar_op(b: ir.IRBuilder, o: Operation, vals: list[ir.Value]) -> ir.Value:
    """One elementwise op on register values (scalars, or vectors for epilogue ops)."""
    match o:
        case ops.ClampOp() | ops.UnaryOp():
            return unary(o.name, o.operands[0].type.dtype)(b, vals[0], o.attrs)
        case ops.BinaryOp():
            return binary(o.name, o.operands[0].type.dtype)(b, vals[0], vals[1])
        case ops.WhereOp():
            return b.select(vals[0], vals[1], vals[2])
        case ops.CastOp():
            return emit_cast(b, vals[0], o.operands[0].type.dtype, o.attrs["dtype"])
        case _:
            raise CodegenError(
                f"'{o.name}' cannot be computed inside a fused kernel",
                hint="only elementwise ops may follow in a fused body",
            )


# ---- contraction bodies ---------------------------------------------------------------------
@dataclass
class _Epilogue:
    """The elementwise tail of a contraction body, as GEMM epilogue + residual."""

    start: Value  # the contraction's result inside the body
    tail: list[Operation]
    result: Value
    residual: str | None = None
    residual_input: int = -1
    scalars: dict[int, float] = field(default_factory=dict)  # body value -> constant

    def ptr(self, k: Kernel, offset=None) -> ir.Value:
        if self.residual is None:
            return NULL
        p = k.inp(self.residual_input)
        return p if offset is None else float_ptr(k, p, offset)

    def hook(self):
        if not self.tail and self.result is self.start:
            return None

        def epilogue(b: ir.IRBuilder, vec: ir.Value, row, col) -> ir.Value:
            env = {id(self.start): vec}
            env.update(
                {key: ir.Constant(vec.type, x) for key, x in self.scalars.items()}
            )
            for o in self.tail:
                env[id(o.results[0])] = scalar_op(
                    b, o, [env[id(v)] for v in o.operands]
                )
            return env[id(self.result)]

        epilogue.cache_key = self.signature()
        return epilogue

    def signature(self) -> tuple | None:
        """What the tail computes, as a value (equal tails share one GEMM function);
        None when an operand is something other than the start, a constant or the tail."""
        token = {id(self.start): ("start",)}
        token.update({key: ("const", x) for key, x in self.scalars.items()})
        steps = []
        for i, o in enumerate(self.tail):
            if any(id(v) not in token for v in o.operands):
                return None
            attrs = tuple(sorted((k, str(v)) for k, v in o.attrs.items()))
            steps.append((o.name, attrs, tuple(token[id(v)] for v in o.operands)))
            token[id(o.results[0])] = ("tail", i)
        return (tuple(steps), token.get(id(self.result)))


def _split_tail(
    c: Operation, body: Function, outer: list[Value], param_data
) -> _Epilogue:
    index = {id(a): i for i, a in enumerate(body.args)}
    ep = _Epilogue(c.results[0], list(body.ops[1:]), body.outputs[0])
    for a, v in zip(body.args, outer, strict=True):
        data = const_data(v, param_data)
        if data is not None and data.numel() == 1 and a.type.dtype.is_float:
            ep.scalars[id(a)] = float(data.reshape(-1)[0])
    for o in ep.tail:
        if not o.has_trait(Trait.EPILOGUE) or o.results[0].type != c.results[0].type:
            raise CodegenError(f"'{o.name}' cannot run in a GEMM epilogue")
    tail = ep.tail
    if tail and (r := _residual(tail[0], ep, index, ep.start)) is not None:
        ep.residual, ep.residual_input, ep.tail = "pre", r[0], tail[1:]
        ep.start = tail[0].results[0]
    elif tail and (r := _residual(tail[-1], ep, index)) is not None:
        ep.residual, ep.residual_input, ep.tail = "post", r[0], tail[:-1]
        ep.result = r[1]
    for o in ep.tail:
        for v in o.operands:
            if id(v) in index and id(v) not in ep.scalars:
                raise CodegenError(
                    f"'{o.name}' in a GEMM epilogue reads a tensor operand; "
                    "only scalars and one residual add are supported"
                )
    return ep


def _residual(
    o: Operation, ep: _Epilogue, index, prev: Value | None = None
) -> tuple[int, Value] | None:
    """(kernel input of the residual, the chain operand) when `o` is ``add(chain, res)``."""
    if o.name != "cuvil.add":
        return None
    for mine, other in (o.operands, o.operands[::-1]):
        is_input = id(other) in index and id(other) not in ep.scalars
        chain = mine is prev if prev is not None else id(mine) not in index
        if chain and is_input and other.type == o.results[0].type:
            return index[id(other)], mine
    return None


def _prepare_contraction(
    op: Operation, body: Function, param_data, threads: int
) -> Prepared:
    c = body.ops[0]
    index = {id(a): i for i, a in enumerate(body.args)}
    if any(id(v) not in index for v in c.operands):
        raise CodegenError(f"the contraction of @{body.name} must read body arguments")
    inputs = [index[id(v)] for v in c.operands]
    outer = [op.operands[i] for i in inputs]
    ep = _split_tail(c, body, list(op.operands), param_data)
    types = [v.type for v in outer]
    if any(t.dtype is not DType.f32 for t in types):
        raise CodegenError("fused contractions need float32 operands")
    data = [const_data(v, param_data) for v in outer]
    match c:
        case ops.LinearOp():
            prep = _linear(types, data, inputs, ep, threads)
        case ops.MatmulOp():
            prep = _matmul(types, c.results[0].type, data, inputs, ep, threads)
        case _:
            prep = _conv(c, types, data, inputs, ep, threads)
    if prep is None:
        raise CodegenError(
            f"@{body.name}: no GEMM for this contraction (constant weights "
            "and non-empty shapes are needed)"
        )
    return prep


def _linear(types, data, inputs, ep: _Epilogue, threads: int) -> Prepared | None:
    tail = gemm_ops.Tail(ep.hook(), ep.residual, ep.ptr)
    return gemm_ops.linear_gemm(types[0], types[1], data[1], inputs, tail, threads)


def _matmul(types, to, data, inputs, ep: _Epilogue, threads: int) -> Prepared | None:
    tail = gemm_ops.Tail(ep.hook(), ep.residual, ep.ptr)
    return gemm_ops.matmul_gemm(types[0], types[1], to, data[1], inputs, tail, threads)


def _conv(
    c: Operation, types, data, inputs, ep: _Epilogue, threads: int
) -> Prepared | None:
    tx, tw = types[:2]
    to = c.results[0].type
    if data[1] is None or to.numel() == 0 or tx.numel() == 0:
        return None
    cs = conv_shape(c.attrs, tx, tw, to)
    if to.layout == "nhwc":
        return conv_nhwc(
            cs,
            data[1],
            threads,
            x=inputs[0],
            bias=inputs[2] if len(inputs) > 2 else None,
            epilogue=ep.hook(),
            residual=ep.residual,
            residual_input=ep.residual_input,
        )
    return _conv_nchw(cs, data[1], inputs, ep, threads)


def _conv_nchw(
    cs: ConvShape, weight: torch.Tensor, inputs, ep: _Epilogue, threads: int
) -> Prepared:
    """Per image and group, out = W_g (packed A) @ im2col(x), then the tail."""
    plan = plan_gemm(cs.og, cs.spatial_out, cs.k, b_packed=False)
    w = weight.float().reshape(cs.groups, cs.og, cs.k)
    packed = torch.cat([pack_a(w[g], plan).reshape(-1) for g in range(cs.groups)])
    per_group = packed.numel() // cs.groups
    scratch = [] if cs.direct else [cs.k * cs.spatial_out * 4]
    has_bias = len(inputs) > 2

    def emit(k: Kernel) -> None:
        def make(p):
            return gemm_fn(
                k,
                p,
                b_packed=False,
                a_packed=True,
                bias="m" if has_bias else None,
                epilogue=ep.hook(),
                residual=ep.residual,
            )

        with loop_nest(k.b, [cs.n, cs.groups], name="ng") as (nb, g):
            image = k.b.add(k.b.mul(nb, i64(cs.groups)), g)
            x_ptr = float_ptr(
                k, k.inp(inputs[0]), k.b.mul(image, i64(cs.cg * cs.spatial_in))
            )
            col = x_ptr if cs.direct else k.scratch(0)
            if not cs.direct:
                im2col(k, cs, x_ptr, col)
            c_off = k.b.mul(image, i64(cs.og * cs.spatial_out))
            a_ptr = float_ptr(k, k.extra(0), k.b.mul(g, i64(per_group)))
            bias = (
                float_ptr(k, k.inp(inputs[2]), k.b.mul(g, i64(cs.og)))
                if has_bias
                else NULL
            )
            gemm_call(
                k,
                make,
                plan,
                float_ptr(k, k.out(), c_off),
                a_ptr,
                col,
                bias,
                ep.ptr(k, c_off),
                threads,
                bias_per_row=True,
            )

    return Prepared(emit, extra=[packed], scratch=scratch)
