"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1016).

matmul of int64 tensors is legal torch; Cuvil built an invalid cuvil.matmul. Fixed: an exact sum of products in the integer type (frontend/lower_nn.py).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_1016_1.py:49:19: error: 'cuvil.matmul' (cuvil-fuzz-nblnk8tx/fuzz_graph_1016_1.py:49:19 (FX node 'matmul_default')): operands must be float tensors, got tensor<1x1x1x1xi64>
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {"b0": ([1, 8], "int64", [-5, -1, -8, 4, 0, -8, 0, 0], "contiguous")}
INPUTS = [([1, 1, 1, 1], "int64", [0], "contiguous")]


def _t(spec):
    """A tensor from (shape, dtype, values, layout), laid out as the fuzzer made it."""
    if isinstance(spec, torch.Tensor):
        return spec
    shape, dtype, values, layout = spec
    dtype = getattr(torch, dtype)
    x = torch.tensor(values, dtype=torch.float64 if dtype.is_floating_point else None)
    x = x.to(dtype).reshape(shape)
    wide = [d for d, n in enumerate(shape) if n > 1]
    if layout == "transposed" and len(shape) >= 2:
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "strided" and shape:
        buf = torch.zeros(*shape[:-1], 2 * shape[-1], dtype=dtype)
        buf[..., ::2] = x
        return buf[..., ::2]
    if layout == "offset" and shape:
        flat = torch.zeros(x.numel() + 3, dtype=dtype)
        flat[3:] = x.reshape(-1)
        return flat[3:].view(shape)
    if layout == "expanded" and wide:
        return x.narrow(wide[0], 0, 1).expand(*shape)
    return x


def _load(module, prefix):
    keys = module.state_dict().keys()
    module.load_state_dict({k: _t(STATE[f"{prefix}.{k}"]) for k in keys}, assign=True)
    return module.eval()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b0", _t(STATE["b0"]))

    def forward(self, x0):
        v0 = aten.matmul.default(x0, self.b0)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1016, "inputs": [{"shape": [1, 1, 1, 1], "dtype": "int64", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [0]}], "state": {"b0": {"shape": [1, 8], "dtype": "int64", "seed": 393450823, "profile": "edges", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.matmul.default", "kind": "aten", "args": [{"x": 0}, {"p": "b0"}], "kwargs": {}, "family": "matmul", "ctor": null, "module": null}], "outputs": [0]}'
