"""Collecting one model in-process: status, clear load errors, and the evidence a
failure carries (exception chain, user frames, eager run, forward signature)."""

from __future__ import annotations

import pytest

from cuvil_debug.triage.collect import collect


def test_a_model_that_compiles_is_ok(data_dir):
    assert collect(str(data_dir / "ok_model.py"))["status"] == "ok"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("missing.py", "does not exist"),
        ("no_model.py", "defines no model"),
        ("hang_model.py:Nope", "defines no model"),
    ],
)
def test_bad_specs_give_a_clear_error(data_dir, name, expected):
    record = collect(str(data_dir / name))
    assert record["status"] == "error" and expected in record["message"]


def test_a_syntax_error_is_reported_as_not_valid_python(tmp_path):
    (tmp_path / "broken.py").write_text("this is not python (\n")
    record = collect(str(tmp_path / "broken.py"))
    assert record["status"] == "error" and "is not valid Python" in record["message"]


def test_a_non_python_file_is_rejected(tmp_path):
    (tmp_path / "model.txt").write_text("hello")
    assert "not a Python file" in collect(str(tmp_path / "model.txt"))["message"]


def test_unimportable_module_spec_is_an_error():
    record = collect("no_such_package_xyz.models:Model")
    assert record["status"] == "error" and "cannot import" in record["message"]


def test_failure_records_chain_frames_eager_and_signature(data_dir):
    record = collect(str(data_dir / "shape_model.py"))
    assert record["status"] == "failed"
    types = [e["type"] for e in record["error"]["chain"]]
    assert types[0] == "FrontendError"
    assert record["eager"]["ok"] is False
    eager_frames = record["eager"]["error"]["chain"][-1]["frames"]
    assert any(f["user"] and f["file"].endswith("shape_model.py") for f in eager_frames)
    assert [p["name"] for p in record["model"]["forward"]["params"]] == ["x"]
    assert record["inputs"][0]["type"] == "Tensor"
