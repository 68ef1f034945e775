"""The state of one lowering: the module being built, the current location, and helpers that
emit ops, materialize constants and params, and apply torch's type promotion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from ..errors import FrontendError, UnsupportedOpError
from ..ir import ops
from ..ir.core import Function, Module, Operation, Value
from ..ir.location import UNKNOWN, AnyLoc
from ..ir.types import DType

__all__ = ["LoweringContext", "LazyTensor", "cuvil_dtype", "refuse_extra"]


@dataclass
class LazyTensor:
    """A compile-time tensor (param, buffer or constant) not yet emitted into the IR."""

    name: str
    data: torch.Tensor
    loc: AnyLoc | None = None  # None: the location of its first use


class LoweringContext:
    """Builds one function of a module. Lowering rules call ``emit`` and friends."""

    def __init__(self, module: Module, fn: Function) -> None:
        self.module = module
        self.fn = fn
        self.loc: AnyLoc = UNKNOWN
        self.node_name: str | None = None
        self.fx_node: Any = (
            None  # the torch.fx.Node being lowered (its meta: eager facts)
        )
        # id(lazy) -> (lazy, its value): the LazyTensor is held so that its id is not
        # reused by a later one (a folded constant's LazyTensor is otherwise dropped
        # at once, and the next constant's, at the same address, got its param)
        self._materialized: dict[int, tuple[LazyTensor, Value]] = {}
        self._lazy: dict[str, LazyTensor] = {}
        self._const_count = 0

    # ---- emitting ops ------------------------------------------------------------------
    def emit(self, cls: type[Operation], *operands: Any, **attrs: Any) -> Value:
        """Build an op of class `cls` at the current location and return its result."""
        values = [self.value(v) for v in operands]
        op = cls.build(*values, loc=self.loc, name=self.node_name, **attrs)
        self.fn.append(op)
        return op.results[0] if len(op.results) == 1 else tuple(op.results)

    def op(self, name: str, *operands: Any, **attrs: Any) -> Value:
        """Emit an op by its IR name (``"cuvil.add"``)."""
        from ..ir.core import lookup_op

        return self.emit(lookup_op(name), *operands, **attrs)

    # ---- values -------------------------------------------------------------------------
    def value(self, x: Any, dtype: DType | None = None) -> Value:
        """An IR value for `x`: a Value, a compile-time tensor, or a Python number."""
        if isinstance(x, Value):
            return x
        if isinstance(x, LazyTensor):
            return self._materialize(x)
        if isinstance(x, torch.Tensor):
            return self.constant(x)
        if isinstance(x, (bool, int, float)):
            return self.scalar(x, dtype or _scalar_dtype(x))
        raise FrontendError(
            f"expected a tensor, got {type(x).__name__} {x!r}", where=self.where()
        )

    def scalar(self, x: bool | int | float, dtype: DType) -> Value:
        return self.constant(torch.tensor(x, dtype=dtype.torch))

    def constant(self, data: torch.Tensor, name: str | None = None) -> Value:
        """Small tensors become inline constants; large ones become module params."""
        data = data.detach()
        if data.numel() <= ops.INLINE_CONSTANT_LIMIT:
            op = ops.ConstantOp.build(value=data.clone(), loc=self.loc)
            return self.fn.append(op).result
        if name is None:
            name = self._const_name()
        return self._materialize(LazyTensor(name, data, self.loc))

    def _const_name(self) -> str:
        """A fresh ``_constN``: never a name the module already holds."""
        while True:
            self._const_count += 1
            name = f"_const{self._const_count}"
            if name not in self.module.params and name not in self._lazy:
                return name

    def lazy(
        self, name: str, data: torch.Tensor, at_first_use: bool = False
    ) -> LazyTensor:
        """The compile-time tensor `name` (a param or buffer), emitted on first use.

        Its location is the current one, or that of its first use when `at_first_use`.
        """
        if name not in self._lazy:
            self._lazy[name] = LazyTensor(
                name, data, None if at_first_use else self.loc
            )
        return self._lazy[name]

    def _materialize(self, lazy: LazyTensor) -> Value:
        key = id(lazy)
        if key not in self._materialized:
            if lazy.name not in self.module.params:
                self.module.add_param(lazy.name, lazy.data.detach().contiguous())
            hint = lazy.name.replace(".", "_")
            loc = self.loc if lazy.loc is None else lazy.loc
            op = ops.ParamOp.of(self.module, lazy.name, loc=loc, result_names=[hint])
            self._materialized[key] = (lazy, self.fn.append(op).result)
        return self._materialized[key][1]

    # ---- type promotion -----------------------------------------------------------------
    def promote(self, *xs: Any, floating: bool = False) -> tuple[DType, list[Value]]:
        """torch's result_type over tensors and Python numbers; operands cast to it."""
        dtype = result_dtype(*xs)
        if floating and not dtype.is_float:
            dtype = DType.from_torch(torch.get_default_dtype())
        return dtype, [self.cast(self.value(x, dtype), dtype) for x in xs]

    def cast(self, v: Value, dtype: DType) -> Value:
        return v if v.type.dtype is dtype else self.emit(ops.CastOp, v, dtype=dtype)

    def where(self) -> str:
        return self.loc.describe()


