"""`cuvil-debug tui TARGET` with a bad TARGET: one error line, exit 2, no UI, no traceback;
and the target loading a good one goes through (without starting the UI)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from pathlib import Path

from textual.worker import WorkerFailed

from cuvil.args import run_main
from cuvil_debug.cli import build_parser, main
from cuvil_debug.tui.command import load_target, make_app, outcome
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


def _run_app(app, size=(100, 30)):
    """Run `app` headless until its loader is done; what it shows then."""

    async def go():
        async with app.run_test(size=size) as pilot:
            with contextlib.suppress(WorkerFailed):  # the app has it: load_error
                await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.pause()
            return app.loaded, app.is_running

    return asyncio.run(go())


def test_a_model_loads_in_the_worker_with_progress():
    app = make_app(_args(str(ROOT / "samples/models/small_cnn.py")))
    assert not app.loaded  # nothing lowered before the UI starts
    steps = []
    original = app._progress
    app._progress = lambda msg: (steps.append(msg), original(msg))
    loaded, running = _run_app(app)
    assert loaded and running
    assert steps[0].startswith("importing ") and "lowering with torch.fx" in steps
    assert "optimizing" in steps
    assert app.selected is app.view.main.ops[0]
    assert any(i.name == "cuvil.fused" for i in app.view.ops)
    assert app.repro_args == [str(ROOT / "samples/models/small_cnn.py")]
    assert outcome(app) == 0


def test_a_model_failing_in_the_worker_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "model.py"
    bad.write_text(
        "import torch\n\ndef example_inputs():\n    return (torch.ones(2),)\n"
    )
    args = _args(str(bad))
    app = make_app(args)  # the file is there: the quick checks pass
    loaded, running = _run_app(app)
    assert not loaded and not running
    assert app.return_code == 2
    args.run = lambda _a: outcome(app)
    assert run_main("cuvil-debug", args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Model" in err[0] and "Traceback" not in err[0]
