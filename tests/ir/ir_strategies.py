"""Hypothesis strategies that build random, valid Cuvil IR modules through ``Op.build()``.

``modules()`` grows each function one op at a time: a generator picks operands from the
values built so far and makes any other operand it needs (a param, an inline constant) with
a type the op's rules accept. Locations, names and dense values are drawn to be awkward:
escapes, unicode, nan/inf/-0.0, extreme integers, symbolic dims and layouts.
"""

from __future__ import annotations

import math

import torch
from hypothesis import strategies as st

from cuvil.ir import (
    UNKNOWN,
    DType,
    Function,
    FusedLoc,
    Loc,
    Module,
    SymDim,
    TensorType,
    Value,
    fuse,
)
from cuvil.ir import ops as O

__all__ = ["modules", "locs", "plain_locs", "weird_text", "dense_tensors", "FLOATS"]

FLOATS = (DType.f32, DType.f64, DType.f16, DType.bf16)
INTS = (DType.i64, DType.i32, DType.i16, DType.i8, DType.u8)
ALL_DTYPES = tuple(DType)
SPECIAL_FLOATS = (
    math.nan,
    math.inf,
    -math.inf,
    -0.0,
    0.0,
    5e-324,
    1.7976931348623157e308,
    -1e-45,
    65504.0,
    1e16,
    0.1,
    3.0,
)

weird_text = st.text(max_size=10) | st.sampled_from(
    [
        '"',
        "\\",
        "\n",
        'a"b\\c\nd',
        "\t\r",
        "ünï©ødé ✓",
        "",
        "x.y",
        "%@{}",
        "\\n",
        "\x00\x0b",
    ]
)
symbol_names = (
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.$-]{0,8}", fullmatch=True) | weird_text
)
value_names = (
    st.none() | st.from_regex(r"[A-Za-z0-9_]{1,6}", fullmatch=True) | weird_text
)
sym_dims = st.sampled_from([SymDim(), SymDim("batch"), SymDim("seq")])
numbers = st.integers(-10, 10) | st.floats() | st.sampled_from(SPECIAL_FLOATS)

plain_locs = st.builds(
    Loc,
    node=st.none() | weird_text,
    module=st.none() | weird_text,
    file=st.none() | weird_text,
    line=st.none() | st.integers(0, 10**6),
    col=st.none() | st.integers(0, 500),
)
locs = (
    st.just(UNKNOWN)
    | plain_locs
    | st.lists(plain_locs, max_size=3).map(lambda ls: FusedLoc(tuple(ls)))
    | st.lists(plain_locs, max_size=4).map(lambda ls: fuse(*ls))
)


def _elements(dtype: DType):
    if dtype.is_float:
        return st.floats() | st.sampled_from(SPECIAL_FLOATS)
    if dtype is DType.i1:
        return st.booleans()
    info = torch.iinfo(dtype.torch)
    return st.integers(info.min, info.max) | st.sampled_from([info.min, info.max, 0])


@st.composite
def dense_tensors(draw, shape: tuple[int, ...], dtype: DType) -> torch.Tensor:
    n = math.prod(shape)
    values = draw(st.lists(_elements(dtype), min_size=n, max_size=n) | _splat(dtype, n))
    return torch.tensor(values, dtype=dtype.torch).reshape(shape)


def _splat(dtype: DType, n: int):
    return _elements(dtype).map(lambda v: [v] * n)


@st.composite
def static_shapes(draw, min_rank=0, max_rank=3, max_side=4):
    return tuple(
        draw(st.lists(st.integers(0, max_side), min_size=min_rank, max_size=max_rank))
    )


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


