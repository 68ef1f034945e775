"""The ops the fuzzer draws from, derived from Cuvil's own rule tables.

Every key of the frontend's rule table (``cuvil.frontend.registry.LOWERINGS``: torch
functions, ``Tensor`` method names, ATen overload packets, ``operator`` functions) and
every ``nn.Module`` leaf (``MODULE_LOWERINGS``) becomes a *form*: a way to call the op
from a model's ``forward`` together with its parameter list. Parameter lists come from
the ATen schema (``torch.ops.aten.NAME``) of the target's name, or from the Python
signature of a Python function (``F.interpolate``), or, for ``operator`` functions, from
their arity. A new rule in the table is fuzzed without touching this file; a rule whose
parameters cannot be described is reported by ``coverage()`` instead of being skipped
silently.

Forms are grouped by the rule that lowers them (``family``), so the generator draws
rules uniformly and then one of the rule's spellings.
"""

from __future__ import annotations

import builtins
import inspect
import operator
import types
import typing
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

__all__ = ["Param", "Form", "catalog", "families", "resolve", "coverage"]

aten = torch.ops.aten


@dataclass(frozen=True)
class Param:
    """One parameter: `kind` is a normalized type (``Tensor``, ``Tensor?``, ``Tensor[]``,
    ``Tensor?[]``, ``int``, ``int[]``, ``float``, ``float[]``, ``number``, ``bool``,
    ``str``, ``dtype``, ``skip`` — a device, layout or memory format left at its default)
    with ``?`` when it may be None; `required` when it has no default."""

    name: str
    kind: str
    required: bool = True
    kwarg_only: bool = False
    choices: tuple = ()  # a Literal[...] annotation's values


@dataclass
class Form:
    """One spelling of an op: ``call`` is how the renderer writes it (``torch.add``,
    ``.add`` for a method, ``operator.add``, ``aten.add.Tensor``, ``nn.Conv2d``)."""

    family: str  # the lowering rule's name
    call: str
    params: list[Param]
    kind: str  # "function" | "method" | "operator" | "aten" | "module" | "getattr"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The op's bare name (``add``, ``conv2d``): the key of the synthesis hints."""
        base = self.call.rsplit(".", 1)[-1] if self.kind != "aten" else self.call
        if self.kind == "aten":
            base = self.call.split(".")[1]
        return base.removeprefix("special_").removeprefix("linalg_")


_SKIP_NAMES = {"device", "layout", "pin_memory", "memory_format", "generator", "out"}
_SKIP_TYPES = ("Device", "Generator", "Layout", "MemoryFormat", "Storage", "complex")


def _aten_kind(arg) -> str | None:
    """A normalized kind for an ATen schema argument (None: cannot synthesize)."""
    text = str(arg.type)
    if arg.name in _SKIP_NAMES or any(t in text for t in _SKIP_TYPES):
        return "skip"
    if arg.name == "dtype" or text == "ScalarType":
        return "dtype"
    optional = text.startswith("Optional[")
    inner = text[9:-1] if optional else text
    table = {
        "Tensor": "Tensor",
        "List[Tensor]": "Tensor[]",
        "List[Optional[Tensor]]": "Tensor?[]",
        "int": "int",
        "SymInt": "int",
        "List[int]": "int[]",
        "List[SymInt]": "int[]",
        "float": "float",
        "List[float]": "float[]",
        "number": "number",
        "bool": "bool",
        "List[bool]": "bool[]",
        "str": "str",
    }
    kind = table.get(inner)
    if kind is None:
        return None
    return kind + "?" if optional and not kind.endswith("?[]") else kind


def _schema_params(schema) -> list[Param] | None:
    params = []
    for a in schema.arguments:
        if a.is_out:
            return None
        kind = _aten_kind(a)
        if kind is None:
            if not a.has_default_value():
                return None
            kind = "skip"
        params.append(Param(a.name, kind, not a.has_default_value(), a.kwarg_only))
    returns = [str(r.type) for r in schema.returns]
    if not returns or any(t not in ("Tensor", "List[Tensor]") for t in returns):
        return None
    if not params or params[0].kind not in ("Tensor", "Tensor[]", "int[]"):
        return None
    return params


