"""CompiledModule: a callable over native code. Torch tensors in, torch tensors out."""

from __future__ import annotations

import ctypes
import operator
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.utils._pytree import tree_unflatten

from ..codegen.generator import Program
from ..ir.core import Module
from ..ir.interpreter import check_inputs
from ..ir.types import TensorType
from ..options import CompileOptions
from .status import STATUS_SYMBOL, StatusWord

__all__ = ["CompiledModule", "NativeModule"]


def _pointer_array(tensors: Sequence[torch.Tensor]):
    return (ctypes.c_void_p * max(len(tensors), 1))(*[t.data_ptr() for t in tensors])


def _packer(spec) -> Any:
    """outputs -> what the call returns, decided once: `spec`'s structure (a pytree
    spec), else one tensor or a tuple; a leaf or a flat tuple/list without the pytree
    walk."""
    if spec is None:
        return lambda outs: outs[0] if len(outs) == 1 else tuple(outs)
    if spec.is_leaf():
        return operator.itemgetter(0)
    kids = spec.children() if hasattr(spec, "children") else spec.children_specs
    if spec.type in (tuple, list) and all(k.is_leaf() for k in kids):
        return spec.type
    return lambda outs: tree_unflatten(outs, spec)


class NativeModule:
    """Calls a native ``cuvil_main``: the code shared by JIT and AOT (``cuvil.load``).

    Inputs are checked against the compiled shapes and dtypes; contiguous inputs are passed
    by pointer (zero-copy), others are made contiguous once. Outputs are fresh tensors.
    One arena holds the intermediates, so a module is not re-entrant across threads.
    `owner` keeps the code alive (the JIT engine or the loaded library).
    """

    def __init__(
        self,
        entry,
        owner,
        inputs: Sequence[tuple[str | None, TensorType]],
        outputs: Sequence[TensorType],
        params: Sequence[torch.Tensor],
        arena_bytes: int,
        output_spec=None,
    ) -> None:
        self._entry, self._owner = entry, owner
        self._inputs, self._outputs = list(inputs), list(outputs)
        self._params = [p.contiguous() for p in params]
        self._param_ptrs = _pointer_array(self._params)
        self._arena = torch.empty(max(arena_bytes, 64), dtype=torch.uint8)
        self._output_spec = output_spec
        self._status: StatusWord | None = None  # set where kernels check indices
        # per-call facts computed once: the exact input shapes and dtypes (None where a
        # dim is symbolic: check_inputs judges those), the output allocations
        exact = all(isinstance(d, int) for _, t in self._inputs for d in t.shape)
        self._shapes = [tuple(t.shape) for _, t in self._inputs] if exact else None
        self._dtypes = [t.dtype.torch for _, t in self._inputs]
        self._allocs = [(tuple(t.shape), t.dtype.torch) for t in self._outputs]
        self._pack = _packer(output_spec)

    def __call__(self, *inputs: torch.Tensor) -> Any:
        args = self._check(inputs)
        outs = [torch.empty(shape, dtype=dtype) for shape, dtype in self._allocs]
        in_ptrs, out_ptrs = (
            _pointer_array(args),
            _pointer_array(outs),
        )  # alive for the call
        self._entry(
            ctypes.addressof(in_ptrs),
            ctypes.addressof(out_ptrs),
            ctypes.addressof(self._param_ptrs),
            self._arena.data_ptr(),
        )
        if self._status is not None:
            self._status.check()
        return self._pack(outs)

    def _check(self, inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """The inputs, contiguous; a clear error for a wrong one (check_inputs). The
        common case, every shape and dtype exactly the compiled one, is two list
        comparisons (torch.Size == tuple): ~1/10 of check_inputs' per-input walk."""
        try:
            ok = (
                self._shapes is not None
                and [x.shape for x in inputs] == self._shapes
                and [x.dtype for x in inputs] == self._dtypes
            )
        except AttributeError:  # not a tensor: check_inputs says which
            ok = False
        if not ok:
            check_inputs(self._inputs, inputs)
        return [x if x.is_contiguous() else x.contiguous() for x in inputs]


class CompiledModule(NativeModule):
    """Runs the JIT-compiled native code of one compiled function (see NativeModule).

    `options` are the CompileOptions it was built with (a mapping of
    ``cuvil.compile``'s flat keys is parsed into them; None: the defaults)."""

    def __init__(
        self,
        module: Module,
        program: Program,
        jit,
        options: CompileOptions | Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(options, CompileOptions):
            options = CompileOptions.parse(options)
        self.module, self.program, self.jit = module, program, jit
        self.options: CompileOptions = options
        # the frontend that captured the model ("auto" resolves to one) and why the
        # other was not used (cuvil.compile sets them; frontend/auto.py)
        self.frontend: str = options.frontend
        self.frontend_notes: list[str] = []
        # a quantized build: cuvil.quantize.QuantInfo (layers, isa; docs/QUANT.md)
        self.quantization = None
        data = {**module.param_data, **program.derived}
        super().__init__(
            jit.entry,
            jit,
            [(a.name, a.type) for a in module.main.args],
            program.outputs,
            [data[name] for name in program.params],
            program.arena_bytes,
            module.output_spec,
        )
        if program.mentions(STATUS_SYMBOL):
            rows = [(k.symbol, k.op_name, k.nodes, k.source) for k in program.kernels]
            addr = jit.engine.get_global_value_address(STATUS_SYMBOL)
            self._status = StatusWord(addr, rows)

    def profile(self) -> list[tuple[str, str, int, float]]:
        """(kernel, op, cycles, share) per kernel, slowest first; needs options profile=True.

        Counters accumulate over calls since compilation (or the last ``reset_profile``).
        """
        counters = self._counters()
        rows = [
            (k.symbol, k.op_name, counters[k.call_index]) for k in self.program.kernels
        ]
        total = sum(c for _, _, c in rows) or 1
        return sorted(((s, o, c, c / total) for s, o, c in rows), key=lambda r: -r[2])

    def reset_profile(self) -> None:
        counters = self._counters()
        for i in range(len(counters)):
            counters[i] = 0

    def _counters(self):
        from ..codegen.entry import PROFILE_SYMBOL
        from ..errors import CuvilError

        if not self.options.debug_options.profile:
            raise CuvilError(
                "this module was not compiled with options={'profile': True}"
            )
        addr = self.jit.engine.get_global_value_address(PROFILE_SYMBOL)
        n = max((k.call_index for k in self.program.kernels), default=0) + 1
        return (ctypes.c_int64 * n).from_address(addr)

    @property
    def info(self) -> str:
        """One line: the frontend (and why not the other), inputs, kernels."""
        shapes = ", ".join(str(t) for _, t in self._inputs)
        notes = f" ({'; '.join(self.frontend_notes)})" if self.frontend_notes else ""
        return (
            f"{self.module.name}: frontend {self.frontend}{notes}; inputs {shapes}; "
            f"{len(self.program.kernels)} kernels, {self.options.opt_level}"
        )

    def __repr__(self) -> str:
        return f"<CompiledModule {self.info}>"

    @property
    def debug_key(self) -> str:
        """The JIT object's debug key (its build-id; the symbol store's key)."""
        return self.jit.debug_key

    @property
    def kernels(self):
        return self.program.kernels

    def llvm_ir(self) -> str:
        return self.program.llvm_ir
