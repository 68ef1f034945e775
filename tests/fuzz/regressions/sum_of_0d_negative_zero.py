"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7307610).

Found as: wrong on fx:O0: output 3: error 3.14e+05x the tolerance at flat index 0: cuvil -3.140625, eager 0.0, float64 0.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {

}
INPUTS = [
    ([], 'float32', [-0.0], 'contiguous')
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
        v0 = torch.sum(x0, [], dtype=torch.bfloat16)
        v1 = aten.arctan2.default(v0, v0)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7307610, "inputs": [{"shape": [], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-0.0]}], "state": {}, "nodes": [{"call": "torch.sum", "kind": "function", "args": [{"x": 0}, []], "kwargs": {"dtype": {"dtype": "bfloat16"}}, "family": "reduce[cuvil.sum]", "ctor": null, "module": null}, {"call": "aten.arctan2.default", "kind": "aten", "args": [{"v": 0}, {"v": 0}], "kwargs": {}, "family": "binary[cuvil.atan2]", "ctor": null, "module": null}], "outputs": [1]}'