class FunctionBuilder:
    """Grows one function: a pool of values and helpers to make operands of a given type."""

    def __init__(self, draw, module: Module, fn: Function) -> None:
        self.draw, self.module, self.fn = draw, module, fn
        self.pool: list[Value] = list(fn.args)

    def kw(self) -> dict:
        return {"loc": self.draw(locs), "name": self.draw(value_names)}

    def add(self, op):
        self.fn.append(op)
        self.pool.extend(op.results)
        return op

    def pick(self, pred=lambda t: True, any_layout: bool = False) -> Value | None:
        """A value from the pool; only contiguous ones unless the op takes any layout."""
        found = [
            v
            for v in self.pool
            if pred(v.type) and (any_layout or v.type.layout == "contiguous")
        ]
        return self.draw(st.sampled_from(found)) if found else None

    def param(self, t: TensorType) -> Value:
        name = self.draw(symbol_names)
        while name in self.module.params:
            name += "_"
        self.module.params[name] = t
        return self.add(O.ParamOp.of(self.module, name, loc=self.draw(locs))).result

    def constant(self, t: TensorType) -> Value:
        value = self.draw(dense_tensors(t.shape, t.dtype))
        return self.add(O.ConstantOp.build(value=value, **self.kw())).result

    def operand(self, t: TensorType) -> Value:
        """A value of exactly type `t`: one already built, a new param or a new constant."""
        ways = ["param"] + [v for v in self.pool if v.type == t]
        if t.is_static and t.numel() <= 16 and t.layout == "contiguous":
            ways.append("constant")
        way = self.draw(st.sampled_from(ways))
        if isinstance(way, Value):
            return way
        return self.param(t) if way == "param" else self.constant(t)

    def broadcast_partner(self, t: TensorType) -> TensorType:
        """A type that broadcasts with `t`: a suffix of its shape with some dims set to 1."""
        if t.layout != "contiguous" and self.draw(st.booleans()):
            return t
        if t.layout != "contiguous":
            return TensorType((), t.dtype)
        k = self.draw(st.integers(0, t.rank))
        dims = [1 if self.draw(st.booleans()) else d for d in t.shape[t.rank - k :]]
        # a new leading dim of 1 or 2: partners drawn for one op must broadcast together too
        lead = (
            self.draw(st.lists(st.sampled_from([1, 2]), max_size=1))
            if k == t.rank
            else []
        )
        return TensorType(tuple(lead + dims), t.dtype)


# ---- op generators: each returns a built op, or None when the pool has nothing it can use --


def gen_param(b: FunctionBuilder):
    t = _arg_type(b.draw)
    b.param(t)


def gen_constant(b: FunctionBuilder):
    shape = b.draw(static_shapes(max_side=3))
    b.constant(TensorType(shape, b.draw(st.sampled_from(ALL_DTYPES))))


def gen_unary(b: FunctionBuilder):
    x = b.pick(any_layout=True)
    classes = [*O.UNARY_OPS.values(), O.GeluOp, O.LeakyReluOp, O.LogicalNotOp]
    ok = [c for c in classes if _unary_accepts(c, x.type.dtype)]
    cls = b.draw(st.sampled_from(ok))
    attrs = {}
    if cls is O.GeluOp:
        attrs["approximate"] = b.draw(st.sampled_from(["none", "tanh"]))
    if cls is O.LeakyReluOp:
        attrs["negative_slope"] = b.draw(st.floats() | st.sampled_from(SPECIAL_FLOATS))
    return cls.build(x, **attrs, **b.kw())


def _unary_accepts(cls, dtype: DType) -> bool:
    if cls is O.LogicalNotOp:
        return dtype is DType.i1
    return dtype.is_float or not cls.FLOAT_ONLY


def gen_binary(b: FunctionBuilder):
    x = b.pick(any_layout=True)
    ok = [c for c in O.BINARY_OPS.values() if _binary_accepts(c, x.type.dtype)]
    if not ok:
        return None
    cls = b.draw(st.sampled_from(ok))
    y = b.operand(b.broadcast_partner(x.type))
    lhs, rhs = (y, x) if b.draw(st.booleans()) else (x, y)
    return cls.build(lhs, rhs, **b.kw())


def _binary_accepts(cls, dtype: DType) -> bool:
    if cls.name in ("cuvil.logical_and", "cuvil.logical_or"):
        return dtype is DType.i1
    return dtype.is_float or not cls.FLOAT_ONLY


def gen_where(b: FunctionBuilder):
    x = b.pick(any_layout=True)
    cond = b.operand(b.broadcast_partner(x.type).with_dtype(DType.i1))
    y = b.operand(b.broadcast_partner(x.type))
    return O.WhereOp.build(cond, x, y, **b.kw())


def gen_clamp(b: FunctionBuilder):
    x = b.pick(any_layout=True)
    lo, hi = b.draw(st.lists(st.none() | numbers, min_size=2, max_size=2))
    if lo is None and hi is None:
        lo = 0
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    return O.ClampOp.build(x, min=lo, max=hi, **b.kw())


def gen_cast(b: FunctionBuilder):
    dtype = b.draw(st.sampled_from(ALL_DTYPES))
    return O.CastOp.build(b.pick(any_layout=True), dtype=dtype, **b.kw())


