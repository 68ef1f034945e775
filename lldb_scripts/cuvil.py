"""``cuvil`` commands for LLDB: ``command script import lldb_scripts/cuvil.py``.

    cuvil kernels [PATTERN] | break SPEC [--after] | delete [N] | print NODE [--stats]
    cuvil where | explain | bt | builds | symbols [--store DIR] [--url URL]

This file is the LLDB half (docs/DEBUGGING.md): an Adapter over LLDB's SB API, the
command, and the hooks that keep breakpoints right when code comes and goes: a
breakpoint on ``__jit_debug_register_code`` (every JIT object registered or freed: a
recompile) and one on ``cuvil_main`` (an AOT library's first call: its pending
breakpoints are set before its first kernel runs). Both continue at once. A type
summary shows a kernel's tensor arguments with their shape (``0x55555cad2980
<1x16x32x32 f32 nhwc>``) in ``frame variable`` and ``bt``; at a kernel's first
instruction, where debug info shows values not written yet, it shows the argument
registers. The commands themselves live in cuvil_debug/debugger (stdlib only: LLDB's
Python has no torch or numpy).

Importing it also turns on what LLDB needs for JIT code on Linux
(``plugin.jit-loader.gdb.enable``) and loads symbols lazily
(``target.preload-symbols false``: LLDB 22 spends ~0.2 s per JIT object otherwise).
"""

import contextlib
import os
import sys

import lldb

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from cuvil_debug.debugger.adapter import FrameInfo, entry_arguments  # noqa: E402
from cuvil_debug.debugger.builds import MANIFEST_SECTION  # noqa: E402
from cuvil_debug.debugger.elf import open_elf  # noqa: E402
from cuvil_debug.debugger.probe import tensor_label  # noqa: E402
from cuvil_debug.debugger.session import Session  # noqa: E402

MASK = (1 << 64) - 1
INVALID = lldb.LLDB_INVALID_ADDRESS
JIT_REGISTER = "__jit_debug_register_code"
ENTRY = "cuvil_main"
SITE_NAME = "cuvil"  # breakpoint names, so `breakpoint list` says what they are
MAX_FRAMES = 256
_DEAD = (
    lldb.eStateInvalid,
    lldb.eStateUnloaded,
    lldb.eStateExited,
    lldb.eStateDetached,
    lldb.eStateConnected,
    lldb.eStateAttaching,
    lldb.eStateLaunching,
)
SETTINGS = (
    "settings set plugin.jit-loader.gdb.enable on",
    "settings set target.preload-symbols false",
)


