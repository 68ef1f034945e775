"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 2137).

adaptive_avg_pool3d of float16 (two separable stages) rounded between the stages and summed in half. Fixed: half-float pools sum in float; 3-d pools of halves run in float (codegen/window.py, frontend/lower_pool3d.py).

Found as: wrong on fx:O0: output 0: error 1.5x the tolerance at flat index 6: cuvil -0.315673828125, eager -0.316162109375, float64 -0.316162109375
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    (
        [3, 2, 4, 4],
        "float16",
        [
            0.833984375,
            0.6533203125,
            0.84619140625,
            0.63037109375,
            0.69873046875,
            0.326904296875,
            0.63427734375,
            1.3037109375,
            1.4736328125,
            -0.998046875,
            0.222412109375,
            0.473388671875,
            -0.7421875,
            -0.607421875,
            0.11175537109375,
            0.9169921875,
            -2.1875,
            -1.2578125,
            0.73828125,
            0.76123046875,
            0.79443359375,
            -2.916015625,
            -0.767578125,
            -1.0126953125,
            -0.48486328125,
            -1.0224609375,
            0.13134765625,
            -0.012359619140625,
            0.8828125,
            -0.294677734375,
            0.83154296875,
            -0.0830078125,
            0.833984375,
            0.6533203125,
            0.84619140625,
            0.63037109375,
            0.69873046875,
            0.326904296875,
            0.63427734375,
            1.3037109375,
            1.4736328125,
            -0.998046875,
            0.222412109375,
            0.473388671875,
            -0.7421875,
            -0.607421875,
            0.11175537109375,
            0.9169921875,
            -2.1875,
            -1.2578125,
            0.73828125,
            0.76123046875,
            0.79443359375,
            -2.916015625,
            -0.767578125,
            -1.0126953125,
            -0.48486328125,
            -1.0224609375,
            0.13134765625,
            -0.012359619140625,
            0.8828125,
            -0.294677734375,
            0.83154296875,
            -0.0830078125,
            0.833984375,
            0.6533203125,
            0.84619140625,
            0.63037109375,
            0.69873046875,
            0.326904296875,
            0.63427734375,
            1.3037109375,
            1.4736328125,
            -0.998046875,
            0.222412109375,
            0.473388671875,
            -0.7421875,
            -0.607421875,
            0.11175537109375,
            0.9169921875,
            -2.1875,
            -1.2578125,
            0.73828125,
            0.76123046875,
            0.79443359375,
            -2.916015625,
            -0.767578125,
            -1.0126953125,
            -0.48486328125,
            -1.0224609375,
            0.13134765625,
            -0.012359619140625,
            0.8828125,
            -0.294677734375,
            0.83154296875,
            -0.0830078125,
        ],
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
        self.m10 = _load(
            nn.AvgPool2d(kernel_size=[3, 3], stride=1, count_include_pad=True), "m10"
        )

    def forward(self, x0):
        v0 = self.m10(x0)
        v1 = aten.alpha_dropout.default(v0, 0.0, False)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 2137, "inputs": [{"shape": [3, 2, 4, 4], "dtype": "float16", "seed": 0, "profile": "normal", "layout": "expanded", "low": -8, "high": 8, "values": [0.833984375, 0.6533203125, 0.84619140625, 0.63037109375, 0.69873046875, 0.326904296875, 0.63427734375, 1.3037109375, 1.4736328125, -0.998046875, 0.222412109375, 0.473388671875, -0.7421875, -0.607421875, 0.11175537109375, 0.9169921875, -2.1875, -1.2578125, 0.73828125, 0.76123046875, 0.79443359375, -2.916015625, -0.767578125, -1.0126953125, -0.48486328125, -1.0224609375, 0.13134765625, -0.012359619140625, 0.8828125, -0.294677734375, 0.83154296875, -0.0830078125, 0.833984375, 0.6533203125, 0.84619140625, 0.63037109375, 0.69873046875, 0.326904296875, 0.63427734375, 1.3037109375, 1.4736328125, -0.998046875, 0.222412109375, 0.473388671875, -0.7421875, -0.607421875, 0.11175537109375, 0.9169921875, -2.1875, -1.2578125, 0.73828125, 0.76123046875, 0.79443359375, -2.916015625, -0.767578125, -1.0126953125, -0.48486328125, -1.0224609375, 0.13134765625, -0.012359619140625, 0.8828125, -0.294677734375, 0.83154296875, -0.0830078125, 0.833984375, 0.6533203125, 0.84619140625, 0.63037109375, 0.69873046875, 0.326904296875, 0.63427734375, 1.3037109375, 1.4736328125, -0.998046875, 0.222412109375, 0.473388671875, -0.7421875, -0.607421875, 0.11175537109375, 0.9169921875, -2.1875, -1.2578125, 0.73828125, 0.76123046875, 0.79443359375, -2.916015625, -0.767578125, -1.0126953125, -0.48486328125, -1.0224609375, 0.13134765625, -0.012359619140625, 0.8828125, -0.294677734375, 0.83154296875, -0.0830078125]}], "state": {}, "nodes": [{"call": "nn.AvgPool2d", "kind": "module", "args": [{"x": 0}], "kwargs": {}, "family": "nn.AvgPool2d", "ctor": {"kernel_size": [3, 3], "stride": 1, "count_include_pad": true}, "module": "m10"}, {"call": "aten.alpha_dropout.default", "kind": "aten", "args": [{"v": 0}, 0.0, false], "kwargs": {}, "family": "_dropout", "ctor": null, "module": null}], "outputs": [1]}'
