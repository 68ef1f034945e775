"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7010045).

group_norm of a constant [1, 1] tensor (one value per group) at O3: constant folding ran
cuvil.group_norm's reference, F.group_norm, which refuses one value per group ("Expected
more than 1 value per channel when training"); eager's aten.group_norm computes it (the
bias): a crash. Fixed in ir/ops/resample.py (the reference calls aten.group_norm).

Found as: crash on fx:O3: ValueError: Expected more than 1 value per channel when training, got input size [1, 1]
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {"p0": ([1], "float32", [-1.0334289073944092], "contiguous")}
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
        self.p0 = nn.Parameter(_t(STATE["p0"]), requires_grad=False)

    def forward(self):
        v0 = aten.full.default([1, 1], -1.0)
        v1 = aten.group_norm.default(v0, 1, bias=self.p0, eps=0.1)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7010045, "inputs": [], "state": {"p0": {"shape": [1], "dtype": "float32", "seed": 1069465749, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.full.default", "kind": "aten", "args": [[1, 1], -1.0], "kwargs": {}, "family": "_full", "ctor": null, "module": null}, {"call": "aten.group_norm.default", "kind": "aten", "args": [{"v": 0}, 1], "kwargs": {"bias": {"p": "p0"}, "eps": 0.1}, "family": "group_norm", "ctor": null, "module": null}], "outputs": [1]}'