class LldbAdapter:
    """The `Adapter` protocol (cuvil_debug/debugger/adapter.py) on LLDB's SB API."""

    def __init__(self):
        self.debugger = None
        self.breakpoints = {}  # breakpoint ID -> the SBBreakpoint handed to the session
        self._libs = {}  # (path, mtime) -> .text address, or None when not a Cuvil build
        self._symbols = {}  # (process, name) -> address
        self._missing = {}  # (process, name) -> module count when it was not found
        self._target = None  # while a breakpoint callback runs: its target and thread
        self._thread = None

    @contextlib.contextmanager
    def at(self, frame):
        """Read `frame`'s thread (a breakpoint callback's) rather than the selection."""
        saved = self._target, self._thread
        self._thread = frame.GetThread()
        self._target = self._thread.GetProcess().GetTarget()
        try:
            yield
        finally:
            self._target, self._thread = saved

    # ---- the process ------------------------------------------------------------------
    def target(self):
        if self._target is not None:
            return self._target
        debugger = self.debugger or lldb.debugger
        target = debugger.GetSelectedTarget() if debugger else None
        return target if target is not None and target.IsValid() else None

    def process(self):
        target = self.target()
        process = target.GetProcess() if target else None
        if process is None or not process.IsValid() or process.GetState() in _DEAD:
            return None
        return process

    def thread(self):
        if self._thread is not None:
            return self._thread
        process = self.process()
        thread = process.GetSelectedThread() if process else None
        return thread if thread is not None and thread.IsValid() else None

    def arch(self):
        target = self.target()
        triple = target.GetTriple() if target else ""
        return (
            "aarch64"
            if triple and triple.startswith(("aarch64", "arm64"))
            else "x86_64"
        )

    def read(self, addr, size):
        if size <= 0:
            return b""
        process = self.process()
        if process is None:
            raise OSError("the program is not running")
        error = lldb.SBError()
        data = process.ReadMemory(addr, size, error)
        if error.Fail() or data is None or len(data) != size:
            raise OSError(f"cannot read {size} bytes at {addr:#x}: {error}")
        return bytes(data)

    # ---- symbols and modules ----------------------------------------------------------
    def symbol_address(self, name):
        process, target = self.process(), self.target()
        if process is None:
            return None
        key = (process.GetUniqueID(), process.GetProcessID(), name)
        if key in self._symbols:
            return self._symbols[key]
        modules = list(target.module_iter())
        if self._missing.get(key) == len(modules):
            return None  # looked for in these modules already: no symbol tables again
        # llvmlite's library first: the one that defines the JIT descriptor in practice
        modules.sort(
            key=lambda m: "llvmlite" not in (m.GetFileSpec().GetFilename() or "")
        )
        for module in modules:
            for context in module.FindSymbols(name):
                addr = context.GetSymbol().GetStartAddress().GetLoadAddress(target)
                if addr != INVALID:
                    self._symbols[key] = addr
                    return addr
        self._missing[key] = len(modules)
        return None

    def _text_addr(self, path):
        """The file's .text address when it is a Cuvil build, else None (cached)."""
        try:
            key = (path, os.stat(path).st_mtime)
        except OSError:
            return None  # a JIT object (LLDB names it JIT(0x...)) or a vanished file
        if key not in self._libs:
            try:
                with open_elf(path) as elf:
                    text = elf.section(".text")
                    has = elf.section(MANIFEST_SECTION) is not None and text
                    # a JIT object's debug file (cuvil symbols) is a module, no library
                    self._libs[key] = text.addr if has and not elf.relocatable else None
            except (OSError, ValueError):
                self._libs[key] = None
        return self._libs[key]

    def libraries(self):
        target = self.target()
        if self.process() is None:
            return []
        out = []
        for module in target.module_iter():
            path = module.GetFileSpec().fullpath
            text = self._text_addr(path) if path else None
            if text is None:
                continue
            section = module.FindSection(".text")
            loaded = section.GetLoadAddress(target) if section.IsValid() else INVALID
            if loaded != INVALID:
                out.append((path, loaded - text))
        return out

    # ---- frames -----------------------------------------------------------------------
    def _frames(self):
        """The selected thread's SBFrames, innermost first. Like GDB, LLDB lists an
        inlined call as a frame of its own (at its caller's pc): a release build's
        kernels, inlined into the entry, are named by those frames."""
        thread = self.thread()
        if thread is None:
            return []
        count = min(thread.GetNumFrames(), MAX_FRAMES)
        return [thread.GetFrameAtIndex(i) for i in range(count)]

    def frames(self):
        out = []
        for frame in self._frames():
            entry = frame.GetLineEntry()
            spec = entry.GetFileSpec() if entry.IsValid() else None
            module = frame.GetModule().GetFileSpec()
            out.append(
                FrameInfo(
                    frame.GetPC(),
                    frame.GetFunctionName(),
                    spec.fullpath if spec else None,
                    (entry.GetLine() or None) if spec else None,
                    module.fullpath or module.GetFilename(),
                )
            )
        return out

    def register(self, name):
        thread = self.thread()
        if thread is None:
            raise OSError("the program is not running")
        value = thread.GetFrameAtIndex(0).FindRegister(name)
        if not value.IsValid():
            raise OSError(f"no register {name}")
        return value.GetValueAsUnsigned() & MASK

    def frame_arguments(self, index):
        frames = self._frames()
        if index >= len(frames):
            return []
        out = []
        for value in frames[index].GetVariables(True, False, False, True):
            error = lldb.SBError()
            number = value.GetValueAsUnsigned(error)
            if error.Fail() or value.GetError().Fail() or value.GetValue() is None:
                return []  # optimized out: debug info has no say here
            out.append((value.GetName(), number & MASK))
        return out

    # ---- breakpoints and symbols ------------------------------------------------------
    def set_breakpoint(self, addr):
        bp = self.target().BreakpointCreateByAddress(addr)
        bp.AddName(SITE_NAME)
        bp.SetScriptCallbackFunction(f"{__name__}._on_site")
        self.breakpoints[bp.GetID()] = bp
        return bp

    def delete_breakpoint(self, handle):
        self.breakpoints.pop(handle.GetID(), None)
        target = handle.GetTarget()
        if target.IsValid():
            target.BreakpointDelete(handle.GetID())

    def add_symbols(self, path, sections, base):
        if sections:
            places = " ".join(f"{n} {a:#x}" for n, a in sorted(sections.items()) if n)
            commands = [
                f'target modules add "{path}"',
                f'target modules load --file "{path}" {places}',
            ]
        else:
            commands = [f'target symbols add "{path}"']
        for command in commands:
            ok, text = _run(self.debugger or lldb.debugger, command)
            if not ok:
                return f"LLDB refused '{command}': {text}"
        return f"loaded {path}"

    def python_backtrace(self):
        return (
            "    (LLDB has no CPython frame reader: py-spy dump --pid PID shows them)"
        )


