"""IR objects: SSA values, operations (one class per op, found in a registry), functions, modules.

A Function is a single block of ops in order; a value is defined once (a function argument or
an op result) and used by later ops. Values keep their uses so passes can rewrite in O(uses).
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

import torch

from ..errors import VerifyError
from .attributes import REQUIRED, AttrSpec, SymbolRef, check_attr
from .location import UNKNOWN, AnyLoc
from .types import TensorType
from .uses import Uses

__all__ = [
    "Trait",
    "Uses",
    "Value",
    "Operation",
    "Function",
    "Module",
    "OPS",
    "register_op",
    "lookup_op",
    "remap",
]


class Trait(enum.Enum):
    """Facts about an op that passes rely on."""

    PURE = "pure"  # no side effects: removable when unused, CSE-able
    ELEMENTWISE = "elementwise"  # out[i] depends on in[i] only (after broadcasting)
    BROADCASTING = "broadcasting"  # operands broadcast NumPy-style
    COMMUTATIVE = "commutative"
    REDUCTION = "reduction"
    VIEW = "view"  # moves data without arithmetic (reshape, permute, slice ...)
    CONSTANT = "constant"  # no operands, value known at compile time (param, constant)
    # a GEMM-shaped op (linear, matmul, conv): fuse-epilogue's root, a GEMM kernel's body
    CONTRACTION = "contraction"
    # elementwise and computable in a GEMM epilogue: its scalar emitter also works on
    # float vectors (no libm calls; exp/erf/tanh use the vectorizable mathfn.py versions)
    EPILOGUE = "epilogue"
    # the result may reuse an operand's memory (the ``inplace = i`` hint) although the op
    # is not elementwise itself (a cuvil.fused op with an elementwise body)
    IN_PLACE = "in_place"


class Value:
    """An SSA value: a function argument or an op result."""

    __slots__ = ("type", "name", "owner", "index", "uses")

    def __init__(self, type: TensorType, name: str | None = None, owner=None, index=0):
        self.type = type
        self.name = name  # a hint for the printer; not semantic
        self.owner: Operation | None = owner  # None for function arguments
        self.index = index
        self.uses = Uses()

    def __repr__(self) -> str:
        return f"%{self.name or '?'}: {self.type}"

    def replace_all_uses_with(self, new: Value) -> None:
        for op, i in self.uses:  # a snapshot
            op.set_operand(i, new)


class Operation:
    """Base class of all ops. A subclass declares its name, operands, attributes and traits.

    ``OPERANDS`` names the operands in order; a trailing ``"bias?"`` is optional and a final
    ``"inputs*"`` takes any number. ``ATTRS`` maps attribute names to AttrSpecs.
    ``infer_types`` computes the result types from the operand types and attributes and
    raises ``self.fail(...)`` on a shape/dtype rule violation; ``verify_`` adds other checks;
    ``reference`` gives the op's meaning as torch code (the reference interpreter runs it).
    """

    name: ClassVar[str] = "<abstract>"
    OPERANDS: ClassVar[tuple[str, ...]] = ()
    ATTRS: ClassVar[dict[str, AttrSpec]] = {}
    TRAITS: ClassVar[frozenset[Trait]] = frozenset({Trait.PURE})
    NUM_RESULTS: ClassVar[int] = 1  # -1: decided by infer_types
    # layouts the op takes its operands in (checked by the verifier); most ops are defined
    # on row-major buffers only and need a cuvil.relayout before them
    LAYOUTS: ClassVar[frozenset[str]] = frozenset({"contiguous"})

    def __init__(
        self,
        operands: Sequence[Value],
        attrs: dict[str, Any],
        result_types: Sequence[TensorType],
        loc: AnyLoc = UNKNOWN,
        result_names: Sequence[str | None] | None = None,
    ) -> None:
        self.operands: list[Value] = []
        for v in operands:
            self._add_operand(v)
        self.attrs = dict(attrs)
        names = result_names or [None] * len(result_types)
        self.results = [
            Value(t, n, self, i)
            for i, (t, n) in enumerate(zip(result_types, names, strict=False))
        ]
        self.loc = loc
        self.src_pos: tuple[str, int, int] | None = (
            None  # set by the parser: (file, line, col)
        )

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def build(
        cls, *operands: Value, loc: AnyLoc = UNKNOWN, name: str | None = None, **attrs
    ):
        """Create the op, filling default attributes and inferring result types."""
        op = cls(operands, cls.with_defaults(attrs), [], loc)
        op.check_signature()
        types = op.infer_types()
        names = (
            [name]
            if len(types) == 1
            else [f"{name}_{i}" if name else None for i in range(len(types))]
        )
        op.results = [
            Value(t, n, op, i)
            for i, (t, n) in enumerate(zip(types, names, strict=True))
        ]
        return op

    @classmethod
    def with_defaults(cls, attrs: dict[str, Any]) -> dict[str, Any]:
        """`attrs` without None values, plus the default of every attribute not given."""
        full = {k: v for k, v in attrs.items() if v is not None}
        for key, spec in cls.ATTRS.items():
            if (
                key not in full
                and spec.default is not REQUIRED
                and spec.default is not None
            ):
                full[key] = spec.default
        return full

    def _add_operand(self, v: Value) -> None:
        v.uses.append((self, len(self.operands)))
        self.operands.append(v)

    def set_operand(self, i: int, new: Value) -> None:
        old = self.operands[i]
        old.uses.remove((self, i))
        new.uses.append((self, i))
        self.operands[i] = new

    def drop_operands(self) -> None:
        """Unlink this op from the values it uses (before erasing it)."""
        for i, v in enumerate(self.operands):
            v.uses.remove((self, i))
        self.operands = []

    # ---- access ---------------------------------------------------------------------------
    @property
    def result(self) -> Value:
        assert len(self.results) == 1, f"{self.name} has {len(self.results)} results"
        return self.results[0]

    @property
    def operand_types(self) -> list[TensorType]:
        return [v.type for v in self.operands]

    def has_trait(self, trait: Trait) -> bool:
        return trait in self.TRAITS

    def attr(self, key: str) -> Any:
        return self.attrs.get(key)

    def symbol(self) -> str | None:
        ref = self.attrs.get("name")
        return ref.name if isinstance(ref, SymbolRef) else None

    def __repr__(self) -> str:
        from .printer import format_op

        return format_op(self)

    # ---- verification ---------------------------------------------------------------------
    def fail(self, rule: str) -> VerifyError:
        """A VerifyError naming this op, its location and the broken rule (raise it)."""
        where = None
        if self.src_pos:
            f, line, col = self.src_pos
            where = f"{f}:{line}:{col}"
        elif self.loc.source():
            where = self.loc.source()
        return VerifyError(
            f"'{self.name}' ({self.loc.describe()}): {rule}", where=where
        )

    def clone(self, vmap: dict[int, Value]) -> Operation:
        """A copy of this op reading ``vmap[id(operand)]``; its results are added to
        `vmap` (attributes are copied shallowly, locations and names kept)."""
        new = type(self)(
            [vmap[id(v)] for v in self.operands],
            dict(self.attrs),
            [r.type for r in self.results],
            self.loc,
            [r.name for r in self.results],
        )
        new.src_pos = self.src_pos
        for r, nr in zip(self.results, new.results):
            vmap[id(r)] = nr
        return new

    def operand_range(self) -> tuple[int, int | None]:
        """(min, max) operand counts; max None = unbounded."""
        required = sum(1 for n in self.OPERANDS if not n.endswith(("?", "*")))
        if any(n.endswith("*") for n in self.OPERANDS):
            return required, None
        return required, len(self.OPERANDS)

    def accepts_inplace(self) -> bool:
        """Whether the ``inplace = i`` hint is allowed: the result may reuse operand i's
        memory. Elementwise ops read each element before writing it at the same index;
        other ops opt in with ``Trait.IN_PLACE``."""
        return Trait.ELEMENTWISE in self.TRAITS or Trait.IN_PLACE in self.TRAITS

    def known_attrs(self) -> dict[str, AttrSpec]:
        return {**self.ATTRS, **HINT_ATTRS} if self.accepts_inplace() else self.ATTRS

    def check_signature(self) -> None:
        """Operand count and attribute presence/kinds against the op's declaration."""
        lo, hi = self.operand_range()
        n = len(self.operands)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else f"{lo}..{hi if hi is not None else 'N'}"
            names = ", ".join(self.OPERANDS) or "none"
            raise self.fail(f"expects {want} operands ({names}), got {n}")
        known_attrs = self.known_attrs()
        for key, spec in known_attrs.items():
            if key not in self.attrs:
                if spec.default is REQUIRED:
                    raise self.fail(f"missing required attribute '{key}'")
                continue
            if (why := check_attr(key, self.attrs[key], spec)) is not None:
                raise self.fail(why)
        unknown = sorted(set(self.attrs) - set(known_attrs))
        if unknown:
            known = ", ".join(sorted(known_attrs)) or "none"
            raise self.fail(f"unknown attribute '{unknown[0]}' (known: {known})")

    def infer_types(self) -> list[TensorType]:
        raise NotImplementedError(f"{type(self).__name__}.infer_types")

    def verify_(self) -> None:
        """Extra op-specific checks beyond type inference (override when needed)."""

    # ---- semantics --------------------------------------------------------------------------
    def reference(self, *args: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        raise NotImplementedError(f"{self.name} has no reference semantics")


# Hints any op may carry when it allows them (see Operation.accepts_inplace); passes set
# them, the verifier checks them, code generation may use them.
HINT_ATTRS = {"inplace": AttrSpec("int", default=None, min=0)}

OPS: dict[str, type[Operation]] = {}


def register_op(cls: type[Operation]) -> type[Operation]:
    """Class decorator: make an op known to the parser and tools by its name."""
    if cls.name in OPS and OPS[cls.name] is not cls:
        raise ValueError(f"op {cls.name} registered twice")
    OPS[cls.name] = cls
    return cls


def lookup_op(name: str) -> type[Operation] | None:
    return OPS.get(name)


def suggest_op(name: str) -> str:
    close = difflib.get_close_matches(name, OPS, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


class Function:
    """A named single-block function: typed arguments, ops in order, returned values."""

    def __init__(
        self, name: str, args: Sequence[Value] = (), ops: Iterable[Operation] = ()
    ):
        self.name = name
        self.args: list[Value] = list(args)
        # erased and replaced ops leave `_ops` at the next read of `ops` (kept alive
        # until then, so their ids are not reused): k edits are O(k) + one O(n) sweep,
        # not O(k n); id(op) -> (op, its replacement or None)
        self._pending: dict[int, tuple[Operation, Operation | None]] = {}
        self.ops = list(ops)
        self.outputs: list[Value] = []
        self.result_types: list[TensorType] = []
        self.arg_locs: list[AnyLoc] = [UNKNOWN] * len(self.args)

    @property
    def ops(self) -> list[Operation]:
        """The ops in program order (the same list object, compacted in place)."""
        if self._pending:
            pending, self._pending = self._pending, {}
            kept = []
            for op in self._ops:
                x: Operation | None = op
                while x is not None and id(x) in pending:
                    x = pending[id(x)][1]
                if x is not None:
                    kept.append(x)
            self._ops[:] = kept
        return self._ops

    @ops.setter
    def ops(self, ops: Iterable[Operation]) -> None:
        self._pending = {}
        self._ops = ops if isinstance(ops, list) else list(ops)

    def add_arg(self, type: TensorType, name: str, loc: AnyLoc = UNKNOWN) -> Value:
        v = Value(type, name)
        self.args.append(v)
        self.arg_locs.append(loc)
        return v

    def append(self, op: Operation) -> Operation:
        self.ops.append(op)
        return op

    def set_outputs(self, values: Sequence[Value]) -> None:
        self.outputs = list(values)
        self.result_types = [v.type for v in values]

    def erase(self, op: Operation) -> None:
        """Remove an op whose results are unused."""
        assert all(not r.uses for r in op.results), f"erasing {op.name} with uses"
        op.drop_operands()
        self._pending[id(op)] = (op, None)  # leaves `ops` at its next read

    def replace_op(self, old: Operation, new: Operation) -> None:
        """Put `new` (not yet in the function) where `old` is and erase `old`, whose
        results must be unused (replace their uses first); O(1), like `erase`."""
        assert all(not r.uses for r in old.results), f"replacing {old.name} with uses"
        old.drop_operands()
        self._pending[id(old)] = (old, new)

    def walk(self) -> Iterator[Operation]:
        return iter(list(self.ops))


class Module:
    """A compilation unit: declared params (with optional data) and functions."""

    def __init__(self, name: str = "module") -> None:
        self.name = name
        self.params: dict[str, TensorType] = {}
        self.param_data: dict[str, torch.Tensor] = {}
        self.functions: list[Function] = []
        # Facts one stage leaves for later ones (not printed, not part of the IR's meaning):
        # what each FX node became when lowered (an IR Value of the main function, a
        # Python value, a LazyTensor or a tuple of those), set by the frontend; the diff
        # maps FX nodes to IR values through it
        self.fx_values: dict[str, Any] = {}
        # the pytree spec of forward()'s outputs (None: a flat tuple), set by the frontend
        self.output_spec: Any = None
        # the pass table (cuvil.passes.PassInfo per pass) of the last pipeline run
        self.passes: list[Any] = []
        # the instruction set of the int8 / bf16 kernels by mode ({"int8": "amx"}), as
        # cuvil.compile resolved the quantize option; a mode not named: the host's best
        self.isa: dict[str, str] = {}

    def add_param(
        self,
        name: str,
        data: torch.Tensor | None = None,
        type: TensorType | None = None,
    ):
        self.params[name] = type if type is not None else TensorType.of(data)
        if data is not None:
            self.param_data[name] = data

    def add_function(self, fn: Function) -> Function:
        self.functions.append(fn)
        return fn

    @property
    def main(self) -> Function:
        if not self.functions:
            raise VerifyError(f"module @{self.name} has no function")
        return self.lookup("forward") or self.functions[0]

    def clone(self) -> Module:
        """An independent copy to rewrite (passes work in place): new functions, ops and
        values; param data and attribute values are shared, not copied. The module's own
        fields come along, the Values they hold mapped to their copies (`remap`)."""
        new = Module(self.name)
        new.params = dict(self.params)
        new.param_data = dict(self.param_data)
        vmap: dict[int, Value] = {}
        for fn in self.functions:
            copy = Function(fn.name)
            for a, loc in zip(fn.args, fn.arg_locs):
                vmap[id(a)] = copy.add_arg(a.type, a.name, loc)
            for op in fn.ops:
                copy.append(op.clone(vmap))
            copy.set_outputs([vmap[id(v)] for v in fn.outputs])
            new.add_function(copy)
        new.fx_values = {k: remap(v, vmap) for k, v in self.fx_values.items()}
        new.output_spec = self.output_spec
        new.passes = list(self.passes)
        new.isa = dict(self.isa)
        return new

    def lookup(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    def __str__(self) -> str:
        from .printer import print_module

        return print_module(self)


def remap(x: Any, vmap: dict[int, Value]) -> Any:
    """`x` with a Value replaced by its copy in `vmap` (``Operation.clone``'s map); any
    other object, or a Value `vmap` does not know, is returned as it is."""
    return vmap.get(id(x), x) if isinstance(x, Value) else x
