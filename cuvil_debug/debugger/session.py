"""The ``cuvil`` commands, debugger-neutral: a `Session` over an `Adapter`.

    cuvil kernels [PATTERN]          every kernel: op, FX nodes, source, address
    cuvil break SPEC [--after]       stop before (after) the kernel computing SPEC
    cuvil delete [N...]              forget cuvil breakpoints (all without N)
    cuvil print NODE|ARG [--stats] [--slice S] [--limit N]
    cuvil where                      the current frame as node, op, IR, source
    cuvil explain                    a crash: the kernel's pointers against their slots
    cuvil bt                         kernel frames labelled, trampolines hidden
    cuvil builds                     the Cuvil builds loaded, with their debug keys
    cuvil symbols [--store DIR]      load debug files from a symbol store

A SPEC is an FX node, a kernel symbol, an op (``cuvil.relu`` or ``relu``) or
``FILE:LINE``. Breakpoints stay pending until a build that has SPEC loads, and are set
again on every build that loads later (a recompile). Every failure is one line.
"""

from __future__ import annotations

import os
import shlex
import traceback
from dataclasses import dataclass, field
from typing import Any

from . import memory, probe, symstore
from .adapter import Adapter, CommandError
from .builds import DESCRIPTOR, Build, BuildCache, KernelSite, find_builds, resolve

__all__ = ["Session", "CommandError"]

USAGE = __doc__.split("\n\n")[1]


@dataclass
class BreakSpec:
    number: int
    text: str
    after: bool
    hits: int = 0
    # (build, kernel) pairs already reported to the user
    resolved: set[tuple[str, str]] = field(default_factory=set)


@dataclass(frozen=True)
class Site:
    """One armed location: which spec, in which build, which kernel, what kind."""

    spec: int
    build: str
    kernel: str
    kind: str  # "before" (stops) | "record" (notes the arguments) | "after" (stops)
    addr: int


@dataclass
class Stop:
    build: Build
    kernel: KernelSite
    phase: str  # "before" | "after"


