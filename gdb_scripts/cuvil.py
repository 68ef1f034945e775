"""``cuvil`` commands for GDB: ``source gdb_scripts/cuvil.py`` (docs/DEBUGGING.md).

    cuvil kernels [PATTERN] | break SPEC [--after] | delete [N] | print NODE [--stats]
    cuvil where | explain | bt | builds | symbols [--store DIR] [--url URL]

This file is the GDB half: an Adapter over GDB's Python API, the command, a frame filter
that labels kernel frames with their node, op and shape and hides the ctypes/libffi
trampolines, and the events that keep breakpoints right across a recompile (a freed JIT
object's breakpoints are deleted and set again on the new code). The commands themselves
live in cuvil_debug/debugger (stdlib only: GDB's Python has no torch or numpy).
"""

import os
import re
import sys

import gdb

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from cuvil_debug.debugger.adapter import FrameInfo, entry_arguments  # noqa: E402
from cuvil_debug.debugger.builds import MANIFEST_SECTION  # noqa: E402
from cuvil_debug.debugger.elf import open_elf  # noqa: E402
from cuvil_debug.debugger.probe import kernel_label, tensor_label  # noqa: E402
from cuvil_debug.debugger.session import Session  # noqa: E402

MASK = (1 << 64) - 1
_SOLIB = re.compile(r"^(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+\S+\s+(?:\(\*\)\s+)?(/\S.*)$")


class GdbAdapter:
    """The `Adapter` protocol (cuvil_debug/debugger/adapter.py) on GDB."""

    def __init__(self):
        self._cuvil_libs = {}  # path -> .text address, or None when not a Cuvil build
        self._symbols = {}  # name -> address, of symbols looked up once

    def arch(self):
        name = gdb.selected_inferior().architecture().name()
        return "aarch64" if "aarch64" in name else "x86_64"

    def read(self, addr, size):
        return bytes(gdb.selected_inferior().read_memory(addr, size))

    def symbol_address(self, name):
        if name in self._symbols:
            return self._symbols[name]
        try:
            address = int(gdb.parse_and_eval(f"(unsigned long)&'{name}'")) & MASK
        except gdb.error:
            return None
        self._symbols[name] = address  # found once, until the program exits
        return address

    def is_cuvil_library(self, path):
        return self._text_addr(path) is not None

    def _text_addr(self, path):
        if path not in self._cuvil_libs:
            try:
                with open_elf(path) as elf:
                    text = elf.section(".text")
                    has = elf.section(MANIFEST_SECTION) is not None and text is not None
                    self._cuvil_libs[path] = text.addr if has else None
            except (ValueError, OSError):
                self._cuvil_libs[path] = None
        return self._cuvil_libs[path]

    def libraries(self):
        try:
            text = gdb.execute("info sharedlibrary", to_string=True)
        except gdb.error:
            return []
        out = []
        for line in text.splitlines():
            m = _SOLIB.match(line.strip())
            if m and (addr := self._text_addr(m.group(3).strip())) is not None:
                out.append((m.group(3).strip(), int(m.group(1), 16) - addr))
        return out

    def _frames(self):
        try:
            frame = gdb.newest_frame()
        except gdb.error:
            return
        while frame is not None:
            yield frame
            try:
                frame = frame.older()
            except gdb.error:
                return

    def frames(self):
        out = []
        for frame in self._frames():
            sal = frame.find_sal()
            path = sal.symtab.filename if sal and sal.symtab else None
            pc = frame.pc()
            out.append(
                FrameInfo(pc, frame.name(), path, sal.line or None, gdb.solib_name(pc))
            )
            if len(out) >= 256:
                break
        return out

    def register(self, name):
        return int(gdb.newest_frame().read_register(name)) & MASK

    def frame_arguments(self, index):
        frame = next((f for i, f in enumerate(self._frames()) if i == index), None)
        try:
            block = frame.block() if frame is not None else None
        except RuntimeError:
            return []
        while block is not None and block.function is None:
            block = block.superblock
        if block is None:
            return []
        out = []
        for sym in block:
            if sym.is_argument:
                try:
                    value = sym.value(frame)
                    if value.is_optimized_out:
                        return []
                    out.append((sym.name, int(value) & MASK))
                except (gdb.error, ValueError):
                    return []
        return out

    def set_breakpoint(self, addr):
        return _Stop(f"*{addr:#x}")

    def delete_breakpoint(self, handle):
        if handle.is_valid():
            handle.delete()

    def add_symbols(self, path, sections, base):
        if sections:
            spec = " ".join(f"-s {n} {a:#x}" for n, a in sorted(sections.items()) if n)
            cmd = f"add-symbol-file {path} {spec}"
        else:
            cmd = f"add-symbol-file {path} -o {base:#x}"
        gdb.execute("set confirm off")
        gdb.execute(cmd, to_string=True)
        return f"loaded {path}"

    def python_backtrace(self):
        """CPython's ``py-bt``; its helpers (``python3.X-gdb.py`` beside the
        interpreter, which GDB's auto-load safe-path usually declines) are sourced
        here the first time they are asked for."""
        try:
            return gdb.execute("py-bt", to_string=True).rstrip()
        except gdb.error:
            pass
        for helper in _cpython_helpers():
            try:
                gdb.execute(f"source {helper}", to_string=True)
                return gdb.execute("py-bt", to_string=True).rstrip()
            except gdb.error:
                continue
        return None


