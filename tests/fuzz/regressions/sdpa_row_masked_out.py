"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 3).

scaled_dot_product_attention with a row masked out entirely gave NaN; torch's safe softmax gives zeros. Fixed in frontend/lower_nn.py.

Found as: wrong on fx:O3: NaN where eager gives 0 (the first query's row is masked out) (graph written by hand)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

STATE = {
    "b0": (
        [3, 3],
        "bool",
        [False, False, False, True, False, True, True, True, True],
        "contiguous",
    )
}
INPUTS = [
    (
        [2, 3, 4],
        "float32",
        [
            -0.31128954887390137,
            -0.7130302786827087,
            -0.7290681600570679,
            -0.2992023229598999,
            -0.2528984546661377,
            -0.36017999053001404,
            0.9393532872200012,
            1.1614207029342651,
            0.09412786364555359,
            0.5119431614875793,
            0.5962195992469788,
            1.2911149263381958,
            1.7540736198425293,
            -0.41492167115211487,
            -0.9922212362289429,
            -0.29860085248947144,
            -1.9285833835601807,
            -0.2710079550743103,
            -0.13592053949832916,
            2.5745460987091064,
            -0.5228502750396729,
            0.9862589836120605,
            0.2923433184623718,
            1.0146405696868896,
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
        self.register_buffer("b0", _t(STATE["b0"]))

    def forward(self, x0):
        v0 = F.scaled_dot_product_attention(x0, x0, x0, attn_mask=self.b0)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 3, "inputs": [{"shape": [2, 3, 4], "dtype": "float32", "seed": 1, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"b0": {"shape": [3, 3], "dtype": "bool", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [false, false, false, true, false, true, true, true, true]}}, "nodes": [{"call": "F.scaled_dot_product_attention", "kind": "function", "args": [{"x": 0}, {"x": 0}, {"x": 0}], "kwargs": {"attn_mask": {"p": "b0"}}, "family": "_sdpa", "ctor": null, "module": null}], "outputs": [0]}'
