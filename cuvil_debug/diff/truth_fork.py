"""The float64 truth, computed by a forked child while the diff lowers, builds and walks.

The twin (truth.py) is one of the diff's largest phases (ResNet-18: ~0.4-0.6 s of CPU,
two float64 evaluations of every node) and needs nothing the compiler makes: only the
capture. So right after the capture the diff forks; the child runs `Twin.compute` and
sends every node's truths back in graph order while the parent lowers, runs the passes,
loads the native build and walks the stages, on the machine's other core. A stage that
needs a node's truth waits only until the child has sent that node (`ForkedTwin`).

A process, not a thread: the twin runs with float64 as torch's default dtype, which is
global to the process, and the frontend reads the default dtype while it lowers (a
thread computing the truth beside it could lower a model to float64 without a word).
The child has its own; it also holds its own GIL.

What comes back, per node: eager's errors against the propagated and the single-node
isolated truth (bfloat16 tensors) with their summaries, and the node's float64 value
computed from eager's inputs (a span that starts at the node reuses it). The tensors
go into one shared anonymous mapping laid out before the fork (`Slots`: a place per node
sized by eager's value); a record per node (pickled, on a pipe) carries the rest. A
truth that does not fit its place travels pickled whole; a float64 value that does not
is recomputed by the parent if a span needs it. The truths are the bits an in-process
twin computes (the same ops on the same values, one thread;
tests/cuvil_debug/test_diff_truth_fork.py compares whole reports).

The child is used where fork is safe and pays: a POSIX system, a process that runs no
other thread but tqdm's monitor (a TUI, a sweep's pool: the twin is computed in the
process as before), a spare CPU (`spare_cpu`), and not
under ``CUVIL_DIFF_TRUTH=inline`` (``=fork`` forks whatever the threads and the load:
tests, benchmarks).
A twin that fails in the child before the stages read it gives the same note as one
that fails in the process; one that fails later raises `TruthLost` and the engine
judges the batch again without a truth (engine.py).
"""

from __future__ import annotations

import gc
import mmap
import os
import pickle
import signal
import sys
import threading
from typing import Any

import torch
import torch.fx

from cuvil.errors import CuvilError

from .judge import Truth
from .truth import CALLS, Span, Twin, _widened, double_copy, twin_note

__all__ = ["ForkedTwin", "TruthLost", "start", "enabled", "spare_cpu", "twin_of"]

ENV = "CUVIL_DIFF_TRUTH"  # "inline": no child; "fork": a child even beside threads
MODES = ("", "auto", "inline", "fork")  # "" and "auto": fork when a CPU is spare
_NARROW = (torch.float32, torch.float16, torch.bfloat16)
_KINDS = {"p": torch.bfloat16, "i": torch.bfloat16, "a": torch.float64}
_ALIGN = 64
_LOST = (
    "no float64 twin (its process ended before it was done): every value is judged "
    "by the tolerances"
)


class TruthLost(Exception):
    """The child's twin failed after the stages began to read it; `note` is the
    report's note."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


def enabled() -> bool:
    """Whether the diff forks a child for the truth (see the module docstring)."""
    mode = os.environ.get(ENV, "").strip()
    if mode not in MODES:
        raise CuvilError(
            f"{ENV}={mode!r} is not a truth mode",
            hint=f"use one of {', '.join(repr(m) for m in MODES if m)} or leave it unset",
        )
    if mode == "inline" or not hasattr(os, "fork"):
        return False
    if mode == "fork":
        return True
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    return all(_tqdm_monitor(t) for t in others) and spare_cpu()


def spare_cpu() -> bool:
    """Whether a CPU is free for the child: two or more, and a 1-minute load average
    under their number less a quarter. On a busy machine the child only takes CPU
    from the parent (ResNet-18 at load 10: 8.9 s of wall against 7.9 s inline)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return cpus >= 2 and load < cpus - 0.25


def _tqdm_monitor(thread: threading.Thread) -> bool:
    """Whether `thread` is tqdm's monitor: torch.fx's Interpreter makes a (disabled)
    tqdm bar on every run, and the first starts it. It sleeps but for a moment each
    10 s under tqdm's lock, which the child replaces (`_child`)."""
    monitor = sys.modules.get("tqdm._monitor")
    return monitor is not None and isinstance(thread, monitor.TMonitor)


def start(cap) -> ForkedTwin | None:
    """Fork the child computing the twin of `cap` (capture.Capture); None where the
    truth is to be computed in this process (`enabled`)."""
    if not enabled():
        return None
    calls = {n.name for n in cap.gm.graph.nodes if n.op in CALLS}
    slots = Slots(cap.eager, calls)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        _child(cap, slots, write)
    os.close(write)
    return ForkedTwin(cap, slots, pid, read)


