"""Prints Cuvil IR as `.cuvilir` text. The parser reads back everything written here.

module @mlp {
  param @fc1.weight : tensor<512x784xf32>
  func @forward(%x: tensor<1x784xf32> loc("x")) -> (tensor<1x10xf32>) {
    %fc1 = cuvil.linear(%x, %w, %b) : (tensor<...>, ...) -> tensor<1x512xf32> loc(...)
    return %fc1
  }
}
"""

from __future__ import annotations

import re

from .attributes import SymbolRef, format_attr
from .core import Function, Module, Operation, Value

__all__ = ["print_module", "print_function", "format_op", "Namer"]

_BAD = re.compile(r"[^A-Za-z0-9_.$-]")


class Namer:
    """Gives every value of a function a unique printable name, from its hint when it has one."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.counter = 0

    def __call__(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            self.names[key] = self._fresh(v.name)
        return "%" + self.names[key]

    def _fresh(self, hint: str | None) -> str:
        if hint:
            base = _BAD.sub("_", hint)
        else:
            while str(self.counter) in self.used:
                self.counter += 1
            base = str(self.counter)
        name, i = base, 1
        while name in self.used:
            name = f"{base}_{i}"
            i += 1
        self.used.add(name)
        return name


def _types(op: Operation) -> str:
    ins = ", ".join(str(v.type) for v in op.operands)
    outs = [str(r.type) for r in op.results]
    out = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
    return f"({ins}) -> {out}"


def _attrs(op: Operation) -> str:
    items = [(k, v) for k, v in sorted(op.attrs.items()) if v is not None]
    if not items:
        return ""
    return " {" + ", ".join(f"{k} = {format_attr(v)}" for k, v in items) + "}"


def format_op(op: Operation, namer: Namer | None = None) -> str:
    namer = namer or Namer()
    operands = ", ".join(namer(v) for v in op.operands)
    results = ", ".join(namer(r) for r in op.results)
    return f"{results} = {op.name}({operands}){_attrs(op)} : {_types(op)} {op.loc}"


def _signature(fn: Function, namer: Namer) -> str:
    args = []
    for v, loc in zip(fn.args, fn.arg_locs, strict=True):
        text = f"{namer(v)}: {v.type}"
        args.append(text if loc.is_unknown else f"{text} {loc}")
    results = ", ".join(str(t) for t in fn.result_types)
    return f"func {SymbolRef(fn.name)}({', '.join(args)}) -> ({results})"


def print_function(fn: Function, indent: str = "  ") -> str:
    namer = Namer()
    lines = [f"{indent}{_signature(fn, namer)} {{"]
    lines += [f"{indent}  {format_op(op, namer)}" for op in fn.ops]
    lines.append(f"{indent}  return {', '.join(namer(v) for v in fn.outputs)}")
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def print_module(module: Module) -> str:
    lines = [f"module {SymbolRef(module.name)} {{"]
    lines += [f"  param {SymbolRef(name)} : {t}" for name, t in module.params.items()]
    lines += [print_function(fn) for fn in module.functions]
    lines.append("}")
    return "\n".join(lines) + "\n"
