"""`cuvil-debug symbols add|list|find|gc|serve`: the symbol store (cuvil.runtime.symbols).

    cuvil-debug symbols add PATH...        a bundle (cuvil.save), a .so, a .debug file
                                           or a JIT object, filed by its build-id
    cuvil-debug symbols list               key, kind, name, size, date of every entry
    cuvil-debug symbols find KEY           the debug file's path (exit 1: not there)
    cuvil-debug symbols gc [--keep N] [--older-than DAYS] [--max-size MB]
    cuvil-debug symbols serve [--port 0]   debuginfod on 127.0.0.1 (first line: URL)

Every command takes ``--store DIR`` (default ``$CUVIL_SYMBOL_STORE``, else
``~/.cache/cuvil/symbols``). GDB reads the store with ``-iex 'set debug-file-directory
DIR'``, LLDB with ``-O 'settings set target.debug-file-search-paths DIR'``; both fetch
from ``serve`` with ``DEBUGINFOD_URLS=URL`` (GDB: ``set debuginfod enabled on``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from cuvil.args import EXIT_OK
from cuvil.argtypes import folder_path
from cuvil.errors import CuvilError
from cuvil.runtime.aot import METADATA, bundle_files
from cuvil.runtime.elfinfo import open_elf
from cuvil.runtime.symbols import Entry, SymbolStore, default_store, file_key

__all__ = ["add_parser", "add_paths"]

EXIT_ABSENT = 1  # find: the store has no such key


def add_parser(commands) -> None:
    """Register `symbols` and its subcommands."""
    p = commands.add_parser(
        "symbols",
        help="the symbol store: debug files of builds by build-id",
        description="Keep debug files of Cuvil builds (AOT libraries, JIT objects) in "
        "a store keyed by build-id (= debug key), laid out as DIR/.build-id/xx/"
        "rest.debug for GDB's debug-file-directory and LLDB's "
        "target.debug-file-search-paths; serve it over debuginfod.",
    )
    p.set_defaults(run=lambda args: _help(p))
    sub = p.add_subparsers(title="commands", metavar="COMMAND")
    add = _command(sub, "add", "file builds in the store", _cmd_add)
    add.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a saved bundle (directory), a shared library, a .debug file or a JIT "
        "object",
    )
    ls = _command(sub, "list", "list the store's entries", _cmd_list)
    ls.add_argument("--json", action="store_true", help="one JSON object per line")
    find = _command(sub, "find", "print the debug file of KEY", _cmd_find)
    find.add_argument("key", metavar="KEY", help="a debug key (build-id)")
    find.add_argument(
        "--executable", action="store_true", help="the library, not the debug file"
    )
    gc = _command(sub, "gc", "remove old or broken entries", _cmd_gc)
    gc.add_argument("--keep", type=_count, metavar="N", help="keep the N newest")
    gc.add_argument(
        "--older-than", type=_number, metavar="DAYS", help="remove older entries"
    )
    gc.add_argument(
        "--max-size", type=_number, metavar="MB", help="remove the oldest until it fits"
    )
    serve = _command(sub, "serve", "serve the store over debuginfod", _cmd_serve)
    serve.add_argument(
        "--port", type=_count, default=0, help="TCP port on 127.0.0.1 (0: any free)"
    )


def _command(sub, name: str, help: str, run) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".")
    p.add_argument(
        "--store",
        metavar="DIR",
        type=_store_dir,
        help="the store (default: $CUVIL_SYMBOL_STORE, else ~/.cache/cuvil/symbols)",
    )
    p.set_defaults(run=run)
    return p


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _store_dir(text: str) -> Path:
    return Path(folder_path(text))


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= 0")
    return int(text)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number >= 0")
    return value


def _store(args: argparse.Namespace) -> SymbolStore:
    return SymbolStore(args.store or default_store())


# ---- add -------------------------------------------------------------------------------
def add_paths(store: SymbolStore, paths: list[Path]) -> list[Entry]:
    """File each path (a bundle directory or an ELF file); CuvilError on a path that
    is neither, or has no build-id. Every path is checked before anything is written."""
    plans = [_plan(Path(p)) for p in paths]
    return [store.put(**plan) for plan in plans]


def _plan(path: Path) -> dict:
    """What `store.put` gets for one path."""
    if path.is_dir():
        if not (path / METADATA).is_file():
            raise CuvilError(
                f"{path} is a directory but not a saved model (no {METADATA})",
                hint="pass a bundle written by cuvil.save, or an ELF file",
            )
        _meta, library, debug = bundle_files(path)
        return {
            "debug": debug or library,
            "executable": library if debug else None,
            "name": path.resolve().name,
            "source": str(path),
        }
    if not path.is_file():
        raise CuvilError(f"{path}: no such file or directory")
    try:
        with open_elf(path) as elf:
            file_key(elf, str(path))  # refuses a file without a build-id
            executable = elf.type != "rel" and elf.has_code() and not elf.has_dwarf()
    except ValueError as e:
        raise CuvilError(f"{path}: {e}", hint="pass an ELF file or a bundle") from None
    except OSError as e:
        raise CuvilError(f"cannot read {path}: {e.strerror}") from None
    role = "executable" if executable else "debug"
    return {role: path, "source": str(path)}


def _cmd_add(args: argparse.Namespace) -> int:
    store = _store(args)
    for entry in add_paths(store, args.paths):
        files = ", ".join(
            f"{what} {p}"
            for what, p in (("debug", entry.debug), ("library", entry.executable))
            if p is not None
        )
        print(f"{entry.key}  {entry.kind}  {entry.name}  {_size(entry.size)}  {files}")
    return EXIT_OK


# ---- list, find, gc --------------------------------------------------------------------
def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _date(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _row(e: Entry) -> str:
    state = "" if e.valid else "  BROKEN (build-id does not match; gc removes it)"
    return f"{e.key}  {e.kind:<4} {e.name:<20} {_size(e.size):>10}  {_date(e.added)}{state}"


def _cmd_list(args: argparse.Namespace) -> int:
    entries = _store(args).entries()
    for e in entries:
        if args.json:
            doc = {
                "key": e.key,
                "kind": e.kind,
                "name": e.name,
                "size": e.size,
                "added": e.added,
                "debug": str(e.debug) if e.debug else None,
                "executable": str(e.executable) if e.executable else None,
                "source": e.source,
                "valid": e.valid,
            }
            print(json.dumps(doc))
        else:
            print(_row(e))
    if not entries and not args.json:
        print(f"(the store {_store(args).root} is empty)", file=sys.stderr)
    return EXIT_OK


def _cmd_find(args: argparse.Namespace) -> int:
    store = _store(args)
    found = store.find_executable(args.key) if args.executable else store.find(args.key)
    if found is None:
        print(f"{args.key}: not in the store {store.root}", file=sys.stderr)
        return EXIT_ABSENT
    print(found)
    return EXIT_OK


def _cmd_gc(args: argparse.Namespace) -> int:
    store = _store(args)
    max_bytes = None if args.max_size is None else int(args.max_size * 1024 * 1024)
    older = None if args.older_than is None else args.older_than * 86400
    removed = store.gc(keep=args.keep, older_than=older, max_bytes=max_bytes)
    for e in removed:
        print(f"removed {_row(e)}")
    left = store.entries()
    print(
        f"{len(removed)} removed, {len(left)} left ({_size(sum(e.size for e in left))})"
    )
    return EXIT_OK


# ---- serve -----------------------------------------------------------------------------
def _cmd_serve(args: argparse.Namespace) -> int:
    from .debuginfod import serve

    return serve(_store(args), args.port)
