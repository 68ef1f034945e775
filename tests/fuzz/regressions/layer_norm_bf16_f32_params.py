"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1133).

layer_norm of a bfloat16 input with float32 weights: invalid IR. Fixed in frontend/lower_nn.py (computed in float32, cast back).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_1133_2.py:50:19: error: 'cuvil.layer_norm' (cuvil-fuzz-nblnk8tx/fuzz_graph_1133_2.py:50:19 (FX node 'layer_norm_default')): operand tensor<3xf32> must have the input's element type bf16
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "p0": ([3], "float32", [-3.0, 2.0, -3.0], "contiguous"),
    "p1": (
        [3],
        "float32",
        [-1.2782793045043945, 0.8907110691070557, 0.22246146202087402],
        "contiguous",
    ),
}
INPUTS = [([1, 3], "bfloat16", [-1.0, 0.0, -1.0], "contiguous")]


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
        v0 = aten.layer_norm.default(x0, [3], self.p0, self.p1)
        v1 = v0.cosh()
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1133, "inputs": [{"shape": [1, 3], "dtype": "bfloat16", "seed": 711046155, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {"p0": {"shape": [3], "dtype": "float32", "seed": 1321731911, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p1": {"shape": [3], "dtype": "float32", "seed": 1784784377, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.layer_norm.default", "kind": "aten", "args": [{"x": 0}, [3], {"p": "p0"}, {"p": "p1"}], "kwargs": {}, "family": "layer_norm", "ctor": null, "module": null}, {"call": ".cosh", "kind": "method", "args": [{"v": 0}], "kwargs": {}, "family": "unary[cuvil.cosh]", "ctor": null, "module": null}], "outputs": [1]}'
