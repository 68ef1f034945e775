"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7002976).

An in-place add of a float32 tensor into a float16 one (`half += float`) stays float16
in torch; the frontend rebound the name to the float32 sum, and its type check failed
("aten.add_.Tensor produced tensor<2x1xf32> but torch computes tensor<2x1xf16>"; also
seeds 7002328 and 7003050, mul_ into bfloat16). Fixed in frontend/graph.py
(_apply_inplace casts the new value to the written tensor's dtype).

Found as: crash on export:O0: lowering of aten.add_.Tensor produced tensor<1x1xf32> but torch computes tensor<1x1xf16>
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import operator

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    ([1, 3], "float16", [-3.0, -4.0, 4.0], "contiguous"),
    ([1], "float32", [4.0], "expanded"),
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

    def forward(self, x0, x1):
        v0 = aten.avg_pool1d.default(x0, [2], [2], [0])
        v1 = operator.iadd(v0, x1)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


# export only: fx traces `v0 += x1` (operator.iadd) into a graph that computes other
# values than the model, a clean refusal before Cuvil lowers anything
CONFIGS = ["export:O0", "export:O3"]

EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7002976, "inputs": [{"shape": [1, 3], "dtype": "float16", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}, {"shape": [1], "dtype": "float32", "seed": 781210603, "profile": "small", "layout": "expanded", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten.avg_pool1d.default", "kind": "aten", "args": [{"x": 0}, [2], [2], [0]], "kwargs": {}, "family": "avg_pool[cuvil.avg_pool1d]", "ctor": null, "module": null}, {"call": "operator.iadd", "kind": "operator", "args": [{"v": 0}, {"x": 1}], "kwargs": {}, "family": "binary[cuvil.add]", "ctor": null, "module": null}], "outputs": [1]}'
