"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7408438).

Found as: wrong on fx:O0: output 4: non-finite pattern differs at flat index 0: cuvil 0.0, eager nan, float64 nan
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    'p1': ([3], 'float32', [-0.11438807100057602, -0.5084912776947021, -0.40389224886894226], 'contiguous')
}
INPUTS = [
    ([1, 3], 'float32', [1.3098104000091553, 1.3098104000091553, 1.3098104000091553], 'contiguous')
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

    def forward(self, x0):
        v0 = aten.group_norm.default(x0, 1, self.p1)
        v1 = torch.log(v0)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7408438, "inputs": [{"shape": [1, 3], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [1.3098104000091553, 1.3098104000091553, 1.3098104000091553]}], "state": {"p1": {"shape": [3], "dtype": "float32", "seed": 1956704434, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.group_norm.default", "kind": "aten", "args": [{"x": 0}, 1, {"p": "p1"}], "kwargs": {}, "family": "group_norm", "ctor": null, "module": null}, {"call": "torch.log", "kind": "function", "args": [{"v": 0}], "kwargs": {}, "family": "unary[cuvil.log]", "ctor": null, "module": null}], "outputs": [1]}'