@cache
def _aten_overloads(name: str) -> list[tuple[str, list[Param]]]:
    """(overload, params) of ``aten.NAME`` whose arguments can all be synthesized."""
    packet = getattr(aten, name, None)
    if not isinstance(packet, torch._ops.OpOverloadPacket):
        return []
    found = []
    for overload in packet.overloads():
        if overload.startswith("prim_"):  # TorchScript's primitives, not user calls
            continue
        params = _schema_params(getattr(packet, overload)._schema)
        if params is not None:
            found.append((overload, params))
    return found


def _python_kind(p: inspect.Parameter) -> tuple[str | None, tuple]:
    """(kind, choices) of a Python parameter from its annotation or default."""
    ann = p.annotation
    if ann is inspect.Parameter.empty or ann is None:
        default = p.default
        if isinstance(default, bool):
            return "bool", ()
        if isinstance(default, int | float | str):
            return {int: "int", float: "float", str: "str"}[type(default)], ()
        return ("Tensor" if p.name in ("input", "weight", "bias") else None), ()
    if typing.get_origin(ann) is typing.Literal:
        return "str", typing.get_args(ann)
    options = typing.get_args(ann) if typing.get_origin(ann) in _UNIONS else (ann,)
    optional = type(None) in options
    options = [a for a in options if a is not type(None)]
    kinds = [_plain_kind(a) for a in options]
    kind = next((k for k in ("Tensor", "int", "float") if k in kinds), None)
    kind = kind or next((k for k in kinds if k), None)
    if kind is None:
        return None, ()
    return (kind + "?" if optional and kind != "dtype" else kind), ()


_UNIONS = (typing.Union, types.UnionType)


def _plain_kind(ann) -> str | None:
    if typing.get_origin(ann) in (list, tuple):
        inner = typing.get_args(ann)[:1]
        return {(int,): "int[]", (float,): "float[]", (torch.Tensor,): "Tensor[]"}.get(
            tuple(inner)
        )
    names = {torch.Tensor: "Tensor", bool: "bool", int: "int", float: "float"}
    names.update({str: "str", torch.dtype: "dtype"})
    return names.get(ann)


def _signature_params(fn) -> list[Param] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None
        if p.name == "self":
            continue
        kind, choices = _python_kind(p)
        required = p.default is inspect.Parameter.empty
        if kind is None:
            if required:
                return None
            kind = "skip"
        keyword = p.kind is p.KEYWORD_ONLY
        params.append(Param(p.name, kind, required, keyword, choices))
    return params


_UNARY_OPERATORS = {"neg", "pos", "invert", "abs", "not_"}
#: where the renderer finds a callable (first match wins: ``F.relu`` over ``torch.relu``)
_NAMESPACES = [
    ("F", F),
    ("torch", torch),
    ("torch.special", torch.special),
    ("torch.linalg", torch.linalg),
    ("torch.functional", torch.functional),
    ("torch._C._nn", torch._C._nn),
    ("torch._C._special", torch._C._special),
    ("torch._C._linalg", torch._C._linalg),
]
#: Tensor methods whose argument order is not the ATen schema's
_METHOD_PARAMS = {
    "where": [
        Param("self", "Tensor"),
        Param("condition", "Tensor"),
        Param("other", "Tensor"),
    ],
    "type": [Param("self", "Tensor"), Param("dtype", "dtype")],
    "bool": [Param("self", "Tensor")],
}
#: the method casts (``x.float()``) and others with no ATen packet of their name
_NO_ARGS = {"float", "double", "half", "bfloat16", "int", "long", "bool", "cpu"}
#: targets whose result is not a tensor (sizes): drawn as part of another op, not alone
NON_TENSOR = {"size", "dim", "ndimension", "numel"}


@cache
def _qualified() -> dict[int, str]:
    names: dict[int, str] = {}
    for prefix, module in reversed(_NAMESPACES):
        for attr in dir(module):
            if not attr.startswith("__"):
                names[id(getattr(module, attr, None))] = f"{prefix}.{attr}"
    return names


def _method_form(family: str, name: str) -> Form | None:
    if name in _METHOD_PARAMS or name in _NO_ARGS:
        params = _METHOD_PARAMS.get(name, [Param("self", "Tensor")])
        return Form(family, f".{name}", params, "method", {"overloads": [("", params)]})
    overloads = _aten_overloads(name)
    if not overloads:
        return None
    return Form(family, f".{name}", overloads[0][1], "method", {"overloads": overloads})


