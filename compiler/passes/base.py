"""The pass contract: a frozen dataclass with a kebab-case name, and the context it runs in.

A pass rewrites a module in place and returns whether it changed anything. Every rewrite it
performs is one *action*: it asks ``ctx.allow_action(what)`` first and skips the rewrite
when the answer is no. Actions are counted across the whole pipeline, so a bisect limit N
applies exactly the first N rewrites (LLVM's ``-opt-bisect-limit``, at Cuvil's level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..ir.core import Function, Module

__all__ = ["ModulePass", "PassContext", "Action", "main_functions"]


@dataclass(frozen=True)
class Action:
    """One rewrite a pass asked to perform: its global index, pass and description."""

    index: int
    pass_name: str
    description: str
    applied: bool


@dataclass
class PassContext:
    """State shared by the passes of one pipeline run: the action counter and bisect limit.

    ``bisect_limit=None`` applies every action; ``N`` applies actions 1..N and skips later
    ones. ``actions`` records every action asked for (applied or not), in order.
    """

    bisect_limit: int | None = None
    actions: list[Action] = field(default_factory=list)
    current_pass: str = ""

    def allow_action(self, description: str) -> bool:
        """Count one rewrite; True when it may be performed."""
        index = len(self.actions) + 1
        applied = self.bisect_limit is None or index <= self.bisect_limit
        self.actions.append(Action(index, self.current_pass, description, applied))
        return applied

    @property
    def applied(self) -> list[Action]:
        return [a for a in self.actions if a.applied]

    @property
    def last_applied(self) -> Action | None:
        applied = self.applied
        return applied[-1] if applied else None


@dataclass(frozen=True)
class ModulePass:
    """Base of every pass. Subclasses are frozen dataclasses whose fields are options.

    ``name`` is the kebab-case name pipelines use; ``apply`` rewrites the module in place
    and returns True when it changed anything.
    """

    name: ClassVar[str] = "<abstract>"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        raise NotImplementedError(f"{type(self).__name__}.apply")

    def spec(self) -> str:
        """The pipeline text of this pass with its non-default options."""
        from .pipeline import format_pass

        return format_pass(self)


def main_functions(module: Module) -> list[Function]:
    """The functions passes optimize: everything but ``cuvil.fused`` bodies."""
    from ..ir.ops.fused import FusedOp

    bodies = {
        op.attrs["body"].name
        for fn in module.functions
        for op in fn.ops
        if isinstance(op, FusedOp)
    }
    return [fn for fn in module.functions if fn.name not in bodies]
