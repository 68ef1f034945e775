"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 4147).

`scatter_add` with a 0-d src: invalid IR. Fixed: torch reads a 0-d src as [1, ..., 1] (frontend/lower_index.py).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_4147_1.py:48:9: error: 'cuvil.scatter' (cuvil-fuzz-nblnk8tx/fuzz_graph_4147_1.py:48:9 (FX node 'scatter_add')): src tensor<f32> must have x's rank and element type (tensor<1xf32>)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {}
INPUTS = [
    ([1], "int64", [0], "contiguous"),
    ([], "float32", [3.0], "contiguous"),
    ([1], "float32", [3.0], "contiguous"),
]


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

    def forward(self, x0, x1, x2):
        v0 = torch.scatter_add(x2, -1, x0, x1)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 4147, "inputs": [{"shape": [1], "dtype": "int64", "seed": 1259766080, "profile": "normal", "layout": "contiguous", "low": 0, "high": 1, "values": null}, {"shape": [], "dtype": "float32", "seed": 963263529, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}, {"shape": [1], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "torch.scatter_add", "kind": "function", "args": [{"x": 2}, -1, {"x": 0}, {"x": 1}], "kwargs": {}, "family": "_scatter_add", "ctor": null, "module": null}], "outputs": [0]}'
