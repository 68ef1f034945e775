"""The quick checks of diff, bisect and reduce's node names, before any compile: a
``--inject`` fault or a ``--break-on`` naming no FX node of the model is a typo, one
error line (exit 2) with the closest name, not a failed stage after minutes of work.
"""

from __future__ import annotations

import contextlib
import difflib

from cuvil.errors import CuvilError

__all__ = [
    "check_faults",
    "check_break_on",
    "faults_injected",
    "node_names",
    "static_options",
]

_NAMES_HINT = '`cuvil-debug ir MODEL` shows the node names (loc("NODE" ...))'


def node_names(loaded, frontend: str = "fx") -> list[str] | None:
    """The FX node names of the model as the diff captures it (None: the capture
    fails, which the diff reports itself)."""
    from cuvil.frontend.export import export
    from cuvil.frontend.export_names import rename_like_fx
    from cuvil.frontend.fx import trace
    from cuvil.frontend.inplace import functionalize

    try:
        if frontend == "export":
            ep = export(loaded.model, loaded.inputs, None)
            graph = rename_like_fx(functionalize(ep)).graph
        else:
            graph = trace(loaded.model).graph
    except Exception:
        return None
    return [n.name for n in graph.nodes]


def _unknown(name: str, names: list[str], what: str) -> CuvilError:
    close = difflib.get_close_matches(name, names, n=1)
    return CuvilError(
        f"{what}: the model has no FX node '{name}'",
        hint=(f"did you mean '{close[0]}'? " if close else "") + _NAMES_HINT,
    )


def check_faults(loaded, specs: list[str], frontend: str = "fx") -> None:
    """Every ``--inject`` spec parses and names an FX node of the model."""
    if not specs:
        return
    from cuvil_debug import faults

    parsed = [faults.parse(s) for s in specs]
    names = node_names(loaded, frontend)
    if names is None:
        return
    for f in parsed:
        if f.node not in names:
            raise _unknown(f.node, names, f"--inject {f.spec}")


def check_break_on(loaded, targets, frontend: str = "fx") -> None:
    """Every ``--break-on`` names an FX node of the model or an op (``cuvil.*``)."""
    targets = [t for t in targets if not t.startswith("cuvil.")]
    if not targets:
        return
    names = node_names(loaded, frontend)
    if names is None:
        return
    for target in targets:
        if target not in names:
            raise _unknown(target, names, f"--break-on {target}")


@contextlib.contextmanager
def faults_injected(specs: list[str]):
    """The ``--inject`` faults active inside the block."""
    if not specs:
        yield
        return
    from cuvil_debug import faults

    with faults.inject(*[faults.parse(s) for s in specs]):
        yield


def static_options(options: dict | None) -> tuple[dict, dict]:
    """(`options` without cuvil.compile's dynamic-shape keys, those keys). A dynamic
    compile builds each input shape as a static model (docs/DYNAMIC.md), so bisect
    and reduce check the static build of the shapes they are given."""
    from cuvil.options import DYNAMIC_KEYS

    flat = dict(options or {})
    dynamic = {k: flat.pop(k) for k in DYNAMIC_KEYS if k in flat}
    return flat, dynamic