def twin_of(cap, forked: ForkedTwin | None, notes: list[str]) -> Twin | None:
    """The twin of `cap`: `forked` once its child has made its twin, or (no child)
    one computed here; None, with the reason in `notes`, when there is none."""
    if forked is None:
        try:
            return Twin(cap.gm, cap.args, cap.eager, cap.versions, cap.stats).compute()
        except Exception as e:  # noqa: BLE001 - the tolerances judge instead
            notes.append(twin_note(e))
            return None
    note = forked.started()
    if note is not None:
        notes.append(note)
        return None
    return forked


class Slots:
    """The shared mapping and where each node's tensors go in it: per node with a
    float32/16/bf16 eager tensor, eager's error against its propagated truth (bfloat16)
    and, for the nodes in `calls` (the others have no isolated truth), its error
    against the isolated one and the node's float64 value, each the size of eager's."""

    def __init__(self, eager: dict[str, Any], calls: set[str]) -> None:
        self.where: dict[tuple[str, str], tuple[int, tuple[int, ...], int]] = {}
        size = 0
        for name, v in eager.items():
            if isinstance(v, torch.Tensor) and v.dtype in _NARROW and v.numel():
                kinds = _KINDS if name in calls else {"p": _KINDS["p"]}
                for kind, dtype in kinds.items():
                    self.where[(name, kind)] = (size, tuple(v.shape), v.numel())
                    nbytes = v.numel() * dtype.itemsize
                    size += (nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
        self.buffer = mmap.mmap(-1, max(size, _ALIGN))  # shared, anonymous
        self.data = torch.frombuffer(self.buffer, dtype=torch.uint8)

    def view(
        self, name: str, kind: str, stride: tuple[int, ...] | None = None
    ) -> torch.Tensor | None:
        """The place of `name`'s `kind` (p, i: errors; a: the float64 value), shaped
        like eager's value (with `stride`, when given), or None: it has none."""
        at = self.where.get((name, kind))
        if at is None:
            return None
        start_, shape, numel = at
        dtype = _KINDS[kind]
        flat = self.data[start_ : start_ + numel * dtype.itemsize].view(dtype)
        return flat.view(shape) if stride is None else flat.as_strided(shape, stride)


def _dense(t: torch.Tensor) -> bool:
    """Whether `t`'s elements fill `numel` places exactly (some order of its dims)."""
    expected = 1
    for size, stride in sorted(zip(t.shape, t.stride()), key=lambda p: p[1]):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def _put(slots: Slots, name: str, kind: str, truth: Truth | None):
    """`truth` for the record: its error written into its place, or the whole."""
    if truth is None:
        return None
    place = slots.view(name, kind)
    if place is None or place.shape != truth.error.shape:
        return ("whole", truth)
    place.copy_(truth.error)
    return ("slot", truth.eager, truth.rms, truth.amax, truth.dtype)


def _take(slots: Slots, name: str, kind: str, packed) -> Truth | None:
    if packed is None:
        return None
    if packed[0] == "whole":
        return packed[1]
    _, eager, rms, amax, dtype = packed
    return Truth(slots.view(name, kind), eager, rms, amax, dtype)


class _Sender(Twin):
    """The child's twin: after each node, its truths into the slots and a record."""

    def __init__(self, cap, slots: Slots, out) -> None:
        super().__init__(cap.gm, cap.args, cap.eager, cap.versions, cap.stats)
        self.slots, self.out = slots, out

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        if n.op != "output":
            name, key = n.name, (n.name, frozenset([n.name]))
            prop = _put(self.slots, name, "p", self.propagated.get(name))
            iso = None
            if key in self.spans:  # (None,): computed, no truth
                iso = (_put(self.slots, name, "i", self.spans[key]),)
            _send(self.out, ("node", name, prop, iso, self._alone_record(name)))
        return result

    def _alone_record(self, name: str):
        """(stride or None: not in its place, its storage's bytes) of the node's
        float64 value computed alone; None: there is none."""
        v = self._alone.get(name)
        if not isinstance(v, torch.Tensor):
            return None
        place = None
        if v.dtype == torch.float64 and _dense(v):
            place = self.slots.view(name, "a", tuple(v.stride()))
        if place is None or place.shape != v.shape:
            return None, v.untyped_storage().nbytes()
        place.copy_(v)
        return tuple(v.stride()), v.untyped_storage().nbytes()


def _send(out, record: tuple) -> None:
    pickle.dump(record, out, protocol=pickle.HIGHEST_PROTOCOL)
    out.flush()


def _child(cap, slots: Slots, fd: int) -> None:
    """The child's whole life: the twin, sent; then exit without Python's teardown
    (nothing of the parent's is flushed or finalized twice)."""
    try:
        gc.disable()  # its few objects live until the exit; no copies of the parent's
        bars = sys.modules.get("tqdm.std")
        if (
            bars is not None
        ):  # a lock tqdm's monitor may have held at the fork; no monitor
            bars.tqdm.set_lock(threading.RLock())
            bars.tqdm.monitor_interval = 0
        out = os.fdopen(fd, "wb")
        try:
            twin = _Sender(cap, slots, out)
            _send(out, ("ready",))
            twin.compute()
            _send(out, ("done", twin.outputs))
        except Exception as e:  # noqa: BLE001 - the parent judges by the tolerances
            _send(out, ("error", twin_note(e)))
    finally:
        os._exit(0)


class ForkedTwin(Twin):
    """The parent's twin: truths as the child sends them (`_sync` waits for a node's),
    the float64 module built only when a span of several nodes needs evaluating."""

    def __init__(self, cap, slots: Slots, pid: int, fd: int) -> None:
        super().__init__(cap.gm, cap.args, cap.eager, cap.versions, cap.stats, False)
        self.cap, self.slots, self.pid = cap, slots, pid
        self.reader = os.fdopen(fd, "rb")
        self.upto = -1  # the position of the last node received
        self.finished = False
        self.failure: str | None = None  # the child's note, when it failed
        self._outputs: list[Truth | None] = []
        self._kept: dict[str, int] = {}  # bytes of the float64 values, as computed
        self._built = False

    @property
    def outputs(self) -> list[Truth | None]:
        self._sync(len(self.nodes))
        return self._outputs

    @outputs.setter
    def outputs(self, value: list[Truth | None]) -> None:
        self._outputs = value

    def started(self) -> str | None:
        """Wait until the child has made its twin: None, or the note why it did not
        (the same as an in-process twin's)."""
        while self.upto < 0 and not self.finished and self.failure is None:
            if self._receive() == "ready":
                return None
        return self.failure

    def propagated_in(self, node: str, span: Span) -> Truth | None:
        self._sync(self.position.get(node, len(self.nodes)))
        return super().propagated_in(node, span)

    def isolated(self, node: str, span: Span) -> Truth | None:
        self._sync(self.position.get(node, len(self.nodes)))
        return super().isolated(node, span)

    def nbytes(self) -> int:
        self._sync(len(self.nodes))
        absent = sum(n for k, n in self._kept.items() if k not in self._alone)
        return super().nbytes() + absent

    def _alone_bytes(self, name: str, value: torch.Tensor) -> int:
        return self._kept.get(name, value.untyped_storage().nbytes())

    def _evaluate(self, node: str, span: Span) -> None:
        if node in self.propagated and not self._built:
            # the float64 module, as the child made it (a span of several nodes)
            torch.fx.Interpreter.__init__(self, _widened(double_copy(self.cap.gm)))
            self.nodes = list(self.module.graph.nodes)
            self._built = True
        super()._evaluate(node, span)

    def _sync(self, position: int) -> None:
        """Receive records until the node at `position` (all: len(nodes)) is in."""
        while self.upto < position and not self.finished:
            self._receive()
        if self.failure is not None:
            raise TruthLost(self.failure)

    def _receive(self) -> str:
        try:
            record = pickle.load(self.reader)
        except (EOFError, OSError, pickle.UnpicklingError):
            record = ("error", _LOST)
        kind = record[0]
        if kind == "node":
            self._unpack(*record[1:])
        elif kind == "done":
            self._outputs = record[1]
            self._finish()
        elif kind == "error":
            self.failure = record[1]
            self._finish()
        return kind

    def _unpack(self, name: str, prop, iso, alone) -> None:
        truth = _take(self.slots, name, "p", prop)
        if truth is not None:
            self.propagated[name] = truth
        if iso is not None:
            self.spans[(name, frozenset([name]))] = _take(self.slots, name, "i", iso[0])
        if alone is not None:
            stride, self._kept[name] = alone
            if stride is not None:
                self._alone[name] = self.slots.view(name, "a", stride)
        self.upto = self.position[name]

    def _finish(self) -> None:
        self.finished = True
        self.upto = len(self.nodes)
        self.reader.close()
        self.close(wait=False)

    def close(self, wait: bool = True) -> None:
        """Reap the child (killed first if it is still running and `wait`)."""
        if self.pid is None:
            return
        if wait and not self.finished:
            os.kill(self.pid, signal.SIGKILL)
        done, _ = os.waitpid(self.pid, 0 if wait else os.WNOHANG)
        if done:
            self.pid = None
