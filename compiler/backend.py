"""``torch.compile(model, backend="cuvil")``: a TorchDynamo backend over the same compiler.

Dynamo hands over an FX GraphModule and example inputs (parameters arrive as inputs),
once per graph: a graph break (data-dependent Python control flow, ``print``,
``.item()``) gives several graphs, each compiled here, with eager Python between them.
A graph is lowered with the FX frontend and compiled; if Cuvil cannot compile it, the
backend raises (set ``CUVIL_FALLBACK=1`` to run the graph eagerly instead, with a
warning). A graph with symbolic sizes (``dynamic=True``, or dims dynamo found to vary)
is compiled per call shape, through the cache of runtime/dynamic.py
(``frontend/specialize.py`` binds the call's sizes into a copy of the graph).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from .errors import CuvilError
from .frontend.fx import from_fx
from .frontend.specialize import bind_sizes, is_symbolic, split_outputs
from .options import CompileOptions
from .pipeline import compile_module
from .runtime.dynamic import DynamicCompiledModule

__all__ = ["cuvil_backend", "register"]


def cuvil_backend(
    gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **options: Any
) -> Callable[..., Any]:
    opts = CompileOptions.parse(options.get("options"))
    if any(is_symbolic(x) for x in example_inputs):
        return _dynamic(gm, example_inputs, opts)
    try:
        with torch.no_grad():
            module = from_fx(gm, list(example_inputs), gm=gm)
        compiled = compile_module(module, opts)
        compiled.frontend = "fx"  # dynamo's graphs are FX graphs
    except CuvilError as e:
        return _fallback(gm, e)
    return _as_tuple(compiled)


def _dynamic(gm, example_inputs, opts) -> Callable[..., Any]:
    """One build per call shape; a graph Cuvil cannot compile runs eagerly (with
    CUVIL_FALLBACK=1), decided at its first call."""

    def build(args: list[Any]):
        tensors = [x for x in args if isinstance(x, torch.Tensor)]
        special, template = split_outputs(bind_sizes(gm, args), tensors)
        with torch.no_grad():
            module = from_fx(special, tensors, gm=special)
        compiled = compile_module(module, opts)
        compiled.frontend = "fx"

        def call(*call_args: Any):
            out = compiled(*[x for x in call_args if isinstance(x, torch.Tensor)])
            if template is None:
                return out
            outs = iter(out if isinstance(out, (tuple, list)) else (out,))
            return tuple(next(outs) if t is None else t for t in template)

        return call

    cache = DynamicCompiledModule(build, None, example_inputs, who="dynamo graph")
    eager: list[Callable[..., Any]] = []

    def run(*args: Any):
        if eager:
            return eager[0](*args)
        try:
            out = cache(*args)
        except CuvilError as e:
            eager.append(_fallback(gm, e))
            return eager[0](*args)
        return out if isinstance(out, (tuple, list)) else (out,)

    run.cache = cache  # type: ignore[attr-defined]  (tests and users: cache_info())
    return run


def _fallback(gm: torch.fx.GraphModule, e: CuvilError) -> Callable[..., Any]:
    if os.environ.get("CUVIL_FALLBACK") == "1":
        warnings.warn(f"cuvil: running the graph eagerly: {e}", stacklevel=3)
        return gm.forward
    raise e


def _as_tuple(compiled) -> Callable[..., Any]:
    def run(*args: torch.Tensor):
        out = compiled(*args)
        return out if isinstance(out, (tuple, list)) else (out,)

    return run


def register() -> None:
    """Register the backend by name (also done by the package's entry point)."""
    from torch._dynamo import list_backends, register_backend

    if "cuvil" not in list_backends(exclude_tags=()):
        register_backend(name="cuvil")(cuvil_backend)
