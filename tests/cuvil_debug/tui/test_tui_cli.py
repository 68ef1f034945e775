"""`cuvil-debug tui TARGET` with a bad TARGET: one error line, exit 2, no UI, no traceback;
and the target loading a good one goes through (without starting the UI)."""

from __future__ import annotations

import argparse
from pathlib import Path

from cuvil_debug.cli import build_parser, main
from cuvil_debug.tui.command import load_target
from cuvil_debug.tui.data import ModuleView
from cuvil_debug.tui.inspector import describe

ROOT = Path(__file__).resolve().parents[3]


def _fails(capsys, *argv: str) -> str:
    assert main(["tui", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_missing_cuvilir_file(capsys, tmp_path):
    line = _fails(capsys, str(tmp_path / "nope.cuvilir"))
    assert "nope.cuvilir" in line and "cannot read the file" in line


def test_malformed_cuvilir_file(capsys, tmp_path):
    bad = tmp_path / "bad.cuvilir"
    bad.write_text(
        "func @f(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n  %y = cuvil.relu(\n}\n"
    )
    line = _fails(capsys, str(bad))
    assert line.startswith(f"{bad}:3:") and "error:" in line


def test_cuvilir_that_does_not_verify(capsys, tmp_path):
    bad = tmp_path / "bad.cuvilir"
    bad.write_text(
        "func @f(%x: tensor<2xf32>) -> (tensor<3xf32>) {\n"
        "  %y = cuvil.relu(%x) : (tensor<2xf32>) -> tensor<3xf32>\n"
        "  return %y\n}\n"
    )
    assert "error:" in _fails(capsys, str(bad))


def test_missing_model(capsys, tmp_path):
    line = _fails(capsys, str(tmp_path / "model.py"))
    assert "does not exist" in line


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["tui", *argv])


def test_a_cuvilir_target_is_shown_as_written():
    module, base = load_target(_args(str(ROOT / "samples/ir/small_cnn.cuvilir")))
    assert base == ROOT / "samples/ir"
    assert any(op.name == "cuvil.batch_norm" for op in module.main.ops)


def test_a_cuvilir_target_with_O_is_optimized():
    module, _ = load_target(_args(str(ROOT / "samples/ir/small_cnn.cuvilir"), "-O3"))
    assert any(op.name == "cuvil.relayout" for op in module.main.ops)


def test_a_model_target_is_lowered_and_optimized_with_fused_members():
    model = ROOT / "samples/models/small_cnn.py"
    module, base = load_target(_args(str(model)))
    assert base == model.parent
    view = ModuleView(module, base)
    fused = next(i for i in view.ops if i.name == "cuvil.fused")
    body = view.members(fused)
    assert body is not None and body.ops and body.name != "forward"
    rows = dict(describe(view, fused))
    assert rows["body"] == f"@{body.name}"
    assert len(fused.fx_nodes) >= 2  # a FusedLoc: one member per FX node
    assert view.resolve(fused.source.file).resolve() == model.resolve()
