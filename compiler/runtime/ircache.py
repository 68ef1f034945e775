"""The compile cache's IR-fingerprint level: a hit skips LLVM IR generation and LLVM.

The object level (objcache.py) is keyed by the LLVM IR text, so every compile used to
generate LLVM IR only to find its object cached. This level sits above it, keyed by a
*fingerprint* of what decides the build, all known once Cuvil's passes have run:

- the optimized Cuvil IR as printed (ops, types, attributes, inline constants: floats
  print exactly, locations, fused bodies, param declarations, the module name), the
  raw value names and ``Module.fx_values`` (the debug manifest names both);
- the data of every param of at most ``SMALL_PARAM`` elements: the only param values
  code generation may bake into code (a fused epilogue's scalar); larger params reach
  the code as runtime buffers, and what is derived from them (packed weights, folded
  batch-norm scales) is derived again from this compile's params on every hit;
- the options (all but ``keep_symbols``, like the debug key), code generation's own
  arguments (``codegen_args``: debug, profile, threads, break_on, perf), the target
  (triple, CPU, features, JIT code model), the Cuvil, LLVM and llvmlite versions, and
  a digest of the source of Cuvil's IR and code generator (``source_digest``), so a
  changed code generator never meets an object the old one built.

An entry (``ir/KK/KEY.ir``) has the object level's 88-byte header (magic ``CUVILIR\\0``,
format, length, sha256 of the key, sha256 of the body), verified before anything is
used, and a JSON body: the object level's key and the debug key of the object it names,
the sha256 of the LLVM IR that object was built from, a digest of the build's contract
(entry, input and output types, params and derived tensors with their shapes, the arena,
the kernel table) and the perf-map labels. On a lookup the build plan is made again
(``plan_build``: slots, arena, derived tensors; no LLVM IR) and its contract must equal
the entry's; the object comes from the object level, checked as always (its debug-key
note must be the entry's). The LLVM IR text is generated again only when asked for
(``CompiledModule.llvm_ir()``, ``CUVIL_DEBUG=4``), and must hash to the entry's.

A bad entry (header, checksum, JSON, a contract that differs) is evicted, counted and
rebuilt, never used; an entry whose object is gone is a miss and is rewritten. The level
is off where the object level is (``CUVIL_CACHE=0``, LLVM bisection) and for a compile
with an ``after_kernel`` hook (a callable that may change the code is no key).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from ..codegen.entry import describe_steps
from ..codegen.generator import KernelInfo, Program, generate
from ..codegen.indexing import STATUS_SYMBOL
from ..codegen.plan import plan_build
from ..codegen.pool import ENTRY_GLOBAL as POOL_ENTRY
from ..errors import CodegenError
from ..hooks import CompileHooks
from ..ir.core import Module, Value
from ..ir.printer import print_module
from ..options import CompileOptions
from . import objcache, perfmap
from .debugkey import key_options, target, versions
from .jit import Reuse

__all__ = [
    "MAGIC",
    "FORMAT",
    "SMALL_PARAM",
    "Lookup",
    "CachedProgram",
    "codegen_args",
    "fingerprint",
    "lookup",
    "finish",
    "reuse",
    "source_digest",
    "contract",
    "check_entry",
]

MAGIC = b"CUVILIR\0"
FORMAT = 1
SMALL_PARAM = 64  # params up to this many elements are fingerprinted by value
_SOURCES = (  # what turns optimized IR into a build (compiler/...)
    "codegen",
    "ir",
    "options.py",
    "runtime/ircache.py",
    "runtime/jit.py",
    "runtime/debugkey.py",
    "version.py",
)
# globals the runtime looks for in a build
_RUNTIME_SYMBOLS = (STATUS_SYMBOL, POOL_ENTRY)
_FIELDS = ("fingerprint", "debug_key", "object_key", "llvm_ir_sha256", "contract")


def codegen_args(options: CompileOptions) -> dict[str, Any]:
    """``generate``'s arguments for `options` (pipeline.compile_module's, and the
    regeneration of a hit's LLVM IR)."""
    return {
        "debug": options.debug,
        "profile": options.debug_options.profile,
        "threads": options.num_threads,
        "break_on": tuple(options.break_on),
        "perf": perfmap.enabled(options),
    }


