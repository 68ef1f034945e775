"""CompiledModule: a callable over native code. Torch tensors in, torch tensors out."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import torch
from torch.utils._pytree import tree_unflatten

from ..codegen.generator import Program
from ..errors import CuvilRuntimeError
from ..interpreter import check_input
from ..ir.core import Module

__all__ = ["CompiledModule"]


def _pointer_array(tensors: Sequence[torch.Tensor]):
    return (ctypes.c_void_p * max(len(tensors), 1))(*[t.data_ptr() for t in tensors])


class CompiledModule:
    """Runs the native code of one compiled function.

    Inputs are checked against the compiled shapes and dtypes; contiguous inputs are passed
    by pointer (zero-copy), others are made contiguous once. Outputs are fresh tensors.
    One arena holds the intermediates, so a CompiledModule is not re-entrant across threads.
    """

    def __init__(self, module: Module, program: Program, jit, options: dict[str, Any]) -> None:
        self.module, self.program, self.jit, self.options = module, program, jit, options
        data = {**module.param_data, **program.derived}
        self._params = [data[name].contiguous() for name in program.params]
        self._param_ptrs = _pointer_array(self._params)
        self._arena = torch.empty(max(program.arena_bytes, 64), dtype=torch.uint8)
        self._fn = module.main
        self._output_spec = module.meta.get("output_spec")

    def __call__(self, *inputs: torch.Tensor) -> Any:
        args = self._check(inputs)
        outs = [torch.empty(tuple(t.shape), dtype=t.dtype.torch) for t in self.program.outputs]
        in_ptrs, out_ptrs = _pointer_array(args), _pointer_array(outs)  # alive for the call
        self.jit.entry(ctypes.addressof(in_ptrs), ctypes.addressof(out_ptrs),
                       ctypes.addressof(self._param_ptrs), self._arena.data_ptr())
        if self._output_spec is not None:
            return tree_unflatten(outs, self._output_spec)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _check(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        args = self._fn.args
        if len(inputs) != len(args):
            raise CuvilRuntimeError(f"the compiled model takes {len(args)} inputs, got {len(inputs)}")
        for i, (v, x) in enumerate(zip(args, inputs)):
            check_input(i, v.name, v.type, x)
        return [x if x.is_contiguous() else x.contiguous() for x in inputs]

    def profile(self) -> list[tuple[str, str, int, float]]:
        """(kernel, op, cycles, share) per kernel, slowest first; needs options profile=True.

        Counters accumulate over calls since compilation (or the last ``reset_profile``).
        """
        counters = self._counters()
        rows = [(k.symbol, k.op_name, counters[k.call_index]) for k in self.program.kernels]
        total = sum(c for _, _, c in rows) or 1
        return sorted(((s, o, c, c / total) for s, o, c in rows), key=lambda r: -r[2])

    def reset_profile(self) -> None:
        counters = self._counters()
        for i in range(len(counters)):
            counters[i] = 0

    def _counters(self):
        from ..codegen.generator import PROFILE_SYMBOL
        from ..errors import CuvilError

        if not self.options.get("profile"):
            raise CuvilError("this module was not compiled with options={'profile': True}")
        addr = self.jit.engine.get_global_value_address(PROFILE_SYMBOL)
        n = max((k.call_index for k in self.program.kernels), default=0) + 1
        return (ctypes.c_int64 * n).from_address(addr)

    @property
    def kernels(self):
        return self.program.kernels

    def llvm_ir(self) -> str:
        return self.program.llvm_ir
