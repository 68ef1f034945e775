"""The memory screen (key m) and the inspector's native rows under Textual's Pilot
(120x40), on the sample IR at -O3 (resnet18: in-place reuse, more kernels than fit)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cuvil_debug.cli import build_parser
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.command import load_target
from cuvil_debug.tui.data import ModuleView
from cuvil_debug.tui.inspector import Inspector
from cuvil_debug.tui.irview import IRView
from cuvil_debug.tui.memdata import memory_model, planned
from cuvil_debug.tui.memory import HEADER, LABEL, MemoryChart, MemoryScreen

ROOT = Path(__file__).resolve().parents[3]


def _view(*argv: str) -> ModuleView:
    module, base = load_target(build_parser().parse_args(["tui", *argv]))
    return ModuleView(module, base)


@pytest.fixture(scope="module")
def cnn() -> ModuleView:
    return _view(str(ROOT / "samples/ir/small_cnn.cuvilir"), "-O3")


@pytest.fixture(scope="module")
def resnet() -> ModuleView:
    return _view(str(ROOT / "samples/ir/resnet18.cuvilir"), "-O3")


def _drive(view: ModuleView, script, inline_ops: int | None = None):
    async def go():
        app = CuvilTUI(view)
        if inline_ops is not None:
            app.PLAN_INLINE_OPS = inline_ops
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            return await script(app, pilot)

    return asyncio.run(go())


def _op(view: ModuleView, result: str):
    return next(i for i in view.main.ops if result in i.results)


async def _open(app, pilot) -> MemoryChart:
    await pilot.press("m")
    await pilot.pause()
    assert isinstance(app.screen, MemoryScreen)
    return app.screen.query_one(MemoryChart)


def test_m_opens_the_memory_view_on_the_selected_ops_kernel(cnn):
    async def script(app, pilot):
        app.select(_op(cnn, "%block1_pool"))
        chart = await _open(app, pilot)
        model = memory_model(cnn)
        assert chart.buffer.name == "%block1_pool"
        assert chart.kernel.op is app.selected.op
        head = str(app.screen.query_one("#mem-head").content)
        assert f"arena {model.arena_bytes / 1024:.1f} KiB" in head and "peak" in head
        assert f"{len(model.kernels)} kernels" in head
        detail = str(app.screen.query_one("#mem-detail").content)
        assert chart.kernel.symbol in detail and "%block1_pool" in detail
        for row, buf in enumerate(model.buffers):  # the op's buffers in bold
            label, _ = chart._row(row)
            mine = buf in chart.kernel.buffers
            assert bool(label[0].style.bold) == mine or row == chart.row, buf.name
        text = chart.row_text(chart.row)
        bar = text[LABEL:]
        live = [k for k in range(len(model.kernels)) if bar[2 * k] != "·"]
        assert live[0] == chart.buffer.first and live[-1] == chart.buffer.last

    _drive(cnn, script)


def test_arrows_move_over_buffers_and_kernels(cnn):
    async def script(app, pilot):
        app.select(cnn.main.ops[0])
        chart = await _open(app, pilot)
        start = chart.row
        await pilot.press("down")
        await pilot.pause()
        assert chart.row == start + 1
        assert chart.col == chart.buffer.first  # a buffer: the kernel writing it
        col = chart.col
        await pilot.press("right", "right")
        await pilot.pause()
        assert chart.col == col + 2 and chart.row == start + 1
        detail = str(app.screen.query_one("#mem-detail").content)
        assert f"kernel {col + 2} {chart.kernel.symbol}" in detail
        await pilot.press("left", "up")
        await pilot.pause()
        assert chart.row == start
        await pilot.click(MemoryChart, offset=(LABEL + 2 * 3, HEADER + 1))
        await pilot.pause()
        assert (chart.row, chart.col) == (chart.scroll_offset.y + 1, 3)

    _drive(cnn, script)


def test_enter_selects_the_kernels_op_in_the_main_view(cnn):
    async def script(app, pilot):
        app.select(cnn.main.ops[0])
        chart = await _open(app, pilot)
        await pilot.press("right", "right", "right")
        await pilot.pause()
        kernel = chart.kernel
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, MemoryScreen)
        assert app.selected is kernel.info
        assert app.query_one(IRView).selected is kernel.info
        text = app.query_one(Inspector).text()
        assert f"kernel: {kernel.symbol}, call {kernel.index} of" in text

    _drive(cnn, script)


def test_escape_and_m_go_back_keeping_the_selection(cnn):
    async def script(app, pilot):
        before = _op(cnn, "%block1_pool")
        app.select(before)
        for back in ("escape", "m"):
            await _open(app, pilot)
            await pilot.press("right", "right")
            await pilot.press(back)
            await pilot.pause()
            assert not isinstance(app.screen, MemoryScreen)
            assert app.selected is before

    _drive(cnn, script)


def test_the_main_views_keys_do_nothing_on_the_memory_screen(cnn):
    async def script(app, pilot):
        before = app.selected
        await _open(app, pilot)
        await pilot.press("g", "u", "l", "slash")
        await pilot.pause()
        assert isinstance(app.screen, MemoryScreen) and app.selected is before
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, MemoryScreen)

    _drive(cnn, script)


def test_in_place_writes_are_drawn_and_a_wide_plan_scrolls(resnet):
    async def script(app, pilot):
        bn1 = _op(resnet, "%bn1")
        app.select(bn1)
        chart = await _open(app, pilot)
        assert chart.buffer.name == "%bn1" and chart.buffer.inplace == (3,)
        bar = chart.row_text(chart.row)[LABEL:]
        assert bar[6:8] == "◆◆" and bar[4:6] == "██"
        assert "in place at kernel 3" in str(
            app.screen.query_one("#mem-detail").content
        )
        await pilot.press("end")
        await pilot.pause()
        n = len(chart.model.kernels)
        assert chart.col == n - 1 and 2 * n + LABEL > 120
        assert chart.scroll_offset.x > 0  # the last kernel's column scrolled into view
        await pilot.press("home")
        await pilot.pause()
        assert chart.col == 0 and chart.scroll_offset.x == 0
        row = chart.row
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert chart.row == row + 40 and chart.scroll_offset.y > 0  # kept in view
        assert chart.col == chart.buffer.first
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        assert chart.row == row

    _drive(resnet, script)


def test_the_inspector_shows_the_kernel_slot_and_lifetime(resnet):
    async def script(app, pilot):
        app.select(_op(resnet, "%relu"))
        await pilot.pause()
        text = app.query_one(Inspector).text()
        assert "kernel: cuvil_k3_relu, call 3 of" in text
        assert "slot: %relu: arena +0x3a3000 (3211264 B)" in text
        assert "lifetime: kernel 2..4" in text
        assert "in place: in the buffer of %bn1" in text
        app.select(_op(resnet, "%maxpool"))
        await pilot.pause()
        text = app.query_one(Inspector).text()
        assert "reuses: the arena space of %x_nhwc (dead after kernel 1)" in text

    _drive(resnet, script)


def test_a_module_that_cannot_be_planned_says_why_and_the_rest_works(tmp_path):
    t = "tensor<[batch]x4xf32>"
    path = tmp_path / "dyn.cuvilir"
    path.write_text(
        f'func @forward(%x: {t} loc("x")) -> ({t}) {{\n'
        f'  %y = cuvil.relu(%x) : ({t}) -> {t} loc("relu" at "m.py":3:5)\n'
        f'  %z = cuvil.neg(%y) : ({t}) -> {t} loc("neg" at "m.py":4:5)\n'
        "  return %z\n}\n"
    )
    view = _view(str(path))

    async def script(app, pilot):
        assert "kernel: no plan: code generation needs static shapes" in (
            app.query_one(Inspector).text()
        )
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MemoryScreen)
        assert not app.screen.query(MemoryChart)
        head = str(app.screen.query_one("#mem-head").content)
        assert head.startswith("no memory plan: code generation needs static shapes")
        await pilot.press("enter", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, MemoryScreen)
        await pilot.press("down")
        await pilot.pause()
        assert app.selected.results == ("%z",)

    _drive(view, script)


def test_a_big_module_is_planned_when_m_first_opens_the_memory_view():
    view = _view(str(ROOT / "samples/ir/small_cnn.cuvilir"), "-O3")  # a fresh view

    async def script(app, pilot):
        assert "kernel: (not planned yet: m plans the build)" in (
            app.query_one(Inspector).text()
        )
        await _open(app, pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert app.selected.name == "cuvil.param"  # the first op: now with its row
        assert "kernel: none: a param" in app.query_one(Inspector).text()
        assert planned(view) is not None

    _drive(view, script, inline_ops=0)  # as if it were over the inline limit