def _function_form(family: str, target: Any) -> Form | None:
    call = _qualified().get(id(target))
    if call is None:
        return None
    if isinstance(target, types.BuiltinFunctionType):
        overloads = _aten_overloads(target.__name__)
    else:
        params = _signature_params(target)
        name = call.rsplit(".", 1)[-1]  # F.max_pool2d is a wrapper named "fn"
        overloads = [("", params)] if params else _aten_overloads(name)
    if not overloads:
        return None
    return Form(family, call, overloads[0][1], "function", {"overloads": overloads})


def _aten_form(family: str, target: Any) -> Form | None:
    if isinstance(target, torch._ops.OpOverload):
        name, overload = target._schema.name.split("::")[1], target._overloadname
        params = _schema_params(target._schema)
        overloads = [(overload, params)] if params else []
    else:
        name = target._qualified_op_name.split("::")[1]
        overloads = _aten_overloads(name)
    if not overloads:
        return None
    return Form(
        family, f"aten.{name}", overloads[0][1], "aten", {"overloads": overloads}
    )


def _operator_form(family: str, target: Any) -> Form | None:
    name = target.__name__
    if target is operator.getitem:
        return Form(family, "getitem", [Param("self", "Tensor")], "getitem")
    if target is builtins.getattr:
        return Form(family, "getattr", [Param("self", "Tensor")], "getattr")
    if target is builtins.abs:
        name = "abs"
    unary = name in _UNARY_OPERATORS
    params = [Param("self", "Tensor")] + ([] if unary else [Param("other", "Tensor")])
    prefix = "builtins" if target is builtins.abs else "operator"
    return Form(family, f"{prefix}.{name}", params, "operator")


def _form(family: str, target: Any) -> Form | None:
    if isinstance(target, str):
        if "." in target or target in NON_TENSOR:
            return None  # a library's function by name (torchvision), or a size
        return _method_form(family, target)
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return _aten_form(family, target)
    module = getattr(target, "__module__", "") or ""
    if module in ("_operator", "operator") or target in (builtins.abs, getattr):
        return _operator_form(family, target)
    if module == "math":
        return None  # math.sqrt of a size
    return _function_form(family, target)


def _module_form(cls: type[nn.Module]) -> Form | None:
    sig = inspect.signature(cls.__init__).parameters.values()
    if all(
        p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig
    ):
        params = []  # nn.Sigmoid(), nn.Identity(): nothing to configure
    else:
        params = _signature_params(cls.__init__)
    if params is None:
        return None
    params = [p for p in params if p.name not in ("device", "dtype")]
    return Form(f"nn.{cls.__name__}", f"nn.{cls.__name__}", params, "module")


@cache
def catalog() -> tuple[list[Form], dict[str, list[str]]]:
    """(every form, {family: the targets no form could be made for})."""
    import cuvil.frontend  # noqa: F401  (registers the rules)
    from cuvil.frontend.modules import MODULE_LOWERINGS
    from cuvil.frontend.registry import LOWERINGS, target_name

    forms, missing = [], {}
    for target, rule in LOWERINGS.items():
        family = rule.__qualname__
        form = _form(family, target)
        if form is None:
            label = target if isinstance(target, str) else target_name(target)
            missing.setdefault(family, []).append(label)
        else:
            forms.append(form)
    for cls in MODULE_LOWERINGS:
        form = _module_form(cls)
        if form is None:
            missing.setdefault(f"nn.{cls.__name__}", []).append(cls.__name__)
        else:
            forms.append(form)
    return forms, missing


def families() -> dict[str, list[Form]]:
    """The forms grouped by lowering rule (or module class)."""
    grouped: dict[str, list[Form]] = {}
    for form in catalog()[0]:
        grouped.setdefault(form.family, []).append(form)
    return grouped


def coverage() -> dict[str, Any]:
    """Which rules the fuzzer can draw, and which targets it cannot spell (and why)."""
    forms, missing = catalog()
    drawn = families()
    return {
        "families": len(drawn),
        "forms": len(forms),
        "not_drawn": {f: t for f, t in missing.items() if f not in drawn},
        "targets_not_spelled": missing,
    }


def resolve(call: str) -> Any:
    """The Python callable of a rendered ``call`` (``torch.add``, ``aten.add.Tensor``,
    ``F.relu``, ``operator.add``, ``nn.Conv2d``)."""
    if call.startswith("aten."):
        _, name, overload = call.split(".")
        return getattr(getattr(aten, name), overload or "default")
    head, _, rest = call.partition(".")
    roots = {"torch": torch, "F": F, "operator": operator, "nn": nn}
    obj = roots.get(head, builtins) if head != "builtins" else builtins
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj
