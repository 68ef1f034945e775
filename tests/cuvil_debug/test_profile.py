"""`cuvil-debug profile`: the per-FX-node table from the kernels' cycle counters and the
Trace Event Format JSON of one call. Sanity checks on times only (> 0, inside the call)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import torch.fx

from cuvil_debug.cli import main
from cuvil_debug.loader import load_model
from cuvil_debug.profile_cmd import cycles_per_second

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "samples" / "models" / "mlp.py")
CNN = str(ROOT / "samples" / "models" / "small_cnn.py")


def _fx_nodes(spec: str) -> set[str]:
    return {n.name for n in torch.fx.symbolic_trace(load_model(spec).model).graph.nodes}


def test_profile_lists_fx_nodes_slowest_first_with_their_shares(capsys):
    assert main(["profile", MLP, "--calls", "5", "--warmup", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(
        r"^(\S+)\s+(cuvil\.\S+)\s+(cuvil_k\S+)\s+([\d.]+)\s+([\d.]+)%", out, re.M
    )
    assert rows, out
    times = [float(r[3]) for r in rows]
    assert times == sorted(times, reverse=True)
    assert abs(sum(float(r[4]) for r in rows) - 100) < 1  # shares of the total
    nodes = {n for r in rows for n in r[0].split(",")}
    assert {"fc1", "fc2", "fc3"} <= nodes <= _fx_nodes(MLP)
    assert "us per call" in out


def test_trace_has_one_complete_event_per_kernel_named_by_fx_node(tmp_path, capsys):
    trace = tmp_path / "trace.json"
    assert main(["profile", CNN, "--calls", "2", "--trace", str(trace)]) == 0
    capsys.readouterr()
    events = json.loads(trace.read_text())["traceEvents"]
    call = [e for e in events if e["cat"] == "call"]
    kernels = [e for e in events if e["cat"] == "kernel"]
    assert len(call) == 1 and len(kernels) == len(
        {e["args"]["kernel"] for e in kernels}
    )
    table = main(["profile", CNN, "--calls", "1", "--warmup", "0"])
    listed = set(re.findall(r"cuvil_k\d+_\w+", capsys.readouterr().out))
    assert table == 0 and {e["args"]["kernel"] for e in kernels} == listed
    fx = _fx_nodes(CNN)
    for e in events:
        assert e["ph"] == "X" and e["dur"] > 0 and e["ts"] > 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
    for e in kernels:
        assert set(e["name"].split(",")) <= fx and e["args"]["op"].startswith("cuvil.")
    # kernels are laid end to end from the call's start, inside it
    for before, after in zip(kernels, kernels[1:], strict=False):
        assert after["ts"] >= before["ts"]
    spent = sum(e["dur"] for e in kernels)
    assert 0 < spent <= call[0]["dur"] * 1.05


def test_trace_is_not_written_over_a_file_without_force(tmp_path, capsys):
    trace = tmp_path / "trace.json"
    trace.write_text("mine\n")
    assert main(["profile", MLP, "--trace", str(trace)]) == 2
    assert "--force" in capsys.readouterr().err and trace.read_text() == "mine\n"
    assert main(["profile", MLP, "--calls", "1", "--trace", str(trace), "--force"]) == 0
    assert json.loads(trace.read_text())["traceEvents"]


def test_cycle_counter_rate_is_measured():
    assert cycles_per_second() > 1e6  # a counter of at least MHz; the TSC is GHz
