"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1082).

`clamp_max(x, nan)` returned x; torch returns NaN everywhere. Fixed in frontend/lower_math.py.

Found as: wrong on fx:O0: output 0: non-finite pattern differs at flat index 0: cuvil 4.0, eager nan, float64 nan
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    ([1], "float32", [-3.0], "transposed"),
    ([1], "float32", [-2.0], "strided"),
    ([7], "float32", [-4.0, -4.0, 1.0, -1.0, 4.0, -2.0, 4.0], "contiguous"),
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
        v0 = aten.clamp_max.default(x2, math.nan)
        v1 = torch.chunk(v0, 4, 0)
        v2 = v1[3]
        v3 = torch.concatenate([v2, x0, x1])
        return (v3,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1082, "inputs": [{"shape": [1], "dtype": "float32", "seed": 728272592, "profile": "small", "layout": "transposed", "low": -8, "high": 8, "values": null}, {"shape": [1], "dtype": "float32", "seed": 948463965, "profile": "small", "layout": "strided", "low": -8, "high": 8, "values": null}, {"shape": [7], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten.clamp_max.default", "kind": "aten", "args": [{"x": 2}, NaN], "kwargs": {}, "family": "_clamp_max", "ctor": null, "module": null}, {"call": "torch.chunk", "kind": "function", "args": [{"v": 0}, 4, 0], "kwargs": {}, "family": "_chunk", "ctor": null, "module": null}, {"call": "getitem", "kind": "getitem", "args": [{"v": 1}, 3], "kwargs": {}, "family": "_getitem_tensors", "ctor": null, "module": null}, {"call": "torch.concatenate", "kind": "function", "args": [[{"v": 2}, {"x": 0}, {"x": 1}]], "kwargs": {}, "family": "_cat", "ctor": null, "module": null}], "outputs": [3]}'
