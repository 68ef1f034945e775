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


LAZY_COMPILE = """
import torch
from torch import nn


def _refuse(gm, example_inputs):
    raise SystemExit("torch.compile ran during the eager check")


@torch.compile(backend=_refuse)
def _scale(x):
    return x * 2


class Model(nn.Module):
    def forward(self, x):
        for i in range(int(x.sum() > 0) + 1):  # data-dependent: fx cannot trace it
            x = _scale(x)
        return x


def example_inputs():
    return (torch.ones(3),)
"""


def test_the_eager_check_does_not_run_a_lazy_torch_compile(tmp_path):
    # torchvision's detection models torch.compile an op on first use: the eager check
    # must not build it (a 190 s C++ build was measured), only run the model
    (tmp_path / "lazy.py").write_text(LAZY_COMPILE)
    record = collect(str(tmp_path / "lazy.py"))
    assert record["status"] == "failed"
    assert record["eager"]["ok"] is True, record["eager"]
