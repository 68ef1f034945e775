"""Every op lowered from a sample model carries its provenance: the FX node name, and the
sample file's line that produced it (node_loc in provenance.py), with both frontends."""

from __future__ import annotations

import importlib.util
import linecache
from functools import cache
from pathlib import Path

import pytest
import torch
from lowering_checks import FRONTENDS

from cuvil.frontend import lower
from cuvil.frontend.fx import trace
from cuvil.ir import Module
from cuvil.ir.location import Loc

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"
NAMES = ["mlp", "small_cnn", "resnet18", "transformer_block"]


@cache
def lowered(name: str, frontend: str) -> Module:
    spec = importlib.util.spec_from_file_location(
        f"sample_{name}", SAMPLES / f"{name}.py"
    )
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    return lower(sample.Model().eval(), sample.example_inputs(), frontend=frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", NAMES)
def test_every_op_points_at_a_line_of_the_sample_file(name, frontend):
    path = SAMPLES / f"{name}.py"
    n_lines = len(path.read_text().splitlines())
    for op in lowered(name, frontend).main.ops:
        loc = op.loc
        assert isinstance(loc, Loc) and not loc.is_unknown, op
        assert loc.file and Path(loc.file).resolve() == path, (op, loc)
        assert loc.line and 1 <= loc.line <= n_lines, (op, loc)
        assert linecache.getline(str(path), loc.line).strip(), (op, loc)
        assert loc.col and loc.col >= 1, (op, loc)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", NAMES)
def test_every_op_names_its_fx_node(name, frontend):
    module = lowered(name, frontend)
    text = str(module)
    for op in module.main.ops:
        assert op.loc.node, op
        assert f'"{op.loc.node}"' in text


@pytest.mark.parametrize("name", NAMES)
def test_fx_locations_name_nodes_of_the_traced_graph(name):
    spec = importlib.util.spec_from_file_location(
        f"sample_{name}", SAMPLES / f"{name}.py"
    )
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    nodes = {n.name for n in trace(sample.Model().eval()).graph.nodes}
    assert {op.loc.node for op in lowered(name, "fx").main.ops} <= nodes


@pytest.mark.parametrize("name", NAMES)
def test_both_frontends_place_each_op_on_the_same_line(name):
    fx, export = lowered(name, "fx").main.ops, lowered(name, "export").main.ops
    assert [op.name for op in fx] == [op.name for op in export]
    assert [op.loc.line for op in fx] == [op.loc.line for op in export]


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_module_paths_of_the_transformer_block_name_its_submodules(frontend):
    ops = lowered("transformer_block", frontend).main.ops
    linears = [op.loc.module for op in ops if op.name == "cuvil.linear"]
    assert linears == [
        "attn.q_proj",
        "attn.k_proj",
        "attn.v_proj",
        "attn.out_proj",
        "ffn.fc1",
        "ffn.fc2",
    ]
    (softmax,) = [op for op in ops if op.name == "cuvil.softmax"]
    assert softmax.loc.module == "attn"
    assert "torch.softmax" in linecache.getline(
        str(SAMPLES / "transformer_block.py"), softmax.loc.line
    )


def test_params_keep_the_model_parameter_names():
    module = lowered("mlp", "fx")
    assert set(module.params) == {
        f"fc{i}.{p}" for i in (1, 2, 3) for p in ("weight", "bias")
    }
    assert torch.equal(
        module.param_data["fc1.bias"], lowered("mlp", "export").param_data["fc1.bias"]
    )
