"""The import graph of the source tree, and the floors Cuvil's imports must follow.

``imports(root)`` reads every ``.py`` file under a package folder with ``ast`` (no
import is executed) and returns one ``Edge`` per imported module, relative imports
resolved, function-local imports included. ``violations(edges, rules)`` checks the
edges against a rule table: ``{floor: allowed floors}``, where a module's floor is
the first folder (or module) under the package root (``ir``, ``passes`` ...).

Imports under ``if TYPE_CHECKING:`` are left out: they name a type for a reader and
create no dependency at run time (``hooks.py`` names codegen's ``Kernel`` that way).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Edge", "imports", "violations"]


@dataclass(frozen=True)
class Edge:
    """`source` (a file, relative to the package root) imports module `target`."""

    source: str
    line: int
    target: str  # dotted, e.g. "cuvil.codegen.fused"

    def __str__(self) -> str:
        return f"{self.source}:{self.line} imports {self.target}"


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(tree: ast.AST):
    """Every import node, skipping ``if TYPE_CHECKING:`` bodies."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (n for stmt in node.orelse for n in _walk_one(stmt))
            continue
        yield from _walk_one(node)


def _walk_one(node: ast.AST):
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    else:
        yield from _walk(node)


def _package_of(path: Path, root: Path, name: str) -> list[str]:
    """The package a file's relative imports start from (its folder)."""
    return [name, *path.relative_to(root).parent.parts]


def _targets(node: ast.Import | ast.ImportFrom, package: list[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = package[: len(package) - node.level + 1]
        head = ".".join(base + ([node.module] if node.module else []))
    else:
        head = node.module or ""
    if node.module is None:  # from . import a, b: each name may be a module
        return [f"{head}.{alias.name}" for alias in node.names]
    return [head]


def imports(root: Path, name: str) -> list[Edge]:
    """The import edges of the package in folder `root`, imported as `name`."""
    edges = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        package = _package_of(path, root, name)
        rel = str(path.relative_to(root))
        for node in _walk(tree):
            for target in _targets(node, package):
                edges.append(Edge(rel, node.lineno, target))
    return edges


def floor_of(source: str) -> str:
    """``passes/fuse_epilogue.py`` -> ``passes``; ``pipeline.py`` -> ``pipeline``."""
    head = source.split("/", 1)[0]
    return head.removesuffix(".py")


def violations(
    edges: list[Edge], name: str, rules: dict[str, set[str]], forbidden: set[str]
) -> list[str]:
    """Edges that break the rules, one line each.

    `rules` maps a floor to the floors of `name` it may import (its own is always
    allowed; a floor missing from `rules` may import any floor of `name`);
    `forbidden` holds top-level packages no module of `name` may import."""
    found = []
    for edge in edges:
        top, _, rest = edge.target.partition(".")
        if top in forbidden:
            found.append(f"{edge} (the package never imports {top})")
            continue
        if top != name or not rest:
            continue
        src, dst = floor_of(edge.source), rest.split(".", 1)[0]
        allowed = rules.get(src)
        if allowed is not None and dst != src and dst not in allowed:
            found.append(f"{edge} ({src} may import only {sorted(allowed)})")
    return found
