"""`cuvil-debug tui` with a bad diff report: one error line, exit 2, no traceback, no
UI; and the diff keys on a target without a report do nothing but say so."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from cuvil.ir import parse_file
from cuvil_debug.cli import main
from cuvil_debug.diff.model import DiffReport, NodeRow
from cuvil_debug.diff.render import report_json
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView

ROOT = Path(__file__).resolve().parents[3]
SAMPLE_IR = ROOT / "samples/ir/small_cnn.cuvilir"


def _fails(capsys, *argv: str) -> str:
    assert main(["tui", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _write(tmp_path: Path, doc, name: str = "diff.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def _report(ir_before: str | None = None, node: str = "relu") -> dict:
    """A small valid report (one FX node, no stage results)."""
    row = NodeRow(index=0, name=node, op="call_function", target="relu")
    report = DiffReport(model="m.py", inputs=[], options={}, tolerances={}, rows=[row])
    report.ir_before = ir_before
    return report_json(report)


def test_a_report_of_another_schema_version(capsys, tmp_path):
    doc = {**_report(), "schema_version": 2}
    line = _fails(capsys, _write(tmp_path, doc))
    assert "schema_version 2" in line and "reads schema_version 1" in line


def test_a_file_that_is_not_json(capsys, tmp_path):
    line = _fails(capsys, _write(tmp_path, "module @m {\n"))
    assert line.startswith(f"{tmp_path / 'diff.json'}:1:1: error: not JSON")


@pytest.mark.parametrize("doc", [{"model": "m.py"}, [1, 2], {"schema": "other"}])
def test_json_that_is_not_a_diff_report(capsys, tmp_path, doc):
    line = _fails(capsys, _write(tmp_path, doc))
    assert "not a cuvil-debug diff report" in line and "hint:" in line


def test_a_report_that_breaks_the_schema(capsys, tmp_path):
    doc = _report()
    del doc["rows"]
    line = _fails(capsys, _write(tmp_path, doc))
    assert "not a valid diff report" in line and "'rows'" in line


def test_a_missing_report(capsys, tmp_path):
    assert "cannot read the file" in _fails(capsys, str(tmp_path / "nope.json"))


def test_a_report_without_ir(capsys, tmp_path):
    line = _fails(capsys, _write(tmp_path, _report()))
    assert "holds no IR" in line


def test_a_report_with_ir_that_does_not_parse(capsys, tmp_path):
    line = _fails(capsys, _write(tmp_path, _report("func @f(")))
    assert "[ir_before]:" in line and "error:" in line


def test_an_overlay_of_another_models_report(capsys, tmp_path):
    report = _write(tmp_path, _report(node="no_such_node"))
    line = _fails(capsys, str(SAMPLE_IR), "--diff", report)
    assert line.startswith(f"{report}: error:") and "names no FX node" in line


def test_diff_with_a_report_target(capsys, tmp_path):
    report = _write(tmp_path, _report())
    line = _fails(capsys, report, "--diff", report)
    assert "is a diff report already" in line


def test_diff_keys_without_a_report_say_so():
    async def go():
        app = CuvilTUI(ModuleView(parse_file(SAMPLE_IR), SAMPLE_IR.parent))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            start = app.selected
            for key in ("n", "N", "s", "i"):
                await pilot.press(key)
                await pilot.pause()
            assert app.selected is start and app.diff is None
            assert not app.query("DiffSection")

    asyncio.run(go())