def _run(debugger, command):
    """Run an LLDB command: (succeeded, its output or error in one line)."""
    result = lldb.SBCommandReturnObject()
    debugger.GetCommandInterpreter().HandleCommand(command, result)
    text = (result.GetOutput() or "") + (result.GetError() or "")
    return result.Succeeded(), " ".join(text.split())


# importing the script again (an ~/.lldbinit and a command line) keeps the first session
SESSION = getattr(lldb, "_cuvil_session", None) or Session(LldbAdapter())
ADAPTER = SESSION.adapter
lldb._cuvil_session = SESSION


# ---- breakpoint callbacks: each returns True to stop, False to continue ---------------
def _guarded(frame, action):
    """Run `action` for a callback: never a traceback inside a stop decision."""
    try:
        with ADAPTER.at(frame):
            return action()
    except Exception as e:  # noqa: BLE001 - one line, and the program runs on
        print(
            f"cuvil: internal error in a breakpoint callback: {type(e).__name__}: {e}"
        )
        return False


def _on_site(frame, bp_loc, internal_dict):
    handle = ADAPTER.breakpoints.get(bp_loc.GetBreakpoint().GetID())
    if handle is None:
        return False

    def hit():
        stop, message = SESSION.hit(handle)
        if stop and message:
            print(message)
        return stop

    return _guarded(frame, hit)


def _on_jit(frame, bp_loc, internal_dict):
    """A JIT object was registered or freed: re-read the builds, re-arm."""

    def changed():
        SESSION.code_changed()
        return False

    return _guarded(frame, changed)


def _on_entry(frame, bp_loc, internal_dict):
    """An entry point of a build not seen yet (an AOT library): arm its breakpoints."""
    pc = frame.GetPC()
    if any(b.contains(pc) for b in SESSION.builds):
        return False

    def arm():
        SESSION.refresh()
        return False

    return _guarded(frame, arm)


HOOKS = {  # name -> (symbol, callback)
    "cuvil_jit_hook": (JIT_REGISTER, "_on_jit"),
    "cuvil_entry_hook": (ENTRY, "_on_entry"),
}


def _hook(target, name):
    """The hook breakpoint `name` on `target`, created the first time."""
    found = lldb.SBBreakpointList(target)
    if target.FindBreakpointsByName(name, found) and found.GetSize():
        return found.GetBreakpointAtIndex(0)
    symbol, callback = HOOKS[name]
    bp = target.BreakpointCreateByName(symbol)
    bp.AddName(name)
    bp.SetScriptCallbackFunction(f"{__name__}.{callback}")
    return bp


