"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7303226).

Found as: wrong on export:O0: output 1: error 1.97e+04x the tolerance at flat index 1: cuvil -0.7131780385971069, eager 0.43098512291908264, float64 0.43098512291908264
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
STATE = {

}
INPUTS = [
    ([1, 2, 4], 'float32', [-4.0, -4.0, 1.0, -1.0, 4.0, -2.0, 4.0, -2.0], 'transposed')
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
        v0 = torch.max_pool1d(x0, [2])
        v1 = torch.as_strided(v0, [2], [1])
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7303226, "inputs": [{"shape": [1, 2, 4], "dtype": "float32", "seed": 0, "profile": "small", "layout": "transposed", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "torch.max_pool1d", "kind": "function", "args": [{"x": 0}, [2]], "kwargs": {}, "family": "max_pool[cuvil.max_pool1d]", "ctor": null, "module": null}, {"call": "torch.as_strided", "kind": "function", "args": [{"v": 0}, [2], [1]], "kwargs": {}, "family": "_as_strided", "ctor": null, "module": null}], "outputs": [1]}'
