"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7000285).

native_layer_norm's mean of a row holding an infinity: torch's running (Welford) mean is NaN
there, Cuvil's sum gave -inf. Fixed in frontend/lower_nn.py (_welford_mean).

Found as: wrong on fx:O0: output 1: non-finite pattern differs at flat index 4: cuvil -inf, eager nan, float64 nan
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "p0": ([2], "float32", [0.7165902256965637, -2.427096128463745], "contiguous"),
    "p1": ([2], "float32", [-0.8840480446815491, -0.4324353337287903], "contiguous"),
}
INPUTS = [
    (
        [4, 1, 2],
        "float32",
        [
            -0.48350250720977783,
            -0.10877751559019089,
            math.nan,
            1.9188687801361084,
            -math.inf,
            0.4459392726421356,
            -2.17057728767395,
            -0.000642916711512953,
        ],
        "transposed",
    )
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
        self.p0 = nn.Parameter(_t(STATE["p0"]), requires_grad=False)
        self.p1 = nn.Parameter(_t(STATE["p1"]), requires_grad=False)

    def forward(self, x0):
        v0 = aten.native_layer_norm.default(x0, [2], self.p0, self.p1, 0.1)
        v1 = v0[1]
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7000285, "inputs": [{"shape": [4, 1, 2], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "transposed", "low": -8, "high": 8, "values": [-0.48350250720977783, -0.10877751559019089, NaN, 1.9188687801361084, -Infinity, 0.4459392726421356, -2.17057728767395, -0.000642916711512953]}], "state": {"p0": {"shape": [2], "dtype": "float32", "seed": 2052009431, "profile": "edges", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p1": {"shape": [2], "dtype": "float32", "seed": 50234084, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.native_layer_norm.default", "kind": "aten", "args": [{"x": 0}, [2], {"p": "p0"}, {"p": "p1"}, 0.1], "kwargs": {}, "family": "_native_layer_norm", "ctor": null, "module": null}, {"call": "getitem", "kind": "getitem", "args": [{"v": 0}, 1], "kwargs": {}, "family": "_getitem_tensors", "ctor": null, "module": null}], "outputs": [1]}'
