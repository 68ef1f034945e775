"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7000263).

`x.to(self.p, False, False)` (a parameter or constant as the dtype's tensor): the frontend
read only IR values there and kept x's dtype. Fixed in frontend/lower_math.py.

Found as: crash on fx:O0:   hint: this is a bug in Cuvil's frontend; please report it with the model
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {
    "p2": (
        [3, 8, 2],
        "float16",
        [
            -0.5634765625,
            0.72607421875,
            0.348876953125,
            -1.0,
            0.1611328125,
            0.26806640625,
            -0.057342529296875,
            -0.9033203125,
            0.372314453125,
            -0.0,
            -0.250244140625,
            -0.83544921875,
            -0.6767578125,
            0.466552734375,
            -1.490234375,
            -0.0,
            -0.0,
            -0.0,
            -1.318359375,
            1.91015625,
            -0.78369140625,
            -0.71240234375,
            -0.431884765625,
            1.0,
            0.458251953125,
            1.421875,
            0.08502197265625,
            -0.6845703125,
            -1.7333984375,
            -0.69140625,
            -2.138671875,
            1.0029296875,
            0.163818359375,
            0.496337890625,
            -0.0,
            -0.705078125,
            0.256591796875,
            -0.78857421875,
            0.1221923828125,
            0.07177734375,
            -0.463623046875,
            0.1788330078125,
            -0.70068359375,
            -0.1063232421875,
            -0.10577392578125,
            -0.0,
            -10000.0,
            -0.1810302734375,
        ],
        "contiguous",
    ),
    "p3": (
        [2, 4],
        "float32",
        [
            -1.605420470237732,
            -1.493516206741333,
            0.7929946184158325,
            0.7240159511566162,
            0.24724239110946655,
            -1.7766374349594116,
            -0.01742270216345787,
            -1.0990149974822998,
        ],
        "contiguous",
    ),
}
INPUTS = []


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
        self.p2 = nn.Parameter(_t(STATE["p2"]), requires_grad=False)
        self.p3 = nn.Parameter(_t(STATE["p3"]), requires_grad=False)

    def forward(self):
        v0 = self.p2.to(self.p3, False, False)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7000263, "inputs": [], "state": {"p2": {"shape": [3, 8, 2], "dtype": "float16", "seed": 1796110925, "profile": "edges", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p3": {"shape": [2, 4], "dtype": "float32", "seed": 2113824808, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": ".to", "kind": "method", "args": [{"p": "p2"}, {"p": "p3"}, false, false], "kwargs": {}, "family": "_to", "ctor": null, "module": null}], "outputs": [0]}'
