"""Tensors and pointers: ``cuvil print`` and ``cuvil explain``.

A tensor's address comes from the kernel it is an argument of (its pointer arguments, by
the ABI at its entry or as recorded there) or from its slot (docs/DEBUGGING.md): the
arena base plus an offset, or an entry of the inputs/outputs/params arrays, read through
the entry's arguments (debug info) or inferred from a kernel argument in the same slot.
"""

from __future__ import annotations

import argparse
import struct
from collections.abc import Callable

from .adapter import Adapter, CommandError
from .builds import Build, KernelSite
from .probe import Here, describe_kernel
from .tensors import Stats, TensorView, format_values, parse_slice

__all__ = ["parse_print_args", "print_tensor", "explain"]

ENTRY_ARGS = ("inputs", "outputs", "params", "arena")
ArgsOf = Callable[[Here], "list[int] | None"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no exit inside a debugger
        raise CommandError(
            f"print: {message} (usage: cuvil print NODE|ARG [--stats] [--slice S] [--limit N])"
        )


def parse_print_args(args: list[str]) -> argparse.Namespace:
    p = _Parser(prog="cuvil print", add_help=False)
    p.add_argument("name")
    p.add_argument("--stats", action="store_true")
    p.add_argument("--slice", default=None)
    p.add_argument("--limit", type=int, default=8)
    return p.parse_args(args)


def _arg_index(kernel: KernelSite, name: str) -> int | None:
    """An argument of `kernel` by IR value name, ``out0``/``in1``/``arg2`` or index."""
    args = kernel.info.get("args", [])
    for i, a in enumerate(args):
        if a.get("value") == name:
            return i
    for prefix, role in (("out", "out"), ("in", "in"), ("arg", None)):
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            want = int(name[len(prefix) :])
            picked = [
                i for i, a in enumerate(args) if role is None or a.get("role") == role
            ]
            return picked[want] if want < len(picked) else None
    return int(name) if name.isdigit() and int(name) < len(args) else None


def _entry_pointers(adapter: Adapter, here: Here | None) -> dict[str, int]:
    """inputs/outputs/params/arena of the entry frame, where debug info has them."""
    if here is None:
        return {}
    for i, f in enumerate(adapter.frames()):
        if f.function and (
            f.function == here.build.manifest.get("entry")
            or f.function.startswith("cuvil_step_")
        ):
            named = dict(adapter.frame_arguments(i))
            return {k: named[k] for k in ENTRY_ARGS if k in named}
    return {}


def _slot_pointer(
    adapter: Adapter,
    build: Build,
    slot: dict,
    here: Here | None,
    args: list[int] | None,
) -> int:
    kind, index = slot.get("kind"), slot.get("index")
    if kind == "const":
        where = build.symbols.get(index)
        if where is None:
            raise CommandError(f"the constant {index} has no symbol in {build.name}")
        return where[0]
    if here is not None and here.kernel is not None and args:
        for a, p in zip(here.kernel.info.get("args", []), args):
            s = a.get("slot", {})
            if s.get("kind") == kind == "arena":
                return p - s["index"] + index
            if s == slot:
                return p
    entry = _entry_pointers(adapter, here)
    if kind == "arena" and "arena" in entry:
        return entry["arena"] + index
    array = {"input": "inputs", "output": "outputs", "param": "params"}.get(kind)
    if array in entry:
        return struct.unpack("<Q", adapter.read(entry[array] + 8 * index, 8))[0]
    raise CommandError(
        f"cannot locate {kind} {index} from this frame: stop in a kernel that uses it "
        "(cuvil break), or build with debug=True"
    )


def _find(builds: list[Build], here: Here | None, name: str, args_of: ArgsOf):
    """(build, entry with shape/slot, pointer or None, producing kernel, note)."""
    if here is not None and here.kernel is not None:
        i = _arg_index(here.kernel, name)
        if i is not None:
            entry = here.kernel.info["args"][i]
            args = args_of(here)
            ptr = args[i] if args and i < len(args) else None
            return (
                here.build,
                entry,
                ptr,
                (here.kernel if entry.get("role") == "out" else None),
            )
    ordered = ([here.build] if here else []) + [
        b for b in builds if not here or b is not here.build
    ]
    for build in ordered:
        node = build.manifest.get("nodes", {}).get(name)
        if node is None:
            continue
        status = node.get("status")
        kernel = build.kernels.get(node.get("kernel") or "")
        if status in ("fused", "folded", "removed"):
            where = kernel.symbol if kernel else "no kernel"
            raise CommandError(
                f"{name} has no buffer: it is {status} ({where}); print the kernel's "
                f"output after it returns: cuvil break {name} --after, then cuvil print out0"
            )
        return build, node, None, kernel
    hint = "not an argument of this kernel, nor an FX node of a loaded build"
    raise CommandError(f"unknown tensor '{name}': {hint}")


def print_tensor(
    adapter: Adapter, builds: list[Build], here: Here | None, opts, args_of: ArgsOf
) -> str:
    if not builds:
        raise CommandError("no Cuvil code is loaded")
    build, entry, ptr, producer = _find(builds, here, opts.name, args_of)
    if "shape" not in entry:
        raise CommandError(f"{opts.name} is scratch memory, not a tensor")
    view = TensorView.of(entry)
    if ptr is None:
        ptr = _slot_pointer(
            adapter, build, entry.get("slot", {}), here, args_of(here) if here else None
        )
    if ptr == 0:
        raise CommandError(f"{opts.name} is a NULL pointer here")
    try:
        raw = adapter.read(ptr, view.nbytes)
    except Exception:
        raise CommandError(
            f"cannot read {view.nbytes} bytes of {opts.name} at {ptr:#x}"
        ) from None
    try:
        indices = parse_slice(opts.slice, view.shape) if opts.slice else None
    except ValueError as e:
        raise CommandError(str(e)) from None
    values = view.decode(raw, indices)
    slot = entry.get("slot", {})
    lines = [
        f"{opts.name} = {view.describe()} at {ptr:#x} ({slot.get('kind')} {slot.get('index')})"
    ]
    lines += _notes(build, entry, producer, here)
    if not opts.stats:
        order = " (logical order)" if view.layout != "contiguous" else ""
        lines.append(format_values(values, view.dtype, opts.limit) + order)
    lines.append(Stats.of(values).line())
    return "\n".join(lines)


def _notes(
    build: Build, entry: dict, producer: KernelSite | None, here: Here | None
) -> list[str]:
    """Warnings when the buffer does not hold the value now: not computed yet in this
    call, or overwritten by a later kernel sharing its arena bytes."""
    if here is None or producer is None or here.kernel is None:
        return []
    made, now = producer.info.get("call", -1), here.kernel.info.get("call", -1)
    done = here.phase in ("after", "main")
    if made > now or (made == now and not done):
        return [
            f"note: not computed yet in this call ({producer.symbol} is call {made}; stopped {here.phase} call {now})"
        ]
    slot = entry.get("slot", {})
    if slot.get("kind") != "arena":
        return []
    lo, hi = slot["index"], slot["index"] + TensorView.of(entry).nbytes
    for k in sorted(build.kernels.values(), key=lambda k: k.info.get("call", 0)):
        c = k.info.get("call", 0)
        if made < c < now or (c == now and done and k is not producer):
            for a in k.info.get("args", []):
                s = a.get("slot", {})
                if a.get("role") == "out" and s.get("kind") == "arena" and "shape" in a:
                    a_lo = s["index"]
                    if a_lo < hi and lo < a_lo + TensorView.of(a).nbytes:
                        return [
                            f"note: its arena bytes were reused by {a.get('value')} ({k.symbol}, call {c}): these are not its values"
                        ]
    return []


def explain(adapter: Adapter, here: Here, args: list[int] | None) -> str:
    """Why a kernel faulted: each pointer against the slot it should point into."""
    if here.kernel is None:
        return f"in {here.info.function or 'the entry'} of {here.build.name}, not in a kernel"
    kernel, build = here.kernel, here.build
    lines = [f"in {describe_kernel(build, kernel)}"]
    if args is None:
        lines.append(
            "the kernel's pointer arguments are not readable here: no debug "
            "variables (a release build, or a stripped one: load its debug file "
            "with cuvil symbols, or compile with debug=True)"
        )
        return "\n".join(lines)
    entry = _entry_pointers(adapter, here)
    arena_bytes = build.manifest.get("arena_bytes", 0)
    problems = _check_pointers(
        adapter, kernel.info.get("args", []), args, entry.get("arena"), arena_bytes
    )
    lines += problems or ["every pointer is where its slot says and readable"]
    return "\n".join(lines)


def _check_pointers(
    adapter: Adapter,
    infos: list[dict],
    args: list[int],
    arena: int | None,
    arena_bytes: int,
) -> list[str]:
    out, counters = [], {"out": 0, "in": 0, "extra": 0}
    bases = {
        p - a["slot"]["index"]
        for a, p in zip(infos, args)
        if a.get("slot", {}).get("kind") == "arena"
    }
    if arena is None and len(bases) == 1:
        arena = bases.pop()
    if arena == 0 and any(a.get("slot", {}).get("kind") == "arena" for a in infos):
        out.append(
            f"arena is NULL: cuvil_main was called without its {arena_bytes}-byte work buffer"
        )
    for a, p in zip(infos, args):
        role = a.get("role", "arg")
        n = counters.get(role, 0)
        counters[role] = n + 1
        what = f"{'output' if role == 'out' else 'input' if role == 'in' else 'extra'} {n} ({a.get('value', 'scratch')})"
        out += _check_one(adapter, a, p, what, arena, arena_bytes)
    return out


def _check_one(
    adapter: Adapter, a: dict, p: int, what: str, arena: int | None, arena_bytes: int
) -> list[str]:
    slot = a.get("slot", {})
    size = TensorView.of(a).nbytes if "shape" in a else 1
    if slot.get("kind") == "arena" and arena == 0:
        return [f"{what} points into a NULL arena ({p:#x})"]
    if p == 0:
        return [f"{what} is NULL"]
    if slot.get("kind") == "arena" and arena:
        if not (arena <= p and p + size <= arena + arena_bytes):
            return [
                f"{what} points outside the arena ({p:#x}; arena {arena:#x}+{arena_bytes})"
            ]
        if p != arena + slot["index"]:
            return [
                f"{what} points at arena+{p - arena}, its slot is arena+{slot['index']}"
            ]
    try:
        adapter.read(p, 1)
        adapter.read(p + size - 1, 1)
    except Exception:
        return [f"{what} at {p:#x} is not readable memory ({size} bytes)"]
    return []
