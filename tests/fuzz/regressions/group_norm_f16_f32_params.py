"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1060).

group_norm of a float16 input with float32 weights: invalid IR. Fixed in frontend/lower_resample.py (computed in float32, cast back).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_1060_2.py:50:9: error: 'cuvil.group_norm' (cuvil-fuzz-nblnk8tx/fuzz_graph_1060_2.py:50:9 (FX node 'group_norm_default')): weight/bias must be f16[1], got tensor<1xf32>
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "p0": ([1], "float32", [0.740784227848053], "contiguous"),
    "p1": ([], "float32", [-0.36105141043663025], "contiguous"),
}
INPUTS = [([1, 1], "float16", [3.0], "contiguous")]


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
        self.p0 = nn.Parameter(_t(STATE["p0"]), requires_grad=False)
        self.p1 = nn.Parameter(_t(STATE["p1"]), requires_grad=False)

    def forward(self, x0):
        v0 = aten.group_norm.default(x0, 1, self.p0)
        v1 = torch.hypot(v0, self.p1)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1060, "inputs": [{"shape": [1, 1], "dtype": "float16", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"p0": {"shape": [1], "dtype": "float32", "seed": 1583994267, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p1": {"shape": [], "dtype": "float32", "seed": 1606328277, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.group_norm.default", "kind": "aten", "args": [{"x": 0}, 1, {"p": "p0"}], "kwargs": {}, "family": "group_norm", "ctor": null, "module": null}, {"call": "torch.hypot", "kind": "function", "args": [{"v": 0}, {"p": "p1"}], "kwargs": {}, "family": "binary[cuvil.hypot]", "ctor": null, "module": null}], "outputs": [1]}'
