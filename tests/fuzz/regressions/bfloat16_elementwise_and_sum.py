"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 2).

bfloat16 tensors were refused by code generation. Fixed: a bf16 element is a float register, stored as 16 bits rounded to nearest even (codegen/bfloat.py).

Found as: refused on fx:O3: CodegenError: element type bf16 is not supported by code generation (graph written by hand)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {}
INPUTS = [
    (
        [5, 7],
        "bfloat16",
        [
            -0.310546875,
            -0.71484375,
            -0.73046875,
            -0.298828125,
            -0.251953125,
            -0.359375,
            0.9375,
            1.1640625,
            -0.1708984375,
            0.01495361328125,
            -0.047607421875,
            0.546875,
            -1.25,
            0.3203125,
            0.59375,
            1.0546875,
            0.8046875,
            0.373046875,
            0.57421875,
            -0.5859375,
            -2.0625,
            -0.1943359375,
            0.36328125,
            -0.365234375,
            -0.421875,
            -0.2236328125,
            -0.478515625,
            0.2138671875,
            1.3671875,
            0.84375,
            -1.0390625,
            0.75390625,
            0.486328125,
            0.7109375,
            -0.79296875,
        ],
        "contiguous",
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
        v0 = torch.exp(x0)
        v1 = v0.sum(-1)
        v2 = v1.float()
        return (
            v0,
            v2,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 2, "inputs": [{"shape": [5, 7], "dtype": "bfloat16", "seed": 1, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "torch.exp", "kind": "function", "args": [{"x": 0}], "kwargs": {}, "family": "unary[cuvil.exp]", "ctor": null, "module": null}, {"call": ".sum", "kind": "method", "args": [{"v": 0}, -1], "kwargs": {}, "family": "reduce[cuvil.sum]", "ctor": null, "module": null}, {"call": ".float", "kind": "method", "args": [{"v": 1}], "kwargs": {}, "family": "cast[torch.float32]", "ctor": null, "module": null}], "outputs": [0, 2]}'
