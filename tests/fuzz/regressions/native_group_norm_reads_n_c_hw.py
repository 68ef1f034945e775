"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7408039).

Found as: wrong on fx:O0: output 1: error 1.18e+04x the tolerance at flat index 1: cuvil 0.38989588618278503, eager -0.9765229821205139, float64 -0.9765230403740119
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    'p1': ([2], 'float32', [0.12813317775726318, -0.9143758416175842], 'contiguous'),
    'p2': ([2], 'float32', [-1.1038495302200317, 0.38989588618278503], 'contiguous')
}
INPUTS = [
    ([2, 2], 'float32', [-3.0, -4.0, 4.0, -2.0], 'contiguous')
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
        self.p1 = nn.Parameter(_t(STATE['p1']), requires_grad=False)
        self.p2 = nn.Parameter(_t(STATE['p2']), requires_grad=False)

    def forward(self, x0):
        v0 = aten.native_group_norm.default(x0, self.p1, self.p2, 1, 2, 2, 2, 0.001)
        v1 = v0[0]
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7408039, "inputs": [{"shape": [2, 2], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"p1": {"shape": [2], "dtype": "float32", "seed": 1420742194, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p2": {"shape": [2], "dtype": "float32", "seed": 582826114, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.native_group_norm.default", "kind": "aten", "args": [{"x": 0}, {"p": "p1"}, {"p": "p2"}, 1, 2, 2, 2, 0.001], "kwargs": {}, "family": "_native_group_norm", "ctor": null, "module": null}, {"call": "getitem", "kind": "getitem", "args": [{"v": 0}, 0], "kwargs": {}, "family": "_getitem_tensors", "ctor": null, "module": null}], "outputs": [1]}'
