"""`cuvil_debug.graph.build_graph`, as the TUI calls it: a module alone (the IR side),
a chosen function, and FX nodes that no op computes marked as folded away."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cuvil_debug.cli import build_parser
from cuvil_debug.diff.capture import capture
from cuvil_debug.graph import build_graph
from cuvil_debug.loader import load_model
from cuvil_debug.tui.command import load_target

ROOT = Path(__file__).resolve().parents[3]


def args_for(spec: str, *argv: str) -> argparse.Namespace:
    """The parsed `graph` command line (what load_target reads)."""
    return build_parser().parse_args(["graph", spec, *argv])


@pytest.fixture(scope="module")
def small_cnn():
    module, _ = load_target(args_for(str(ROOT / "samples/models/small_cnn.py")))
    return module


def test_a_module_alone_draws_the_ir_side_only(small_cnn):
    source = build_graph(small_cnn).source
    assert "subgraph cluster_ir" in source and "cluster_fx" not in source
    assert "cuvil.fused @fused_0" in source and "← block1_relu" in source


def test_the_selected_function_is_drawn(small_cnn):
    source = build_graph(small_cnn, function="@fused_1").source
    assert "optimized IR: @fused_1" in source
    assert "%block2_bn = conv2d" in source and "max_pool2d" not in source


def test_fx_nodes_no_op_computes_are_dashed_and_say_so():
    spec = str(ROOT / "samples/models/transformer_block.py")
    module, _ = load_target(args_for(spec))
    loaded = load_model(spec, None)
    rows = capture(loaded.model, loaded.inputs).rows
    graph = build_graph(module, rows)
    lines = [ln for ln in graph.source.splitlines() if ln.lstrip().startswith("fx")]
    folded = [ln for ln in lines if "no op (folded away)" in ln]
    assert any('label="dropout\\n' in ln for ln in folded)  # eval: dropout is gone
    assert all("dashed" in ln for ln in folded)
    computed = [ln for ln in lines if 'label="fc1\\n' in ln or "ffn_fc1" in ln]
    assert computed and not [ln for ln in computed if "folded away" in ln]
