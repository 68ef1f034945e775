"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1128).

batch_norm of a bfloat16 input with float32 statistics and weights: invalid IR (operand types differ). Fixed: half-float norms with float32 parameters compute in float32 and cast back, as torch (frontend/lower_nn.py; layer_norm and group_norm too).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_1128_1.py:52:19: error: 'cuvil.batch_norm' (cuvil-fuzz-nblnk8tx/fuzz_graph_1128_1.py:52:19 (FX node 'batch_norm_default')): operand tensor<1xf32> must have the input's element type bf16
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "p0": ([1], "float32", [-0.8830936551094055], "contiguous"),
    "p1": ([1], "float32", [1.144334077835083], "contiguous"),
    "p2": ([1], "float32", [0.038922231644392014], "contiguous"),
    "p3": ([1], "float32", [1.428787350654602], "contiguous"),
}
INPUTS = [([1, 1, 1], "bfloat16", [3.0], "contiguous")]


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
        self.p2 = nn.Parameter(_t(STATE["p2"]), requires_grad=False)
        self.p3 = nn.Parameter(_t(STATE["p3"]), requires_grad=False)

    def forward(self, x0):
        v0 = aten.batch_norm.default(
            x0, self.p0, self.p1, self.p2, self.p3, False, 0.1, 1e-05, False
        )
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1128, "inputs": [{"shape": [1, 1, 1], "dtype": "bfloat16", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"p0": {"shape": [1], "dtype": "float32", "seed": 1575751800, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p1": {"shape": [1], "dtype": "float32", "seed": 1073497720, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p2": {"shape": [1], "dtype": "float32", "seed": 1768656647, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p3": {"shape": [1], "dtype": "float32", "seed": 1632183479, "profile": "positive", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.batch_norm.default", "kind": "aten", "args": [{"x": 0}, {"p": "p0"}, {"p": "p1"}, {"p": "p2"}, {"p": "p3"}, false, 0.1, 1e-05, false], "kwargs": {}, "family": "_aten_batch_norm", "ctor": null, "module": null}], "outputs": [0]}'
