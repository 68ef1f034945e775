"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1142).

Linear upsampling to the same size copied the input; ATen computes x*1 + x*0 there, so an inf becomes NaN. Fixed in codegen/resample.py.

Found as: wrong on fx:O0: output 0: non-finite pattern differs at flat index 3: cuvil -inf, eager nan, float64 nan
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    (
        [1, 2, 3],
        "float32",
        [
            -2.479794979095459,
            -0.7970561981201172,
            1.5448426008224487,
            -math.inf,
            math.inf,
            -0.28720343112945557,
        ],
        "contiguous",
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

    def forward(self, x0):
        v0 = aten.upsample_linear1d.default(x0, [3], False)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1142, "inputs": [{"shape": [1, 2, 3], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-2.479794979095459, -0.7970561981201172, 1.5448426008224487, -Infinity, Infinity, -0.28720343112945557]}], "state": {}, "nodes": [{"call": "aten.upsample_linear1d.default", "kind": "aten", "args": [{"x": 0}, [3], false], "kwargs": {}, "family": "upsample[linear]", "ctor": null, "module": null}], "outputs": [0]}'
