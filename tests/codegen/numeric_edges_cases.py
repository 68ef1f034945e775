"""The table of test_numeric_edges.py: elementwise ops and reductions, the edge inputs
they are swept over, and how a compiled result is compared with eager.

Edge values: +-0, +-denormal (1e-40), +-1e38, +-inf, nan, +-1. Unary ops see each value
(repeated so vector bodies and scalar tails both meet each one); binary ops see every
pair; reductions see rows of one repeated edge value, mixed rows (nan among numbers,
+inf with -inf, two 1e38s, signed zeros) and rows with a large common offset.

Comparison (``mismatches``): NaN at the same positions, the same infinities, the same
sign bit wherever eager's result is zero, finite values within rtol 1e-4 / atol 1e-5
(``TOLERANCE`` lists the ops that document their own). ``EAGER_PATHS_DISAGREE`` and
``EXCEPTIONS`` list, each with why, where eager is not one answer or Cuvil differs.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

EDGES = [
    0.0,
    -0.0,
    1e-40,
    -1e-40,
    1e38,
    -1e38,
    math.inf,
    -math.inf,
    math.nan,
    1.0,
    -1.0,
]


def unary_input(repeat: int = 7) -> torch.Tensor:
    """Each edge value `repeat` times (77 elements: vector bodies and tails)."""
    return torch.tensor(EDGES, dtype=torch.float32).repeat(repeat)


def binary_inputs() -> tuple[torch.Tensor, torch.Tensor]:
    """Every (a, b) pair of edge values, as two flat tensors of 121 elements."""
    e = torch.tensor(EDGES, dtype=torch.float32)
    return e.repeat_interleave(len(EDGES)), e.repeat(len(EDGES))


def reduction_input() -> torch.Tensor:
    """Rows of 8: one per edge value repeated, then mixed rows."""
    rows = [[v] * 8 for v in EDGES]
    rows += [
        [1.0, 2.0, math.nan, 3.0, 4.0, 5.0, 6.0, 7.0],
        [math.inf, -math.inf, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        [1e38, 1e38, 1e38, 1e38, -1.0, 0.0, 1.0, 2.0],
        [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0],
        [1e8] * 8,
        [1e4 + 0.5 * j for j in range(8)],
        [-1e4 - 0.25 * j for j in range(8)],
        [1e-40, -1e-40, 1e-40, 3e-40, 0.0, -0.0, 1e-40, 2e-40],
        [math.inf] * 4 + [1.0] * 4,
        [-math.inf] * 4 + [1.0] * 4,
    ]
    return torch.tensor(rows, dtype=torch.float32)


UNARY = {
    "neg": torch.neg,
    "abs": torch.abs,
    "relu": torch.relu,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "erf": torch.erf,
    "sin": torch.sin,
    "cos": torch.cos,
    "reciprocal": torch.reciprocal,
    "silu": F.silu,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "round": torch.round,
    "trunc": torch.trunc,
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "leaky_relu": F.leaky_relu,
    "elu": F.elu,
    "selu": F.selu,
    "celu": F.celu,
    "softplus": F.softplus,
    "mish": F.mish,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "hardtanh": F.hardtanh,
    "relu6": F.relu6,
    "hardshrink": F.hardshrink,
    "softshrink": F.softshrink,
    "logsigmoid": F.logsigmoid,
    "square": torch.square,
    "sign": torch.sign,
    "sgn": torch.sgn,
    "nan_to_num": torch.nan_to_num,
    "clamp": lambda x: torch.clamp(x, -2.0, 2.0),
    "clamp_min": lambda x: torch.clamp_min(x, 0.5),
    "tan": torch.tan,
    "atan": torch.atan,
    "asin": torch.asin,
    "acos": torch.acos,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "asinh": torch.asinh,
    "acosh": torch.acosh,
    "atanh": torch.atanh,
    "log2": torch.log2,
    "log10": torch.log10,
    "exp2": torch.exp2,
    "erfc": torch.erfc,
    "frac": torch.frac,
    "mul2": lambda x: x * 2.0,
    "add1": lambda x: x + 1.0,
    "div3": lambda x: x / 3.0,
    "pow2": lambda x: torch.pow(x, 2.0),
    "pow0.5": lambda x: torch.pow(x, 0.5),
    "isnan": torch.isnan,
    "isinf": torch.isinf,
    "isfinite": torch.isfinite,
    "signbit": torch.signbit,
    "to_int32": lambda x: x.to(torch.int32),
    "to_int64": lambda x: x.to(torch.int64),
    "to_uint8": lambda x: x.to(torch.uint8),
    "to_bool": lambda x: x.to(torch.bool),
    "to_float16": lambda x: x.to(torch.float16),
    "to_float64": lambda x: x.to(torch.float64),
}

BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "pow": torch.pow,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "fmax": torch.fmax,
    "fmin": torch.fmin,
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
    "gt": torch.gt,
    "ge": torch.ge,
    "atan2": torch.atan2,
    "fmod": torch.fmod,
    "remainder": torch.remainder,
    "copysign": torch.copysign,
    "hypot": torch.hypot,
    "floor_divide": torch.floor_divide,
    "xlogy": torch.xlogy,
    "logaddexp": torch.logaddexp,
    "where_gt": lambda a, b: torch.where(a > b, a, b),
    "lerp": lambda a, b: torch.lerp(a, b, 0.5),
}

REDUCTIONS = {
    "sum": lambda x: x.sum(dim=1),
    "mean": lambda x: x.mean(dim=1),
    "amax": lambda x: x.amax(dim=1),
    "amin": lambda x: x.amin(dim=1),
    "max": lambda x: x.max(dim=1).values,
    "min": lambda x: x.min(dim=1).values,
    "prod": lambda x: x.prod(dim=1),
    "var": lambda x: x.var(dim=1),
    "std": lambda x: x.std(dim=1),
    "argmax": lambda x: x.argmax(dim=1),
    "argmin": lambda x: x.argmin(dim=1),
    "softmax": lambda x: torch.softmax(x, dim=1),
    "log_softmax": lambda x: torch.log_softmax(x, dim=1),
    "logsumexp": lambda x: torch.logsumexp(x, dim=1),
    "norm": lambda x: torch.linalg.vector_norm(x, dim=1),
    "layer_norm": lambda x: F.layer_norm(x, (8,)),
    "cumsum": lambda x: torch.cumsum(x, dim=1),
    "sum_all": lambda x: x.sum(),
    "amax_all": lambda x: x.amax(),
}

# op: (rtol, atol, why) - ops that document their own tolerance (none needs one today)
TOLERANCE: dict[str, tuple[float, float, str]] = {}

# Ops whose eager result depends on which of torch's CPU loops ran: its vectorized loop
# (the body of a tensor) and its scalar loop (the tail, short tensors) disagree at these
# edges. Cuvil must match one of the two at each element; where they agree, that one.
EAGER_PATHS_DISAGREE = {
    "gelu": "gelu(inf): the vectorized erf path gives nan, the scalar path (and Cuvil) inf",
    "maximum": "maximum(+0, -0): the vectorized path returns the second operand (-0), "
    "the scalar path and Cuvil IEEE 754-2019's +0 (and minimum(-0, +0) = -0)",
    "minimum": "see maximum",
    "fmod": "fmod(x, denormal): the vectorized path divides first (x/1e-40 overflows to "
    "inf, so nan); the scalar path and Cuvil compute C's exact fmod",
    "remainder": "as fmod",
    "softshrink": "softshrink(-0) and softshrink(-denormal): the vectorized path gives "
    "+0 (so does Cuvil), the scalar path x * 0 = -0",
}

# (op, row of reduction_input()): (why) - compared nowhere, each one explained
EXCEPTIONS: dict[tuple[str, int], str] = {}  # none today


def bad_mask(name: str, want: torch.Tensor, got: torch.Tensor) -> torch.Tensor:
    """True where Cuvil's `got` differs from eager's `want` (the module doc's rules)."""
    if not want.is_floating_point():
        return want != got
    rtol, atol, _ = TOLERANCE.get(name, (1e-4, 1e-5, ""))
    w, g = want.double(), got.double()
    nan_diff = torch.isnan(w) != torch.isnan(g)
    both = ~torch.isnan(w) & ~torch.isnan(g)
    inf_diff = both & (torch.isinf(w) | torch.isinf(g)) & (w != g)
    zero_sign = both & (w == 0) & (g == 0) & (torch.signbit(w) != torch.signbit(g))
    finite = both & torch.isfinite(w) & torch.isfinite(g)
    value = finite & ((w - g).abs() > atol + rtol * w.abs())
    return nan_diff | inf_diff | zero_sign | value


def mismatches(name, want, got, inputs, paths=(), skip_rows=()) -> list[str]:
    """One line per element where `got` differs from `want` and from each of `paths`
    (eager's per-path answers, for EAGER_PATHS_DISAGREE); `skip_rows` are not compared."""
    if want.shape != got.shape or want.dtype != got.dtype:
        return [
            f"{name}: {got.dtype}{list(got.shape)}, eager {want.dtype}{list(want.shape)}"
        ]
    bad = bad_mask(name, want, got)
    for other in paths:
        bad &= bad_mask(name, other, got)
    for r in skip_rows:
        bad[r] = False
    return [
        f"{name}{_at(i, inputs)}: {_v(got, i)}, eager {_v(want, i)}"
        for i in bad.nonzero()
    ]


def _at(i, inputs) -> str:
    i = tuple(int(j) for j in i)
    if len(inputs) == 2:
        return f"({float(inputs[0][i[0]])!r}, {float(inputs[1][i[0]])!r})"
    x = inputs[0]
    return f"({float(x[i[0]])!r})" if x.dim() == 1 else f"(row {i[0]})"


def _v(t: torch.Tensor, i) -> str:
    return repr(t[tuple(int(j) for j in i)].item())
