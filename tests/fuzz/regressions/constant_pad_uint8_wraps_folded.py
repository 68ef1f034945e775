"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7010299).

A constant pad of a uint8 buffer with -2 at O3: constant folding ran cuvil.pad's
reference, F.pad with the float -2.0, which refuses a value out of uint8's range
("value cannot be converted to type uint8_t without overflow"); eager's
aten.constant_pad_nd with the int -2 wraps it to 254: a crash. Fixed in
ir/ops/resample.py (the reference is the ATen op, an integral value as an int).

Found as: crash on export:O3: RuntimeError: value cannot be converted to type uint8_t without overflow
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "b0": (
        [1, 16, 3, 2],
        "uint8",
        [
            2,
            3,
            3,
            5,
            7,
            2,
            4,
            4,
            5,
            2,
            6,
            7,
            1,
            3,
            5,
            3,
            7,
            4,
            4,
            2,
            4,
            4,
            4,
            0,
            0,
            1,
            5,
            4,
            7,
            4,
            4,
            7,
            7,
            2,
            1,
            6,
            6,
            6,
            0,
            6,
            3,
            3,
            3,
            4,
            2,
            3,
            3,
            0,
            1,
            5,
            1,
            5,
            0,
            0,
            2,
            4,
            5,
            4,
            0,
            2,
            0,
            2,
            5,
            0,
            5,
            6,
            0,
            3,
            4,
            6,
            0,
            1,
            5,
            2,
            4,
            4,
            7,
            7,
            7,
            3,
            7,
            6,
            0,
            5,
            1,
            7,
            6,
            0,
            7,
            4,
            7,
            1,
            6,
            2,
            6,
            6,
        ],
        "contiguous",
    )
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
        self.register_buffer("b0", _t(STATE["b0"]))

    def forward(self):
        v0 = aten.diagonal_copy.default(self.b0)
        v1 = aten.constant_pad_nd.default(v0, [0, 2, 1, 2, 1, 0], -2)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7010299, "inputs": [], "state": {"b0": {"shape": [1, 16, 3, 2], "dtype": "uint8", "seed": 1354959016, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "aten.diagonal_copy.default", "kind": "aten", "args": [{"p": "b0"}], "kwargs": {}, "family": "_diagonal", "ctor": null, "module": null}, {"call": "aten.constant_pad_nd.default", "kind": "aten", "args": [{"v": 0}, [0, 2, 1, 2, 1, 0], -2], "kwargs": {}, "family": "_constant_pad_nd", "ctor": null, "module": null}], "outputs": [1]}'
