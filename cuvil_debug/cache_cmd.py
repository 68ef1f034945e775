"""`cuvil-debug cache stats|verify|clear|gc`: the compile cache, both of its levels.

    cuvil-debug cache stats [--format json] [--zero]   counters, size, entries by last use
    cuvil-debug cache verify                           re-check every entry, remove bad ones
    cuvil-debug cache clear                            remove every entry (nothing else)
    cuvil-debug cache gc [--max SIZE]                  evict least recently used to SIZE

Every command takes ``--cache-dir DIR`` (default ``$CUVIL_CACHE_DIR``, else
``~/.cache/cuvil``). The counters live in the cache (compiler/runtime/cachestats.py),
so they add up every process's compiles; docs/OPERATIONS.md "Compile cache".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from cuvil.args import EXIT_OK
from cuvil.argtypes import byte_size, folder_path
from cuvil.errors import CuvilError
from cuvil.runtime import cachemaint, cachestats, objcache

__all__ = ["add_parser"]

WHAT = {
    "ir": "Cuvil IR fingerprint (a hit skips LLVM IR generation and LLVM)",
    "object": "LLVM object code (a hit skips LLVM's optimization and codegen)",
}


def add_parser(commands) -> None:
    """Register `cache` and its subcommands."""
    p = commands.add_parser(
        "cache",
        help="the compile cache: stats, verify, clear, gc",
        description="Inspect and maintain Cuvil's compile cache (CUVIL_CACHE_DIR): "
        "its IR-fingerprint and object-code levels.",
    )
    p.set_defaults(run=lambda args: _help(p))
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    stats = _command(sub, "stats", "print hits, misses, size and entries", _cmd_stats)
    stats.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format"
    )
    stats.add_argument(
        "--zero", action="store_true", help="zero the counters after printing them"
    )
    _command(sub, "verify", "re-check every entry and remove bad ones", _cmd_verify)
    _command(sub, "clear", "remove every cache entry", _cmd_clear)
    gc = _command(sub, "gc", "evict least recently used entries to a size", _cmd_gc)
    gc.add_argument(
        "--max",
        type=byte_size,
        metavar="SIZE",
        help=f"the size to fit in (4096, 64K, 500M, 2G; default ${cachemaint.MAX_ENV})",
    )


def _command(sub, name: str, help: str, run) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")
    p.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=folder_path,
        help="the cache (default: $CUVIL_CACHE_DIR, else ~/.cache/cuvil)",
    )
    p.set_defaults(run=run)
    return p


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _root(args: argparse.Namespace) -> Path:
    return Path(args.cache_dir) if args.cache_dir else objcache.cache_dir()


def _size(n: int | None) -> str:
    if n is None:
        return "no limit"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _report(root: Path) -> dict:
    found = cachemaint.entries(root)  # a CuvilError if the cache cannot be read
    counts = cachestats.read(root)
    levels = {}
    for level, c in counts["levels"].items():
        lookups = c["hits"] + c["misses"]
        rate = c["hits"] / lookups if lookups else None
        levels[level] = {**c, "lookups": lookups, "hit_rate": rate}
    limit = _limit()
    return {
        "cache_dir": str(root),
        "updated": counts["updated"],
        "levels": levels,
        "entries": len(found),
        "bytes": sum(e.bytes for e in found),
        "max_bytes": limit,
        "entry_list": [
            {"key": e.key, "level": e.level, "bytes": e.bytes, "last_use": e.last_use}
            for e in reversed(found)  # most recently used first
        ],
    }


def _limit() -> int | None:
    text = os.environ.get(cachemaint.MAX_ENV, "").strip()
    if not text:
        return None
    size = cachemaint.parse_size(text)
    if size is None:
        raise CuvilError(
            f"{cachemaint.MAX_ENV}={text!r} is not a size",
            hint="use bytes or K, M, G (powers of 1024): 500M, 2G",
        )
    return size


def _cmd_stats(args: argparse.Namespace) -> int:
    root = _root(args)
    report = _report(root)
    if args.format == "json":
        print(json.dumps(report, indent=2))
    else:
        print(_text(report))
    if args.zero:
        cachestats.zero(root)
    return EXIT_OK


def _when(stamp: float | None) -> str:
    if stamp is None:
        return "never"
    text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))
    return f"{text} ({cachemaint.age(stamp)} ago)"


def _text(r: dict) -> str:
    lines = [
        f"{'Cache directory':<20}{r['cache_dir']}",
        f"{'Stats updated':<20}{_when(r['updated'])}",
    ]
    for level, c in r["levels"].items():
        rate = "-" if c["hit_rate"] is None else f"{100 * c['hit_rate']:.2f} %"
        lines += [
            f"Level {level:<14}{WHAT.get(level, '')}",
            f"  {'Hits':<18}{c['hits']:>8} / {c['lookups']:<8} ({rate})",
            f"  {'Misses':<18}{c['misses']:>8}",
            f"  {'Corrupt evicted':<18}{c['corrupt_evicted']:>8}",
            f"  {'Stores':<18}{c['stores']:>8}",
            f"  {'GC evicted':<18}{c['gc_evicted']:>8}",
        ]
    lines += [
        f"{'Entries':<20}{r['entries']}",
        f"{'Size':<20}{_size(r['bytes'])} / {_size(r['max_bytes'])}",
    ]
    if r["entry_list"]:
        lines.append(f"\n{'key':<18}{'level':<8}{'size':>12}  last use")
        for e in r["entry_list"]:
            lines.append(
                f"{e['key'][:16]:<18}{e['level']:<8}{_size(e['bytes']):>12}  "
                f"{_when(e['last_use'])}"
            )
    return "\n".join(lines)


def _cmd_verify(args: argparse.Namespace) -> int:
    checked, removed = cachemaint.verify(_root(args))
    for path, problem in removed:
        print(f"removed {path}: {problem}")
    print(
        f"verified {checked} entries: {checked - len(removed)} sound, "
        f"{len(removed)} removed"
    )
    return EXIT_OK


def _cmd_clear(args: argparse.Namespace) -> int:
    root = _root(args)
    count, size = cachemaint.clear(root)
    print(f"removed {count} entries ({_size(size)}) from {root}")
    return EXIT_OK


def _cmd_gc(args: argparse.Namespace) -> int:
    root = _root(args)
    limit = args.max if args.max is not None else _limit()
    if limit is None:
        raise CuvilError(
            f"no size to collect to: pass --max SIZE or set {cachemaint.MAX_ENV}",
            hint="a size is bytes or K, M, G (powers of 1024): 500M, 2G",
        )
    removed = cachemaint.gc(root, limit)
    for e in removed:
        print(f"evicted {e.key[:16]} ({_size(e.bytes)}, last used {_when(e.last_use)})")
    left = cachemaint.entries(root)
    total = sum(e.bytes for e in left)
    print(
        f"evicted {len(removed)} entries; {len(left)} left, {_size(total)} "
        f"of {_size(limit)}"
    )
    return EXIT_OK
