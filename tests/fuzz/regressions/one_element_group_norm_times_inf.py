"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7401782).

Found as: wrong on fx:O0: output 1: non-finite pattern differs at flat index 1: cuvil nan, eager inf, float64 -inf
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

aten = torch.ops.aten
STATE = {
    'p4': ([1], 'float32', [2.152351140975952], 'contiguous'),
    'p7': ([2, 1], 'float32', [-0.2714652121067047, -math.inf], 'contiguous'),
    'p8': ([2, 1], 'float32', [1.6516510248184204, 0.10018020868301392], 'contiguous')
}
INPUTS = [
    ([2, 1], 'float32', [1.216484546661377, 1.0458943843841553], 'contiguous')
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
        self.p4 = nn.Parameter(_t(STATE['p4']), requires_grad=False)
        self.p7 = nn.Parameter(_t(STATE['p7']), requires_grad=False)
        self.p8 = nn.Parameter(_t(STATE['p8']), requires_grad=False)

    def forward(self, x0):
        v0 = F.group_norm(x0, 1, self.p4, eps=0.1)
        v1 = aten.native_layer_norm.default(v0, [2, 1], self.p7, self.p8, 1e-05)
        v2 = v1[0]
        return (v2,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7401782, "inputs": [{"shape": [2, 1], "dtype": "float32", "seed": 590036298, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"p4": {"shape": [1], "dtype": "float32", "seed": 2117006086, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p7": {"shape": [2, 1], "dtype": "float32", "seed": 2010930352, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p8": {"shape": [2, 1], "dtype": "float32", "seed": 319555088, "profile": "edges", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "F.group_norm", "kind": "function", "args": [{"x": 0}, 1, {"p": "p4"}], "kwargs": {"eps": 0.1}, "family": "group_norm", "ctor": null, "module": null}, {"call": "aten.native_layer_norm.default", "kind": "aten", "args": [{"v": 0}, [2, 1], {"p": "p7"}, {"p": "p8"}, 1e-05], "kwargs": {}, "family": "_native_layer_norm", "ctor": null, "module": null}, {"call": "getitem", "kind": "getitem", "args": [{"v": 1}, 0], "kwargs": {}, "family": "_getitem_tensors", "ctor": null, "module": null}], "outputs": [2]}'
