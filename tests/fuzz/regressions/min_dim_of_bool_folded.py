"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7021729).

min(dim) of a bool tensor computed from buffers crashed when folded: cuvil.argmax's
reference called torch.argmax, which has no bool kernel. Fixed: the reference computes
on uint8 (the same order, the same first index).

Found as: crash: RuntimeError: argmax(): does not support bool input.
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "b3": ([2, 1], "int64", [3, 1], "contiguous"),
    "b4": ([2, 1], "int64", [0, 0], "contiguous"),
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
        self.register_buffer("b3", _t(STATE["b3"]))
        self.register_buffer("b4", _t(STATE["b4"]))

    def forward(self):
        v0 = aten.embedding.default(self.b3, self.b4, -1, False, True)
        v1 = aten.le.Scalar(v0, math.inf)
        v2 = aten.min.dim(v1, -3)
        v3 = v2[1]
        return (v3,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7021729, "inputs": [], "state": {"b3": {"shape": [2, 1], "dtype": "int64", "seed": 1664652280, "profile": "normal", "layout": "contiguous", "low": 0, "high": 4, "values": null}, "b4": {"shape": [2, 1], "dtype": "int64", "seed": 1900630675, "profile": "normal", "layout": "contiguous", "low": 0, "high": 1, "values": null}}, "nodes": [{"call": "aten.embedding.default", "kind": "aten", "args": [{"p": "b3"}, {"p": "b4"}, -1, false, true], "kwargs": {}, "family": "_aten_embedding", "ctor": null, "module": null}, {"call": "aten.le.Scalar", "kind": "aten", "args": [{"v": 0}, Infinity], "kwargs": {}, "family": "compare[cuvil.le]", "ctor": null, "module": null}, {"call": "aten.min.dim", "kind": "aten", "args": [{"v": 1}, -3], "kwargs": {}, "family": "minmax[cuvil.amin]", "ctor": null, "module": null}, {"call": "getitem", "kind": "getitem", "args": [{"v": 2}, 1], "kwargs": {}, "family": "_getitem_tensors", "ctor": null, "module": null}], "outputs": [3]}'