# sourcing the script again (an ~/.gdbinit and a -x) keeps the first session
def _cpython_helpers():
    """CPython's gdb helpers for the debuggee's interpreter, where they exist."""
    exe = gdb.current_progspace().filename or ""
    for path in (exe, os.path.realpath(exe)):
        if path and os.path.isfile(path + "-gdb.py"):
            yield path + "-gdb.py"


SESSION = getattr(gdb, "_cuvil_session", None) or Session(GdbAdapter())
_FIRST_LOAD = not hasattr(gdb, "_cuvil_session")
gdb._cuvil_session = SESSION


class _Stop(gdb.Breakpoint):
    def __init__(self, spec):
        super().__init__(spec, internal=True)
        self.silent = True

    def stop(self):
        stop, message = SESSION.hit(self)
        if stop and message:
            print(message)
        return stop


class CuvilCommand(gdb.Command):
    """Cuvil: kernels, break, delete, print, where, explain, bt, builds, symbols.
    Type "cuvil help" for the list."""

    def __init__(self):
        super().__init__("cuvil", gdb.COMMAND_USER)

    def invoke(self, argument, from_tty):
        print(SESSION.execute(argument))

    def complete(self, text, word):
        names = (
            "kernels",
            "break",
            "delete",
            "print",
            "where",
            "explain",
            "bt",
            "builds",
            "symbols",
        )
        return (
            [n for n in names if n.startswith(text.strip())] if " " not in text else []
        )


class CuvilFrameFilter:
    """Labels kernel frames (node, op, shape) and hides ctypes/libffi trampolines."""

    def __init__(self):
        self.name, self.priority, self.enabled = "cuvil", 100, True
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        if not SESSION.builds:
            SESSION.refresh()
        for decorator in frames:
            name = decorator.function()
            pc = decorator.inferior_frame().pc()
            lib = gdb.solib_name(pc) or ""
            if "libffi" in lib or (
                isinstance(name, str) and name.startswith(("ffi_call", "_ctypes"))
            ):
                continue  # the ctypes call into cuvil_main
            if isinstance(name, str) and name.startswith("cuvil_call_"):
                continue  # the artificial scope of one call inside cuvil_main
            yield _Labelled(decorator)


try:
    from gdb.FrameDecorator import FrameDecorator
except ImportError:  # a GDB without frame filters: the commands still work
    FrameDecorator = None


class _Arg:
    def __init__(self, name, value):
        self._name, self._value = name, value

    def symbol(self):
        return self._name

    def value(self):
        return self._value


if FrameDecorator is not None:

    class _Labelled(FrameDecorator):
        def _site(self):
            pc = self.inferior_frame().pc()
            for build in SESSION.builds:
                kernel = build.kernel_at(pc)
                if kernel is not None:
                    return build, kernel, pc
            return None

        def function(self):
            site = self._site()
            if site is None:
                return super().function()
            return f"{site[1].symbol} [{kernel_label(site[1])}]"

        def frame_args(self):
            site = self._site()
            if site is None or site[2] != site[1].start:
                return super().frame_args()
            # at a kernel's first instruction the debug variables are not written yet:
            # show the ABI registers, which hold the arguments there
            infos = site[1].info.get("args", [])
            values = entry_arguments(SESSION.adapter, len(infos))
            void_p = gdb.lookup_type("void").pointer()
            return [
                _Arg(tensor_label(a), gdb.Value(v).cast(void_p))
                for a, v in zip(infos, values)
            ]

    if _FIRST_LOAD:
        CuvilFrameFilter()


def _on_new_objfile(event):
    name = event.new_objfile.filename or ""
    if not os.path.exists(name):  # a JIT object (GDB names it after its address)
        SESSION.code_changed()
    elif SESSION.specs and SESSION.adapter.is_cuvil_library(name):
        SESSION.refresh()  # only a Cuvil library: torch loads a hundred others


def _on_free_objfile(event):
    name = event.objfile.filename or ""
    if not os.path.exists(name) or name.endswith(".so"):
        SESSION.code_changed()


def _on_exit(event):
    SESSION.stop = None
    SESSION.builds = []
    SESSION.adapter._symbols.clear()


if _FIRST_LOAD:
    gdb.events.new_objfile.connect(_on_new_objfile)
    if hasattr(gdb.events, "free_objfile"):
        gdb.events.free_objfile.connect(_on_free_objfile)
    gdb.events.exited.connect(_on_exit)
    CuvilCommand()
