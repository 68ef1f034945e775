"""Snapshot tests (pytest-textual-snapshot) of the TUI's main screens at 80x24 and
160x48. The accepted SVGs are in __snapshots__/; after a deliberate change to what a
screen shows, look at the new picture and accept it with
``pytest tests/cuvil_debug/tui/test_tui_snapshots.py --snapshot-update``.

Screenshots depend on Textual's version: the dev extra pins the one they were taken
with (pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuvil.ir import parse_file
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView

ROOT = Path(__file__).resolve().parents[3]
SIZES = {"80x24": (80, 24), "160x48": (160, 48)}


def _app(name: str = "small_cnn") -> CuvilTUI:
    path = ROOT / "samples" / "ir" / f"{name}.cuvilir"
    return CuvilTUI(ModuleView(parse_file(path), path.parent))


@pytest.fixture(autouse=True)
def _from_the_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # the source pane finds samples/models/*.py from here


@pytest.mark.parametrize("size", SIZES)
def test_main_screen(snap_compare, size):
    # the batch norm of block 1 selected: IR, inspector and source all show something
    assert snap_compare(_app(), press=["down"] * 6, terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_outline_by_module_with_a_bookmark(snap_compare, size):
    press = ["o", "down", "down", "b", "tab", "tab", "tab"]
    assert snap_compare(_app("resnet18"), press=press, terminal_size=SIZES[size])


def test_help_screen(snap_compare):
    assert snap_compare(_app(), press=["question_mark"], terminal_size=(80, 24))
