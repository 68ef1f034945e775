"""Seams for tools: what a compile calls back at three points, passed to it explicitly.

    hooks = CompileHooks(after_node=note, passes=(("fold-constants", "my-pass"),))
    cuvil.compile(model, inputs, hooks=hooks)

- ``after_node(NodeLowered)``: the frontend lowered one FX node (the output node last);
  the callback may emit IR ops at the node and rebind the node to another value.
- ``passes``: ``(anchor, item)`` pairs the *default* pipelines run right after the first
  occurrence of the anchor pass (at the end when the pipeline lacks it); an explicit
  pipeline string is left alone. Items are pipeline text (``"my-pass{threshold=8}"``).
- ``after_kernel(KernelEmitted)``: code generation emitted the body of one op's kernel
  (its loops are closed; the kernel is not finished): the callback may append code.

Hooks belong to one compile call (``cuvil.compile``, ``compile_module``, ``lower``,
``run_passes``, ``generate``, ``Stepper``): there is no process-wide registry, so two
compiles on two threads with different hooks do not see each other's. ``hooks=None``
costs one test per stage. The toolkit (``cuvil_debug``) builds its bug injection on
these seams. This module imports nothing from the compiler: every stage may import it.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CompileHooks", "NodeLowered", "KernelEmitted"]


@dataclass(frozen=True)
class NodeLowered:
    """What ``after_node`` sees: FX node `node` of `graph` was just lowered.

    `cx` is the frontend's ``LoweringContext``: its function (``cx.fn``), module
    (``cx.module``) and location (``cx.loc``, the node's) are where new ops go
    (``cx.emit(OpClass, ...)``, ``cx.fn.append(op)``; ``cx.value(x)`` makes a value).
    """

    node: Any  # torch.fx.Node
    graph: Any  # torch.fx.Graph
    cx: Any  # cuvil.frontend.context.LoweringContext
    bindings: MutableMapping[Any, Any]  # FX node -> what it is lowered to, so far

    @property
    def value(self) -> Any:
        """What the node was lowered to: an IR Value, a Python value, a LazyTensor, a
        tuple of those, or None (the output node)."""
        return self.bindings[self.node]

    def rebind(self, new: Any, *, aliases_of: Any = None) -> None:
        """Later nodes (and the outputs) read `new` for this node; with `aliases_of`, so
        do the other FX nodes bound to that object (an in-place ``x.add_(y)`` bound x to
        this node's value)."""
        self.bindings[self.node] = new
        if aliases_of is not None:
            for key, v in list(self.bindings.items()):
                if v is aliases_of:
                    self.bindings[key] = new


@dataclass(frozen=True)
class KernelEmitted:
    """What ``after_kernel`` sees: the body of `op`'s kernel was just emitted.

    `kernel` is ``cuvil.codegen.kernel.Kernel``: ``kernel.b`` (an llvmlite builder after
    the body), ``kernel.fn`` (the LLVM function; ``kernel.fn.module`` its module),
    ``kernel.out(i)`` / ``kernel.inp(i)`` (the buffers, contiguous or in the result's
    layout). `kernel_ops` are the main function's ops that get a kernel, in order.
    """

    op: Any  # cuvil.ir.core.Operation
    kernel: Any  # cuvil.codegen.kernel.Kernel
    module: Any  # cuvil.ir.core.Module being compiled
    kernel_ops: Sequence[Any]


@dataclass(frozen=True)
class CompileHooks:
    """The three seams of one compile (module docstring); each one is optional."""

    after_node: Callable[[NodeLowered], None] | None = None
    passes: tuple[tuple[str, str], ...] = ()
    after_kernel: Callable[[KernelEmitted], None] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "passes", tuple(tuple(p) for p in self.passes))
        for item in self.passes:
            if len(item) != 2 or not all(isinstance(s, str) for s in item):
                raise TypeError(f"hooks.passes items are (anchor, item), got {item!r}")
