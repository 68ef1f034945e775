"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1138).

masked_scatter of 0-d tensors: constant folding at O3 called `x.expand()` with no sizes (TypeError). Fixed in ir/ops/shape.py (expand to a 0-d shape).

Found as: crash on fx:O3: TypeError: expand() missing 1 required positional arguments: "size"
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "b0": ([], "bool", [True], "contiguous"),
    "p1": ([], "float32", [0.9044584631919861], "contiguous"),
}
INPUTS = [([], "float32", [3.0], "contiguous")]


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
        self.p1 = nn.Parameter(_t(STATE["p1"]), requires_grad=False)

    def forward(self, x0):
        v0 = aten.masked_scatter.default(x0, self.b0, self.p1)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1138, "inputs": [{"shape": [], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"b0": {"shape": [], "dtype": "bool", "seed": 983991888, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p1": {"shape": [], "dtype": "float32", "seed": 1674641699, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.masked_scatter.default", "kind": "aten", "args": [{"x": 0}, {"p": "b0"}, {"p": "p1"}], "kwargs": {}, "family": "_masked_scatter", "ctor": null, "module": null}], "outputs": [0]}'
