"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7001144).

layer_norm of a constant row (fourteen 3.0, an expanded input) gave -3e-4 where eager
gives 0: the float32 mean (the sum times 1/14) was an ulp off, and rstd = 1/sqrt(eps)
~ 316 magnified the deviation. Fixed in codegen/reduce.py (_row_moments: mean and
variance in float64, the mean a division, the row normalised in float64).

Found as: wrong on fx:O0: output 0: error 31.5x the tolerance at flat index 7: cuvil -0.0003148159885313362, eager 0.0, float64 0.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

aten = torch.ops.aten
STATE = {
    "p1": (
        [7, 2],
        "float32",
        [
            -0.25194433331489563,
            0.5607170462608337,
            -1.9103995561599731,
            -0.45838916301727295,
            -0.6025380492210388,
            1.3687312602996826,
            0.05537967383861542,
            2.087789297103882,
            -0.373197078704834,
            -0.4072783887386322,
            1.61851167678833,
            -0.9314265847206116,
            -0.8365795016288757,
            0.6397203803062439,
        ],
        "contiguous",
    )
}
INPUTS = [([1, 1, 1], "float32", [3.0], "expanded")]


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
        self.p1 = nn.Parameter(_t(STATE["p1"]), requires_grad=False)

    def forward(self, x0):
        v0 = aten.new_full.default(x0, [2, 7, 2], 3)
        v1 = F.layer_norm(v0, [7, 2], self.p1)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7001144, "inputs": [{"shape": [1, 1, 1], "dtype": "float32", "seed": 0, "profile": "small", "layout": "expanded", "low": -8, "high": 8, "values": null}], "state": {"p1": {"shape": [7, 2], "dtype": "float32", "seed": 1174179483, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.new_full.default", "kind": "aten", "args": [{"x": 0}, [2, 7, 2], 3], "kwargs": {}, "family": "new[None]", "ctor": null, "module": null}, {"call": "F.layer_norm", "kind": "function", "args": [{"v": 0}, [7, 2], {"p": "p1"}], "kwargs": {}, "family": "layer_norm", "ctor": null, "module": null}], "outputs": [1]}'
