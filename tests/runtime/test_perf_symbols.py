"""JIT'd kernels named to Linux perf: the /tmp/perf-PID.map lines (perfmap.py), and a
real ``perf record`` + ``perf report`` naming a kernel with its FX node."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch import nn

import cuvil
from cuvil.runtime import perfmap

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "samples" / "models" / "mlp.py"

# a subprocess that compiles the sample MLP (CUVIL_PERF=1 from its environment) at
# batch 64 and calls it for ~1.5 s; it prints its kernels' FX nodes
LOOP = f"""
import json, os, time, torch, cuvil
from cuvil_debug.loader import load_model
m = load_model({str(MLP)!r})
x = m.inputs[0].repeat(64, 1)
cm = cuvil.compile(m.model, [x])
assert cm.jit.perf, "CUVIL_PERF=1 did not switch perf on"
end = time.monotonic() + 1.5
while time.monotonic() < end:
    cm(x)
print(json.dumps({{"pid": os.getpid(), "nodes": [list(k.nodes) for k in cm.kernels]}}))
"""


def _model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 8)).eval()
    return model, torch.randn(4, 64)


def _map_lines(path: Path) -> list[tuple[int, int, str]]:
    rows = []
    for line in path.read_text().splitlines():
        start, size, name = line.split(" ", 2)
        rows.append((int(start, 16), int(size, 16), name))
    return rows


@pytest.fixture
def own_map():
    """This process's map, removed afterwards if the test created it."""
    path = perfmap.map_path()
    existed = path.exists()
    yield path
    if not existed:
        path.unlink(missing_ok=True)


def test_perf_option_maps_every_kernel_with_its_op_and_fx_nodes(own_map):
    model, x = _model()
    cm = cuvil.compile(model, [x], options={"perf": True})
    rows = _map_lines(cm.jit.perf_map)
    assert cm.jit.perf_map == own_map == Path(f"/tmp/perf-{os.getpid()}.map")
    names = {name.split(" ")[0]: name for _, _, name in rows}
    for k in cm.kernels:
        assert names[k.symbol] == f"{k.symbol} [{k.op_name} {','.join(k.nodes)}]"
    entry = cm.jit.symbol_address("cuvil_main")
    assert any(s <= entry < s + n for s, n, name in rows if name == "cuvil_main")
    torch.testing.assert_close(cm(x), model(x), rtol=1e-4, atol=1e-5)


def test_perf_off_leaves_the_code_and_the_map_alone(own_map):
    model, x = _model()
    path = own_map
    before = path.read_text() if path.exists() else None
    off = cuvil.compile(model, [x])
    assert not off.jit.perf and not hasattr(off.jit, "perf_map")
    assert (path.read_text() if path.exists() else None) == before
    on = cuvil.compile(model, [x], options={"perf": True})
    # off, kernels may be inlined into the entry; on, each stays a function
    assert "noinline" not in off.llvm_ir() and "noinline" in on.llvm_ir()


def _perf_unusable() -> str | None:
    perf = shutil.which("perf")
    if perf is None:
        return "no perf binary on PATH (install linux-perf / linux-tools)"
    paranoid = Path("/proc/sys/kernel/perf_event_paranoid")
    level = int(paranoid.read_text()) if paranoid.exists() else 2
    if level > 2:
        return f"perf_event_paranoid is {level}: user-space sampling is forbidden"
    probe = subprocess.run(
        [perf, "record", "-e", "cpu-clock", "-o", os.devnull, "--", "true"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        return f"perf record cannot sample here: {probe.stderr.strip()[-200:]}"
    return None


@pytest.mark.slow  # perf record + report of a torch process: ~25 s under load
def test_perf_report_names_a_cuvil_kernel_with_its_fx_node(tmp_path):
    reason = _perf_unusable()
    if reason:
        pytest.skip(reason)
    data = tmp_path / "perf.data"
    env = {**os.environ, perfmap.ENV: "1"}
    run = subprocess.run(
        ["perf", "record", "-e", "cpu-clock", "-F", "999", "-o", str(data), "--"]
        + [sys.executable, "-c", LOOP],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    child = json.loads(run.stdout.splitlines()[-1])
    nodes = {n for kernel in child["nodes"] for n in kernel}
    report = subprocess.run(
        ["perf", "report", "-i", str(data), "--stdio", "--sort", "sym"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    perfmap.map_path(child["pid"]).unlink(missing_ok=True)
    named = re.findall(r"\[\.\] (cuvil_\w+) \[([^\]]*)\]", report.stdout)
    assert named, report.stdout[:3000]
    shown = {n for _, label in named for n in re.split(r"[ ,]", label)}
    assert shown & nodes, (named, nodes)
