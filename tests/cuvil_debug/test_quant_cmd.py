"""`cuvil-debug quant MODEL --calib N`: the per-layer accuracy report of an int8 build,
its JSON, --min-sqnr, --skip, one-line errors, and a kernel bug told from quantization."""

from __future__ import annotations

import json
import re
from pathlib import Path

import torch

import cuvil.codegen.qops as qops
from cuvil_debug.cli import main

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "samples" / "models" / "mlp.py")


def test_table_ranks_layers_and_blames_quantization(capsys):
    assert main(["quant", MLP, "--calib", "3", "--eval", "2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"int8 vs float: +SQNR [\d.]+ dB", out)
    assert "verdict the error is quantization's" in out
    rows = re.findall(r"^\s*(\d+)\s+(fc\d)\s+linear\s+int8\s+([\d.]+) dB", out, re.M)
    assert [r[1] for r in rows] and sorted(r[1] for r in rows) == ["fc1", "fc2", "fc3"]
    alone = [float(r[2]) for r in rows]
    assert alone == sorted(alone)  # costliest (lowest SQNR) first
    assert f"--skip {rows[0][1]}" in out


def test_json_skip_and_min_sqnr(tmp_path, capsys):
    out = tmp_path / "q.json"
    argv = [
        "quant",
        MLP,
        "--calib",
        "2",
        "--eval",
        "1",
        "--skip",
        "fc2",
        "--format",
        "json",
        "-o",
        str(out),
        "--min-sqnr",
        "200",
        "--no-native-layers",
    ]
    assert main(argv) == 1  # 200 dB is not met: exit 1
    data = json.loads(out.read_text())
    layers = {row["name"]: row for row in data["layers"]}
    assert layers["fc2"]["status"] == "float" and "skip" in layers["fc2"]["reason"]
    assert layers["fc1"]["alone"]["sqnr_db"] > 20
    assert data["quantization"]["options"]["isa"] in ("amx", "avx512", "portable")
    assert data["output"]["sqnr_db"] > 20 and data["top1"]["rows"] == 1


def test_bad_input_is_one_line_and_exit_2(capsys):
    assert main(["quant", MLP, "--calib", "2", "--skip", "nosuch"]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "no layer is called 'nosuch'" in errors[0]
    assert "Traceback" not in err and "hint: layers (FX nodes or module paths)" in err
    assert main(["quant", MLP, "--mode", "bf16", "--dynamic"]) == 2


def test_a_wrong_kernel_is_reported_as_a_bug(monkeypatch, capsys):
    """A zero-point correction off by 1000 is not quantization: the isolated native
    check names the kernel (fails without that check)."""
    real = qops.column_arrays

    def off_by_one(op, w, bias, plan):
        arrays = real(op, w, bias, plan)
        if arrays and arrays[0].dtype == torch.int32:
            arrays[0] = arrays[0] + 1000
        return arrays

    monkeypatch.setattr(qops, "column_arrays", off_by_one)
    assert main(["quant", MLP, "--calib", "2", "--eval", "1"]) == 0
    out = capsys.readouterr().out
    assert "a bug, not quantization" in out


class FakeQuantMLP(torch.nn.Module):
    """QAT-style: torch's own fake_quantize ops on the inputs and weights of two linears."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = torch.nn.Linear(48, 64)
        self.fc2 = torch.nn.Linear(64, 10)
        for name in ("fc1", "fc2"):
            w = getattr(self, name).weight.detach()
            self.register_buffer(f"{name}_scale", (w.abs().amax(1) / 127).float())
            self.register_buffer(
                f"{name}_zp", torch.zeros(w.shape[0], dtype=torch.int32)
            )

    def _linear(self, x, name: str):
        m = getattr(self, name)
        scale, zp = getattr(self, f"{name}_scale"), getattr(self, f"{name}_zp")
        w = torch.fake_quantize_per_channel_affine(m.weight, scale, zp, 0, -127, 127)
        return torch.nn.functional.linear(x, w, m.bias)

    def forward(self, x):
        x = torch.fake_quantize_per_tensor_affine(x, 0.03125, 128, 0, 255)
        h = torch.relu(self._linear(x, "fc1"))
        h = torch.fake_quantize_per_tensor_affine(h, 0.015625, 0, 0, 255)
        return self._linear(h, "fc2")


def test_the_diff_compares_int8_kernels_with_torch_fake_quant_eager_node_by_node():
    """A fake-quant model compiles to int8 kernels; the diff's eager reference is
    torch's fake quantization, so each node's error is the kernels' alone."""
    from cuvil_debug.diff.engine import DiffOptions, run_diff

    model, x = FakeQuantMLP().eval(), torch.randn(4, 48)
    report = run_diff(model, [x], DiffOptions(frontend="export"))
    assert report.first is None and all(report.outputs_ok.values())
    ops = report.ir_after
    assert ops.count("cuvil.qlinear(") == 2 and "cuvil.linear(" not in ops
