"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7031598).

A constant pad of an int64 tensor (F.one_hot's) with value=inf and pads [0, -1]: the
pad only crops, so torch never converts the value; Cuvil's code generation made an
int64 constant of inf (an OverflowError, fuzz6 7031598). Fixed:
frontend/lower_resample.py ignores the value of a pad that only crops, and refuses
(as torch does) an integer pad that would fill with a value no int64 holds.

Found as: crash on fx:O0: OverflowError: cannot convert float infinity to integer
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

aten = torch.ops.aten
STATE = {}
INPUTS = [([2, 3], "int64", [0, 1, 2, 3, 4, 5], "contiguous")]


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
        v0 = aten.add.Tensor(x0, x0)
        v1 = F.pad(v0, [0, -1], value=math.inf)
        v2 = F.pad(x0, [0, -2], value=math.nan)
        return (
            v1,
            v2,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7031598, "inputs": [{"shape": [2, 3], "dtype": "int64", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": [0, 1, 2, 3, 4, 5]}], "state": {}, "nodes": [{"call": "aten.add.Tensor", "kind": "aten", "args": [{"x": 0}, {"x": 0}], "kwargs": {}, "family": "binary[cuvil.add]", "ctor": null, "module": null}, {"call": "F.pad", "kind": "function", "args": [{"v": 0}, [0, -1]], "kwargs": {"value": Infinity}, "family": "pad[constant]", "ctor": null, "module": null}, {"call": "F.pad", "kind": "function", "args": [{"x": 0}, [0, -2]], "kwargs": {"value": NaN}, "family": "pad[constant]", "ctor": null, "module": null}], "outputs": [1, 2]}'
