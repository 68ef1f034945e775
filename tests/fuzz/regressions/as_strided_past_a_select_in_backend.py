"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7301288).

Found as: crash on backend:O3: RuntimeError: setStorage: sizes [2], strides [1], storage offset 1, and itemsize 4 requiring a storage size of 12 are out of bounds for storage of size 4
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
STATE = {

}
INPUTS = [
    ([3], 'float32', [-3.0, -4.0, 4.0], 'contiguous')
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
        v0 = x0.select(-1, -2)
        v1 = v0.as_strided([2], [1], 1)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


CONFIGS = ['fx:O0', 'fx:O3', 'export:O0', 'export:O3', 'backend:O3']

EXPECT = 'refused'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7301288, "inputs": [{"shape": [3], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": ".select", "kind": "method", "args": [{"x": 0}, -1, -2], "kwargs": {}, "family": "_select", "ctor": null, "module": null}, {"call": ".as_strided", "kind": "method", "args": [{"v": 0}, [2], [1], 1], "kwargs": {}, "family": "_as_strided", "ctor": null, "module": null}], "outputs": [1]}'
