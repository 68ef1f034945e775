"""``cuvil symbols``: load a build's debug file from a symbol store or a debuginfod server.

The store is laid out as ``.build-id/xx/rest.debug`` (docs/DEBUGGING.md); a build is
looked up by its build-id (an AOT library's GNU build-id, a JIT object's debug-key note).
A debugger does not apply a search path to objects it already loaded (DEBUGGERS.md, trap
6), so this command finds each file and hands it to the debugger explicitly.
"""

from __future__ import annotations

import argparse
import os
import urllib.request
from pathlib import Path

from .adapter import Adapter, CommandError
from .builds import Build
from .elf import open_elf

__all__ = ["load_symbols", "store_path", "default_store"]


def default_store() -> str:
    return os.environ.get("CUVIL_SYMBOL_STORE") or str(
        Path.home() / ".cache" / "cuvil" / "symbols"
    )


def store_path(store: str, key: str) -> Path:
    return Path(store) / ".build-id" / key[:2] / f"{key[2:]}.debug"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise CommandError(
            f"symbols: {message} (usage: cuvil symbols [--store DIR] [--url URL])"
        )


def _fetch(url: str, key: str) -> Path | None:
    """GET URL/buildid/KEY/debuginfo into a local cache; None when the server has none."""
    cache = Path(default_store()) / ".debuginfod" / f"{key}.debug"
    if cache.is_file():
        return cache
    try:
        with urllib.request.urlopen(
            f"{url.rstrip('/')}/buildid/{key}/debuginfo", timeout=30
        ) as r:
            data = r.read()
    except OSError:
        return None
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(cache)
    return cache


def load_symbols(adapter: Adapter, builds: list[Build], args: list[str]) -> str:
    p = _Parser(prog="cuvil symbols", add_help=False)
    p.add_argument("--store", default=None)
    p.add_argument(
        "--url", default=os.environ.get("DEBUGINFOD_URLS", "").split(" ")[0] or None
    )
    opts = p.parse_args(args)
    if not builds:
        raise CommandError("no Cuvil code is loaded")
    store = opts.store or default_store()
    lines = []
    for build in builds:
        if not build.key:
            lines.append(f"{build.name}: no build-id, nothing to look up")
            continue
        path = store_path(store, build.key)
        if not path.is_file() and opts.url:
            path = _fetch(opts.url, build.key) or path
        if not path.is_file():
            lines.append(
                f"{build.name}: {build.key} is not in {store}"
                + (f" nor at {opts.url}" if opts.url else "")
            )
            continue
        try:
            with open_elf(path) as elf:
                found = elf.key
        except (ValueError, OSError):
            found = None
        if found != build.key:
            lines.append(
                f"{build.name}: {path} has build-id {found}, not {build.key}: not loaded"
            )
            continue
        sections = build.sections if build.image else {}
        lines.append(
            f"{build.name}: {adapter.add_symbols(str(path), sections, None if build.image else build.base)}"
        )
    return "\n".join(lines)
