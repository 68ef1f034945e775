"""The TUI's outline grouping and filter, source-line picking, bookmarks, clipboard,
SVG export, command palette and the responsive layout, under Textual's Pilot."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cuvil.ir import parse_file
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView
from cuvil_debug.tui.headless import run_headless
from cuvil_debug.tui.irview import IRView
from cuvil_debug.tui.keymap import KEYMAP, palette_keys
from cuvil_debug.tui.memory import MemoryScreen
from cuvil_debug.tui.outline import Outline
from cuvil_debug.tui.passes import PassesScreen
from cuvil_debug.tui.source import SourcePane

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "samples" / "ir"


def _drive(name: str, script, size=(100, 30), **kw):
    path = SAMPLES / f"{name}.cuvilir"
    view = ModuleView(parse_file(path), path.parent)

    return run_headless(CuvilTUI(view, **kw), script, size)


def _op(app: CuvilTUI, result: str):
    return next(i for i in app.view.ops if result in i.results)


def test_o_groups_the_outline_by_nn_module_and_back():
    async def script(app, pilot):
        outline = app.query_one(Outline)
        await pilot.press("o")
        await pilot.pause()
        assert outline.grouping == "nn.Module"
        forward = outline.root.children[0]
        labels = [str(n.label) for n in forward.children]
        assert "layer1 · " in " ".join(labels) and labels[0].startswith("conv1 · ")
        layer1 = next(n for n in forward.children if str(n.label).startswith("layer1 "))
        subs = [str(n.label).split(" ")[0] for n in layer1.children]
        assert subs == ["layer1.0", "layer1.1"]
        # every op is in the tree once: the grouping loses nothing
        assert sorted(i.index for i in outline.shown) == [i.index for i in app.view.ops]
        assert len(set(outline._home)) == len(app.view.ops)
        app.select(_op(app, "%layer1_1_conv2"))
        await pilot.pause()
        assert outline.cursor_node.data is app.selected
        await pilot.press("o")
        await pilot.pause()
        assert outline.grouping == "source line"

    _drive("resnet18", script)


def test_f_filters_the_outline_and_empty_shows_all():
    async def script(app, pilot):
        outline = app.query_one(Outline)
        await pilot.press("f", *"layer4", "enter")
        await pilot.pause()
        shown = outline.shown
        assert shown and all(
            "layer4" in " ".join((i.module_path or "", *i.fx_nodes, *i.results))
            for i in shown
        )
        assert len(shown) < len(app.view.ops)
        assert "filter 'layer4'" in str(outline.border_subtitle)
        await pilot.press("f", "backspace", "enter")  # the old text is selected
        await pilot.pause()
        assert len(outline.shown) == len(app.view.ops)

    _drive("resnet18", script)


def test_escape_closes_the_prompt():
    async def script(app, pilot):
        await pilot.press("slash")
        await pilot.pause()
        assert app.query_one("#search").has_class("open")
        await pilot.press("escape")
        await pilot.pause()
        assert not app.query_one("#search").has_class("open")
        assert app.focused is app.query_one(IRView)

    _drive("small_cnn", script)


def test_enter_on_a_source_line_selects_its_ops_and_walks_them():
    async def script(app, pilot):
        app.select(_op(app, "%block1_conv"))
        await pilot.pause()
        source = app.query_one(SourcePane)
        file = app.selected.source.file
        ops = app.view.ops_at(file, 34)  # return self.fc(x): the fc's ops
        assert len(ops) == 3 and all(i.source.line == 34 for i in ops)
        source.focus()
        for expected in (ops[0], ops[1], ops[2], ops[0]):
            source.move_cursor((33, 0))
            await pilot.press("enter")
            await pilot.pause()
            assert app.selected is expected
        source.move_cursor((19, 0))  # a line no op comes from: the selection stays
        await pilot.press("enter")
        await pilot.pause()
        assert app.selected is ops[0]
        assert any("no op comes from line 20" in n.message for n in app._notifications)

    _drive("small_cnn", script)


def test_search_finds_source_text():
    async def script(app, pilot):
        await pilot.press("slash", *"self.pool(", "enter")
        await pilot.pause()
        assert "self.pool(" in app.view.source_text(app.selected)

    _drive("small_cnn", script)


def test_b_bookmarks_and_capital_b_jumps_between_them():
    async def script(app, pilot):
        ir = app.query_one(IRView)
        a, b = _op(app, "%block1_relu"), _op(app, "%block2_conv")
        for info in (b, a):
            app.select(info)
            await pilot.press("b")
            await pilot.pause()
        assert app.bookmarks == {a.index, b.index}
        assert ir.render_line(a.pos - ir.scroll_offset.y).text.startswith("* ")
        app.select(app.view.main.ops[0])
        await pilot.press("B")
        assert app.selected is a
        await pilot.press("B")
        assert app.selected is b
        await pilot.press("B")
        assert app.selected is a  # wraps
        await pilot.press("b")  # again: removed
        assert app.bookmarks == {b.index}

    _drive("small_cnn", script)


def test_y_copies_the_op_and_capital_y_a_reduce_command():
    async def script(app, pilot):
        app.select(_op(app, "%block1_bn"))
        await pilot.press("y")
        assert app.clipboard.startswith("%block1_bn = cuvil.batch_norm(")
        assert 'loc("block1_bn"' in app.clipboard
        await pilot.press("Y")
        assert app.clipboard == (
            "cuvil-debug reduce samples/models/small_cnn.py -O 3 --node block1_bn"
        )

    _drive("small_cnn", script, repro_args=["samples/models/small_cnn.py", "-O", "3"])


def test_capital_y_on_a_cuvilir_target_says_why_not():
    async def script(app, pilot):
        await pilot.press("Y")
        await pilot.pause()
        assert app.clipboard == ""
        assert any("reduce needs a model" in n.message for n in app._notifications)

    _drive("small_cnn", script)


def test_e_exports_an_svg_screenshot_without_overwriting(tmp_path):
    taken = tmp_path / "cuvil-tui-x.svg"
    taken.write_text("mine")

    async def script(app, pilot):
        await pilot.press("e")
        await pilot.pause()
        first = app.last_screenshot
        await pilot.press("e")
        await pilot.pause()
        return first, app.last_screenshot

    first, second = _drive("small_cnn", script, screenshot_dir=tmp_path)
    assert first != second and first.parent == tmp_path
    assert taken.read_text() == "mine"
    svg = ET.parse(first).getroot()
    assert svg.tag.endswith("svg")
    assert "block1_conv" in first.read_text() or "cuvil" in first.read_text()


def test_the_command_palette_lists_every_action():
    async def script(app, pilot):
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for key in palette_keys():
            assert key.description[0].upper() + key.description[1:] in titles, key
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert type(app.screen).__name__ == "CommandPalette"

    _drive("small_cnn", script)


def test_every_key_has_an_action():
    app = CuvilTUI(ModuleView(parse_file(SAMPLES / "mlp.cuvilir")))
    panes = {"source": SourcePane, "passes": PassesScreen, "memory": MemoryScreen}
    for key in KEYMAP:
        owner = panes.get(key.scope, CuvilTUI)
        assert hasattr(owner, f"action_{key.action.split('(')[0]}"), key
    assert app.BINDINGS


@pytest.mark.parametrize(("size", "wide"), [((80, 24), False), ((160, 48), True)])
def test_the_layout_adapts_to_the_width(size, wide):
    async def script(app, pilot):
        outline = app.query_one(Outline).region
        ir = app.query_one(IRView).region
        inspector = app.query_one("#inspector").region
        source = app.query_one(SourcePane).region
        assert app.screen.has_class("-wide") is wide
        if wide:  # three columns: inspector and outline are full height
            assert inspector.height == outline.height > ir.height
            assert source.x == ir.x and inspector.x > ir.right - 1
        else:  # outline | IR over inspector | source
            assert inspector.y > ir.y and source.y == inspector.y
            assert ir.width > 2 * outline.width

    _drive("small_cnn", script, size=size)


def test_capital_g_exports_the_functions_graph(tmp_path):
    async def script(app, pilot):
        await pilot.press("G")
        await app.workers.wait_for_complete()
        await pilot.pause()
        return app.last_graph

    path = _drive("small_cnn", script, screenshot_dir=tmp_path)
    assert path is not None and path.parent == tmp_path
    texts = " ".join(
        t.text for t in ET.parse(path).iter() if t.tag.endswith("text") and t.text
    )
    view = ModuleView(parse_file(SAMPLES / "small_cnn.cuvilir"))
    computing = [
        i for i in view.main.ops if i.name not in ("cuvil.param", "cuvil.constant")
    ]
    assert len(computing) >= 8
    for info in computing:  # every op computing a value is a node of the picture
        short = info.name.removeprefix("cuvil.")  # the picture drops the dialect
        assert f"{info.results[0]} = {short}" in texts, info.label


def test_tab_walks_the_panes():
    async def script(app, pilot):
        seen = [app.focused.id]
        for _ in range(4):
            await pilot.press("tab")
            await pilot.pause()
            seen.append(app.focused.id)
        return seen

    seen = _drive("small_cnn", script)
    # every pane once, then back to the IR view
    assert seen == ["ir", "inspector", "source", "outline", "ir"]


def test_a_big_group_is_split_into_ranges_and_leaves_are_made_when_needed():
    from cuvil.ir import parse_module
    from cuvil_debug.tui.outline import CHUNK

    t = "tensor<4xf32>"
    lines = [f'func @forward(%x: {t} loc("x")) -> ({t}) {{']
    for i in range(1000):  # one source line: one group of 1000 ops
        prev = f"%v{i - 1}" if i else "%x"
        loc = f'loc("n{i}" at "model.py":3:5)'
        lines.append(f"  %v{i} = cuvil.relu({prev}) : ({t}) -> {t} {loc}")
    lines += ["  return %v999", "}"]
    view = ModuleView(parse_module("\n".join(lines) + "\n", "chain.cuvilir"))

    async def go():
        app = CuvilTUI(view)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            outline = app.query_one(Outline)
            assert len(outline._leaves) <= CHUNK  # the first op's range only
            group = outline.root.children[0].children[0]
            assert str(group.label) == "model.py:3 · 1000"
            ranges = [str(n.label) for n in group.children]
            assert ranges[0] == f"ops 0..{CHUNK - 1} · {CHUNK}" and len(ranges) == 5
            app.select(view.main.ops[750])
            await pilot.pause()
            assert outline.cursor_node.data is view.main.ops[750]
            assert len(outline._leaves) <= 2 * CHUNK

    asyncio.run(go())


def test_a_fused_kernel_in_the_outline_expands_to_its_members(resnet18_target):
    module, base, _ = resnet18_target
    view = ModuleView(module, base)
    fused = next(i for i in view.main.ops if i.name == "cuvil.fused")
    members = view.members(fused).ops
    assert len(members) >= 2

    async def script(app, pilot):
        outline = app.query_one(Outline)
        await pilot.pause()  # the app's own first selection (on mount) comes first
        app.select(fused)
        for _ in range(50):  # a bounded number of event-loop turns, not a timeout
            await pilot.pause()
            if outline.cursor_node is not None and outline.cursor_node.data is fused:
                break
        node = outline.cursor_node
        assert node.data is fused and str(node.label).endswith(
            f"· {len(members)} members"
        )
        node.expand()
        await pilot.pause()
        assert [c.data for c in node.children] == members
        outline.select_node(node.children[-1])  # picking a member shows its body
        await pilot.pause()
        assert app.selected is members[-1]
        assert app.query_one(IRView).function.name == members[-1].func != "forward"

    run_headless(CuvilTUI(view), script, (120, 40))
