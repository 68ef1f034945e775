"""The reference interpreter: runs Cuvil IR op by op with torch, reporting every op's output.

It defines what IR means. The diff tool hangs listeners on it to compare stages::

    def listener(op, outputs):  # called after each op with its result tensors
        ...
    Interpreter(module, listeners=[listener]).run(x)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from ..errors import CuvilRuntimeError
from .core import Function, Module, Operation
from .ops.constant import ParamOp
from .ops.fused import FusedOp, body_of
from .types import SymDim, TensorType

__all__ = [
    "Interpreter",
    "interpret",
    "Listener",
    "random_params",
    "check_input",
    "check_inputs",
]

Listener = Callable[[Operation, tuple[torch.Tensor, ...]], None]


class Interpreter:
    """Runs one function of a module. Intermediate tensors are dropped after their last use."""

    def __init__(
        self,
        module: Module,
        listeners: Sequence[Listener] = (),
        function: str | None = None,
        expand_fused: bool = False,
    ) -> None:
        """`expand_fused`: listeners also see the ops inside ``cuvil.fused`` bodies."""
        self.module = module
        self.expand_fused = expand_fused
        self.fn: Function = module.lookup(function) if function else module.main
        if self.fn is None:
            raise CuvilRuntimeError(
                f"module @{module.name} has no function @{function}"
            )
        self.listeners = list(listeners)

    def run(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        env = self._bind_inputs(inputs)
        last_use = self._last_uses()
        with torch.no_grad():
            for i, op in enumerate(self.fn.ops):
                outs = self._execute(op, [env[id(v)] for v in op.operands])
                for r, t in zip(op.results, outs):
                    env[id(r)] = t
                for listener in self.listeners:
                    listener(op, outs)
                for v in last_use.get(i, ()):
                    env.pop(id(v), None)
        return tuple(env[id(v)] for v in self.fn.outputs)

    def _bind_inputs(self, inputs: Sequence[torch.Tensor]) -> dict[int, torch.Tensor]:
        args = self.fn.args
        check_inputs([(v.name, v.type) for v in args], inputs, f"@{self.fn.name}")
        return {id(v): x for v, x in zip(args, inputs)}

    def _last_uses(self) -> dict[int, list]:
        """For each op index, the values whose last use it is (outputs are never dropped)."""
        keep = {id(v) for v in self.fn.outputs}
        last: dict[int, tuple[int, object]] = {}
        for i, op in enumerate(self.fn.ops):
            for v in op.operands:
                last[id(v)] = (i, v)
        out: dict[int, list] = {}
        for key, (i, v) in last.items():
            if key not in keep:
                out.setdefault(i, []).append(v)
        return out

    def execute(
        self, op: Operation, args: Sequence[torch.Tensor]
    ) -> tuple[torch.Tensor, ...]:
        """The results of one op on the given operand tensors (tools that walk the IR
        themselves, like the diff, run ops through this)."""
        return self._execute(op, list(args))

    def _execute(
        self, op: Operation, args: list[torch.Tensor]
    ) -> tuple[torch.Tensor, ...]:
        if isinstance(op, ParamOp):
            return (self._param(op),)
        if isinstance(op, FusedOp):
            return self._fused(op, args)
        try:
            out = op.reference(*args)
        except Exception as e:
            raise CuvilRuntimeError(
                f"'{op.name}' failed in the reference interpreter: "
                f"{type(e).__name__}: {e}",
                where=op.loc.source() or op.loc.describe(),
            ) from e
        return out if isinstance(out, tuple) else (out,)

    def _fused(self, op: FusedOp, args: list[torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """A fused op means its body function applied to its operands."""
        body = body_of(self.module, op)
        inner = self.listeners if self.expand_fused else ()
        return Interpreter(self.module, inner, body.name, self.expand_fused).run(*args)

    def _param(self, op: ParamOp) -> torch.Tensor:
        name = op.symbol()
        data = self.module.param_data.get(name)
        if data is None:
            raise CuvilRuntimeError(
                f"param @{name} has no data",
                hint="load the module from a model, or fill params with "
                "cuvil.ir.interpreter.random_params(module)",
            )
        return data


def check_inputs(
    expected: Sequence[tuple[str | None, TensorType]],
    inputs: Sequence[torch.Tensor],
    who: str = "the compiled model",
) -> None:
    """Clear errors for the wrong number of inputs, or one of the wrong kind."""
    if len(inputs) != len(expected):
        raise CuvilRuntimeError(
            f"{who} takes {len(expected)} inputs, got {len(inputs)}"
        )
    for i, ((name, t), x) in enumerate(zip(expected, inputs)):
        check_input(i, name, t, x)


def check_input(i: int, name: str | None, t: TensorType, x: torch.Tensor) -> None:
    """A clear error when an input does not match the function's argument type."""
    if not isinstance(x, torch.Tensor):
        raise CuvilRuntimeError(
            f"input {i} (%{name}) must be a tensor, got {type(x).__name__}"
        )
    shape_ok = len(x.shape) == t.rank and all(
        isinstance(d, SymDim) or d == s for d, s in zip(t.shape, x.shape)
    )
    if not shape_ok or x.dtype != t.dtype.torch:
        raise CuvilRuntimeError(
            f"input {i} (%{name}) is {tuple(x.shape)} {x.dtype}, expected {t}",
            hint="pass inputs with the shapes and dtypes the model was compiled for",
        )


def interpret(
    module: Module, inputs: Sequence[torch.Tensor], listeners: Sequence[Listener] = ()
) -> tuple[torch.Tensor, ...]:
    return Interpreter(module, listeners).run(*inputs)


def random_params(module: Module, seed: int = 0) -> Module:
    """Give every param without data deterministic random data (for IR read from text).

    Weights (rank >= 2) are scaled by 1/sqrt(fan-in) so activations stay finite through deep
    models; vectors are drawn from [0.5, 1) so variances and scales are positive.
    """
    gen = torch.Generator().manual_seed(seed)
    for name, t in module.params.items():
        if name not in module.param_data:
            module.param_data[name] = _random_tensor(t, gen)
    return module


def _random_tensor(t: TensorType, gen: torch.Generator) -> torch.Tensor:
    shape = tuple(d if isinstance(d, int) else 1 for d in t.shape)
    if not t.dtype.is_float:
        return torch.randint(0, 2, shape, generator=gen).to(t.dtype.torch)
    if len(shape) >= 2:
        fan_in = max(1, math.prod(shape[1:]))
        return (torch.randn(shape, generator=gen) / math.sqrt(fan_in)).to(t.dtype.torch)
    return (torch.rand(shape, generator=gen) * 0.5 + 0.5).to(t.dtype.torch)
