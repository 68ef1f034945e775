"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 5).

fx records abs(x) as operator.abs and +x as operator.pos; both were refused. Fixed: lowered (frontend/lower_math.py).

Found as: refused on fx:O3: unsupported op 'operator.abs' (graph written by hand)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {}
INPUTS = [
    (
        [3, 4],
        "float32",
        [
            0.6613521575927734,
            0.266924113035202,
            0.06167725846171379,
            0.6213173270225525,
            -0.4519059658050537,
            -0.16613022983074188,
            -1.522768497467041,
            0.38168391585350037,
            -1.0276086330413818,
            -0.563052773475647,
            -0.8922905325889587,
            -0.05825017765164375,
        ],
        "contiguous",
    )
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
        v0 = abs(x0)
        v1 = +v0
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 5, "inputs": [{"shape": [3, 4], "dtype": "float32", "seed": 1, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "builtins.abs", "kind": "operator", "args": [{"x": 0}], "kwargs": {}, "family": "unary[cuvil.abs]", "ctor": null, "module": null}, {"call": "operator.pos", "kind": "operator", "args": [{"v": 0}], "kwargs": {}, "family": "_identity", "ctor": null, "module": null}], "outputs": [1]}'
