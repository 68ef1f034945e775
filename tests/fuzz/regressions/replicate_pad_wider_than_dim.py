"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 4203).

Replicate padding wider than the dim is legal torch (the edge repeats); Cuvil's verifier refused it as invalid IR. Fixed in ir/ops/resample.py (only circular pads must fit).

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_4203_4.py:48:19: error: 'cuvil.pad' (cuvil-fuzz-nblnk8tx/fuzz_graph_4203_4.py:48:19 (FX node 'replication_pad3d_default')): replicate pads (0, 2) do not fit dim 2 of tensor<7x1x1x1xf32>
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    ([7, 1, 1, 1], "float32", [-4.0, -4.0, 1.0, -1.0, 4.0, -2.0, 4.0], "contiguous")
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

    def forward(self, x0):
        v0 = aten.replication_pad3d.default(x0, [0, 1, 0, 2, 0, 0])
        v1 = torch.narrow(v0, 0, 1, 6)
        v2 = v1.nanmean()
        v3 = v2.expm1()
        return (v3,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 4203, "inputs": [{"shape": [7, 1, 1, 1], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten.replication_pad3d.default", "kind": "aten", "args": [{"x": 0}, [0, 1, 0, 2, 0, 0]], "kwargs": {}, "family": "pad[replicate]", "ctor": null, "module": null}, {"call": "torch.narrow", "kind": "function", "args": [{"v": 0}, 0, 1, 6], "kwargs": {}, "family": "_narrow", "ctor": null, "module": null}, {"call": ".nanmean", "kind": "method", "args": [{"v": 1}], "kwargs": {}, "family": "_nanmean", "ctor": null, "module": null}, {"call": ".expm1", "kind": "method", "args": [{"v": 2}], "kwargs": {}, "family": "unary[cuvil.expm1]", "ctor": null, "module": null}], "outputs": [3]}'
