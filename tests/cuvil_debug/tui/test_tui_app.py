"""`cuvil-debug tui` under Textual's Pilot (headless, 80x24) on the sample IR files."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuvil.ir import parse_file
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView
from cuvil_debug.tui.headless import run_headless
from cuvil_debug.tui.help import HelpScreen
from cuvil_debug.tui.inspector import Inspector
from cuvil_debug.tui.irview import IRView
from cuvil_debug.tui.keymap import KEYMAP
from cuvil_debug.tui.outline import Outline
from cuvil_debug.tui.source import SourcePane

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "samples" / "ir"


def _view(name: str) -> ModuleView:
    path = SAMPLES / f"{name}.cuvilir"
    return ModuleView(parse_file(path), path.parent)


def _drive(name: str, script, size=(80, 24)):
    """Run `script(app, pilot)` (a coroutine function) in the app on sample `name`."""

    return run_headless(CuvilTUI(_view(name)), script, size)


def _op(app: CuvilTUI, result: str):
    return next(i for i in app.view.ops if result in i.results)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_every_pane_is_on_screen(size):
    async def script(app, pilot):
        for cls in (Outline, IRView, Inspector, SourcePane):
            region = app.query_one(cls).region
            assert region.width >= 10 and region.height >= 3, (cls, region)
        assert app.selected is app.view.main.ops[0]

    _drive("small_cnn", script, size)


def test_moving_the_selection_shows_source_and_details():
    async def script(app, pilot):
        await pilot.press("down", "down", "down", "down", "down", "down")
        await pilot.pause()
        info = app.selected
        assert info.results == ("%block1_bn",)
        source = app.query_one(SourcePane)
        assert source.file == "samples/models/small_cnn.py" and source.line == 16
        assert "self.bn(self.conv(x))" in source.marked_text
        text = app.query_one(Inspector).text()
        assert "op: cuvil.batch_norm" in text
        assert "result: %block1_bn: tensor<1x16x32x32xf32>" in text
        assert "attr: eps = 1e-05" in text
        assert "fx node: block1_bn" in text
        assert "module 'block1.bn'" in text
        assert "loc(" not in app.query_one(IRView).line(6).plain

    _drive("small_cnn", script)


def test_g_goes_to_the_definition_of_the_first_operand():
    async def script(app, pilot):
        app.select(_op(app, "%block1_relu"))
        await pilot.press("g")
        await pilot.pause()
        assert app.selected.results == ("%block1_bn",)
        assert app.query_one(IRView).selected is app.selected
        await pilot.press("g")
        await pilot.pause()
        assert app.selected.results == ("%block1_conv",)

    _drive("small_cnn", script)


def test_u_cycles_through_the_uses():
    async def script(app, pilot):
        start = _op(app, "%maxpool")  # resnet18: layer1.0 conv1 and the shortcut add
        expected = [i.results[0] for i in app.view.uses(start)]
        assert len(expected) == 2
        app.select(start)
        seen = []
        for _ in range(3):
            await pilot.press("u")
            await pilot.pause()
            seen.append(app.selected.results[0])
        assert seen == [*expected, expected[0]]
        assert all(start.results[0] in i.operands for i in app.view.uses(start))

    _drive("resnet18", script)


def test_search_jumps_to_an_fx_node():
    async def script(app, pilot):
        await pilot.press("slash", *"layer3_1_conv2", "enter")
        await pilot.pause()
        assert "layer3_1_conv2" in app.selected.fx_nodes
        assert app.query_one(SourcePane).line == app.selected.source.line
        assert app.focused is app.query_one(IRView)

    _drive("resnet18", script)


def test_question_mark_shows_the_keymap():
    async def script(app, pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#keymap").content
        shown = [cell for cell in table.columns[0]._cells]
        assert shown == [k.shown for k in KEYMAP]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running

    _drive("small_cnn", script)


def test_outline_groups_ops_by_source_line():
    async def script(app, pilot):
        outline = app.query_one(Outline)
        forward = outline.root.children[0]
        labels = [str(n.label) for n in forward.children]
        assert labels[0] == "small_cnn.py:16 · 18"
        await pilot.press("l")
        await pilot.pause()
        prompt = app.query_one(IRView).line(0).plain
        assert 'loc("block1_conv"' in prompt

    _drive("small_cnn", script)
