"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7057063).

scaled_dot_product_attention(q, k, v, is_causal=True) of 4-d q, k, v with a NaN
score row: is_causal without a mask is torch's flash kernel, whose running max skips
a NaN in a row's scalar tail (below 16 keys a row of NaN and -inf scores is zeros,
7000856's rule); Cuvil turned is_causal into a mask before choosing the form and
took the math path's NaN. Fixed: lower_attention._sdpa decides the form first.

Found as: wrong on export:O0: output 0: non-finite pattern differs at flat index 8: cuvil nan, eager 0.0, float64 0.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

STATE = {}
INPUTS = [
    (
        [1, 3, 1, 8],
        "float32",
        [
            -4.0,
            -2.0,
            -1.0,
            -2.0,
            -1.0,
            -4.0,
            -1.0,
            3.0,
            4.0,
            3.0,
            -1.0,
            0.0,
            2.0,
            0.0,
            -2.0,
            -2.0,
            1.0,
            -2.0,
            -4.0,
            -2.0,
            -1.0,
            4.0,
            -4.0,
            4.0,
        ],
        "offset",
    ),
    (
        [1, 3, 1, 8],
        "float32",
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
    (
        [1, 3, 1, 8],
        "float32",
        [
            0.3832409083843231,
            0.2552502453327179,
            1.6703760623931885,
            1.7844897508621216,
            0.7686969041824341,
            0.10676176100969315,
            1.2433075904846191,
            0.936821460723877,
            math.nan,
            0.15543986856937408,
            math.inf,
            1.273606538772583,
            0.23919261991977692,
            math.inf,
            math.nan,
            0.7854666113853455,
            1.3862698078155518,
            0.029729364439845085,
            1.6265567541122437,
            0.3683168888092041,
            0.5878921747207642,
            1.3043862581253052,
            0.23534394800662994,
            0.29517078399658203,
        ],
        "contiguous",
    ),
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
        v0 = F.scaled_dot_product_attention(x1, x2, x0, is_causal=True)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7057063, "inputs": [{"shape": [1, 3, 1, 8], "dtype": "float32", "seed": 1764614103, "profile": "small", "layout": "offset", "low": -8, "high": 8, "values": null}, {"shape": [1, 3, 1, 8], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}, {"shape": [1, 3, 1, 8], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [0.3832409083843231, 0.2552502453327179, 1.6703760623931885, 1.7844897508621216, 0.7686969041824341, 0.10676176100969315, 1.2433075904846191, 0.936821460723877, NaN, 0.15543986856937408, Infinity, 1.273606538772583, 0.23919261991977692, Infinity, NaN, 0.7854666113853455, 1.3862698078155518, 0.029729364439845085, 1.6265567541122437, 0.3683168888092041, 0.5878921747207642, 1.3043862581253052, 0.23534394800662994, 0.29517078399658203]}], "state": {}, "nodes": [{"call": "F.scaled_dot_product_attention", "kind": "function", "args": [{"x": 1}, {"x": 2}, {"x": 0}], "kwargs": {"is_causal": true}, "family": "_sdpa", "ctor": null, "module": null}], "outputs": [0]}'
