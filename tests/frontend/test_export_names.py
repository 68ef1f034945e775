"""torch.export's nodes carry torch.fx's names (compiler/frontend/export_names.py): a
node a user names to the debugger, ``--inject`` or ``break_on`` is the same node under
either frontend."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import cuvil
from cuvil.frontend import lower
from cuvil.frontend.export_names import fx_style_names
from cuvil.frontend.inplace import functionalize
from cuvil_debug import load_model

SAMPLES = ["mlp", "small_cnn", "transformer_block", "resnet18"]
# fx nodes with no export counterpart: Python-side getattr/getitem of x.shape, and `/`
# (fx's operator.truediv, export's aten.div)
FX_ONLY = ("getattr", "getitem", "truediv")


def _ir_nodes(module) -> set[str]:
    return {p.node for op in module.main.ops for p in op.loc.parts if p.node}


@pytest.mark.parametrize("name", SAMPLES)
def test_every_fx_node_of_a_sample_has_its_name_under_export(name):
    loaded = load_model(f"samples/models/{name}.py")
    model, inputs = loaded.model.eval(), list(loaded.inputs)
    fx_names = {
        n.name
        for n in torch.fx.symbolic_trace(model).graph.nodes
        if n.op in ("call_module", "call_function", "call_method")
        and not n.name.startswith(FX_ONLY)
    }
    ep = functionalize(torch.export.export(model, tuple(inputs)))
    assert fx_names <= set(fx_style_names(ep.graph).values())
    # and the IR's locations say so
    fx_ir = _ir_nodes(lower(model, inputs, "fx")) - {"truediv"}
    export_ir = _ir_nodes(lower(model, inputs, "export")) - {"div"}
    assert fx_ir == {n for n in export_ir if not n.startswith("getitem")}


class Shared(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.ReLU()
        self.norm = nn.BatchNorm1d(4)

    def forward(self, x):
        y = self.act(self.fc(x))
        y += x  # an in-place add: export's add_, fx's add
        y = self.norm(self.act(y))
        return y.view(2, 2, 4).sum(-1)


def test_a_reused_module_in_place_ops_and_multi_result_ops_get_fx_names():
    model, x = Shared().eval(), torch.randn(4, 4)
    fx = [
        n.name
        for n in torch.fx.symbolic_trace(model).graph.nodes
        if n.op != "placeholder" and n.op != "output"
    ]
    ep = functionalize(torch.export.export(model, (x,)))
    names = fx_style_names(ep.graph)
    assert fx == ["fc", "act", "add", "act_1", "norm", "view", "sum_1"]
    # the batch norm's value is named at the op that computes it, not its getitem
    carried = [v for v in names.values() if not v.startswith("getitem")]
    assert carried == fx  # fx's sum_1 too: neither shadows the builtin
    cm = cuvil.compile(model, [x], options={"frontend": "export"})
    torch.testing.assert_close(cm(x), model(x), rtol=1e-4, atol=1e-5)
    # break_on finds the node by its fx name (the trap is not run here: it would stop
    # this process; tests/debuggers run it under gdb)
    options = {"frontend": "export", "opt_level": "O0", "break_on": ["norm"]}
    text = cuvil.compile(model, [x], options=options).llvm_ir()
    assert '@"llvm.debugtrap"' in text


def test_an_exported_program_the_caller_gave_keeps_its_names():
    model, x = Shared().eval(), torch.randn(4, 4)
    ep = torch.export.export(model, (x,))
    before = [n.name for n in ep.graph.nodes]
    module = lower(ep, [x], "export")
    assert "fc" in _ir_nodes(module)
    assert [n.name for n in ep.graph.nodes] == before
    torch.testing.assert_close(ep.module()(x), model(x))
