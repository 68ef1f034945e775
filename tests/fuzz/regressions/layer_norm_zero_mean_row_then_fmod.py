"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7403987).

Found as: wrong on fx:O0: output 4: non-finite pattern differs at flat index 114: cuvil nan, eager 0.0, float64 0.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
STATE = {

}
INPUTS = [
    ([1, 2, 2, 5], 'bfloat16', [-1.0, -3.0, 2.0, -4.0, 2.0, 3.0, 2.0, 3.0, -4.0, -3.0, -1.0, 1.0, 0.0, 3.0, -2.0, 4.0, 0.0, -1.0, 0.0, -4.0], 'contiguous')
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
        self.m1 = _load(nn.LayerNorm(normalized_shape=[2, 5], eps=1e-05, elementwise_affine=False, bias=True), 'm1')

    def forward(self, x0):
        v0 = self.m1(x0)
        v1 = torch.fmod(x0, v0)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7403987, "inputs": [{"shape": [1, 2, 2, 5], "dtype": "bfloat16", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-1.0, -3.0, 2.0, -4.0, 2.0, 3.0, 2.0, 3.0, -4.0, -3.0, -1.0, 1.0, 0.0, 3.0, -2.0, 4.0, 0.0, -1.0, 0.0, -4.0]}], "state": {}, "nodes": [{"call": "nn.LayerNorm", "kind": "module", "args": [{"x": 0}], "kwargs": {}, "family": "nn.LayerNorm", "ctor": {"normalized_shape": [2, 5], "eps": 1e-05, "elementwise_affine": false, "bias": true}, "module": "m1"}, {"call": "torch.fmod", "kind": "function", "args": [{"x": 0}, {"v": 0}], "kwargs": {}, "family": "binary[cuvil.fmod]", "ctor": null, "module": null}], "outputs": [1]}'
