"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1090).

`hardtanh` with min_val > max_val: invalid IR. Fixed like clamp (frontend/lower_math.py).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_1090_5.py:49:19: error: 'cuvil.clamp' (cuvil-fuzz-nblnk8tx/fuzz_graph_1090_5.py:49:19 (FX node 'hardtanh_default')): min 3.0 is greater than max 1.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [([1], "float32", [3.0], "contiguous")]


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
        self.m5 = _load(nn.GELU(), "m5")

    def forward(self, x0):
        v0 = aten.hardtanh.default(x0, 3)
        v1 = v0.long()
        v2 = aten.cos.default(v1)
        v3 = aten.amin.default(v2)
        v4 = self.m5(v3)
        return (v4,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1090, "inputs": [{"shape": [1], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten.hardtanh.default", "kind": "aten", "args": [{"x": 0}, 3], "kwargs": {}, "family": "_hardtanh", "ctor": null, "module": null}, {"call": ".long", "kind": "method", "args": [{"v": 0}], "kwargs": {}, "family": "cast[torch.int64]", "ctor": null, "module": null}, {"call": "aten.cos.default", "kind": "aten", "args": [{"v": 1}], "kwargs": {}, "family": "unary[cuvil.cos]", "ctor": null, "module": null}, {"call": "aten.amin.default", "kind": "aten", "args": [{"v": 2}], "kwargs": {}, "family": "reduce[cuvil.amin]", "ctor": null, "module": null}, {"call": "nn.GELU", "kind": "module", "args": [{"v": 3}], "kwargs": {}, "family": "nn.GELU", "ctor": {}, "module": "m5"}], "outputs": [4]}'