def gen_reduce(b: FunctionBuilder):
    cls = b.draw(st.sampled_from([*O.REDUCE_OPS.values(), O.VarOp]))
    x = b.pick(lambda t: t.dtype.is_float or not cls.FLOAT_ONLY)
    if x is None:
        return None
    dims = tuple(b.draw(st.lists(st.integers(0, max(x.type.rank - 1, 0)), unique=True)))
    dims = tuple(d for d in dims if d < x.type.rank)
    attrs = {"dims": dims, "keepdim": b.draw(st.booleans())}
    if cls is O.VarOp:
        attrs["correction"] = b.draw(st.integers(0, 2))
    return cls.build(x, **attrs, **b.kw())


def gen_dim_op(b: FunctionBuilder):
    cls = b.draw(st.sampled_from([O.ArgmaxOp, O.SoftmaxOp, O.LogSoftmaxOp]))
    x = b.pick(lambda t: t.rank >= 1 and (t.dtype.is_float or cls is O.ArgmaxOp))
    if x is None:
        return None
    dim = b.draw(st.integers(0, x.type.rank - 1))
    extra = {"keepdim": b.draw(st.booleans())} if cls is O.ArgmaxOp else {}
    return cls.build(x, dim=dim, **extra, **b.kw())


def gen_reshape(b: FunctionBuilder):
    x = b.pick()
    if x is None:
        return None
    t = x.type
    if not t.is_static:
        lead = tuple(d for d in t.shape if isinstance(d, SymDim))
        return O.ReshapeOp.build(x, shape=lead + (-1,), **b.kw())
    shape = _factorize(b.draw, t.numel())
    if t.numel() and shape and b.draw(st.booleans()):
        shape[b.draw(st.integers(0, len(shape) - 1))] = -1
    return O.ReshapeOp.build(x, shape=tuple(shape), **b.kw())


def _factorize(draw, n: int) -> list[int]:
    if n == 0:
        return [0, draw(st.integers(1, 3))]
    shape, rest = [], n
    while rest > 1 and len(shape) < 3:
        d = draw(st.sampled_from(_divisors(rest)))
        shape.append(d)
        rest //= d
    if rest > 1:
        shape.append(rest)
    return draw(st.permutations(shape + draw(st.lists(st.just(1), max_size=1))))


def gen_permute(b: FunctionBuilder):
    x = b.pick()
    if x is None:
        return None
    dims = tuple(b.draw(st.permutations(range(x.type.rank))))
    return O.PermuteOp.build(x, dims=dims, **b.kw())


def gen_expand(b: FunctionBuilder):
    x = b.pick()
    if x is None:
        return None
    new = st.integers(1, 3) | sym_dims
    shape = [b.draw(new) if d == 1 else d for d in x.type.shape]
    lead = b.draw(st.lists(new, max_size=2))
    return O.ExpandOp.build(x, shape=tuple(lead + shape), **b.kw())


def gen_slice(b: FunctionBuilder):
    x = b.pick(lambda t: t.rank >= 1)
    if x is None:
        return None
    dim = b.draw(st.integers(0, x.type.rank - 1))
    size = x.type.shape[dim]
    size = size if isinstance(size, int) else b.draw(st.integers(0, 8))
    start = b.draw(st.integers(0, size))
    end = b.draw(st.integers(start, size))
    step = b.draw(st.integers(1, 3))
    return O.SliceOp.build(x, dim=dim, start=start, end=end, step=step, **b.kw())


def gen_cat(b: FunctionBuilder):
    x = b.pick(lambda t: t.rank >= 1)
    if x is None:
        return None
    dim = b.draw(st.integers(0, x.type.rank - 1))
    others = []
    for _ in range(b.draw(st.integers(0, 2))):
        shape = list(x.type.shape)
        shape[dim] = b.draw(st.integers(0, 3) | sym_dims)
        others.append(b.operand(TensorType(tuple(shape), x.type.dtype)))
    return O.CatOp.build(x, *others, dim=dim, **b.kw())


def gen_matmul(b: FunctionBuilder):
    a = b.pick(lambda t: t.rank >= 2 and t.dtype.is_float)
    if a is None:
        return None
    t = a.type
    batch = t.shape[: t.rank - 2][b.draw(st.integers(0, t.rank - 2)) :]
    k = t.shape[-1] if b.draw(st.booleans()) else b.draw(st.integers(1, 3))
    k = t.shape[-1] if isinstance(t.shape[-1], int) else k
    rhs = b.operand(TensorType((*batch, k, b.draw(st.integers(1, 4))), t.dtype))
    return O.MatmulOp.build(a, rhs, **b.kw())


