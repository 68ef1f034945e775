"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7003669).

avg_pool3d of an int64 tensor gave 1 where torch gives 0: the 3-d pool runs as a depth
pool then a plane pool, and with integers each divides truncating ((5+5+0)//3, then the
plane's mean of those), which is not torch's one truncating division of the box's sum
(8 // 9 = 0). Fixed by a clear refusal (frontend/lower_pool3d.py) of integer 3-d average
pools without divisor_override (with it the depth pass only sums, which is exact).

Found as: wrong on fx:O0: output 0: value differs where eager is stable at flat index 0: cuvil 1, eager 0, float64 0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    (
        [1, 4, 4, 1],
        "int64",
        [5, 6, -7, 5, 5, 6, -7, 5, 5, 6, -7, 5, 5, 6, -7, 5],
        "expanded",
    )
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
        v0 = aten.avg_pool3d.default(x0, [3, 3, 1], [2, 2, 1], [1, 0, 0], False, True)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "refused"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7003669, "inputs": [{"shape": [1, 4, 4, 1], "dtype": "int64", "seed": 0, "profile": "normal", "layout": "expanded", "low": -8, "high": 8, "values": [5, 6, -7, 5, 5, 6, -7, 5, 5, 6, -7, 5, 5, 6, -7, 5]}], "state": {}, "nodes": [{"call": "aten.avg_pool3d.default", "kind": "aten", "args": [{"x": 0}, [3, 3, 1], [2, 2, 1], [1, 0, 0], false, true], "kwargs": {}, "family": "_avg_pool3d", "ctor": null, "module": null}], "outputs": [0]}'
