"""The memory view's model (no Textual): the shown module's kernels and buffers, as the
build plans them.

The plan comes from codegen's own planning step, ``cuvil.codegen.plan.plan_build``:
the code ``generate`` runs before it emits a kernel, so the slots, the in-place reuse
and the arena offsets here are the ones a build of this module uses (no LLVM IR is
emitted, nothing is compiled). Lifetimes are the arena plan's, mapped from op positions
to kernels: a buffer lives from the kernel that writes it to the last kernel that reads
it or an alias of it (a reshape view, a result written in place over it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cuvil.codegen.buffers import Slot, moves_nothing, nbytes
from cuvil.codegen.plan import BuildPlan, plan_build
from cuvil.errors import CuvilError
from cuvil.ir import Operation, Value
from cuvil.ir.ops import FusedOp
from cuvil.ir.ops.fused import body_of

from .data import ModuleView, OpInfo

__all__ = [
    "Kernel",
    "Buffer",
    "MemoryModel",
    "memory_model",
    "planned",
    "kernel_rows",
    "kib",
]


@dataclass(eq=False)
class Kernel:
    """One kernel of the entry, in call order: its symbol and the op it computes."""

    index: int
    symbol: str
    op: Operation
    info: OpInfo | None
    buffers: list[Buffer] = field(default_factory=list)  # written or read, row order


@dataclass(eq=False)
class Buffer:
    """One buffer: a model input, an output, a param or constant, an arena slice (a
    kernel's result, in place results and views included) or a kernel's scratch.

    `first`/`last`: the kernels (call order) it is live over; -1 for a buffer no kernel
    touches. `offset`/`size`: where it is in the arena (size 64-byte aligned, as
    placed), None for the others. `inplace`: kernels that write their result into it
    over an operand (their ``inplace`` hint honored). `reuses`: the buffer that had
    the same arena offset before this one (its space, reused after it died)."""

    index: int
    name: str
    kind: str  # input | output | param | const | arena | scratch
    nbytes: int
    first: int
    last: int
    values: tuple[str, ...] = ()
    offset: int | None = None
    size: int | None = None
    producer: Kernel | None = None
    inplace: tuple[int, ...] = ()
    reuses: Buffer | None = None
    slot_index: int = 0  # position in the inputs, outputs or params array

    def live_at(self, k: int) -> bool:
        return self.first <= k <= self.last

    @property
    def where(self) -> str:
        """``arena +0x1c0 (4096 B)``, ``input #0``, ``param #3``, ``const @g``."""
        if self.offset is not None:
            return f"{self.kind} +{self.offset:#x} ({self.size} B)"
        if self.kind == "const":
            return "const (an LLVM global)"
        return f"{self.kind} #{self.slot_index}"

    @property
    def lifetime(self) -> str:
        if self.first < 0:
            return "not used by a kernel"
        return f"kernel {self.first}..{self.last}"


def kib(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


class MemoryModel:
    """The plan of `view`'s main function: `kernels` in call order, `buffers` (rows:
    inputs, arena and scratch by first kernel, outputs, params and constants).
    `error` is why there is no plan (then both lists are empty)."""

    def __init__(self, view: ModuleView) -> None:
        self.view = view
        self.kernels: list[Kernel] = []
        self.buffers: list[Buffer] = []
        self.arena_bytes = 0
        self.copies = 0  # output copy kernels after the last kernel (not columns)
        self.error: str | None = None
        self._kernel_of: dict[int, Kernel] = {}  # id(op) -> its kernel
        self._buffer_of: dict[int, Buffer] = {}  # id(root value) -> its buffer
        self._root: dict[int, Value] = {}  # id(value) -> its root value
        self._members: dict[int, list[Value]] = {}  # id(root) -> the values in it
        self._fused: dict[str, Kernel] | None = None  # fused body name -> its kernel
        try:
            plan = plan_build(view.module)
        except CuvilError as e:
            self.error = _one_line(e)
            return
        except Exception as e:  # a planning bug must not take the TUI down
            self.error = f"planning failed: {type(e).__name__}: {e}"
            return
        self._read(plan)

    # ---- building -------------------------------------------------------------------
    def _read(self, plan: BuildPlan) -> None:
        self.arena_bytes, self.copies = plan.arena_bytes, len(plan.copies)
        fn, b = plan.fn, plan.buffers
        kernel_at: list[int] = []  # op position -> the last kernel at or before it
        for op in fn.ops:
            symbol = plan.lowering.symbols.get(id(op))
            if symbol is not None:
                k = Kernel(len(self.kernels), symbol, op, self.view.info(op))
                self.kernels.append(k)
                self._kernel_of[id(op)] = k
            kernel_at.append(len(self.kernels) - 1)
        for v in [*fn.args, *(r for op in fn.ops for r in op.results)]:
            self._root[id(v)] = root = b.root(v)
            self._members.setdefault(id(root), []).append(v)
        uses = self._uses(plan)
        self._add_inputs(plan, uses)
        self._add_arena(plan, kernel_at)
        self._add_placed(plan, uses)
        self._mark_inplace(plan)
        self._mark_reuse()
        self._link_kernels(plan)

    def _uses(self, plan: BuildPlan) -> dict[int, list[int]]:
        """id(root value) -> the kernels reading it (or an alias of it), in order."""
        uses: dict[int, list[int]] = {}
        for k in self.kernels:
            for v in k.op.operands:
                seen = uses.setdefault(id(plan.buffers.root(v)), [])
                if not seen or seen[-1] != k.index:
                    seen.append(k.index)
        return uses

    def _add(self, buf: Buffer, root: Value | None) -> Buffer:
        buf.index = len(self.buffers)
        self.buffers.append(buf)
        if root is not None:
            self._buffer_of[id(root)] = buf
        return buf

    def _add_inputs(self, plan: BuildPlan, uses: dict[int, list[int]]) -> None:
        for i, a in enumerate(plan.fn.args):
            used = uses.get(id(a), [])
            buf = Buffer(0, self.view.name_of(a), "input", _bytes(a), -1, -1)
            buf.first, buf.last = (used[0], used[-1]) if used else (-1, -1)
            buf.slot_index = i
            self._add(buf, a)

    def _add_arena(self, plan: BuildPlan, kernel_at: list[int]) -> None:
        values = {id(r): r for op in plan.fn.ops for r in op.results}
        for iv in plan.buffers.intervals:
            slot = plan.buffers.slots[iv.key]
            first, last = kernel_at[iv.start], kernel_at[iv.end]
            size = -(-max(iv.nbytes, 1) // 64) * 64  # arena.py aligns every buffer
            if isinstance(iv.key, tuple):  # (id(op), j): scratch j of that op's kernel
                k = self.kernels[first]
                name = f"k{k.index} scratch {iv.key[1]}"
                buf = Buffer(0, name, "scratch", iv.nbytes, first, last, producer=k)
                root = None
            else:
                root = values[iv.key]
                name = self.view.name_of(root)
                buf = Buffer(0, name, "arena", iv.nbytes, first, last)
                buf.producer = self._kernel_of.get(id(root.owner))
            buf.offset, buf.size = slot.index, size
            self._add(buf, root)

    def _add_placed(self, plan: BuildPlan, uses: dict[int, list[int]]) -> None:
        """Outputs (live to the end of the call), then params and constants."""
        last = len(self.kernels) - 1
        later: list[tuple[Buffer, Value]] = []
        for root in self._roots_in_order(plan):
            slot: Slot | None = plan.buffers.slots.get(id(root))
            if slot is None or slot.kind == "input" or id(root) in self._buffer_of:
                continue
            used = uses.get(id(root), [])
            buf = Buffer(0, self.view.name_of(root), slot.kind, _bytes(root), -1, -1)
            buf.slot_index = slot.index if slot.kind != "const" else 0
            if slot.kind == "output":
                buf.producer = self._kernel_of.get(id(root.owner))
                buf.first = buf.producer.index if buf.producer else 0
                buf.last = last
                self._add(buf, root)
            else:
                buf.first, buf.last = (used[0], used[-1]) if used else (-1, -1)
                later.append((buf, root))
        for buf, root in later:
            self._add(buf, root)

    def _roots_in_order(self, plan: BuildPlan) -> list[Value]:
        seen: dict[int, Value] = {}
        for op in plan.fn.ops:
            for r in op.results:
                root = plan.buffers.root(r)
                seen.setdefault(id(root), root)
        return list(seen.values())

    def _mark_inplace(self, plan: BuildPlan) -> None:
        marks: dict[int, list[int]] = {}
        for k in self.kernels:
            if id(k.op) in plan.buffers.inplace:
                root = plan.buffers.root(k.op.results[0])
                marks.setdefault(id(root), []).append(k.index)
        for rid, ks in marks.items():
            buf = self._buffer_of.get(rid)
            if buf is not None:
                buf.inplace = tuple(ks)
        for rid, buf in self._buffer_of.items():
            buf.values = tuple(self.view.name_of(v) for v in self._members[rid])

    def _mark_reuse(self) -> None:
        """Each arena buffer's previous occupant of the same offset."""
        at: dict[int, Buffer] = {}
        placed = [b for b in self.buffers if b.offset is not None]
        for buf in sorted(placed, key=lambda b: (b.first, b.index)):
            prev = at.get(buf.offset)
            if prev is not None and prev.last < buf.first:
                buf.reuses = prev
            at[buf.offset] = buf

    def _link_kernels(self, plan: BuildPlan) -> None:
        scratch = {id(b.producer.op): [] for b in self.buffers if b.kind == "scratch"}
        for b in self.buffers:
            if b.kind == "scratch":
                scratch[id(b.producer.op)].append(b)
        for k in self.kernels:
            touched = [*k.op.results, *k.op.operands]
            found = {self.buffer_of(v) for v in touched} | set(
                scratch.get(id(k.op), ())
            )
            k.buffers = sorted((b for b in found if b is not None), key=_row)

    # ---- lookups --------------------------------------------------------------------
    def buffer_of(self, v: Value) -> Buffer | None:
        """The buffer value `v` lives in (through reshape views and in-place reuse)."""
        root = self._root.get(id(v))
        return None if root is None else self._buffer_of.get(id(root))

    def kernel_of(self, info: OpInfo) -> Kernel | None:
        """The kernel computing `info`'s op: its own, or for a member of a fused body
        the fused op's; None for a param, a constant or a view (no kernel)."""
        k = self._kernel_of.get(id(info.op))
        if k is not None or info.func == self.view.module.main.name:
            return k
        return self._fused_kernels().get(info.func)

    def _fused_kernels(self) -> dict[str, Kernel]:
        if self._fused is None:
            module = self.view.module
            self._fused = {
                body_of(module, k.op).name: k
                for k in self.kernels
                if isinstance(k.op, FusedOp)
            }
        return self._fused

    def peak(self) -> tuple[int, int]:
        """(most arena bytes live at one kernel, that kernel); the arena may be larger
        (first fit leaves holes)."""
        live = [0] * (len(self.kernels) + 1)
        for b in self.buffers:
            if b.size is not None and b.first >= 0:
                live[b.first] += b.size
                live[b.last + 1] -= b.size
        best, at, run = 0, 0, 0
        for k in range(len(self.kernels)):
            run += live[k]
            if run > best:
                best, at = run, k
        return best, at


def _row(b: Buffer) -> int:
    return b.index


def _bytes(v: Value) -> int:
    try:
        return nbytes(v.type)
    except CuvilError:
        return 0


def _one_line(e: CuvilError) -> str:
    text = e.message.splitlines()[0] if e.message else type(e).__name__
    if e.where:
        text = f"{e.where}: {text}"
    return f"{text} (hint: {e.hint})" if e.hint else text


def memory_model(view: ModuleView) -> MemoryModel:
    """The plan of `view`, made once per view (the memory screen and the inspector
    share it)."""
    model = getattr(view, "_memory_model", None)
    if model is None:
        model = MemoryModel(view)
        view._memory_model = model
    return model


def planned(view: ModuleView) -> MemoryModel | None:
    """The plan of `view` if it is made, else None (never waits)."""
    return getattr(view, "_memory_model", None)


_NO_KERNEL = {
    "cuvil.param": "none: a param, passed by pointer",
    "cuvil.constant": "none: an inline constant (an LLVM global)",
    "cuvil.reshape": "none: a view of its operand (no data moves)",
}


def kernel_rows(model: MemoryModel | None, info: OpInfo) -> list[tuple[str, str]]:
    """The inspector's native rows for `info`: the kernel symbol it became, and per
    result its buffer (slot, size), lifetime, in-place reuse and arena reuse."""
    if model is None:
        return [("kernel", "(not planned yet: m plans the build)")]
    if model.error is not None:
        return [("kernel", f"no plan: {model.error}")]
    k = model.kernel_of(info)
    if k is None:
        text = _NO_KERNEL.get(info.name, "none: not in the main function")
        if moves_nothing(info.op):
            text = "none: the same bytes in both layouts (a view of its operand)"
        return [("kernel", text)]
    fused = "" if k.op is info.op else " (a member of this fused kernel)"
    rows = [("kernel", f"{k.symbol}, call {k.index} of {len(model.kernels)}{fused}")]
    if k.op is info.op:
        for name, r in zip(info.results, info.op.results, strict=True):
            rows += _buffer_rows(model, name, r)
    return rows


def _buffer_rows(model: MemoryModel, name: str, v: Value) -> list[tuple[str, str]]:
    buf = model.buffer_of(v)
    if buf is None:
        return []
    rows = [("slot", f"{name}: {buf.where}"), ("lifetime", buf.lifetime)]
    if buf.values and buf.values[0] != name:
        rows.append(("in place", f"in the buffer of {buf.values[0]}"))
    if buf.reuses is not None:
        dead = f"dead after kernel {buf.reuses.last}"
        rows.append(("reuses", f"the arena space of {buf.reuses.name} ({dead})"))
    return rows