def gen_linear(b: FunctionBuilder):
    x = b.pick(lambda t: t.rank >= 1 and t.dtype.is_float)
    if x is None:
        return None
    n, dtype = b.draw(st.integers(1, 4)), x.type.dtype
    w = b.operand(TensorType((n, x.type.shape[-1]), dtype))
    bias = [b.operand(TensorType((n,), dtype))] if b.draw(st.booleans()) else []
    return O.LinearOp.build(x, w, *bias, **b.kw())


def gen_conv(b: FunctionBuilder):
    cls = b.draw(st.sampled_from([O.Conv1dOp, O.Conv2dOp]))
    n = cls.SPATIAL
    x = b.pick(lambda t: t.rank == n + 2 and t.dtype.is_float and _spatial_ok(t, n))
    if x is None:
        return None
    t = x.type
    in_ch = t.shape[1] if isinstance(t.shape[1], int) else b.draw(st.integers(1, 4))
    groups = b.draw(st.sampled_from(_divisors(in_ch))) if in_ch else 1
    if in_ch == 0:
        return None
    out_ch = groups * b.draw(st.integers(1, 2))
    kernel = tuple(b.draw(st.integers(1, 3)) for _ in range(n))
    stride = tuple(b.draw(st.integers(1, 2)) for _ in range(n))
    padding = tuple(b.draw(st.integers(0, 1)) for _ in range(n))
    dilation = tuple(b.draw(st.integers(1, 2)) for _ in range(n))
    if not _window_fits(t, kernel, stride, padding, dilation):
        kernel, padding, dilation = (1,) * n, (0,) * n, (1,) * n
    w = b.operand(TensorType((out_ch, in_ch // groups, *kernel), t.dtype))
    bias = [b.operand(TensorType((out_ch,), t.dtype))] if b.draw(st.booleans()) else []
    return cls.build(
        x,
        w,
        *bias,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
        **b.kw(),
    )


def _spatial_ok(t: TensorType, n: int) -> bool:
    return all(not isinstance(d, int) or d >= 1 for d in t.shape[t.rank - n :])


def _window_fits(t, kernel, stride, padding, dilation, ceil=False) -> bool:
    n = len(kernel)
    for i, size in enumerate(t.shape[t.rank - n :]):
        if (
            isinstance(size, int)
            and O.conv_out_size(
                size, kernel[i], stride[i], padding[i], dilation[i], ceil
            )
            < 1
        ):
            return False
    return True


def gen_batch_norm(b: FunctionBuilder):
    x = b.pick(lambda t: t.rank >= 2 and t.dtype.is_float, any_layout=True)
    if x is None:
        return None
    stat = TensorType((x.type.shape[1],), x.type.dtype)
    stats = [b.operand(stat) for _ in range(b.draw(st.integers(2, 4)))]
    eps = b.draw(st.floats(1e-12, 1.0))
    return O.BatchNormOp.build(x, *stats, eps=eps, **b.kw())


def gen_layer_norm(b: FunctionBuilder):
    x = b.pick(
        lambda t: t.rank >= 1 and t.dtype.is_float and isinstance(t.shape[-1], int)
    )
    if x is None:
        return None
    shape = x.type.shape
    k = 1
    while k < len(shape) and isinstance(shape[-k - 1], int) and b.draw(st.booleans()):
        k += 1
    norm = tuple(shape[-k:])
    affine = [
        b.operand(TensorType(norm, x.type.dtype))
        for _ in range(b.draw(st.integers(0, 2)))
    ]
    return O.LayerNormOp.build(x, *affine, normalized_shape=norm, **b.kw())


def gen_pool(b: FunctionBuilder):
    cls = b.draw(
        st.sampled_from([O.MaxPool1dOp, O.MaxPool2dOp, O.AvgPool1dOp, O.AvgPool2dOp])
    )
    n = cls.SPATIAL
    x = b.pick(
        lambda t: t.rank in (n + 1, n + 2) and t.dtype.is_float and _spatial_ok(t, n),
        any_layout=True,
    )
    if x is None:
        return None
    kernel = tuple(b.draw(st.integers(1, 3)) for _ in range(n))
    stride = tuple(b.draw(st.integers(1, 3)) for _ in range(n))
    padding = tuple(b.draw(st.integers(0, k // 2)) for k in kernel)
    attrs = {
        "kernel": kernel,
        "stride": stride,
        "padding": padding,
        "ceil_mode": b.draw(st.booleans()),
    }
    dilation = (1,) * n
    if "dilation" in cls.ATTRS:
        attrs["dilation"] = dilation = tuple(
            b.draw(st.integers(1, 2)) for _ in range(n)
        )
    else:
        attrs["count_include_pad"] = b.draw(st.booleans())
        attrs["divisor_override"] = b.draw(st.none() | st.integers(1, 5))
    if not _window_fits(x.type, kernel, stride, padding, dilation, attrs["ceil_mode"]):
        return None
    return cls.build(x, **attrs, **b.kw())


def gen_adaptive_pool(b: FunctionBuilder):
    cls = b.draw(st.sampled_from([O.AdaptiveAvgPool1dOp, O.AdaptiveAvgPool2dOp]))
    n = cls.SPATIAL
    x = b.pick(lambda t: t.rank in (n + 1, n + 2) and t.dtype.is_float)
    if x is None:
        return None
    size = tuple(b.draw(st.integers(1, 3)) for _ in range(n))
    return cls.build(x, output_size=size, **b.kw())


def gen_embedding(b: FunctionBuilder):
    vocab, dim = b.draw(st.integers(1, 5)), b.draw(st.integers(1, 3))
    w = b.operand(TensorType((vocab, dim), b.draw(st.sampled_from(FLOATS))))
    idx = b.pick(lambda t: t.dtype in (DType.i64, DType.i32))
    if idx is None:
        shape = b.draw(static_shapes(max_rank=2, max_side=3))
        values = b.draw(
            st.lists(
                st.integers(0, vocab - 1),
                min_size=math.prod(shape),
                max_size=math.prod(shape),
            )
        )
        value = torch.tensor(values, dtype=torch.int64).reshape(shape)
        idx = b.add(O.ConstantOp.build(value=value, **b.kw())).result
    return O.EmbeddingOp.build(w, idx, **b.kw())


def gen_relayout(b: FunctionBuilder):
    x = b.pick(any_layout=True)
    if x is None:
        return None
    ok = ["contiguous"] + [n for n, r in _LAYOUT_RANKS.items() if r == x.type.rank]
    return O.RelayoutOp.build(x, layout=b.draw(st.sampled_from(ok)), **b.kw())


GENERATORS = [
    gen_param,
    gen_constant,
    gen_unary,
    gen_binary,
    gen_where,
    gen_clamp,
    gen_cast,
    gen_reduce,
    gen_dim_op,
    gen_reshape,
    gen_permute,
    gen_expand,
    gen_slice,
    gen_cat,
    gen_matmul,
    gen_linear,
    gen_conv,
    gen_batch_norm,
    gen_layer_norm,
    gen_pool,
    gen_adaptive_pool,
    gen_embedding,
    gen_relayout,
]


# ---- functions and modules ------------------------------------------------------------------


def _arg_type(draw) -> TensorType:
    rank = draw(st.integers(0, 4))
    dims = draw(
        st.lists(
            st.integers(1, 5) | st.just(0) | sym_dims, min_size=rank, max_size=rank
        )
    )
    dtype = draw(st.sampled_from(FLOATS * 3 + ALL_DTYPES))
    layouts = ["contiguous"] + [name for name, r in _LAYOUT_RANKS.items() if r == rank]
    return TensorType(tuple(dims), dtype, draw(st.sampled_from(layouts)))


_LAYOUT_RANKS = {"nhwc": 4, "nwc": 3, "nchw8c": 4, "nchw16c": 4}


@st.composite
def functions(draw, module: Module, name: str, max_ops: int = 10) -> Function:
    fn = Function(name)
    for _ in range(draw(st.integers(1, 3))):
        fn.add_arg(_arg_type(draw), draw(value_names) or "arg", draw(locs))
    b = FunctionBuilder(draw, module, fn)
    for _ in range(draw(st.integers(0, max_ops))):
        op = draw(st.sampled_from(GENERATORS))(b)
        if op is not None:
            b.add(op)
    fn.set_outputs(draw(st.lists(st.sampled_from(b.pool), min_size=1, max_size=3)))
    return fn


@st.composite
def modules(draw, max_functions: int = 2, max_ops: int = 10) -> Module:
    """A module that verifies: params declared before use, 1..max_functions functions."""
    module = Module(draw(symbol_names))
    names = draw(
        st.lists(symbol_names, min_size=1, max_size=max_functions, unique=True)
    )
    for name in names:
        module.add_function(draw(functions(module, name, max_ops)))
    return module
