"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 11).

`aten._upsample_nearest_exact2d.default(x, size, scales_h)` without scales_w: invalid IR (one scale for two dims). Fixed: missing scales are None (frontend/lower_resample.py). The pdist after it is refused cleanly.

Found as: crash on fx:O0: cuvil.errors.VerifyError: cuvil-fuzz-nblnk8tx/fuzz_graph_11_3.py:48:1: error: 'cuvil.upsample' (cuvil-fuzz-nblnk8tx/fuzz_graph_11_3.py:48:1 (FX node '_upsample_nearest_exact2d_default')): scales [0.0] must match size [1, 10]
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

aten = torch.ops.aten
STATE = {}
INPUTS = [([1, 1, 1, 1], "float32", [3.0], "contiguous")]


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
        v0 = aten._upsample_nearest_exact2d.default(x0, [1, 10], -0.0)
        v1 = F.interpolate(v0, scale_factor=2.0, recompute_scale_factor=False)
        v2 = aten._pdist_forward.default(v1, 0.5)
        return (v2,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "refused"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 11, "inputs": [{"shape": [1, 1, 1, 1], "dtype": "float32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "aten._upsample_nearest_exact2d.default", "kind": "aten", "args": [{"x": 0}, [1, 10], -0.0], "kwargs": {}, "family": "upsample[nearest-exact]", "ctor": null, "module": null}, {"call": "F.interpolate", "kind": "function", "args": [{"v": 0}], "kwargs": {"scale_factor": 2.0, "recompute_scale_factor": false}, "family": "_interpolate", "ctor": null, "module": null}, {"call": "aten._pdist_forward.default", "kind": "aten", "args": [{"v": 1}, 0.5], "kwargs": {}, "family": "_pdist", "ctor": null, "module": null}], "outputs": [2]}'
