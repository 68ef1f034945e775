"""The pass timeline screen (`p`) under Textual's Pilot (120x40) on resnet18 -O3 (one
shared lowering, conftest.py) and on a .cuvilir file shown as written (no history)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from cuvil.ir import parse_file
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView
from cuvil_debug.tui.diffview import DiffView
from cuvil_debug.tui.passes import NO_HISTORY, PassesScreen
from cuvil_debug.tui.passlist import PassList

ROOT = Path(__file__).resolve().parents[3]
FUSE = 5  # fuse-epilogue's index in -O3


def _drive(target, script):
    module, base, history = target

    async def go():
        app = CuvilTUI(ModuleView(module, base), history=history)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            return await script(app, pilot)

    return asyncio.run(go())


def _kernel(app, node: str):
    return next(i for i in app.view.main.ops if node in i.fx_nodes)


async def _open(app, pilot, node: str | None = "layer1_0_relu") -> PassesScreen:
    if node is not None:
        app.select(_kernel(app, node))
    await pilot.press("p")
    await pilot.pause()
    assert isinstance(app.screen, PassesScreen)
    return app.screen


def _head(screen) -> str:
    return str(screen.query_one("#pass-head").content)


def _fate(screen) -> str:
    return str(screen.query_one("#fate").content)


def test_stepping_through_the_passes_reaches_the_fusion_of_the_relu(resnet18_target):
    async def script(app, pilot):
        screen = await _open(app, pilot)
        assert _head(screen).startswith("pass 1/9 dce: unchanged")
        assert "kept: %layer1_0_conv1 = cuvil.conv2d" in _fate(screen)
        for _ in range(FUSE):
            await pilot.press("right_square_bracket")
        await pilot.pause()
        assert _head(screen).startswith("pass 6/9 fuse-epilogue: changed, 17 action(s)")
        fate = _fate(screen)
        assert "%layer1_0_relu = cuvil.fused: fused into %layer1_0_relu" in fate
        assert fate.splitlines()[1] == (
            "members of @fused_1: %layer1_0_bn1 = cuvil.conv2d, "
            "%layer1_0_relu = cuvil.relu"
        )
        diff = screen.query_one(DiffView)
        marked = [diff.plain(k) for k in sorted(diff.marked)]
        shown = [" ".join(t.split()[:4]) for t in marked]
        assert "+ %layer1_0_relu = cuvil.fused(%maxpool," in shown  # the kernel
        assert "- %layer1_0_relu = cuvil.relu(%layer1_0_bn1)" in shown  # the old relu
        assert (
            shown.count("+ %layer1_0_relu = cuvil.relu(%layer1_0_bn1)") == 1
        )  # member
        assert diff.plain(diff.cursor) == marked[0]
        rows = screen.query_one(PassList)
        assert rows.highlighted == FUSE and rows.row(FUSE).endswith("fused")
        assert rows.row(3).endswith("folded")  # fold-bn folded the batch norm
        await pilot.press("left_curly_bracket")  # back to the last pass touching it
        await pilot.pause()
        assert screen.index == 4 and "rewritten" in _fate(screen)  # layout-nhwc
        await pilot.press("left_curly_bracket", "left_curly_bracket")
        await pilot.pause()
        assert screen.index == 3  # fold-bn, and no pass before it touched the op
        await pilot.press("right_curly_bracket", "right_curly_bracket")
        await pilot.pause()
        assert screen.index == FUSE

    _drive(resnet18_target, script)


def test_brackets_step_and_stop_at_the_ends_other_keys_do_nothing(resnet18_target):
    async def script(app, pilot):
        screen = await _open(app, pilot)
        before = app.selected
        await pilot.press("left_square_bracket")
        assert screen.index == 0
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert screen.index == 1 and screen.query_one(PassList).highlighted == 1
        await pilot.press("down")  # the list has the focus: down shows the next pass
        await pilot.pause()
        assert screen.index == 2 and "fold-constants" in _head(screen)
        for _ in range(7):  # 6 to the last pass, one more stays there
            await pilot.press("right_square_bracket")
        await pilot.pause()
        assert screen.index == 8 and "memory-hints" in _head(screen)
        await pilot.press("g", "u", "slash", "p")  # main-screen keys: inert here
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")  # nothing followed: the selection stays
        await pilot.pause()
        assert not isinstance(app.screen, PassesScreen) and app.selected is before

    _drive(resnet18_target, script)


def test_s_toggles_side_by_side_and_l_shows_locations(resnet18_target):
    async def script(app, pilot):
        screen = await _open(app, pilot)
        screen.action_step(3)  # fold-bn
        diff = screen.query_one(DiffView)
        assert not diff.side and any(r.kind == "-" for r in diff.rows)
        await pilot.press("s")
        await pilot.pause()
        assert diff.side and diff.border_title == "fold-bn: side by side"
        paired = [k for k, r in enumerate(diff.rows) if r.kind == "~"]
        assert paired and "\t" in diff.plain(paired[0])
        assert any(k in diff.marked for k in paired)
        await pilot.press("s")
        await pilot.pause()
        assert not diff.side and diff.border_title == "fold-bn: unified"
        first = min(diff.marked)
        assert " loc(" not in diff.plain(first)
        await pilot.press("l")
        await pilot.pause()
        assert 'loc("layer1_0_conv1"' in diff.plain(first)

    _drive(resnet18_target, script)


def test_enter_follows_a_snapshot_op_and_escape_selects_it(resnet18_target):
    async def script(app, pilot):
        screen = await _open(app, pilot, "fc")
        screen.action_step(3)  # fold-bn: the batch norm of layer2.0's first conv goes
        diff = screen.query_one(DiffView)
        bn = next(
            k
            for k, r in enumerate(diff.rows)
            if r.text.split()[1:4]
            == ["%layer2_0_bn1", "=", "cuvil.batch_norm(%layer2_0_conv1,"]
        )
        diff.cursor = bn - 1
        await pilot.press("tab", "down", "enter")
        await pilot.pause()
        assert screen.label == "%layer2_0_bn1 = cuvil.batch_norm"
        assert "folded into %layer2_0_bn1 = cuvil.conv2d" in _fate(screen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PassesScreen)
        assert "layer2_0_bn1" in app.selected.fx_nodes
        assert app.selected.func == "forward" and app.selected.name == "cuvil.fused"

    _drive(resnet18_target, script)


def test_a_cuvilir_shown_as_written_has_no_timeline_and_says_how():
    path = ROOT / "samples/ir/small_cnn.cuvilir"
    target = (parse_file(path), path.parent, None)

    async def script(app, pilot):
        screen = await _open(app, pilot, None)
        assert _head(screen) == NO_HISTORY and "-O3" in NO_HISTORY
        assert screen.query_one(PassList).option_count == 0
        await pilot.press("right_square_bracket", "s", "enter", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, PassesScreen)

    _drive(target, script)
