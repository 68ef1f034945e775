"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7054551).

torch.addmm(x0, x1, x2, alpha=-0.0) with an inf in x2. torch's CPU addmm of float32 and
float64 hands alpha to BLAS gemm, which does not read the product when alpha is 0
(beta 0 likewise ignores the bias, as documented); Cuvil multiplied inf by 0: NaN.
16-bit addmm multiplies the product in eager too (NaN there, kept). Fixed:
frontend/lower_nn.py (_addmm).

Found as: wrong on fx:O0: output 0: non-finite pattern differs at flat index 3: cuvil nan, eager 2.0, float64 2.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

STATE = {}
INPUTS = [
    ([1, 4], "float32", [-2.0, -1.0, -1.0, 2.0], "contiguous"),
    ([1, 1], "float32", [-4.0], "expanded"),
    (
        [1, 4],
        "float32",
        [-1.6309608221054077, -0.8196627497673035, 1.01713228225708, -math.inf],
        "transposed",
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
        v0 = torch.addmm(x0, x1, x2, alpha=-0.0)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7054551, "inputs": [{"shape": [1, 4], "dtype": "float32", "seed": 1809657403, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}, {"shape": [1, 1], "dtype": "float32", "seed": 1293962436, "profile": "small", "layout": "expanded", "low": -8, "high": 8, "values": null}, {"shape": [1, 4], "dtype": "float32", "seed": 30180501, "profile": "nonfinite", "layout": "transposed", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "torch.addmm", "kind": "function", "args": [{"x": 0}, {"x": 1}, {"x": 2}], "kwargs": {"alpha": -0.0}, "family": "_addmm", "ctor": null, "module": null}], "outputs": [0]}'
