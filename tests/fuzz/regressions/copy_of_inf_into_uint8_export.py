"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7030134).

x.copy_(inf) into a uint8 tensor: torch wraps the number as a 0-d double tensor and
casts it (x86's conversion: 0; -5.0 wraps to 251); under export the copy_ rule made a
uint8 constant of inf, which torch refuses (a crash, 7030134). Fixed:
frontend/lower_factory.py's copy_ converts a Python number as torch does.

Found as: crash on export:O0: FrontendError: cannot lower aten.copy_.default: RuntimeError: value cannot be converted to type uint8_t without overflow
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {"b1": ([3, 3], "uint8", [1, 2, 3, 4, 5, 6, 7, 8, 9], "contiguous")}
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
        self.register_buffer("b1", _t(STATE["b1"]))

    def forward(self):
        v0 = aten.__or__.Scalar(self.b1, 3)
        v1 = v0.copy_(math.inf)
        v2 = aten.__or__.Scalar(self.b1, 4)
        v3 = v2.copy_(-5.0)
        return (
            v1,
            v3,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7030134, "inputs": [], "state": {"b1": {"shape": [3, 3], "dtype": "uint8", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": [1, 2, 3, 4, 5, 6, 7, 8, 9]}}, "nodes": [{"call": "aten.__or__.Scalar", "kind": "aten", "args": [{"p": "b1"}, 3], "kwargs": {}, "family": "bitwise[or]", "ctor": null, "module": null}, {"call": ".copy_", "kind": "method", "args": [{"v": 0}, Infinity], "kwargs": {}, "family": "_copy", "ctor": null, "module": null}, {"call": "aten.__or__.Scalar", "kind": "aten", "args": [{"p": "b1"}, 4], "kwargs": {}, "family": "bitwise[or]", "ctor": null, "module": null}, {"call": ".copy_", "kind": "method", "args": [{"v": 2}, -5.0], "kwargs": {}, "family": "_copy", "ctor": null, "module": null}], "outputs": [1, 3]}'
