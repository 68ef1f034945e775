"""``cuvil.fused``: a group of ops computed by one kernel, its body a module-level function.

The IR has no regions, so a fused group lives in its own function (``@fused_0``) and the op
names it::

    %y = cuvil.fused(%x, %b) {body = @fused_0} : (...) -> tensor<4x8xf32> loc(fused[...])
    func @fused_0(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>) -> (tensor<4x8xf32>) {
      %0 = cuvil.add(%a0, %a1) ...
      %1 = cuvil.relu(%0) ...
      return %1
    }

The body is ordinary Cuvil IR: it prints, parses, verifies and interprets like any function.
Its arguments take the op's operands in order; its results are the op's results. A body is
either elementwise ops only (one pointwise loop) or a contraction (linear, matmul, conv)
followed by elementwise ops (its GEMM epilogue): codegen/fused.py.
"""

from __future__ import annotations

from ..attributes import AttrSpec, SymbolRef
from ..core import Function, Module, Operation, Trait, Value, register_op
from ..location import AnyLoc, fuse
from ..types import TensorType
from .layout import ANY_LAYOUT

__all__ = ["FusedOp", "body_of", "check_body"]


@register_op
class FusedOp(Operation):
    """``cuvil.fused(%inputs...) {body = @fused_N}``: the body function applied to the inputs.

    Result types are declared (they are the body's result types, checked by the verifier
    against the module); the interpreter runs the body, codegen emits one kernel for it.
    """

    name = "cuvil.fused"
    OPERANDS = ("inputs*",)
    TRAITS = frozenset({Trait.PURE, Trait.IN_PLACE})
    ATTRS = {"body": AttrSpec("symbol")}
    NUM_RESULTS = -1
    LAYOUTS = ANY_LAYOUT  # the body's ops check their own operands

    def infer_types(self) -> list[TensorType]:
        # the body's signature is checked at module level (check_body); an op alone only
        # knows what it declares
        return [r.type for r in self.results]

    @classmethod
    def of(
        cls,
        body: Function,
        operands: list[Value],
        loc: AnyLoc | None = None,
        name: str | None = None,
    ) -> FusedOp:
        """A fused op calling `body` (already added to the module) on `operands`."""
        where = loc if loc is not None else fuse(*(op.loc for op in body.ops))
        names = [name] if len(body.result_types) == 1 else None
        return cls(
            operands,
            {"body": SymbolRef(body.name)},
            list(body.result_types),
            where,
            names,
        )


def body_of(module: Module, op: Operation) -> Function:
    """The body function a ``cuvil.fused`` op names (VerifyError when it is missing)."""
    ref = op.attrs["body"]
    fn = module.lookup(ref.name)
    if fn is None:
        raise op.fail(f"body @{ref.name} is not a function of module @{module.name}")
    return fn


def check_body(module: Module, op: Operation) -> None:
    """The body exists, is not @forward, and its signature matches the op's types."""
    fn = body_of(module, op)
    if fn is module.main:
        raise op.fail(f"body @{fn.name} is the module's main function")
    arg_types = [a.type for a in fn.args]
    if arg_types != op.operand_types:
        shown = ", ".join(map(str, arg_types))
        raise op.fail(
            f"operand types differ from the arguments of @{fn.name} ({shown})"
        )
    if fn.result_types != [r.type for r in op.results]:
        shown = ", ".join(map(str, fn.result_types))
        raise op.fail(f"result types differ from the results of @{fn.name} ({shown})")
