"""Kernel plans: the host's cache sizes, the table of measured plans, the autotuner and
`cuvil-debug tune`; a plan chosen by measurement computes what the model's plan does."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

import cuvil
from cuvil.codegen import tuned
from cuvil.codegen.conv_plan import (
    conv_key,
    inplace_rows,
    model_conv_plan,
    plan_conv,
)
from cuvil.codegen.gemm_plan import gemm_key, model_gemm_plan, plan_gemm
from cuvil.codegen.host import DEFAULTS, HostInfo, cache_sizes, host_info
from cuvil.codegen.im2col import ConvShape
from cuvil.runtime.tune import evictor, measure, module_shapes, tune_conv, tune_gemm
from cuvil_debug.cli import main

SHAPE = ConvShape(1, 1, 8, 24, (6, 7), (6, 7), (3, 3), (1, 1), (1, 1), (1, 1))


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUVIL_PLANS", raising=False)
    return tmp_path


def _fake_cache(root, level, kind, size):
    d = root / f"index{level}{kind[0]}"
    d.mkdir()
    (d / "level").write_text(f"{level}\n")
    (d / "type").write_text(f"{kind}\n")
    (d / "size").write_text(f"{size}\n")


def test_cache_sizes_from_sysfs(tmp_path):
    _fake_cache(tmp_path, 1, "Data", "48K")
    _fake_cache(tmp_path, 1, "Instruction", "32K")
    _fake_cache(tmp_path, 2, "Unified", "2048K")
    sizes = cache_sizes(tmp_path)
    assert sizes[1] == 48 * 1024 and sizes[2] == 2 << 20
    assert sizes[3] > 0  # sysconf or the default


def test_cache_sizes_without_sysfs(tmp_path):
    sizes = cache_sizes(tmp_path / "missing")
    assert set(sizes) == set(DEFAULTS) and all(v > 0 for v in sizes.values())


def test_plans_follow_the_host_caches():
    """A smaller L2 moves ResNet's layer3 conv (2.4 MB of weights) to the tall, narrow
    tile; no AVX-512 means 8-lane vectors."""
    layer3 = ConvShape(
        1, 1, 256, 256, (14, 14), (14, 14), (3, 3), (1, 1), (1, 1), (1, 1)
    )
    big = HostInfo("x", frozenset({"avx512f", "fma"}), 48 << 10, 8 << 20, 64 << 20)
    small = HostInfo("x", frozenset({"avx512f", "fma"}), 32 << 10, 1 << 20, 32 << 20)
    avx2 = HostInfo("x", frozenset({"avx2", "fma"}), 32 << 10, 1 << 20, 32 << 20)
    assert model_conv_plan(layer3, big).nr == 64
    assert model_conv_plan(layer3, small).nr == 32
    assert model_conv_plan(layer3, small).prefetch > 0
    assert model_conv_plan(layer3, avx2).vw == 8
    assert host_info().signature.startswith(host_info().cpu)


def test_in_place_tiles_leave_no_one_row_edge():
    """ResNet-18's layer4 (7x7 = 49 positions, weights streamed from L3): 12-row tiles
    left a 1-row edge that streamed a whole weight panel for one row; the model takes
    13 (3 x 13 + 10) and prefetches the next panel over them (bordered tiles of two
    rows would be as many: 3 x 14 + 7). 196 positions (layer3) take 14 bordered tiles
    of one output row (in place: 16 x 12 + 4, 17 passes over each weight panel), with
    the next panel's prefetch; 784 positions have none."""
    host = HostInfo("x", frozenset({"avx512f", "fma"}), 48 << 10, 2 << 20, 64 << 20)

    def shape(c, hw):
        return ConvShape(1, 1, c, c, (hw, hw), (hw, hw), (3, 3), (1, 1), (1, 1), (1, 1))

    layer4, layer3 = (
        model_conv_plan(shape(512, 7), host),
        model_conv_plan(shape(256, 14), host),
    )
    assert (layer4.mr, layer4.ahead) == (13, True)  # 4 tiles: the next panel too
    # 196 positions: 14 bordered tiles of one output row, not 16 x 12 + 4 in place
    assert (layer3.mr, layer3.padded, layer3.ahead) == (14, True, True)
    wide = model_conv_plan(shape(256, 28), host)  # 66 tiles: the stream prefetch only
    assert wide.prefetch and not wide.ahead
    # bordered (1x1, no padding) with weights from L3: the next panel too
    r50 = ConvShape(1, 1, 2048, 512, (7, 7), (7, 7), (1, 1), (1, 1), (0, 0), (1, 1))
    plan = model_conv_plan(r50, host)
    assert plan.padded and (plan.mr, plan.ahead) == (14, True)
    assert inplace_rows(14, 49) == 13 and inplace_rows(14, 13) == 13
    assert inplace_rows(6, 49) == 6 and inplace_rows(24, 25) == 13