@dataclass
class Session:
    adapter: Adapter
    specs: list[BreakSpec] = field(default_factory=list)
    armed: dict[Site, Any] = field(default_factory=dict)
    handles: dict[int, Site] = field(default_factory=dict)
    recorded: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    builds: list[Build] = field(default_factory=list)
    stop: Stop | None = None
    cache: BuildCache = field(default_factory=BuildCache)
    notify: Any = print  # where a pending breakpoint reports that it is set

    # ---- the process's builds ---------------------------------------------------------
    def refresh(self) -> list[Build]:
        """Read the builds again and arm every spec on them; breakpoints of builds
        that are gone (a freed JIT object) are deleted, new builds get theirs."""
        try:
            descriptor = self.adapter.symbol_address(DESCRIPTOR)
            libraries = self.adapter.libraries()
        except Exception:  # not running, no symbols yet: nothing is loaded
            descriptor, libraries = None, []
        try:
            self.builds = find_builds(
                self.cache, self.adapter.read, descriptor, libraries
            )
        except Exception:  # the process is gone (exited, detached)
            self.builds = []
        self._arm()
        return self.builds

    def code_changed(self) -> None:
        """A JIT object was registered or freed: drop what was read of freed ones and
        re-arm, so no breakpoint stays at a stale address (a recompile)."""
        self.cache = BuildCache()
        for site in list(self.armed):
            if site.build.startswith("jit@"):
                self._disarm(site)
        self.refresh()

    def _wanted(self) -> set[Site]:
        wanted = set()
        for spec in self.specs:
            res = resolve(self.builds, spec.text)
            self._report(spec, res)
            for build, kernel in res.targets:
                if not spec.after:
                    wanted.add(
                        Site(
                            spec.number,
                            build.origin,
                            kernel.symbol,
                            "before",
                            kernel.start,
                        )
                    )
                    continue
                wanted.add(
                    Site(
                        spec.number, build.origin, kernel.symbol, "record", kernel.start
                    )
                )
                for ret in probe.return_sites(self.adapter, build).get(
                    kernel.symbol, []
                ):
                    wanted.add(
                        Site(spec.number, build.origin, kernel.symbol, "after", ret)
                    )
        return wanted

    def _report(self, spec: BreakSpec, res) -> None:
        """Say where a pending breakpoint was set when its build loads, and why there."""
        new = {(b.origin, k.symbol) for b, k in res.targets} - spec.resolved
        if new:
            spec.resolved |= new
            kernels = ", ".join(sorted({k for _, k in new}))
            note = f" ({res.note})" if res.note else ""
            self.notify(
                f"cuvil breakpoint {spec.number}: {spec.text} -> {kernels}{note}"
            )

    def _arm(self) -> None:
        wanted = self._wanted()
        for site in list(self.armed):
            if site not in wanted:
                self._disarm(site)
        for site in wanted - set(self.armed):
            handle = self.adapter.set_breakpoint(site.addr)
            self.armed[site] = handle
            self.handles[id(handle)] = site

    def _disarm(self, site: Site) -> None:
        handle = self.armed.pop(site)
        self.handles.pop(id(handle), None)
        try:
            self.adapter.delete_breakpoint(handle)
        except Exception:
            pass  # the debugger already dropped it with its code

    # ---- breakpoint hits --------------------------------------------------------------
    def hit(self, handle: Any) -> tuple[bool, str]:
        """One of our breakpoints was hit: (stop?, message to print when stopping)."""
        site = self.handles.get(id(handle))
        if site is None:
            return False, ""
        build = next((b for b in self.builds if b.origin == site.build), None)
        kernel = build.kernels.get(site.kernel) if build else None
        if build is None or kernel is None:
            return False, ""
        if site.kind == "record":
            n = len(kernel.info.get("args", []))
            self.recorded[(build.origin, kernel.symbol)] = probe.entry_args(
                self.adapter, n
            )
            return False, ""
        if site.kind == "before":
            n = len(kernel.info.get("args", []))
            self.recorded[(build.origin, kernel.symbol)] = probe.entry_args(
                self.adapter, n
            )
        spec = next(s for s in self.specs if s.number == site.spec)
        spec.hits += 1
        self.stop = Stop(build, kernel, site.kind)
        word = "before" if site.kind == "before" else "after"
        return True, f"cuvil: stopped {word} {probe.describe_kernel(build, kernel)}"

    # ---- commands ---------------------------------------------------------------------
    def execute(self, line: str) -> str:
        """Run one ``cuvil ...`` command line; returns its text (errors: one line)."""
        try:
            argv = shlex.split(line)
        except ValueError as e:
            return f"cuvil: {e}"
        if not argv or argv[0] in ("help", "-h", "--help"):
            return USAGE
        command = getattr(self, f"cmd_{argv[0]}", None)
        if command is None:
            return f"cuvil: unknown command '{argv[0]}'; commands: {_COMMANDS}"
        try:
            return command(argv[1:])
        except CommandError as e:
            return f"cuvil: {e}"
        except Exception as e:  # never a traceback inside the debugger
            if os.environ.get("CUVIL_DEBUG_TRACEBACK"):
                return traceback.format_exc()
            return (
                f"cuvil: internal error in '{argv[0]}': {type(e).__name__}: {e} "
                "(CUVIL_DEBUG_TRACEBACK=1 shows the traceback)"
            )

    def cmd_builds(self, args: list[str]) -> str:
        self.refresh()
        if not self.builds:
            return "cuvil: no Cuvil code is loaded"
        return "\n".join(
            f"{b.name}: {len(b.kernels)} kernels, key {b.key or '-'}, {b.origin}"
            for b in self.builds
        )

    def cmd_kernels(self, args: list[str]) -> str:
        self.refresh()
        if not self.builds:
            return (
                "cuvil: no Cuvil code is loaded (compile a model, or run until one is)"
            )
        return probe.kernel_table(self.builds, args[0] if args else None)

    def cmd_break(self, args: list[str]) -> str:
        after = "--after" in args
        rest = [a for a in args if a != "--after"]
        if len(rest) != 1:
            raise CommandError("usage: cuvil break NODE|OP|KERNEL|FILE:LINE [--after]")
        self.refresh()
        spec = BreakSpec(len(self.specs) + 1, rest[0], after)
        res = resolve(self.builds, spec.text)
        spec.resolved = {(b.origin, k.symbol) for b, k in res.targets}
        if not res.targets and self.builds and "pending" not in res.note:
            if not res.note.startswith(f"'{spec.text}' is not"):
                return f"cuvil: {res.note}"  # an input, a param: nothing to stop at
        self.specs.append(spec)
        self._arm()
        word = "after" if after else "before"
        head = f"cuvil breakpoint {spec.number}: {word} {spec.text}"
        if not res.targets:
            return f"{head} (pending: {res.note})"
        where = "; ".join(sorted({f"{k.symbol} in {b.name}" for b, k in res.targets}))
        return f"{head} -> {where}" + (f"\n{res.note}" if res.note else "")

    def cmd_delete(self, args: list[str]) -> str:
        numbers = {int(a) for a in args if a.isdigit()}
        if any(not a.isdigit() for a in args):
            raise CommandError("usage: cuvil delete [N ...]")
        keep = [s for s in self.specs if numbers and s.number not in numbers]
        gone = len(self.specs) - len(keep)
        self.specs = keep
        self._arm()
        return f"cuvil: deleted {gone} breakpoint(s)"

    def cmd_where(self, args: list[str]) -> str:
        return probe.where(self._here())

    def cmd_explain(self, args: list[str]) -> str:
        here = self._here()
        return memory.explain(self.adapter, here, self._args_of(here))

    def cmd_print(self, args: list[str]) -> str:
        opts = memory.parse_print_args(args)
        here = self._here(required=False)
        return memory.print_tensor(self.adapter, self.builds, here, opts, self._args_of)

    def cmd_bt(self, args: list[str]) -> str:
        self.refresh()
        return probe.backtrace(self.adapter, self.builds)

    def cmd_symbols(self, args: list[str]) -> str:
        self.refresh()
        return symstore.load_symbols(self.adapter, self.builds, args)

    # ---- where we are -----------------------------------------------------------------
    def _here(self, required: bool = True) -> probe.Here | None:
        frames = self.adapter.frames()
        if not frames:
            if required:
                raise CommandError("the program is not stopped")
            return None
        if not self.builds or not any(b.contains(frames[0].pc) for b in self.builds):
            self.refresh()
        here = probe.locate(self.builds, frames, self.stop)
        if here is None and required:
            raise CommandError(
                "not stopped in Cuvil code (no Cuvil build contains a frame)"
            )
        return here

    def _args_of(self, here: probe.Here) -> list[int] | None:
        """The current kernel's pointer arguments: at its entry by the ABI, else as
        recorded when its breakpoint was hit, else by debug info."""
        if here is None or here.kernel is None:
            return None
        n = len(here.kernel.info.get("args", []))
        if here.frame == 0 and here.pc == here.kernel.start:
            return probe.entry_args(self.adapter, n)
        saved = self.recorded.get((here.build.origin, here.kernel.symbol))
        if saved is not None and (here.frame == 0 or here.phase == "after"):
            return saved
        values = [v for _, v in self.adapter.frame_arguments(here.frame)]
        return values if len(values) == n else saved


_COMMANDS = ", ".join(name[4:] for name in dir(Session) if name.startswith("cmd_"))
