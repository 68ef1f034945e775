"""Checks the IR's rules: SSA dominance, op signatures, inferred vs declared types, params.

``verify(module)`` raises the first VerifyError; ``verify_all(module)`` collects every one so
a tool can list them all (``cuvil-debug validate``).
"""

from __future__ import annotations

from ..errors import CuvilError, VerifyError
from .core import Function, Module, Operation, Trait
from .ops.constant import ParamOp
from .ops.fused import FusedOp, check_body
from .types import LAYOUTS, TensorType

__all__ = ["verify", "verify_all"]


def verify(module: Module) -> Module:
    """Raise the first VerifyError found in `module`; return the module when it is valid."""
    errors = verify_all(module)
    if errors:
        raise errors[0]
    return module


def verify_all(module: Module) -> list[VerifyError]:
    errors: list[VerifyError] = []
    for name, t in module.params.items():
        _catch(errors, _check_param_decl, module, name, t)
    if not module.functions:
        errors.append(VerifyError(f"module @{module.name} has no function"))
    for fn in module.functions:
        errors.extend(_verify_function(module, fn))
    return errors


def _catch(errors: list[VerifyError], check, *args) -> None:
    try:
        check(*args)
    except VerifyError as e:
        errors.append(e)
    except CuvilError as e:  # a rule helper raised a more general error: keep its text
        errors.append(VerifyError(e.message, where=e.where))


def _check_param_decl(module: Module, name: str, t) -> None:
    data = module.param_data.get(name)
    if data is not None and (
        tuple(data.shape) != t.shape or data.dtype != t.dtype.torch
    ):
        raise VerifyError(
            f"param @{name} is declared {t} but its data is "
            f"{tuple(data.shape)} {data.dtype}"
        )


def _verify_function(module: Module, fn: Function) -> list[VerifyError]:
    errors: list[VerifyError] = []
    defined: set[int] = set()
    for v in fn.args:
        if (why := _type_problem(v.type)) is not None:
            errors.append(VerifyError(f"argument %{v.name} of @{fn.name} {why}"))
        defined.add(id(v))
    position = {id(op): i for i, op in enumerate(fn.ops)}
    for op in fn.ops:
        _catch(errors, _verify_op, module, op, defined)
        if "inplace" in op.attrs:
            _catch(errors, _check_inplace, module, fn, op, position)
        defined.update(id(r) for r in op.results)
    _catch(errors, _verify_outputs, fn, defined)
    return errors


def _check_inplace(module: Module, fn: Function, op: Operation, position: dict) -> None:
    """``inplace = i``: operand i has the result's type, dies here, and is no output."""
    i = op.attrs["inplace"]
    if i >= len(op.operands) or len(op.results) != 1:
        raise op.fail(f"inplace = {i} names no operand of a single-result op")
    v = op.operands[i]
    if v.type != op.result.type:
        raise op.fail(
            f"inplace = {i}: operand {v.type} and result {op.result.type} differ"
        )
    here = position[id(op)]
    if any(position[id(user)] > here for user, _ in v.uses) or any(
        v is o for o in fn.outputs
    ):
        raise op.fail(
            f"inplace = {i}: operand %{v.name} is used after this op, so its "
            "memory cannot be reused"
        )
    if op.name == "cuvil.fused":
        body = module.lookup(op.attrs["body"].name)
        if body is None or not all(b.has_trait(Trait.ELEMENTWISE) for b in body.ops):
            raise op.fail(f"inplace = {i} on a fused op whose body is not elementwise")


def _verify_op(module: Module, op: Operation, defined: set[int]) -> None:
    for i, v in enumerate(op.operands):
        if id(v) not in defined:
            raise op.fail(
                f"operand {i} (%{v.name}) is used before it is defined "
                "(SSA values must dominate their uses)"
            )
        if (op, i) not in v.uses:
            raise op.fail(
                f"operand {i} (%{v.name}) is missing from the value's use list"
            )
    op.check_signature()
    _check_layouts(op)
    for i, r in enumerate(op.results):
        if (why := _type_problem(r.type)) is not None:
            raise op.fail(f"result {i} {why}")
    inferred = op.infer_types()
    declared = [r.type for r in op.results]
    if len(inferred) != len(declared):
        raise op.fail(
            f"has {len(declared)} results but the op produces {len(inferred)}"
        )
    for i, (want, got) in enumerate(zip(inferred, declared, strict=True)):
        if want != got:
            raise op.fail(
                f"result {i} is declared {got} but the op's type rule gives {want}"
            )
    if isinstance(op, ParamOp):
        _check_param_use(module, op)
    if isinstance(op, FusedOp):
        check_body(module, op)
    op.verify_()


def _check_layouts(op: Operation) -> None:
    for i, v in enumerate(op.operands):
        if v.type.layout not in op.LAYOUTS:
            takes = ", ".join(sorted(op.LAYOUTS))
            raise op.fail(
                f"operand {i} (%{v.name}) has layout {v.type.layout}, but this op takes "
                f"{takes} only (insert cuvil.relayout(%{v.name}) {{layout = "
                f'"contiguous"}} before it)'
            )


def _check_param_use(module: Module, op: Operation) -> None:
    name = op.symbol()
    if name not in module.params:
        raise op.fail(
            f"refers to undeclared param @{name} (declare it: param @{name} : <type>)"
        )
    if module.params[name] != op.result.type:
        raise op.fail(
            f"result type {op.result.type} differs from the declared "
            f"param @{name} : {module.params[name]}"
        )


def _type_problem(t: TensorType) -> str | None:
    """What is wrong with a type on its own (layout, dims), or None."""
    rank = LAYOUTS.get(t.layout, -1)
    if rank == -1:
        return f"has unknown layout '{t.layout}' (known: {', '.join(LAYOUTS)})"
    if rank is not None and t.rank != rank:
        return f"has type {t}, but layout {t.layout} needs rank {rank}"
    if any(isinstance(d, int) and d < 0 for d in t.shape):
        return f"has a negative dim: {t}"
    return None


def _verify_outputs(fn: Function, defined: set[int]) -> None:
    if not fn.outputs:
        raise VerifyError(f"function @{fn.name} returns nothing")
    for v in fn.outputs:
        if id(v) not in defined:
            raise VerifyError(
                f"@{fn.name} returns %{v.name}, which is not defined in it"
            )
    got = [v.type for v in fn.outputs]
    if got != fn.result_types:
        shown = ", ".join(map(str, got))
        want = ", ".join(map(str, fn.result_types))
        raise VerifyError(
            f"@{fn.name} returns ({shown}) but its signature says ({want})"
        )
