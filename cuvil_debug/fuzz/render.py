"""A graph as a model file: ``class Model(nn.Module)`` and ``example_inputs()``.

The same text serves the fuzz run (``STATE`` and ``INPUTS`` are injected as tensors
before the model is built) and a saved regression sample (``literal=True``: the values
are written into the file, so it needs nothing but torch).
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from .graph import Graph, Node
from .values import TensorSpec, literal, make

__all__ = ["render", "load", "materialize"]

_INFIX = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^", "lt": "<",
    "le": "<=", "eq": "==", "ne": "!=", "ge": ">=", "gt": ">",
}  # fmt: skip
_PREFIX = {"neg": "-", "invert": "~", "pos": "+"}
_counter = itertools.count()


def _header(body: str) -> str:
    """The imports `body` needs (ruff-clean sample files)."""
    stdlib = [f"import {m}\n" for m in ("math", "operator") if f"{m}." in body]
    lines = "".join(stdlib) + ("\n" if stdlib else "")
    lines += "import torch\nimport torch.nn as nn\n"
    if "F." in body:
        lines += "import torch.nn.functional as F\n"
    return lines + ("\naten = torch.ops.aten\n" if "aten." in body else "")


HELPERS = '''

def _t(spec):
    """A tensor from (shape, dtype, values, layout), laid out as the fuzzer made it."""
    if isinstance(spec, torch.Tensor):
        return spec
    shape, dtype, values, layout = spec
    dtype = getattr(torch, dtype)
    x = torch.tensor(values, dtype=torch.float64 if dtype.is_floating_point else None)
    x = x.to(dtype).reshape(shape)
    wide = [d for d, n in enumerate(shape) if n > 1]
    if layout == "transposed" and len(shape) >= 2:
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "strided" and shape:
        buf = torch.zeros(*shape[:-1], 2 * shape[-1], dtype=dtype)
        buf[..., ::2] = x
        return buf[..., ::2]
    if layout == "offset" and shape:
        flat = torch.zeros(x.numel() + 3, dtype=dtype)
        flat[3:] = x.reshape(-1)
        return flat[3:].view(shape)
    if layout == "expanded" and wide:
        return x.narrow(wide[0], 0, 1).expand(*shape)
    return x


def _load(module, prefix):
    keys = module.state_dict().keys()
    module.load_state_dict({k: _t(STATE[f"{prefix}.{k}"]) for k in keys}, assign=True)
    return module.eval()
'''


def _num(x: float) -> str:
    if math.isnan(x):
        return "math.nan"
    if math.isinf(x):
        return "math.inf" if x > 0 else "-math.inf"
    return repr(x)


def _arg(a: Any, index: bool = False) -> str:
    if isinstance(a, bool) or a is None or isinstance(a, int | str):
        return repr(a)
    if isinstance(a, float):
        return _num(a)
    if isinstance(a, list):
        return "[" + ", ".join(_arg(x) for x in a) + "]"
    if "x" in a:
        return f"x{a['x']}"
    if "v" in a:
        return f"v{a['v']}"
    if "p" in a:
        return f"self.{a['p']}"
    if "slice" in a:
        start, stop, step = ("" if x is None else str(x) for x in a["slice"])
        if not index:
            return f"slice({', '.join(map(repr, a['slice']))})"
        return f"{start}:{stop}" + (f":{step}" if step else "")
    if "ellipsis" in a:
        return "..."
    if "tuple" in a:
        inner = [_arg(x, index) for x in a["tuple"]]
        return ", ".join(inner) if index else "(" + ", ".join(inner) + ",)"
    if "dtype" in a:
        return f"torch.{a['dtype']}"
    raise ValueError(f"cannot render {a!r}")


def _call(node: Node) -> str:
    args = [_arg(a) for a in node.args]
    args += [f"{k}={_arg(v)}" for k, v in node.kwargs.items()]
    name = node.call.rsplit(".", 1)[-1]
    if node.kind == "operator" and node.call.startswith("builtins."):
        return f"{name}({args[0]})"
    if node.kind == "operator" and name in _INFIX and len(args) == 2:
        return f"{args[0]} {_INFIX[name]} {args[1]}"
    if node.kind == "operator" and name in _PREFIX:
        return f"{_PREFIX[name]}{args[0]}"
    if node.kind == "method":
        return f"{args[0]}{node.call}({', '.join(args[1:])})"
    if node.kind == "module":
        return f"self.{node.module}({', '.join(args)})"
    if node.kind == "getitem":
        return f"{args[0]}[{_arg(node.args[1], index=True)}]"
    if node.kind == "getattr":
        return f"{args[0]}.{node.args[1]}"
    return f"{node.call}({', '.join(args)})"


def _ctor(node: Node) -> str:
    kw = ", ".join(f"{k}={_arg(v)}" for k, v in (node.ctor or {}).items())
    return f"        self.{node.module} = _load({node.call}({kw}), {node.module!r})"


def _init(graph: Graph) -> list[str]:
    lines = ["    def __init__(self):", "        super().__init__()"]
    for name, spec in graph.state.items():
        if "." in name:
            continue  # a module's entry: loaded with its module
        if spec.dtype.startswith(("float", "bfloat")):
            lines.append(
                f"        self.{name} = nn.Parameter(_t(STATE[{name!r}]), requires_grad=False)"
            )
        else:
            lines.append(f"        self.register_buffer({name!r}, _t(STATE[{name!r}]))")
    lines += [_ctor(n) for n in graph.nodes if n.kind == "module"]
    return lines


def _forward(graph: Graph) -> list[str]:
    params = ", ".join(["self"] + [f"x{i}" for i in range(len(graph.inputs))])
    lines = [f"    def forward({params}):"]
    lines += [f"        v{j} = {_call(n)}" for j, n in enumerate(graph.nodes)]
    outs = ", ".join(f"v{j}" for j in graph.outputs)
    lines.append(f"        return ({outs},)")
    return lines


def _data(spec_or_tensor: Any) -> str:
    t = (
        spec_or_tensor
        if isinstance(spec_or_tensor, torch.Tensor)
        else make(spec_or_tensor)
    )
    layout = (
        spec_or_tensor.layout
        if isinstance(spec_or_tensor, TensorSpec)
        else "contiguous"
    )
    values = (
        "["
        + ", ".join(_num(v) if isinstance(v, float) else repr(v) for v in literal(t))
        + "]"
    )
    dtype = str(t.dtype).removeprefix("torch.")
    return f"({list(t.shape)!r}, {dtype!r}, {values}, {layout!r})"


def render(graph: Graph, *, literal: bool = False, doc: str = "") -> str:
    """The model file of `graph` (with its values written in when `literal`)."""
    head = f'"""{doc}"""\n\n' if doc else ""
    parts: list[str] = []
    if literal:
        state = ",\n".join(f"    {k!r}: {_data(s)}" for k, s in graph.state.items())
        inputs = ",\n".join(f"    {_data(s)}" for s in graph.inputs)
        parts.append(f"STATE = {{\n{state}\n}}\nINPUTS = [\n{inputs}\n]\n")
    else:
        parts.append("STATE: dict = {}  # injected by the fuzzer\nINPUTS: list = []\n")
    parts.append(HELPERS)
    body = ["", "", "class Model(nn.Module):", *_init(graph), "", *_forward(graph), ""]
    body += ["", "def example_inputs():", "    return tuple(_t(s) for s in INPUTS)", ""]
    text = "".join(parts) + "\n".join(body)
    return head + _header(text) + text


def load(path: Path, data=None) -> ModuleType:
    """Import a rendered file as a fresh module (each call a new one), with, for a run,
    the ``(STATE, INPUTS)`` tensors injected."""
    name = f"cuvil_fuzz_graph_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # torch.export and fx look modules up by name
    spec.loader.exec_module(module)
    if data is not None:
        module.STATE, module.INPUTS = data
    return module


def materialize(graph: Graph) -> tuple[dict[str, torch.Tensor], list[torch.Tensor]]:
    """The tensors a run injects: (STATE, INPUTS)."""
    return {k: make(s) for k, s in graph.state.items()}, [make(s) for s in graph.inputs]
