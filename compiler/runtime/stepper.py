"""The normal native build of a module, callable one kernel call at a time.

``Stepper(module)`` generates the module's main function exactly as ``cuvil.compile`` does
(same kernels, same ``cuvil_main``, same memory plan; pass an already optimized module,
no passes run here) plus one ``cuvil_step_<i>`` per call of ``cuvil_main``, and JIT-compiles
it. After ``bind(*inputs)`` a tool calls ``step(i)`` for each step in order (``run()`` does
all of them) and reads or writes the buffer of any IR value of the main function::

    st = Stepper(optimized_module)
    st.bind(x)
    for s in st.steps:
        st.step(s.index)
        got = [st.read(r) for r in s.results]   # right after the step: see below

Where values live (``Program.slot_of``): model inputs (copies owned by the stepper: the
caller's tensors are never written), outputs, params, inline constants (LLVM globals) and
the arena. Read/write convert between the *logical* tensor (the IR type's shape, e.g. NCHW)
and the buffer's *physical* layout (``nhwc``/``nwc`` buffers are channels-last in memory).

Caveats, all inherited from the normal build:

- **Arena slots are reused.** Intermediates are packed by liveness, so a value's bytes are
  only its own from the step that produces it until a later step writes the same slot:
  read a value right after the step that produced it (and write an operand right before
  the step that reads it).
- **In-place ops** (``inplace = j`` attribute, honored by codegen where legal) write their
  result into operand j's buffer: after the step, reading that operand gives the result.
- **Reshapes move no data**: a ``cuvil.reshape`` result shares its operand's buffer (same
  bytes, its own shape); writing one writes the other.
- **Output copies**: an output that is a model input, a param, a constant or a value
  returned twice is copied into its output buffer by a step with ``op=None``
  (``Step.output`` says which output).
- Inline constants may be folded away by LLVM; then ``read`` returns the value the global
  was initialized with. Params and constants are read-only.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..codegen.buffers import Slot, nbytes
from ..codegen.generator import Program, generate
from ..codegen.kernel import physical_strides
from ..errors import CodegenError, CuvilError, CuvilRuntimeError
from ..hooks import CompileHooks
from ..ir import ops
from ..ir.core import Module, Operation, Value
from ..ir.interpreter import check_inputs
from ..ir.types import TensorType
from ..options import OPT_LEVELS, CompileOptions
from . import ircache, perfmap
from .jit import EntryFn, JitModule

__all__ = ["Step", "Stepper"]


@dataclass(frozen=True)
class Step:
    """One call of ``cuvil_main``, callable alone as `symbol`."""

    index: int
    symbol: str
    op: Operation | None  # None: an output copy
    operands: list[Value]
    results: list[Value]
    output: int | None = None  # the output an output copy writes


def _lookup(
    module: Module,
    opt_level: str,
    threads: int,
    hooks: CompileHooks | None,
    break_on: Sequence[str],
    bisect_limit: int | None,
) -> ircache.Lookup:
    """The IR level's entry for this steppable build (not used: bisected builds, and
    perf builds, whose kernels the stepper does not keep apart)."""
    options = CompileOptions(
        opt_level=opt_level, num_threads=threads, break_on=tuple(break_on)
    )
    if bisect_limit is not None or perfmap.enabled(options):
        return ircache.Lookup()
    return ircache.lookup(module, options, hooks, steps=True)


def _param_tensors(module: Module, program: Program) -> list[torch.Tensor]:
    """The data of each param of `program` (the module's, or derived), in its order."""
    data = {**module.param_data, **program.derived}
    missing = [n for n in program.params if n not in data]
    if missing:
        raise CuvilRuntimeError(
            f"param @{missing[0]} has no data",
            hint="load the module from a model, or fill params with "
            "cuvil.ir.interpreter.random_params(module)",
        )
    return [data[n].contiguous() for n in program.params]


def _pointer_array(tensors: Sequence[torch.Tensor]):
    return (ctypes.c_void_p * max(len(tensors), 1))(*[t.data_ptr() for t in tensors])


class Stepper:
    """The normal build of `module` (no passes are run here: pass an optimized module),
    callable kernel by kernel. See the module docstring for when values can be read."""

    def __init__(
        self,
        module: Module,
        opt_level: str = "O3",
        threads: int = 1,
        background: bool = False,
        bisect_limit: int | None = None,
        hooks: CompileHooks | None = None,
        break_on: tuple[str, ...] = (),
    ) -> None:
        """`background`: LLVM optimizes the program in a child process while the caller
        goes on (another build, other work); the first `bind` waits for it.
        `bisect_limit`: LLVM's ``-opt-bisect-limit`` (see ``JitModule``). `hooks`:
        ``after_kernel`` of cuvil.hooks, as in the compile being stepped through.
        `break_on`: debugger traps in those nodes' kernels, as ``cuvil.compile``'s
        option (the build is then registered with the GDB JIT interface)."""
        if opt_level not in OPT_LEVELS:
            raise CuvilError(
                f"opt_level={opt_level!r} is not one of {', '.join(OPT_LEVELS)}"
            )
        self.module = module
        self.fn = module.main
        # the compile cache's IR level: a hit skips LLVM IR generation and LLVM
        self._found = _lookup(module, opt_level, threads, hooks, break_on, bisect_limit)
        self.program: Program = self._found.program or generate(
            module, threads=threads, steps=True, hooks=hooks, break_on=break_on
        )
        self._options = (
            CompileOptions(opt_level=opt_level, break_on=tuple(break_on))
            if break_on
            else None
        )
        self._opt, self._bisect_limit = OPT_LEVELS[opt_level], bisect_limit
        self._pending = (
            JitModule.start(self.program, self._opt, bisect_limit)
            if background and self._found.entry is None
            else None
        )
        self._jit: JitModule | None = None
        self.steps: list[Step] = [
            Step(s.index, s.symbol, s.op, s.operands, s.results, s.output)
            for s in self.program.steps
        ]
        self._fns_: list[EntryFn] | None = None
        if not background:
            self._finish()
        self._params = _param_tensors(module, self.program)
        self._param_ptrs = _pointer_array(self._params)
        self._constants = {
            self.program.slot_of(op.result).index: op
            for op in self.fn.ops
            if isinstance(op, ops.ConstantOp)
        }
        self._bound = False

    def _finish(self) -> JitModule:
        if self._jit is None:
            self._jit = JitModule(
                self.program,
                self._opt,
                bisect_limit=self._bisect_limit,
                prebuilt=self._pending,
                options=self._options,
                reuse=ircache.reuse(self._found),
            )
            ircache.finish(self._found, self.program, self._jit)
            self._pending = None
            self._fns_ = [
                EntryFn(self._jit.symbol_address(s.symbol)) for s in self.steps
            ]
        return self._jit

    @property
    def jit(self) -> JitModule:
        return self._finish()

    @property
    def _fns(self) -> list[EntryFn]:
        self._finish()
        return self._fns_

    # ---- running -------------------------------------------------------------------------
    def bind(self, *inputs: torch.Tensor) -> None:
        """Copy `inputs` into buffers the stepper owns; allocate outputs and the arena
        (zero-filled). Binding again starts over."""
        check_inputs([(a.name, a.type) for a in self.fn.args], inputs)
        self._inputs = [
            torch.empty(tuple(x.shape), dtype=x.dtype).copy_(x.detach()) for x in inputs
        ]
        self._outputs = [
            torch.zeros(tuple(t.shape), dtype=t.dtype.torch)
            for t in self.program.outputs
        ]
        self._arena = torch.zeros(max(self.program.arena_bytes, 64), dtype=torch.uint8)
        self._in_ptrs = _pointer_array(self._inputs)
        self._out_ptrs = _pointer_array(self._outputs)
        self._bound = True

    def step(self, i: int) -> None:
        """Run call `i` of ``cuvil_main`` alone (``cuvil_step_<i>``)."""
        self._check_bound()
        if not 0 <= i < len(self._fns):
            raise CuvilRuntimeError(
                f"step {i} does not exist: this program has {len(self._fns)} steps"
            )
        self._fns[i](
            ctypes.addressof(self._in_ptrs),
            ctypes.addressof(self._out_ptrs),
            ctypes.addressof(self._param_ptrs),
            self._arena.data_ptr(),
        )

    def run(self) -> tuple[torch.Tensor, ...]:
        """All steps in order (what ``cuvil_main`` does); copies of the outputs."""
        for i in range(len(self._fns)):
            self.step(i)
        return tuple(t.clone() for t in self._outputs)

    # ---- buffers -------------------------------------------------------------------------
    def owns(self, v: Value) -> bool:
        """Whether `v` has a buffer in this program (a value of the main function)."""
        return isinstance(v, Value) and self.program.slot_of(v) is not None

    def read(self, v: Value) -> torch.Tensor:
        """A copy of `v`'s buffer now, as a logical tensor of `v`'s shape and dtype."""
        slot = self._slot(v)
        if slot.kind == "const":
            return self._constant(slot, v.type)
        return self._view(slot, v.type).clone()

    def write(self, v: Value, t: torch.Tensor) -> None:
        """Store the logical tensor `t` (cast to `v`'s dtype) into `v`'s buffer."""
        slot = self._slot(v)
        if slot.kind in ("param", "const"):
            raise CuvilRuntimeError(
                f"{v!r} is a {slot.kind} (read-only): it cannot be written",
                hint="params and constants are shared compile-time data",
            )
        shape = tuple(v.type.shape)
        if not isinstance(t, torch.Tensor) or tuple(t.shape) != shape:
            got = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
            raise CuvilRuntimeError(f"cannot write {got} into {v!r}: shape {shape}")
        self._view(slot, v.type).copy_(t.detach().to(v.type.dtype.torch))

    def _slot(self, v: Value) -> Slot:
        slot = self.program.slot_of(v) if isinstance(v, Value) else None
        if slot is None:
            raise CuvilRuntimeError(
                f"{v!r} is not a value of @{self.fn.name} in this stepper's module",
                hint="values inside fused bodies have no buffer of their own: "
                "read the cuvil.fused op's result",
            )
        if slot.kind in ("input", "output", "arena"):
            self._check_bound()
        return slot

    def _check_bound(self) -> None:
        if not self._bound:
            raise CuvilRuntimeError("no inputs bound: call Stepper.bind(*inputs) first")

    def _view(self, slot: Slot, t: TensorType) -> torch.Tensor:
        """The live buffer of a value of type `t` in `slot`, viewed in logical order."""
        try:
            strides = physical_strides(t)
            size = nbytes(t)
        except CodegenError as e:
            raise CuvilRuntimeError(
                f"cannot map the buffer of a {t} value: {e.message}", hint=e.hint
            ) from e
        if slot.kind == "arena":
            raw = self._arena[slot.index : slot.index + size]
        else:
            arrays = {"input": self._inputs, "output": self._outputs}
            base = arrays.get(slot.kind, self._params)[slot.index]
            raw = base.reshape(-1).view(torch.uint8)[:size]
        if raw.numel() != size:
            raise CuvilRuntimeError(
                f"the {slot.kind} buffer {slot.index} holds {raw.numel()} bytes, "
                f"a {t} value needs {size}",
                hint="this is a Cuvil bug",
            )
        return raw.view(t.dtype.torch).as_strided(tuple(t.shape), strides)

    def _constant(self, slot: Slot, t: TensorType) -> torch.Tensor:
        """An inline constant from its LLVM global, or (folded away by LLVM) from the
        value the global was initialized with."""
        op = self._constants[slot.index]
        addr = self.jit.engine.get_global_value_address(slot.index)
        if not addr:
            return op.attrs["value"].to(t.dtype.torch).reshape(tuple(t.shape)).clone()
        size = max(nbytes(t), 1)
        raw = torch.frombuffer(
            (ctypes.c_uint8 * size).from_address(addr), dtype=torch.uint8
        )
        flat = raw[: nbytes(t)].view(t.dtype.torch)
        return flat.as_strided(tuple(t.shape), physical_strides(t)).clone()
