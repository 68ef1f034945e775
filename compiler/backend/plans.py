"""The plans a GraphRunner runs (runner.py): a whole compiled graph, a split graph's
Cuvil regions (each compiled per input shape on its first call), and their helpers.
Each counts its runs in its record (records.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.fx

from ..errors import CuvilError
from ..frontend.fx import from_fx
from ..pipeline import compile_module
from ..runtime.dynamic import DynamicCompiledModule
from .records import BuildRecord, RegionRecord

__all__ = [
    "Region",
    "whole",
    "with_template",
    "copy_graph",
    "count_ops",
    "one_line",
    "internal",
]


class Region:
    """One Cuvil region of a split graph, compiled per input shape on first use."""

    def __init__(self, gm, record: RegionRecord, opts, strict: bool, index: int):
        self.gm, self.record, self.opts, self.strict = gm, record, opts, strict
        self.__name__ = self.__qualname__ = f"cuvil_region_{index}"
        self.__module__ = __name__
        inputs = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.cache = DynamicCompiledModule(
            self._compile, None, inputs, who=f"Cuvil region {index}"
        )

    def __call__(self, *args: Any) -> Any:
        return self.cache(*args)

    def _compile(self, args: list[Any]) -> Callable[..., Any]:
        record = self.record
        try:
            module = from_fx(self.gm, args, gm=self.gm)
            compiled = compile_module(module, self.opts)
        except Exception as e:  # a CuvilError, or a bug of Cuvil's: runs eagerly
            error = e if isinstance(e, CuvilError) else internal(e)
            if self.strict:
                raise error from e
            record.error = one_line(error)
            gm = self.gm

            def eager(*xs: Any) -> Any:
                record.eager_runs += 1
                return gm(*xs)

            return eager
        record.kernels = len(compiled.kernels)

        def run(*xs: Any) -> Any:
            record.runs += 1
            return compiled(*xs)

        return run


def whole(compiled, region: RegionRecord, build: BuildRecord) -> Callable[..., Any]:
    def run(*tensors: Any) -> Any:
        build.calls += 1
        region.runs += 1
        return compiled(*tensors)

    return run


def with_template(plan, template, *, tensors_only: bool) -> Callable[..., Any]:
    """The plan called with the graph's inputs: its tensors only (the sizes are bound),
    its int outputs put back where the graph returns them."""
    if not tensors_only and template is None:
        return plan

    def run(*args: Any) -> Any:
        out = plan(*[x for x in args if isinstance(x, torch.Tensor)])
        if template is None:
            return out
        outs = iter(out)
        return tuple(next(outs) if t is None else t for t in template)

    return run


def copy_graph(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    return torch.fx.GraphModule(gm, graph, gm.__class__.__name__)


def count_ops(gm: torch.fx.GraphModule) -> int:
    return sum(
        n.op in ("call_function", "call_method", "call_module") for n in gm.graph.nodes
    )


def one_line(e: CuvilError) -> str:
    text = f"{e.where}: {e.message}" if e.where else e.message
    return text.splitlines()[0]


def internal(e: Exception) -> CuvilError:
    return CuvilError(
        f"internal error in Cuvil's torch.compile backend: {type(e).__name__}: {e}",
        hint="please report it with the model; CUVIL_FALLBACK=0 raises it here",
    )
