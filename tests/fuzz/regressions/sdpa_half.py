"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 4).

scaled_dot_product_attention of float16 computed in half (several roundings). Fixed: in float and cast back, as torch's CPU kernels (frontend/lower_nn.py).

Found as: wrong on fx:O3: 5x the tolerance (-0.2383 where eager gives -0.2408) (graph written by hand)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    ([1, 3], "float16", [-3.0, -4.0, 4.0], "contiguous"),
    (
        [8, 3],
        "float16",
        [
            1.0,
            4.0,
            1.0,
            3.0,
            -1.0,
            -2.0,
            -3.0,
            3.0,
            3.0,
            -2.0,
            0.0,
            0.0,
            -3.0,
            -3.0,
            -3.0,
            1.0,
            3.0,
            3.0,
            4.0,
            -3.0,
            1.0,
            -1.0,
            -3.0,
            -1.0,
        ],
        "contiguous",
    ),
    ([8, 1], "float16", [-4.0, -4.0, 1.0, -1.0, 4.0, -2.0, 4.0, -2.0], "contiguous"),
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
        v0 = aten.scaled_dot_product_attention.default(x0, x1, x2)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 4, "inputs": [{"shape": [1, 3], "dtype": "float16", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-3.0, -4.0, 4.0]}, {"shape": [8, 3], "dtype": "float16", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [1.0, 4.0, 1.0, 3.0, -1.0, -2.0, -3.0, 3.0, 3.0, -2.0, 0.0, 0.0, -3.0, -3.0, -3.0, 1.0, 3.0, 3.0, 4.0, -3.0, 1.0, -1.0, -3.0, -1.0]}, {"shape": [8, 1], "dtype": "float16", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-4.0, -4.0, 1.0, -1.0, 4.0, -2.0, 4.0, -2.0]}], "state": {}, "nodes": [{"call": "aten.scaled_dot_product_attention.default", "kind": "aten", "args": [{"x": 0}, {"x": 1}, {"x": 2}], "kwargs": {}, "family": "_sdpa", "ctor": null, "module": null}], "outputs": [0]}'
