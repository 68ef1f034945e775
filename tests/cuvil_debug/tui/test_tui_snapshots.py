"""Snapshot tests (pytest-textual-snapshot) of the TUI's main screens at 80x24 and
160x48. The accepted SVGs are in __snapshots__/; after a deliberate change to what a
screen shows, look at the new picture and accept it with
``pytest tests/cuvil_debug/tui/test_tui_snapshots.py --snapshot-update``.

Screenshots depend on Textual's version: the dev extra pins the one they were taken
with (pyproject.toml)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from cuvil.ir import parse_file
from cuvil_debug.cli import build_parser, main
from cuvil_debug.tui import difftarget
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.command import load_target, load_with_history
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


@pytest.fixture(scope="module")
def report_path(tmp_path_factory):
    """A real diff of small_cnn with a pass fault at block2_relu (introduced in opt)."""
    path = tmp_path_factory.mktemp("snap") / "diff.json"
    model = str(ROOT / "samples/models/small_cnn.py")
    argv = ["diff", model, "--inject", "pass:block2_relu", "--stages", "ir,opt"]
    assert main([*argv, "--format", "json", "-o", str(path)]) == 1
    return path


@pytest.mark.parametrize("size", SIZES)
def test_diff_overlay_at_the_first_divergence(snap_compare, report_path, size):
    args = build_parser().parse_args(["tui", str(report_path)])
    report = difftarget.load_report(args)
    app = difftarget.build_app(*load_target(args), report)
    assert json.loads(report_path.read_text())["first"]["node"] == "block2_relu"
    assert snap_compare(app, press=["n"], terminal_size=SIZES[size])


def _timeline_app() -> CuvilTUI:
    path = str(ROOT / "samples/ir/small_cnn.cuvilir")
    module, base, history = load_with_history(
        build_parser().parse_args(["tui", path, "-O3"])
    )
    # pass times vary from run to run: the picture shows them as 0
    history.steps[:] = [
        dataclasses.replace(st, info=dataclasses.replace(st.info, seconds=0.0))
        for st in history.steps
    ]
    return CuvilTUI(ModuleView(module, base), history=history)


@pytest.mark.parametrize("size", SIZES)
def test_pass_timeline_at_a_rewrite(snap_compare, size):
    # the relu of block 1, followed to layout-nhwc, which rewrites it (a .cuvilir file
    # has no weights, so fold-bn and the fusions that need it do nothing here)
    press = ["slash", *"block1_relu", "enter", "p", *["right_square_bracket"] * 4]
    assert snap_compare(_timeline_app(), press=press, terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_memory_view(snap_compare, size):
    path = ROOT / "samples/ir/small_cnn.cuvilir"
    module, base = load_target(build_parser().parse_args(["tui", str(path), "-O3"]))
    app = CuvilTUI(ModuleView(module, base))
    assert snap_compare(app, press=["down", "down", "m"], terminal_size=SIZES[size])
