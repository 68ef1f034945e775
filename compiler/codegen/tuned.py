"""Measured plans: the per-host table the autotuner (runtime/tune.py) writes and the
planners (gemm_plan.py, conv_plan.py) read before falling back to their cache model.

One JSON file per kind of host (``host.HostInfo.signature``: cpu, features, cache sizes)
in ``$CUVIL_CACHE_DIR/plans/`` (default ``~/.cache/cuvil/plans/``, the object cache's
folder), so a cache folder shared by different machines never hands one machine's plan
to another. ``{"conv": {shape key: params}, "gemm": {...}}``; params are the plan's
fields beyond the shape. ``CUVIL_PLANS=0`` ignores the table (the model's plans only).
A file that cannot be read or parsed counts as empty: a measured plan is only ever a
speed hint, never needed for a correct build.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from .host import host_info

__all__ = ["lookup", "record", "plans_path", "enabled"]

INFO = ("gflops",)  # recorded for people, not plan fields
_lock = threading.RLock()  # record() reads the table while holding it
_memo: dict[str, tuple[float, dict]] = {}


def enabled() -> bool:
    return os.environ.get("CUVIL_PLANS", "1") != "0"


def plans_path() -> Path:
    if os.environ.get("CUVIL_CACHE_DIR"):
        base = Path(os.environ["CUVIL_CACHE_DIR"])
    else:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache"
        )
        base = Path(home) / "cuvil"
    return base / "plans" / f"{host_info().signature}.json"


def _table(path: Path) -> dict:
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    with _lock:
        cached = _memo.get(str(path))
        if cached and cached[0] == mtime:
            return cached[1]
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    table = table if isinstance(table, dict) else {}
    with _lock:
        _memo[str(path)] = (mtime, table)
    return table


def lookup(kind: str, key: str) -> dict | None:
    """The measured params of (`kind`, `key`), or None."""
    if not enabled():
        return None
    entry = _table(plans_path()).get(kind, {}).get(key)
    if not isinstance(entry, dict):
        return None
    return {k: v for k, v in entry.items() if k not in INFO}


def record(kind: str, key: str, params: dict) -> Path:
    """Add one measured plan (the file is replaced atomically)."""
    path = plans_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock:
        table = dict(_table(path))
        table.setdefault(kind, {})[key] = params
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(table, indent=1, sort_keys=True))
        os.replace(tmp, path)
        _memo.pop(str(path), None)
    return path
