"""The tree's shape as rules that fail: imports follow the data flow, files stay small.

The data flow is frontend -> ir -> passes -> codegen -> runtime (docs/ARCHITECTURE.md);
an import may only point down it. The rules read the source (tests/layering.py), so a
function-local import counts as much as one at the top of a file.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from layering import imports, violations

ROOT = Path(__file__).resolve().parents[2]

# floor -> the floors it may import (its own always). Floors not named here (the
# driver `pipeline`, `backend`, `opt`, `__init__`) sit on top and may import any.
# `version` is the one module below everything: every floor may read it.
# `errors`, `hooks` (the seams) and `options` (the option types and their domains) are
# leaves every stage may read.
LEAVES = {"errors", "hooks", "options"}
COMPILER_RULES: dict[str, set[str]] = {
    "version": set(),
    "errors": set(),
    "hooks": set(),
    "options": {"errors"},
    "ir": {"errors"},
    "frontend": {"ir"} | LEAVES,
    "passes": {"ir"} | LEAVES,
    "codegen": {"ir"} | LEAVES,
    "runtime": {"ir", "codegen"} | LEAVES,
}

MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 60


def _check(root: Path) -> list[str]:
    rules = {floor: allowed | {"version"} for floor, allowed in COMPILER_RULES.items()}
    return violations(imports(root, "cuvil"), "cuvil", rules, {"cuvil_debug"})


def test_compiler_imports_follow_the_data_flow():
    assert _check(ROOT / "compiler") == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "compiler"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


CLEAN = {
    "__init__.py": "from .pipeline import compile\n",
    "errors.py": "class CuvilError(Exception): ...\n",
    "ir/__init__.py": "from .core import Module\n",
    "ir/core.py": "from ..errors import CuvilError\n",
    "passes/dce.py": "from ..ir.core import Module\n",
    "codegen/gen.py": "from cuvil.ir import Module\n",
    "runtime/jit.py": "from ..codegen import gen\n",
    "pipeline.py": "from .runtime.jit import run\nfrom .passes import dce\n",
}


def test_layering_check_passes_a_tree_that_follows_the_flow(tmp_path):
    assert _check(_tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize(
    "rel, text, expect",
    [
        # the IR reaching up into passes, inside a function
        (
            "ir/core.py",
            "def f():\n    from ..passes import dce\n",
            "ir/core.py:3 imports cuvil.passes",
        ),
        # a pass reading a codegen table (the old fuse_epilogue import)
        (
            "passes/dce.py",
            "from ..codegen.gen import TABLE\n",
            "passes/dce.py:2 imports cuvil.codegen.gen",
        ),
        # codegen calling into the runtime, absolute form
        ("codegen/gen.py", "import cuvil.runtime.jit\n", "imports cuvil.runtime.jit"),
        # the frontend skipping past the IR
        ("frontend/fx.py", "from .. import passes\n", "imports cuvil.passes"),
        # the compiler importing the toolkit
        ("pipeline.py", "import cuvil_debug.faults\n", "never imports cuvil_debug"),
    ],
)
def test_layering_check_fails_on_a_back_import(tmp_path, rel, text, expect):
    files = dict(CLEAN)
    files[rel] = files.get(rel, "") + text
    found = _check(_tree(tmp_path, files))
    assert len(found) == 1 and expect in found[0], found


def test_type_checking_imports_are_not_dependencies(tmp_path):
    files = dict(CLEAN)
    files["hooks.py"] = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .codegen.kernel import Kernel\n"
    )
    assert _check(_tree(tmp_path, files)) == []


def _production_files() -> list[Path]:
    return sorted(
        p for top in ("compiler", "cuvil_debug") for p in (ROOT / top).rglob("*.py")
    )


def test_no_production_file_is_over_the_size_limit():
    big = [
        f"{p.relative_to(ROOT)}: {n} lines"
        for p in _production_files()
        if (n := p.read_text().count("\n")) > MAX_FILE_LINES
    ]
    assert big == []


def test_no_production_function_is_over_the_size_limit():
    long = []
    for path in _production_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = node.end_lineno - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert long == []
