"""Diff reports in `cuvil-debug tui`, on one real report: `cuvil-debug diff` of
samples/models/small_cnn.py with a pass fault (`pass:block2_relu`: clean in ir,
introduced in opt), run once for the module with `--format json -o FILE --tui` (the
app the command builds is kept instead of run, then driven under Textual's Pilot)."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest

from cuvil_debug.cli import build_parser, main
from cuvil_debug.diff.status import Verdict
from cuvil_debug.tui import difftarget
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.command import load_target
from cuvil_debug.tui.diffdata import DiffOverlay
from cuvil_debug.tui.diffpane import FIRST_STYLE, VERDICT_STYLES, DiffSection
from cuvil_debug.tui.inspector import Inspector
from cuvil_debug.tui.irview import IRView
from cuvil_debug.tui.outline import Outline

ROOT = Path(__file__).resolve().parents[3]
MODEL = ROOT / "samples/models/small_cnn.py"
FAULT = "pass:block2_relu"
SIZE = (120, 40)


@pytest.fixture(scope="module")
def diffrun(tmp_path_factory):
    """(exit code, the JSON file, its document, what `diff --tui` showed): the app
    `diff --tui` runs is run headless here (the Pilot instead of a terminal): the diff
    runs in its worker, then `n` is pressed; the app and the op it selected are kept."""
    path = tmp_path_factory.mktemp("diff") / "diff.json"
    shown: list[tuple[CuvilTUI, object, list[str]]] = []

    def headless(app, *_a, **_kw):
        async def go():
            steps: list[str] = []
            original = app._progress
            app._progress = lambda msg: (steps.append(msg), original(msg))
            async with app.run_test(size=SIZE) as pilot:
                assert not app.loaded  # the UI is up before the diff has run
                await app.workers.wait_for_complete()
                await pilot.pause()
                await pilot.press("n")
                await pilot.pause()
                shown.append((app, app.selected, steps))

        asyncio.run(go())

    argv = ["diff", str(MODEL), "--inject", FAULT, "--stages", "ir,opt"]
    argv += ["--format", "json", "-o", str(path), "--tui"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(CuvilTUI, "run", headless)
        rc = main(argv)
    return rc, path, json.loads(path.read_text()), shown


def _report_app(path: Path, *extra: str) -> CuvilTUI:
    """The app `cuvil-debug tui TARGET ...` would run (run_tui's steps)."""
    args = build_parser().parse_args(["tui", str(path), *extra])
    report = difftarget.load_report(args)
    module, base = load_target(args)
    return difftarget.build_app(module, base, report)


def _drive(app: CuvilTUI, script):
    async def go():
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            return await script(app, pilot)

    return asyncio.run(go())


def _op(app: CuvilTUI, result: str):
    return next(i for i in app.view.main.ops if result in i.results)


def _tints(app: CuvilTUI, result: str) -> set:
    """The background colours of the op's line as the IR view draws it."""
    ir = app.query_one(IRView)
    strip = ir.render_line(_op(app, result).pos - ir.scroll_offset.y)
    return {seg.style.bgcolor for seg in strip if seg.style and seg.style.bgcolor}


def test_diff_tui_opens_the_report_it_wrote(diffrun):
    rc, _, doc, shown = diffrun
    assert rc == 1 and doc["first"]["node"] == "block2_relu"  # the diff's exit code
    assert doc["first"]["stage"] == "opt" and doc["cwd"]
    assert len(shown) == 1
    app, selected, steps = shown[0]
    assert steps and steps[0].startswith("diffing")  # the progress pane said so
    assert app.diff.doc["first"] == doc["first"]
    assert doc["first"]["node"] in selected.fx_nodes  # n: the CLI's first divergence


def test_a_report_target_colours_ops_and_n_goes_to_the_first_divergence(diffrun):
    _, path, doc, _ = diffrun

    async def script(app, pilot):
        assert app.diff.stage == "opt"
        assert _tints(app, "%block2_relu") == {FIRST_STYLE.bgcolor}
        assert _tints(app, "%block2_pool") == {VERDICT_STYLES["inherited"].bgcolor}
        assert _tints(app, "%block1_pool") == {VERDICT_STYLES["ok"].bgcolor}
        assert app.selected is app.view.main.ops[0]
        await pilot.press("n")
        await pilot.pause()
        assert app.selected.results == ("%block2_relu",)
        assert doc["first"]["node"] in app.selected.fx_nodes
        section, inspector = app.query_one(DiffSection), app.query_one(Inspector)
        assert inspector.region.y < section.region.y < inspector.region.bottom
        text = section.text()
        assert text.startswith("diff: opt · propagated\nfirst: ▶ block2_relu in opt")
        assert "node: block2_relu: introduced" in text
        assert "error: introduced (the isolated run diverges)" in text
        for field in ("max abs", "max rel", "max ulp", "cosine", "sqnr", "nan / inf"):
            assert f"\n{field}: " in text
        assert f"culprit: {doc['first']['culprit']}" in text

    _drive(_report_app(path), script)


def test_sources_are_found_from_the_folder_the_diff_ran_in(diffrun, monkeypatch):
    _, path, doc, _ = diffrun
    monkeypatch.chdir(path.parent)  # elsewhere: the relative paths resolve via cwd
    src = _report_app(path).diff.first_op.source
    assert src.file == "samples/models/small_cnn.py"
    assert _report_app(path).view.resolve(src.file) == Path(doc["cwd"]) / src.file


def test_a_fused_op_takes_the_worst_verdict_of_its_nodes(diffrun):
    _, path, doc, _ = diffrun
    app = _report_app(path)
    fused = _op(app, "%block2_relu")
    verdicts = {v.node: v.verdict for v in app.diff.nodes(fused)}
    assert verdicts == {
        "block2_relu": Verdict.INTRODUCED,
        "block2_bn": Verdict.OK,
        "block2_conv": Verdict.NONE,
    }
    assert app.diff.verdict(fused) is Verdict.INTRODUCED


def test_n_and_N_walk_the_divergent_ops_in_op_order_wrapping(diffrun):
    _, path, _, _ = diffrun

    async def script(app, pilot):
        order = [i.results[0] for i in app.diff.divergent()]
        assert order[0] == "%block2_relu" and order[-1] == "%fc"
        seen = []
        for _ in range(len(order) + 1):
            await pilot.press("n")
            await pilot.pause()
            seen.append(app.selected.results[0])
        assert seen == [*order, order[0]]
        await pilot.press("N")
        await pilot.pause()
        assert app.selected.results[0] == order[-1]
        await pilot.press("N")
        await pilot.pause()
        assert app.selected.results[0] == order[-2]

    _drive(_report_app(path), script)


def test_s_cycles_the_stage_and_recolours(diffrun):
    _, path, _, _ = diffrun
    inherited = VERDICT_STYLES["inherited"].bgcolor

    async def script(app, pilot):
        ir = app.query_one(IRView)
        await pilot.press("s")
        await pilot.pause()
        assert app.diff.stage == "ir" and "diff: ir" in str(ir.border_subtitle)
        assert _tints(app, "%block2_pool") == {VERDICT_STYLES["ok"].bgcolor}
        assert app.diff.divergent() == []
        assert app.query_one(DiffSection).rows[0] == ("diff", "ir · propagated")
        await pilot.press("s")
        await pilot.pause()
        assert app.diff.stage == "opt" and _tints(app, "%block2_pool") == {inherited}

    _drive(_report_app(path), script)


def test_i_switches_to_the_isolated_error(diffrun):
    _, path, _, _ = diffrun

    async def script(app, pilot):
        await pilot.press("i")
        await pilot.pause()
        assert app.diff.mode == "isolated"
        # block2_pool only inherits its error: clean when fed the eager input
        assert _tints(app, "%block2_pool") == {VERDICT_STYLES["ok"].bgcolor}
        assert [i.results[0] for i in app.diff.divergent()] == ["%block2_relu"]
        await pilot.press("i")
        await pilot.pause()
        assert app.diff.mode == "propagated"

    _drive(_report_app(path), script)


def test_the_outline_marks_the_first_divergence(diffrun):
    _, path, _, _ = diffrun

    async def script(app, pilot):
        outline = app.query_one(Outline)
        first = app.diff.first_op
        assert str(outline._leaves[first.index].label).startswith("▶ ")
        marked = [n for n in outline._leaves.values() if str(n.label).startswith("▶")]
        assert len(marked) == 1

    _drive(_report_app(path), script)


def test_stages_cycle_in_compiler_order_and_wrap(diffrun):
    _, _, doc, _ = diffrun
    doc = copy.deepcopy(doc)
    doc["stages"] = ["ir", "opt", "native"]
    for row in doc["rows"]:
        row["stages"]["native"] = row["stages"]["opt"]
    overlay = DiffOverlay(doc, _report_app(diffrun[1]).view)
    assert [overlay.cycle_stage() for _ in range(3)] == ["native", "ir", "opt"]


def test_a_model_target_with_diff_overlays_the_report(diffrun):
    _, path, doc, _ = diffrun
    app = _report_app(MODEL, "--diff", str(path))
    # the model lowered and optimized again (no fault this time): same node names
    assert app.diff.matched() > 0
    assert doc["first"]["node"] in app.diff.first_op.fx_nodes
    assert app.diff.verdict(app.diff.first_op) is Verdict.INTRODUCED


def test_O_with_a_report_target_is_one_error_line(diffrun, capsys):
    _, path, _, _ = diffrun
    assert main(["tui", str(path), "-O2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "-O/-p do not apply to a diff report" in err[0]
