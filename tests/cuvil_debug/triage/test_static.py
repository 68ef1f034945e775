"""`cuvil-debug triage --static`: predictions from the source alone, no model code
run (the model file is parsed, never imported)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cuvil_debug.triage.api import report_doc, triage
from cuvil_debug.triage.static import STATIC_RULES, static_result

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "samples" / "failures"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_static_mode_runs_no_model_code(tmp_path):
    marker = tmp_path / "MARKER"
    model = _write(
        tmp_path,
        "evil.py",
        f"""
        from pathlib import Path

        import torch
        from torch import nn

        MARKER = {str(marker)!r}
        Path(MARKER).write_text("ran at import")


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                Path(MARKER).write_text("ran in __init__")
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                Path(MARKER).write_text("ran in forward")
                if x.sum() > 0:
                    return self.fc(x)
                return x


        def example_inputs():
            Path(MARKER).write_text("ran in example_inputs")
            return (torch.randn(2, 4),)
        """,
    )
    proc = subprocess.run(
        [sys.executable, "-m", "cuvil_debug.cli", "triage", "--static"]
        + [str(model), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not marker.exists(), marker.read_text()
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "static"
    (result,) = doc["results"]
    assert result["mode"] == "static" and result["status"] == "failed"
    assert result["category"] == "data-dependent-control-flow"
    assert result["location"]["line"] == 18  # if x.sum() > 0:
    assert "static prediction" in result["message"]
    assert 0 < result["confidence"] < 0.8  # a guess, weaker than a captured error


@pytest.mark.parametrize(
    ("sample", "frontend", "category", "line"),
    [
        ("ddcf_gate_threshold.py", "fx", "data-dependent-control-flow", 14),
        ("ddpv_zeros_item.py", "fx", "data-dependent-python-value", 14),
        ("iter_heads_loop.py", "fx", "proxy-iteration", 15),
        ("dyn_nonzero_export.py", "export", "dynamic-shape", 13),
        ("ntc_numpy_temperature.py", "fx", "non-torch-call", 14),
        ("inp_input_sub.py", "fx", "inplace-mutation", 13),
        ("upc_fstring_log.py", "fx", "unsupported-python-construct", 19),
        ("nta_return_flag.py", "fx", "non-tensor-argument", 13),
        ("uio_dataclass_out.py", "fx", "unsupported-io-type", 23),
        ("un_missing_import.py", "fx", "undefined-name", 14),
        ("cl_lstm_fx.py", "fx", "capture-limitation", 14),
    ],
)
def test_known_patterns(sample, frontend, category, line):
    r = static_result(str(CORPUS / sample), frontend)
    assert r["status"] == "failed" and r["category"] == category
    assert line in [c["location"]["line"] for c in r["root_causes"]]
    assert r["signals"] and all(s.startswith("static:") for s in r["signals"])


def test_frontend_decides_fx_only_risks():
    flag = str(CORPUS / "nta_return_flag.py")
    assert static_result(flag, "fx")["category"] == "non-tensor-argument"
    assert static_result(flag, "export")["status"] == "ok"


def test_a_model_without_risky_constructs_is_ok(data_dir):
    for frontend in ("fx", "export"):
        r = static_result(str(data_dir / "ok_model.py"), frontend)
        assert r["status"] == "ok" and r["mode"] == "static"
        assert r["message"] == "no capture risk found statically"


def test_api_and_report_record_the_mode(data_dir):
    results = triage([str(data_dir / "shape_model.py")], static=True)
    assert results[0]["mode"] == "static"
    assert report_doc(results, "fx", mode="static")["mode"] == "static"


def test_missing_file_and_missing_entry_are_errors(tmp_path):
    assert static_result(str(tmp_path / "nope.py"))["status"] == "error"
    other = _write(tmp_path, "other.py", "class Net:\n    pass\n")
    r = static_result(str(other))
    assert r["status"] == "error" and "Model" in r["message"]


def test_rules_are_data():
    for rule in STATIC_RULES.values():
        assert rule.weight > 0 and rule.frontends and rule.says


def test_transformers_model_points_into_the_library(tmp_path):
    pytest.importorskip("transformers")
    model = _write(
        tmp_path,
        "bert.py",
        """
        import torch
        from transformers import BertConfig, BertModel


        def Model():
            config = BertConfig(
                hidden_size=32,
                num_hidden_layers=1,
                num_attention_heads=2,
                intermediate_size=64,
                vocab_size=100,
            )
            return BertModel(config)


        def example_inputs():
            return (torch.randint(0, 100, (1, 8)),)
        """,
    )
    before = set(sys.modules)
    r = static_result(str(model), "fx")
    assert "transformers" not in set(sys.modules) - before  # found, not imported
    assert r["status"] == "failed" and r["category"] == "non-tensor-argument"
    loc = r["location"]
    assert loc["file"].endswith("transformers/models/bert/modeling_bert.py")
    assert "None" in loc["text"]  # an Optional forward() parameter
