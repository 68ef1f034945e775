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


# ---- capture modes: what the user runs -----------------------------------------------
GRAD_MODE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        if torch.is_grad_enabled():
            return self.fc(x).numpy()  # fails with grad on: the output requires grad
        return self.fc(x)


def example_inputs():
    return (torch.randn(2, 4),)
"""


def test_capture_runs_in_grad_mode_unless_no_grad_is_asked(tmp_path):
    (tmp_path / "grad.py").write_text(GRAD_MODE)
    assert collect(str(tmp_path / "grad.py"), "export")["status"] == "failed"
    assert collect(str(tmp_path / "grad.py"), "export", no_grad=True)["status"] == "ok"


LEAF_MODULE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(4, 4, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


def example_inputs():
    return (torch.randn(1, 3, 4),)
"""


def test_fx_keeps_torch_nn_modules_as_leaves_unless_cuvil_leaves(tmp_path):
    # torch.fx.symbolic_trace keeps nn.RNN a leaf (Cuvil has no lowering for it);
    # Cuvil's own tracer traces into it and fails inside torch.nn instead
    (tmp_path / "rnn.py").write_text(LEAF_MODULE)
    plain = collect(str(tmp_path / "rnn.py"), "fx")
    assert plain["error"]["chain"][0]["type"] == "UnsupportedOpError"
    assert "RNN" in plain["error"]["chain"][0]["message"]
    own = collect(str(tmp_path / "rnn.py"), "fx", cuvil_leaves=True)
    assert own["status"] == "failed"
    assert own["error"]["chain"][0]["type"] != "UnsupportedOpError"


DATA_BRANCH = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def example_inputs():
    return (torch.ones(3),)
"""


@pytest.mark.parametrize("frontend", ["export-strict", "dynamo"])
def test_strict_export_and_dynamo_capture_through_dynamo(tmp_path, frontend):
    (tmp_path / "branch.py").write_text(DATA_BRANCH)
    record = collect(str(tmp_path / "branch.py"), frontend)
    assert record["status"] == "failed" and record["frontend"] == frontend
    modules = {e["module"] for e in record["error"]["chain"]}
    assert any(m.startswith("torch._dynamo") for m in modules), modules


@pytest.mark.parametrize("frontend", ["fx", "export", "export-strict", "dynamo"])
def test_a_model_that_compiles_is_ok_in_every_mode(data_dir, frontend):
    record = collect(str(data_dir / "ok_model.py"), frontend)
    assert record["status"] == "ok", record.get("error")


DYNAMIC = """
import torch
from torch import nn
from torch.export import Dim


class Model(nn.Module):
    def forward(self, x):
        if x.shape[0] == 4:  # specialises the batch dim
            return x + 1
        return x


def example_inputs():
    return (torch.randn(4, 3),)


DYNAMIC_SHAPES = ({0: Dim("batch", min=2, max=16)},)
"""


def test_dynamic_shapes_come_from_a_constant_too(tmp_path):
    (tmp_path / "dyn.py").write_text(DYNAMIC)
    record = collect(str(tmp_path / "dyn.py"), "export")
    assert record["status"] == "failed"
    text = " ".join(e["message"] for e in record["error"]["chain"])
    assert "batch" in text


def test_both_dynamic_shapes_spellings_is_a_load_error(tmp_path):
    (tmp_path / "both.py").write_text(
        DYNAMIC + "\n\ndef dynamic_shapes():\n    return None\n"
    )
    record = collect(str(tmp_path / "both.py"), "export")
    assert record["status"] == "error" and "DYNAMIC_SHAPES" in record["message"]