def install_hooks(target):
    """The hooks on `target`, once; the entry hook is on only while breakpoints are
    asked for (it stops, briefly, at every call of a compiled model). Without a target
    they go on LLDB's dummy target, which every target created later copies."""
    if target is None or not target.IsValid():
        debugger = ADAPTER.debugger or lldb.debugger
        target = debugger.GetDummyTarget() if debugger else None
        if target is None or not target.IsValid():
            return
    _hook(target, "cuvil_jit_hook")
    _hook(target, "cuvil_entry_hook").SetEnabled(bool(SESSION.specs))


# ---- a summary of kernel arguments: `frame variable` and `bt` show shape and layout --
SUMMARY_TYPES = (  # the element types Cuvil's debug info uses; never char-like ones
    "float *",
    "double *",
    "_Float16 *",
    "__bf16 *",
    "int64_t *",
    "int32_t *",
    "int16_t *",
    "bool *",
)


def _kernel_at(pc, function):
    """(build, kernel) containing `pc`; the builds are read again, once, for a kernel's
    frame that is in none of them (an AOT library no command has looked at yet)."""
    for attempt in (0, 1):
        site = next(((b, k) for b in SESSION.builds if (k := b.kernel_at(pc))), None)
        if site or attempt or not function.startswith("cuvil_k"):
            return site
        SESSION.refresh()
    return None


def tensor_summary(valobj, internal_dict):
    """``0x55555cad2980 <1x16x32x32 f32 nhwc>`` for a kernel's tensor argument (the
    summary replaces the value: `type summary add -v`); "" anywhere else, where LLDB
    then shows the value as it would without it."""
    try:
        frame = valobj.GetFrame()
        name = (frame.GetFunctionName() or "") if frame.IsValid() else ""
        if not name.startswith("cuvil_"):
            return ""
        with ADAPTER.at(frame):
            return _summary(frame, valobj, name)
    except Exception:  # noqa: BLE001 - a summary must never break `frame variable`
        return ""


def _summary(frame, valobj, function):
    site = _kernel_at(frame.GetPC(), function)
    if site is None:
        return ""
    infos = site[1].info.get("args", [])
    names = [v.GetName() for v in frame.GetVariables(True, False, False, True)]
    if valobj.GetName() not in names or len(names) != len(infos):
        return ""
    i = names.index(valobj.GetName())
    label = tensor_label(infos[i]).split(" ", 1)[-1]
    if frame.GetFrameID() == 0 and frame.GetPC() == site[1].start:
        # at the first instruction the variables are not written yet: the ABI
        # registers hold the arguments there
        value = entry_arguments(ADAPTER, i + 1)[i]
        return f"{value:#018x} {label} (entry)"
    return f"{valobj.GetValue() or '<unavailable>'} {label}"


def cuvil_command(debugger, command, exe_ctx, result, internal_dict):
    """Cuvil: kernels, break, delete, print, where, explain, bt, builds, symbols.
    Type "cuvil help" for the list."""
    ADAPTER.debugger = debugger
    target = exe_ctx.GetTarget() if exe_ctx else debugger.GetSelectedTarget()
    install_hooks(target)
    if ADAPTER.process() is None:
        SESSION.stop, SESSION.builds = None, []
    text = SESSION.execute(command)
    install_hooks(target)
    result.AppendMessage(text)


def __lldb_init_module(debugger, internal_dict):
    ADAPTER.debugger = debugger
    for setting in SETTINGS:
        _run(debugger, setting)
    _run(
        debugger,
        f"command script add -o -f {__name__}.cuvil_command "
        '-h "Cuvil: kernels, break, delete, print, where, explain, bt, builds, '
        'symbols (cuvil help)" cuvil',
    )
    types = " ".join(f'"{t}"' for t in SUMMARY_TYPES)
    _run(debugger, "type category define cuvil")
    _run(debugger, f"type summary add -w cuvil -v -F {__name__}.tensor_summary {types}")
    _run(debugger, "type category enable cuvil")
    install_hooks(debugger.GetSelectedTarget())
