"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7000856).

scaled_dot_product_attention of 3-d tensors whose first query row holds -inf and NaN:
every score of that row is NaN. torch's math path (taken for anything but 4-d q, k, v
of one batch and head size without a mask) gives NaN there; Cuvil gave zeros, as
torch's 4-d flash kernel does (its running max skips a NaN in a row's scalar tail).
Fixed in frontend/lower_attention.py (_flash_form: the row is dead only when all its
scores are -inf, except in the flash form).

Found as: wrong on backend:O3: output 0: non-finite pattern differs at flat index 1: cuvil 0.0, eager nan, float64 nan
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
        [8, 1, 6],
        "float32",
        [
            -1.0,
            4.0,
            2.0,
            1.0,
            2.0,
            -1.0,
            -3.0,
            2.0,
            4.0,
            0.0,
            -4.0,
            1.0,
            0.0,
            -3.0,
            -1.0,
            3.0,
            -2.0,
            -2.0,
            3.0,
            -3.0,
            3.0,
            -3.0,
            2.0,
            0.0,
            0.0,
            -3.0,
            4.0,
            -4.0,
            0.0,
            1.0,
            -2.0,
            -2.0,
            -1.0,
            4.0,
            3.0,
            -2.0,
            -4.0,
            4.0,
            2.0,
            -2.0,
            1.0,
            -4.0,
            -4.0,
            -2.0,
            -4.0,
            -1.0,
            3.0,
            4.0,
        ],
        "contiguous",
    ),
    (
        [8, 1, 6],
        "float32",
        [
            -math.inf,
            0.11967486888170242,
            0.03250621631741524,
            -0.15306846797466278,
            math.nan,
            -0.15942595899105072,
            -0.05902290716767311,
            1.0122547149658203,
            1.4669069051742554,
            1.2508474588394165,
            -1.7473154067993164,
            0.3322962820529938,
            -math.inf,
            0.11967486888170242,
            0.03250621631741524,
            -0.15306846797466278,
            math.nan,
            -0.15942595899105072,
            -0.05902290716767311,
            1.0122547149658203,
            1.4669069051742554,
            1.2508474588394165,
            -1.7473154067993164,
            0.3322962820529938,
            0.7624109983444214,
            0.49235543608665466,
            1.3676084280014038,
            0.9137936234474182,
            math.inf,
            -0.6216075420379639,
            -0.05902290716767311,
            1.0122547149658203,
            1.4669069051742554,
            1.2508474588394165,
            -1.7473154067993164,
            0.3322962820529938,
            math.nan,
            2.789285182952881,
            0.1564711630344391,
            0.5725979804992676,
            -1.4631853103637695,
            0.1735825389623642,
            0.7624109983444214,
            0.49235543608665466,
            1.3676084280014038,
            0.9137936234474182,
            math.inf,
            -0.6216075420379639,
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

    def forward(self, x0, x1):
        v0 = aten.scaled_dot_product_attention.default(x1, x0, x1, dropout_p=0.0)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


CONFIGS = ["fx:O0", "fx:O3", "export:O0", "export:O3", "backend:O3"]

EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7000856, "inputs": [{"shape": [8, 1, 6], "dtype": "float32", "seed": 350703563, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}, {"shape": [8, 1, 6], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-Infinity, 0.11967486888170242, 0.03250621631741524, -0.15306846797466278, NaN, -0.15942595899105072, -0.05902290716767311, 1.0122547149658203, 1.4669069051742554, 1.2508474588394165, -1.7473154067993164, 0.3322962820529938, -Infinity, 0.11967486888170242, 0.03250621631741524, -0.15306846797466278, NaN, -0.15942595899105072, -0.05902290716767311, 1.0122547149658203, 1.4669069051742554, 1.2508474588394165, -1.7473154067993164, 0.3322962820529938, 0.7624109983444214, 0.49235543608665466, 1.3676084280014038, 0.9137936234474182, Infinity, -0.6216075420379639, -0.05902290716767311, 1.0122547149658203, 1.4669069051742554, 1.2508474588394165, -1.7473154067993164, 0.3322962820529938, NaN, 2.789285182952881, 0.1564711630344391, 0.5725979804992676, -1.4631853103637695, 0.1735825389623642, 0.7624109983444214, 0.49235543608665466, 1.3676084280014038, 0.9137936234474182, Infinity, -0.6216075420379639]}], "state": {}, "nodes": [{"call": "aten.scaled_dot_product_attention.default", "kind": "aten", "args": [{"x": 1}, {"x": 0}, {"x": 1}], "kwargs": {"dropout_p": 0.0}, "family": "_sdpa", "ctor": null, "module": null}], "outputs": [0]}'
