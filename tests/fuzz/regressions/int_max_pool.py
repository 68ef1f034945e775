"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 1080).

Max pooling an int64 tensor initialized its accumulator with -inf: OverflowError while generating code. Fixed: integer max pools start at the type's minimum and compare as integers (codegen/window.py). fx refuses return_indices=True cleanly.

Found as: crash on export:O0: OverflowError: cannot convert float infinity to integer
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {}
INPUTS = [([1, 1, 1], "int64", [4], "contiguous")]


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
        self.m2 = _load(
            nn.MaxPool2d(kernel_size=2, padding=1, return_indices=True), "m2"
        )

    def forward(self, x0):
        v0 = self.m2(x0)
        v1 = v0[0]
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "refused"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 1080, "inputs": [{"shape": [1, 1, 1], "dtype": "int64", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [4]}], "state": {}, "nodes": [{"call": "nn.MaxPool2d", "kind": "module", "args": [{"x": 0}], "kwargs": {}, "family": "nn.MaxPool2d", "ctor": {"kernel_size": 2, "padding": 1, "return_indices": true}, "module": "m2"}, {"call": "getitem", "kind": "getitem", "args": [{"v": 0}, 0], "kwargs": {}, "family": "_getitem_tensors", "ctor": null, "module": null}], "outputs": [1]}'