def test_measured_plans_are_read_back(table):
    tuned.record(
        "conv", conv_key(SHAPE), {"mr": 3, "nr": 16, "padded": True, "gflops": 9.0}
    )
    plan = plan_conv(SHAPE)
    assert (plan.mr, plan.nr, plan.padded) == (3, 16, True)
    tuned.record(
        "gemm", gemm_key(20, 40, 30, "packed-b"), {"mr": 5, "nr": 48, "kc": 30}
    )
    assert (plan_gemm(20, 40, 30).mr, plan_gemm(20, 40, 30).nr) == (5, 48)


def test_bad_tables_fall_back_to_the_model(table, monkeypatch):
    tuned.record("conv", conv_key(SHAPE), {"mr": 3, "nr": 17})  # nr: not whole vectors
    assert plan_conv(SHAPE) == model_conv_plan(SHAPE)
    tuned.plans_path().write_text("{ not json")
    assert plan_conv(SHAPE) == model_conv_plan(SHAPE)
    tuned.record("conv", conv_key(SHAPE), {"mr": 3, "nr": 16})
    monkeypatch.setenv("CUVIL_PLANS", "0")
    assert plan_conv(SHAPE) == model_conv_plan(SHAPE)
    assert plan_gemm(20, 40, 30) == model_gemm_plan(20, 40, 30)


def test_tuners_record_a_working_plan(table):
    conv = tune_conv(SHAPE, rounds=1)
    gemm = tune_gemm(9, 40, 33, "packed-b", rounds=1)
    saved = json.loads(tuned.plans_path().read_text())
    assert conv.key in saved["conv"] and gemm.key in saved["gemm"]
    assert conv.candidates > 1 and conv.gflops > 0 and plan_conv(SHAPE) == conv.plan


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(5, 24, 3, padding=1)
        self.fc = nn.Linear(24, 7)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))


def test_the_tuner_times_candidates_after_other_data():
    """Inside a model the layers between two calls of a kernel push its weights out
    of L2: the tuner evicts before every sample instead of timing back to back."""
    order = []
    times = measure(
        [lambda: order.append("a"), lambda: order.append("b")],
        3,
        evict=lambda: order.append("evict"),
    )
    assert len(times) == 2 and all(t >= 0 for t in times)
    samples = "".join("|" if x == "evict" else x for x in order[4:])  # after warm-up
    assert samples.count("|") == 6 and "||" not in samples and samples[0] == "|"
    small = HostInfo("x", frozenset({"avx512f"}), 48 << 10, 2 << 20, 64 << 20)
    evictor(small)()  # 8 MiB of writes: runs, returns


def test_tune_command_records_and_models_still_match(table, tmp_path, capsys):
    model_file = tmp_path / "net.py"
    model_file.write_text(
        "import torch\nfrom torch import nn\n"
        "class Model(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Conv2d(5, 24, 3, padding=1)\n"
        "        self.fc = nn.Linear(24, 7)\n"
        "    def forward(self, x):\n"
        "        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))\n"
        "def example_inputs():\n"
        "    return (torch.randn(1, 5, 9, 8),)\n"
    )
    assert main(["tune", str(model_file), "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "conv" in out and "recorded in" in out
    torch.manual_seed(0)
    model, x = Net().eval(), torch.randn(1, 5, 9, 8)
    jobs = module_shapes(cuvil.compile(model, [x]).module)
    assert [j[0] for j in jobs] == ["conv", "gemm"]
    with torch.no_grad():
        torch.testing.assert_close(
            cuvil.compile(model, [x])(x), model(x), rtol=1e-4, atol=1e-5
        )
