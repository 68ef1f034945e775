"""What makes a drawn node acceptable, besides torch running it.

* its result is one or more non-empty strided tensors of at most MAX_NUMEL elements,
  not complex, and the same under two random states (no random ops);
* torch's own shape functions agree with eager on it (the op run on meta tensors and
  on fake tensors: the shape functions torch.export's and dynamo's tracing use, which
  are not always the meta device's; and an ATen op's own
  decomposition, which export applies: where they disagree with eager the model cannot
  be captured faithfully, and that is torch's bug); nor their aliasing (a fake result
  sharing an argument's memory where eager's copies: ``native_dropout`` with
  ``train=False``, fuzz 7090196);
* an op whose order among equal values torch leaves open (``topk``, an unstable
  ``sort``) is drawn only on values without ties;
* an op reading the sign of a NaN (``signbit``, ``copysign``'s second argument) is not
  drawn on NaNs: that sign is the hardware's and the math library's choice;
* ``gelu`` is not drawn on a float32/16-bit tensor holding +inf: torch's vectorized
  loop gives NaN there, its scalar loop inf, and which one runs depends on the
  tensor's size and layout (a one-element, strided or expanded tensor takes the
  scalar loop), which a compiler does not see for an intermediate value; nor
  ``scaled_dot_product_attention`` over 16 keys or more on a NaN (its flash kernel's
  answer depends on which vector chunk holds the NaN), nor a causal one on a NaN or an
  infinity at any length (a masked key's NaN reaches its block's rows);
* an op reading the sign of a zero (``atan2``, ``signbit``, ``copysign``'s sign,
  ``reciprocal``, ``rsqrt``, a divisor, ``pow``'s base) is not drawn on a zero whose
  sign eager leaves open: one computed by ``softshrink`` (-0.0 from a small negative
  input in torch's scalar loop, +0.0 in its vectorized loop, and the tensor's size
  picks the loop: fuzz 7053361, 7054497, 7054886) or by an elementwise max/min
  (``maximum``, ``fmax``, ``clamp`` with tensor bounds, ...) of zeros of both signs
  (the same split), or by any op reading such a value;
* a float product whose partial products may overflow (the answer then depends on the
  order of multiplication) is not drawn;
* an in-place write does not hit a tensor another value shares memory with (how such a
  write propagates is left to torch's aliasing rules: fx refuses such writes, and
  torch.export's functionalization loses some of them, e.g. an eval-mode dropout
  returns its input).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._pytree import tree_flatten, tree_map

from .catalog import Form
from .graph import Env, Node, call_node, decode

__all__ = [
    "MAX_NUMEL",
    "valid",
    "same",
    "meta_differs",
    "ties",
    "aliased",
    "inplace",
    "order_dependent",
    "paths_disagree",
    "zero_sign_read",
    "opens_zero_sign",
]

MAX_NUMEL = 4096
_TIE_ORDER = {"topk", "sort", "argsort", "msort"}  # which of equal values comes first
_IOPS = {"iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior"}
_IOPS |= {"ixor"}


def inplace(form: Form) -> bool:
    """Whether the form writes its first argument (``add_``, ``operator.iadd``)."""
    name = (
        form.call.split(".")[1] if form.kind == "aten" else form.call.rsplit(".", 1)[-1]
    )
    if form.kind == "operator":
        return name in _IOPS
    return name.endswith("_") and not name.startswith("_")


def same(a: Any, b: Any) -> bool:
    """Equal values (NaN equal to NaN), dtypes and shapes, through tuples."""
    if isinstance(a, tuple | list):
        return isinstance(b, tuple | list) and len(a) == len(b) and all(map(same, a, b))
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return a == b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


def valid(value: Any) -> bool:
    if isinstance(value, tuple | list):
        return 0 < len(value) <= 8 and all(_valid_tensor(v) for v in value)
    return _valid_tensor(value)


def _valid_tensor(t: Any) -> bool:
    return (
        isinstance(t, torch.Tensor)
        and 0 < t.numel() <= MAX_NUMEL
        and not t.is_complex()
        and t.layout == torch.strided
        and not t.requires_grad
    )


def _same_meta(fake: Any, real: Any) -> bool:
    if isinstance(real, tuple | list):
        return (
            isinstance(fake, tuple | list)
            and len(fake) == len(real)
            and all(map(_same_meta, fake, real))
        )
    return (
        isinstance(fake, torch.Tensor)
        and fake.shape == real.shape
        and fake.dtype == real.dtype
    )


def meta_differs(node: Node, env: Env, result: Any, form: Form) -> bool:
    """torch's fake-tensor result of `node` differs from eager's, or fails."""
    if inplace(form) or form.kind == "module":
        return False
    meta = lambda t: t.to("meta") if isinstance(t, torch.Tensor) else t  # noqa: E731
    args = tree_map(meta, decode(node.args, env))
    kwargs = tree_map(meta, {k: decode(v, env) for k, v in node.kwargs.items()})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fake = call_node(node, args, kwargs, env, {})
            decomposed = _decomposed(node, args, kwargs)
    except Exception:
        return True
    if decomposed is not None and not _same_meta(decomposed, result):
        return True
    if not _same_meta(fake, result):
        return True
    faked = _faked(
        node, env
    )  # None: fake tensors cannot run it (data-dependent shapes)
    if faked is None:
        return False
    eager_args = (
        decode(node.args, env),
        [decode(v, env) for v in node.kwargs.values()],
    )
    return not _same_meta(faked[0], result) or _aliasing(faked[0], faked[1]) != (
        _aliasing(result, eager_args)
    )


def _aliasing(result: Any, args: Any) -> list[bool]:
    """For each tensor of `result`, whether it shares memory with a tensor of `args`:
    fake tensors can alias where eager's kernel copies (native_dropout with
    train=False: its decomposition, which export's fake run uses, returns its input,
    the CPU kernel a copy), and then export's graph records later uses of the input as
    uses of the result (fuzz 7090196: torch.export's own program differs from eager)."""
    stores = {_storage(t) for t in tree_flatten(args)[0] if isinstance(t, torch.Tensor)}
    leaves = tree_flatten(result)[0]
    return [_storage(t) in stores for t in leaves if isinstance(t, torch.Tensor)]


def _storage(t: torch.Tensor) -> Any:
    try:
        return StorageWeakRef(t.untyped_storage()).cdata
    except Exception:  # no storage: never shared
        return ("none", id(t))


def _faked(node: Node, env: Env) -> Any:
    """`node` run on fake tensors, as torch.export traces it, with the fake arguments:
    its fake-tensor rules can differ from the meta device's (native_layer_norm of bfloat16 with float32
    parameters: the statistics are bfloat16 there, float32 on meta and in eager)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    fake = lambda t: mode.from_tensor(t) if isinstance(t, torch.Tensor) else t  # noqa: E731
    try:
        args = tree_map(fake, decode(node.args, env))
        kwargs = tree_map(fake, {k: decode(v, env) for k, v in node.kwargs.items()})
        with mode, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call_node(node, args, kwargs, env, {}), (args, list(kwargs.values()))
    except Exception:
        return None


def _decomposed(node: Node, args, kwargs) -> Any:
    """An ATen node's result through torch's own decomposition of it (what
    torch.export's graph computes), or None when it has none."""
    if node.kind != "aten":
        return None
    from torch._decomp import decomposition_table

    from .catalog import resolve

    fn = decomposition_table.get(resolve(node.call))
    return None if fn is None else fn(*args, **kwargs)


def ties(node: Node, env: Env) -> bool:
    """An order-open op (topk, an unstable sort) reading values with ties."""
    name = (
        node.call.split(".")[1] if node.kind == "aten" else node.call.rsplit(".", 1)[-1]
    )
    if name not in _TIE_ORDER or node.kwargs.get("stable") is True:
        return False
    x = decode(node.args[0], env) if node.args else None
    if not isinstance(x, torch.Tensor):
        return True
    if x.is_floating_point() and int(x.isnan().sum()) > 1:
        return True
    return x.reshape(-1).unique().numel() < x.numel()


def order_dependent(node: Node, env: Env) -> bool:
    """A float product whose partial products may overflow: whether it ends inf, NaN
    (inf times 0) or finite depends on the order of multiplication, which torch leaves
    open."""
    name = (
        node.call.split(".")[1] if node.kind == "aten" else node.call.rsplit(".", 1)[-1]
    )
    if name not in ("prod", "cumprod") or not node.args:
        return False
    x = decode(node.args[0], env)
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        return False
    big = x.detach().double().abs()
    big = big[(big > 1) & big.isfinite()]
    return bool(big.log().sum() > math.log(torch.finfo(torch.float32).max) - 1)


def nan_sign(node: Node, env: Env) -> bool:
    """An op reading the sign bit of a NaN (signbit, copysign's sign): which sign a
    computed NaN has is up to the hardware and the math library, not torch."""
    name = (
        node.call.split(".")[1] if node.kind == "aten" else node.call.rsplit(".", 1)[-1]
    )
    which = {"signbit": 0, "copysign": 1}.get(name)
    if which is None or len(node.args) <= which:
        return False
    x = decode(node.args[which], env)
    return (
        isinstance(x, torch.Tensor) and x.is_floating_point() and bool(x.isnan().any())
    )


# families whose zeros' signs torch's scalar and vectorized loops give differently
# (measured on float32/64/16 and bfloat16 at 1 to 130 elements): softshrink of a
# small negative input; the elementwise max/min of a -0.0 and a +0.0, also as clamp
# with tensor bounds and torch.max/min(a, b) (not with number bounds, not a reduction)
ZERO_SIGN_OPEN = {"softshrink", "binary[cuvil.maximum]", "binary[cuvil.minimum]"}
ZERO_SIGN_OPEN |= {"binary[cuvil.fmax]", "binary[cuvil.fmin]"}
_OPEN_WITH_TENSORS = {"_clamp", "_clamp_min", "_clamp_max"}
_OPEN_WITH_TENSORS |= {"minmax[cuvil.amax]", "minmax[cuvil.amin]"}
# families reading the sign of a zero, and which of their arguments they read it in
_SIGN_READERS = {
    "binary[cuvil.atan2]": (0, 1),
    "unary[cuvil.signbit]": (0,),
    "binary[cuvil.copysign]": (1,),
    "unary[cuvil.reciprocal]": (0,),
    "unary[cuvil.rsqrt]": (0,),
    "_div": (1,),
    "_floordiv": (1,),
    "_pow": (0,),
}


def _open_refs(arg: Any, open_: set[int]) -> bool:
    if isinstance(arg, list | tuple):
        return any(_open_refs(a, open_) for a in arg)
    if isinstance(arg, dict):
        return arg.get("v") in open_ or _open_refs(arg.get("tuple", []), open_)
    return False


def _has_zero(x: Any) -> bool:
    if isinstance(x, tuple | list):
        return any(map(_has_zero, x))
    return (
        isinstance(x, torch.Tensor) and x.is_floating_point() and bool((x == 0).any())
    )


def zero_sign_read(node: Node, env: Env, open_: set[int]) -> bool:
    """An op reading the sign of a zero (atan2, signbit, 1/x, ...) on a value holding
    a zero whose sign eager leaves open (`open_`: the indices of such values)."""
    which = _SIGN_READERS.get(node.family, ())
    return any(
        i < len(node.args)
        and _open_refs(node.args[i], open_)
        and _has_zero(decode(node.args[i], env))
        for i in which
    )


def opens_zero_sign(node: Node, value: Any, open_: set[int]) -> bool:
    """Whether `node`'s value holds zeros of an open sign: a ZERO_SIGN_OPEN op's, or
    any op's reading such a value (the sign may pass through: -x, x * 2, x[0])."""
    if not _has_zero(value):
        return False
    reads = _open_refs([node.args, list(node.kwargs.values())], open_)
    if node.family in _OPEN_WITH_TENSORS:  # a second tensor: an elementwise max/min
        rest = [*node.args[1:], *node.kwargs.values()]
        reads |= any(isinstance(a, dict) and {"x", "v", "p"} & a.keys() for a in rest)
    return node.family in ZERO_SIGN_OPEN or reads


def paths_disagree(node: Node, env: Env) -> bool:
    """An op whose value torch's vectorized and scalar loops disagree on, at an input
    that holds such a value: gelu(+inf) of float32/float16/bfloat16 (NaN vectorized,
    inf in the scalar loop; fuzz 7000951, 7022496; float64 is inf on both); the flash
    SDPA and native_layer_norm's mean below, where the lane holding it decides."""
    name = node.call.rsplit(".", 1)[-1].lower() if node.kind != "aten" else ""
    name = node.call.split(".")[1] if node.kind == "aten" else name
    if "scaled_dot_product" in name:
        kwargs = {k: decode(v, env) for k, v in node.kwargs.items()}
        return _flash_nan(decode(node.args, env), kwargs)
    if name == "native_layer_norm" and len(node.args) >= 2:
        return _lone_inf_row(decode(node.args[:2], env))
    if name not in ("gelu", "gelu_") or not node.args:
        return False
    x = decode(node.args[0], env)
    return (
        isinstance(x, torch.Tensor)
        and x.dtype in (torch.float32, torch.float16, torch.bfloat16)
        and bool((x == math.inf).any())
    )


def _flash_nan(args: list, kwargs: dict) -> bool:
    """SDPA over 16 keys or more reading a NaN: torch's flash kernel skips a NaN score
    in a row's scalar tail but not in a vector chunk, so the answer depends on which
    chunk holds it (docs/FUZZ.md, fuzz 7000856); and a causal SDPA (the flash kernel
    at any length) reading a NaN or an infinity: a masked-out key's NaN reaches the
    rows of its block or not by where the block boundaries fall (fuzz 7090690: every
    row NaN, though the first row sees one finite key only)."""
    tensors = [a for a in args[:3] if isinstance(a, torch.Tensor)]
    causal = kwargs.get("is_causal", args[5] if len(args) > 5 else False) is True
    if len(tensors) < 2 or tensors[1].dim() < 2:
        return False
    bad = (lambda t: ~t.isfinite()) if causal else torch.isnan
    if tensors[1].shape[-2] < 16 and not causal:
        return False
    return any(
        t.is_floating_point() and bool(bad(t).any())
        for t in args[:4]
        if isinstance(t, torch.Tensor)
    )


def _lone_inf_row(args: list) -> bool:
    """native_layer_norm of a row whose one non-finite element is an infinity: torch's
    row moments (vector lanes and a serial tail, merged in an order the vector width
    and the row's length set) give that row's mean +-inf at one position (float32:
    8 * (n // 8) - 1 below 256 elements, none below 8; float64 by 4s) and NaN
    elsewhere (fuzz 7056987). Two or more non-finite elements are NaN everywhere."""
    x, shape = args
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        return False
    n = math.prod(shape) if isinstance(shape, list | tuple) else int(shape)
    if not n or x.numel() % n:
        return False
    rows = x.detach().reshape(-1, n)
    bad = (~rows.isfinite()).sum(1)
    return bool(((bad == 1) & rows.isinf().any(1)).any())


def aliased(node: Node, env: Env) -> bool:
    """The tensor an in-place node writes shares memory with another value: another
    slot's tensor of the same storage, or the same tensor object under another name
    (``nn.Dropout`` in eval returns its input itself: fuzz seed 7001036)."""
    ref = node.args[0]
    target = decode(ref, env)
    ptr = target.untyped_storage().data_ptr()
    own = next(iter(ref.items())) if isinstance(ref, dict) and len(ref) == 1 else None
    slots = [
        *((("x", i), v) for i, v in enumerate(env.inputs)),
        *((("v", j), v) for j, v in enumerate(env.nodes)),
        *((("p", k), v) for k, v in env.state.items()),
    ]
    return any(
        key != own
        and isinstance(v, torch.Tensor)
        and v.untyped_storage().data_ptr() == ptr
        for key, v in slots
    )
