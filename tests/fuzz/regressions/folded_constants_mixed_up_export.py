"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7000745).

Two values computed from constants alone (a replication pad of `ones`, a pooled `erf` of
it), folded by the export frontend into module params: the second came back as the
first (shape [4, 7, 4] where eager gives [4, 7, 8]). LoweringContext keyed materialized
params by id() of a LazyTensor that `constant()` dropped at once, so the next folded
constant's LazyTensor, at the same address, got the first one's param. Fixed in
frontend/context.py (the LazyTensor is held with its value; `_constN` names never
reuse a name the module holds).

Found as: wrong on export:O0: output 2: torch.float32[4, 7, 4] where eager gives torch.float32[4, 7, 8]
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

aten = torch.ops.aten
STATE = {}
INPUTS = [([1], "float32", [1.1909503936767578], "contiguous")]


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
        v0 = aten.acos.default(x0)
        v1 = torch.ones([4, 7, 2])
        v2 = aten.erf.default(v1)
        v3 = F.adaptive_avg_pool1d(v2, [8])
        v4 = aten.repeat.default(v1, [1, 1, 1])
        v5 = aten.xlogy.Scalar_Other(v4, math.inf)
        v6 = aten.replication_pad1d.default(v5, [2, 0])
        v7 = torch.detach(v3)
        return (
            v0,
            v6,
            v7,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7000745, "inputs": [{"shape": [1], "dtype": "float32", "seed": 1184780785, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten.acos.default", "kind": "aten", "args": [{"x": 0}], "kwargs": {}, "family": "unary[cuvil.acos]", "ctor": null, "module": null}, {"call": "torch.ones", "kind": "function", "args": [[4, 7, 2]], "kwargs": {}, "family": "factory[1]", "ctor": null, "module": null}, {"call": "aten.erf.default", "kind": "aten", "args": [{"v": 1}], "kwargs": {}, "family": "unary[cuvil.erf]", "ctor": null, "module": null}, {"call": "F.adaptive_avg_pool1d", "kind": "function", "args": [{"v": 2}, [8]], "kwargs": {}, "family": "adaptive_avg_pool[cuvil.adaptive_avg_pool1d]", "ctor": null, "module": null}, {"call": "aten.repeat.default", "kind": "aten", "args": [{"v": 1}, [1, 1, 1]], "kwargs": {}, "family": "_repeat", "ctor": null, "module": null}, {"call": "aten.xlogy.Scalar_Other", "kind": "aten", "args": [{"v": 4}, Infinity], "kwargs": {}, "family": "binary[cuvil.xlogy]", "ctor": null, "module": null}, {"call": "aten.replication_pad1d.default", "kind": "aten", "args": [{"v": 5}, [2, 0]], "kwargs": {}, "family": "pad[replicate]", "ctor": null, "module": null}, {"call": "torch.detach", "kind": "function", "args": [{"v": 3}], "kwargs": {}, "family": "_identity", "ctor": null, "module": null}], "outputs": [0, 6, 7]}'
