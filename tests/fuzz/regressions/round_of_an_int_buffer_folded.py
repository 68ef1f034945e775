"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7002718).

`round()` of an int32 buffer at O3: constant folding ran cuvil.round's reference,
torch.round(x, decimals=0), which has no integer kernel ("round_vml_cpu" not
implemented for 'Int'; eager's x.round() of an integer is the identity): a crash.
Fixed in ir/ops/mathx.py (RoundOp.reference returns an integer tensor as is).

Found as: crash on export:O3: NotImplementedError: "round_vml_cpu" not implemented for 'Int'
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {
    "b1": (
        [1, 7, 3],
        "int32",
        [3, -2, -5, 4, -2, -4, -2, 0, 2, 5, 3, 5, -1, 2, -5, 3, -8, -2, -3, -4, -8],
        "contiguous",
    )
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
        self.register_buffer("b1", _t(STATE["b1"]))

    def forward(self):
        v0 = self.b1.round()
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7002718, "inputs": [], "state": {"b1": {"shape": [1, 7, 3], "dtype": "int32", "seed": 1612212688, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": ".round", "kind": "method", "args": [{"p": "b1"}], "kwargs": {}, "family": "_round", "ctor": null, "module": null}], "outputs": [0]}'