@functools.cache
def source_digest() -> str:
    """sha256 of the source of Cuvil's IR and code generator (read once a process)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in _SOURCES:
        path = root / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            h.update(str(f.relative_to(root)).encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def _names(module: Module) -> list:
    """The raw value names (the printer makes unnamed or clashing ones unique) and
    FX node -> value name (``fx_values``): what the debug manifest shows."""
    names = [
        [a.name for a in fn.args] + [r.name for op in fn.ops for r in op.results]
        for fn in module.functions
    ]
    nodes = []
    for node, v in module.fx_values.items():
        if isinstance(v, (tuple, list)) and v and isinstance(v[0], Value):
            v = v[0]
        nodes.append([node, v.name if isinstance(v, Value) else None])
    return [names, nodes]


def _small_params(module: Module) -> list:
    found = []
    for name in sorted(module.params):
        data = module.param_data.get(name)
        if data is not None and data.numel() <= SMALL_PARAM:
            flat = data.detach().reshape(-1).contiguous().cpu()
            raw = bytes(flat.view(torch.uint8).numpy()) if flat.numel() else b""
            found.append([name, str(data.dtype), raw.hex()])  # bf16 has no numpy
    return found


def fingerprint(module: Module, options: CompileOptions, steps: bool = False) -> str:
    """The IR level's key of `module` (optimized) built with `options` (module doc);
    `steps`: the steppable build (``generate(steps=True)``, runtime/stepper.py)."""
    args = codegen_args(options)
    fields = {
        "format": FORMAT,
        "ir": hashlib.sha256(print_module(module).encode()).hexdigest(),
        "names": _names(module),
        "small_params": _small_params(module),
        "isa": dict(module.isa),  # int8 / bf16 kernels' instruction sets (not printed)
        # DWARF names files by absolute path: a location relative to the working
        # directory is another file in another checkout (debuginfo.py)
        "cwd": os.getcwd(),
        "options": key_options(options),
        "codegen": {**args, "break_on": list(args["break_on"])},
        "target": target("mcjit"),
        "versions": {k: v for k, v in versions().items() if k != "torch"},
        "source": source_digest(),
    }
    if steps:  # (absent otherwise: the keys of plain builds stay what they were)
        fields["steps"] = True
    blob = json.dumps(fields, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()


def contract(program: Program) -> str:
    """Digest of what a build promises its caller besides the code: the entry, the
    input and output types, params and derived tensors, the arena, the kernels."""
    doc = {
        "entry": program.entry,
        "inputs": [str(t) for t in program.inputs],
        "outputs": [str(t) for t in program.outputs],
        "params": list(program.params),
        "derived": [
            [n, list(t.shape), str(t.dtype)] for n, t in program.derived.items()
        ],
        "arena": program.arena_bytes,
        "kernels": [
            [k.symbol, k.op_name, list(k.nodes), k.source, k.call_index]
            for k in program.kernels
        ],
    }
    if program.steps:
        doc["steps"] = [
            [s.symbol, s.op.name if s.op is not None else None, s.output]
            for s in program.steps
        ]
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


class CachedProgram(Program):
    """A Program made from a hit's build plan: everything but the LLVM IR text, which
    is generated again (and checked against the entry) the first time it is read."""

    def __init__(self, *args, regenerate: Callable[[], str], **kwargs) -> None:
        self._text: str | None = None
        self._light: tuple[str, ...] = ()
        self._regenerate = regenerate
        self.symbols: dict[str, bool] = {}  # runtime global -> defined (the entry's)
        super().__init__("", *args, **kwargs)
        self._text = None  # the dataclass __init__ set ""

    @property  # type: ignore[override]
    def llvm_ir(self) -> str:
        if self._text is None:
            self._text = self._regenerate()
        return self._text

    @llvm_ir.setter
    def llvm_ir(self, text: str) -> None:
        self._text = text

    @property  # type: ignore[override]
    def light(self) -> tuple[str, ...]:
        if self._text is None:
            self._text = self._regenerate()  # (which sets the generator's names)
        return self._light

    @light.setter
    def light(self, names: tuple[str, ...]) -> None:
        self._light = names

    def mentions(self, symbol: str) -> bool:
        known = self.symbols.get(symbol)
        return known if isinstance(known, bool) else super().mentions(symbol)


@dataclass
class Lookup:
    """One compile's use of the IR level: `key` (None: not used), the sound `entry`
    found under it (None: a miss) and the `program` rebuilt from it."""

    key: str | None = None
    entry: dict | None = None
    program: Program | None = None


def usable(options: CompileOptions, hooks: CompileHooks | None) -> bool:
    return (
        objcache.enabled()
        and options.debug_options.llvm_bisect_limit is None
        and (hooks is None or hooks.after_kernel is None)
    )


def _path(key: str) -> Path:
    folder, suffix = objcache.PLACES["ir"]
    return objcache.cache_dir() / folder / key[:2] / f"{key}{suffix}"


def check_entry(body: bytes, key: str | None = None) -> tuple[dict | None, str | None]:
    """(the entry, None) if `body` is a sound entry (of `key`), else (None, why)."""
    try:
        entry = json.loads(body)
    except (ValueError, UnicodeDecodeError) as e:
        return None, f"holds no JSON entry ({e})"
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        return None, f"holds no IR-cache entry of format {FORMAT}"
    bad = [f for f in _FIELDS if not isinstance(entry.get(f), str)]
    if bad:
        return None, f"lacks its {bad[0]}"
    if key is not None and entry["fingerprint"] != key:
        return None, "belongs to another fingerprint"
    return entry, None


def lookup(
    module: Module,
    options: CompileOptions,
    hooks: CompileHooks | None = None,
    steps: bool = False,
) -> Lookup:
    """Look `module` (optimized) up; nothing is counted until `finish`. `steps`: the
    steppable build (runtime/stepper.py), its own entry."""
    if not usable(options, hooks):
        return Lookup()
    key = fingerprint(module, options, steps)
    found: dict = {}

    def check(body: bytes) -> str | None:
        entry, problem = check_entry(body, key)
        found["entry"] = entry
        return problem

    body = objcache.lookup(_path(key), key, MAGIC, "ir", check, count=False)
    if body is None:
        return Lookup(key)
    entry = found["entry"]
    program = _program(module, options, entry, steps)
    if contract(program) != entry["contract"]:
        objcache.discard(_path(key), "describes another build plan", "ir")
        return Lookup(key)
    return Lookup(key, entry, program)


def _program(
    module: Module, options: CompileOptions, entry: dict, steps: bool = False
) -> CachedProgram:
    """The Program of a hit: `generate`'s plan without its LLVM IR (derived tensors
    made from this compile's params, in the order ``Lowering.emit_all`` makes them;
    with `steps`, the step table ``emit_steps`` describes)."""
    args = codegen_args(options)
    plan = plan_build(
        module, args["threads"], args["debug"], args["break_on"], args["perf"]
    )
    buffers, lowering = plan.buffers, plan.lowering
    kernels, calls = [], []
    for op in plan.fn.ops:
        prep = lowering.prepared.get(id(op))
        if prep is None:
            continue
        kernels.append(
            KernelInfo(
                lowering.symbols[id(op)],
                op.name,
                op.loc.nodes,
                op.loc.source(),
                len(kernels),
            )
        )
        for t in prep.extra:
            buffers.derive(t)
        calls.append([*op.results, *op.operands])
    calls += [[buffers.output(i, v.type), v] for i, v in plan.copies]
    located = buffers.value_slots()
    expected = entry["llvm_ir_sha256"]

    def regenerate() -> str:
        again = generate(module, steps=steps, **args)
        text = again.llvm_ir
        if hashlib.sha256(text.encode()).hexdigest() != expected:
            raise CodegenError(
                "the LLVM IR generated again for a cached build differs from the "
                "IR its object was built from",
                hint="code generation is not deterministic: a Cuvil bug; "
                "CUVIL_CACHE=0 avoids the cache",
            )
        program.light = again.light
        return text

    program = CachedProgram(
        [a.type for a in plan.fn.args],
        list(plan.fn.result_types),
        buffers.params,
        plan.arena_bytes,
        kernels,
        derived=buffers.derived,
        slots={k: slot for k, (_, slot) in located.items()},
        values={k: v for k, (v, _) in located.items()},
        regenerate=regenerate,
    )
    program.symbols = entry.get("symbols") or {}
    if steps:
        program.steps = describe_steps(plan.fn, calls, buffers)
    return program


def reuse(found: Lookup) -> Reuse | None:
    """What JitModule needs to load a hit's object (None: a miss, or not used)."""
    if found.entry is None:
        return None
    e = found.entry
    labels = e.get("labels")
    return Reuse(e["debug_key"], e["object_key"], labels if labels else None)


def finish(found: Lookup, program: Program, jit) -> None:
    """Count `found` (a hit: its object was loaded) and write the entry of a miss."""
    if found.key is None:
        return
    jit.ir_cache_used = True
    if found.entry is not None and jit.reused:
        jit.ir_cache_hit = True
        objcache.count("ir", hits=1)
        return
    objcache.count("ir", misses=1)
    if not jit.object_key:
        return
    entry = {
        "format": FORMAT,
        "fingerprint": found.key,
        "debug_key": jit.debug_key,
        "object_key": jit.object_key,
        "llvm_ir_sha256": hashlib.sha256(program.llvm_ir.encode()).hexdigest(),
        "contract": contract(program),
        "symbols": {s: program.mentions(s) for s in _RUNTIME_SYMBOLS},
        "labels": getattr(jit, "perf_labels", None),
    }
    body = json.dumps(entry, sort_keys=True).encode()
    objcache.store(_path(found.key), found.key, body, MAGIC, "ir")
