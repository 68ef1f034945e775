"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7308165).

Found as: wrong on fx:O0: output 3: non-finite pattern differs at flat index 6: cuvil nan, eager -inf, float64 1.6239637567217928
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {

}
INPUTS = [
    ([7, 3], 'float32', [1.0, -1.7660067081451416, -0.333152174949646, 1.730911374092102, -1.1917178630828857, 0.826874852180481, 3.3999999521443642e+38, 0.22033481299877167, 0.472114235162735, -1.4955458641052246, 0.0, 0.1654394418001175, 0.25299185514450073, 3.3999999521443642e+38, 0.2841207981109619, 0.4619741439819336, -0.24193038046360016, -1.4193123579025269, -0.5422661900520325, -0.7484152913093567, -2.0824215412139893], 'offset')
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
        v0 = aten.layer_norm.default(x0, [7, 3])
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7308165, "inputs": [{"shape": [7, 3], "dtype": "float32", "seed": 350526738, "profile": "edges", "layout": "offset", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten.layer_norm.default", "kind": "aten", "args": [{"x": 0}, [7, 3]], "kwargs": {}, "family": "layer_norm", "ctor": null, "module": null}], "outputs": [0]}'