def cuvil_dtype(dtype: torch.dtype) -> DType:
    """The element type of a torch dtype; one Cuvil has not (complex, uint16 ...) is an
    UnsupportedOpError (the graph walk adds the node and the source line)."""
    try:
        return DType.from_torch(dtype)
    except ValueError:
        raise UnsupportedOpError(
            f"{dtype} tensors", hint="Cuvil computes on bool, int and float tensors"
        ) from None


def refuse_extra(cx: LoweringContext, what: str, kwargs: dict, *ignored: str) -> None:
    """Refuse the keyword arguments a rule does not implement (``out=`` writes a tensor
    the graph goes on to read; an unknown one may change the result). `ignored` are the
    ones that change nothing here (``inplace``: the graph walk rebinds the input)."""
    for key, value in kwargs.items():
        if key in ignored or (key == "out" and value is None):
            continue
        raise UnsupportedOpError(
            f"{what} with {key}={value!r}",
            node=cx.node_name,
            where=cx.where(),
            hint="out= is not supported: use the result" if key == "out" else None,
        )


def _scalar_dtype(x: bool | int | float) -> DType:
    if isinstance(x, bool):
        return DType.i1
    if isinstance(x, int):
        return DType.i64
    return DType.from_torch(torch.get_default_dtype())


def _probe(x: Any) -> Any:
    """A stand-in with the same dtype and dimensionality for torch.result_type."""
    if isinstance(x, Value):
        return torch.empty((1,) * min(x.type.rank, 1), dtype=x.type.dtype.torch)
    if isinstance(x, LazyTensor):
        return torch.empty((1,) * min(x.data.dim(), 1), dtype=x.data.dtype)
    if isinstance(x, torch.Tensor):
        return torch.empty((1,) * min(x.dim(), 1), dtype=x.dtype)
    return x


def result_dtype(*xs: Any) -> DType:
    """The dtype torch's type promotion gives for an op over `xs` (tensors and numbers).

    As torch: tensors with dimensions first, then 0-d tensors, then numbers; a lower
    group counts only where its category (bool < integer < float) is higher, so the
    groups are folded apart and combined, not pairwise in argument order (an int64 x
    clamped by a 0-d float64 and a float32 tensor is float32, not float64)."""
    probes = [_probe(x) for x in xs]
    dims = [p for p in probes if isinstance(p, torch.Tensor) and p.dim()]
    zeros = [p for p in probes if isinstance(p, torch.Tensor) and not p.dim()]
    numbers = [p for p in probes if not isinstance(p, torch.Tensor)]
    lower: Any = max(numbers, key=_category) if numbers else None
    if zeros:
        zero = torch.empty((), dtype=_promoted(zeros))
        lower = (
            zero
            if lower is None
            else torch.empty((), dtype=torch.result_type(zero, lower))
        )
    if dims:
        higher = torch.empty((1,), dtype=_promoted(dims))
        dtype = higher.dtype if lower is None else torch.result_type(higher, lower)
        return cuvil_dtype(dtype)
    if isinstance(lower, torch.Tensor):
        return cuvil_dtype(lower.dtype)
    return _scalar_dtype(lower)


def _promoted(tensors: list[torch.Tensor]) -> torch.dtype:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return dtype


def _category(x: Any) -> int:
    """A number's place in torch's categories: bool, integer, float, complex."""
    kinds = (bool, int, float, complex)
    return next(i for i, kind in enumerate(kinds) if isinstance(x, kind))
