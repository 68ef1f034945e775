"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7020709; also 7021844).

upsample_bilinear2d of a uint8 tensor (torch interpolates uint8 images) reached the IR
and failed its verifier ("linear upsampling needs a float tensor"): invalid IR from
legal input. Fixed: frontend/lower_resample.py refuses linear upsampling of an integer
tensor by name.

Found as: crash on fx and export at O0 and O3: VerifyError: 'cuvil.upsample'.
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [([1, 1, 1, 1], "uint8", [4], "contiguous")]


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
        v0 = aten.upsample_bilinear2d.default(x0, [5, 8], True, 1.0)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7020709, "inputs": [{"shape": [1, 1, 1, 1], "dtype": "uint8", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [4]}], "state": {}, "nodes": [{"call": "aten.upsample_bilinear2d.default", "kind": "aten", "args": [{"x": 0}, [5, 8], true, 1.0], "kwargs": {}, "family": "upsample[linear]", "ctor": null, "module": null}], "outputs": [0]}'


EXPECT = "refused"
