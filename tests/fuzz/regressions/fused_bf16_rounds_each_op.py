"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7021247).

At O3 the fused kernel of sinh, log and neg of a bfloat16 tensor kept each result as a
float register without rounding it to bfloat16 (the unfused kernels and eager round every
op's result): -log(sinh(1.6796875)) came out -0.94921875 where eager gives -0.953125
(the float64 value -0.95116 is nearly halfway), and round(decimals=1) turned that ulp
into 0.1 (-0.9 for -1.0). Fixed: codegen/fused.py rounds each bfloat16 result in a fused
body. The graph's four ops, cut by hand from the 16-op graph (its shrink kept
every op).

Found as: wrong on fx:O3: output 1: error 6.34x the tolerance at flat index 84: cuvil -0.8984375, eager -1.0, float64 -1.0
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    (
        [16, 16],
        "bfloat16",
        [
            1.015625,
            1.0,
            -1.921875,
            0.25,
            -0.00469970703125,
            0.00830078125,
            -0.359375,
            -1.0546875,
            -0.09912109375,
            -0.2421875,
            0.361328125,
            0.212890625,
            -0.40625,
            1.8671875,
            0.0181884765625,
            9984.0,
            -0.96484375,
            0.87109375,
            0.408203125,
            -0.8828125,
            0.181640625,
            -1.1796875,
            9.183549615799121e-41,
            -2.75,
            -9.183549615799121e-41,
            0.8046875,
            -0.5625,
            9.98402083170343e-31,
            0.6953125,
            -0.27734375,
            -0.08837890625,
            -1.5703125,
            -1.15625,
            -1.0,
            -0.1689453125,
            0.625,
            -1.09375,
            -0.08203125,
            -0.419921875,
            -1.8203125,
            -0.3984375,
            -0.306640625,
            1.0703125,
            0.97265625,
            -1.7421875,
            1.1328125,
            0.703125,
            -0.66015625,
            1.0,
            -1.78125,
            -1.453125,
            -9.183549615799121e-41,
            0.56640625,
            0.94140625,
            1.4296875,
            -1.25,
            1.625,
            -1.421875,
            1.703125,
            -1.3359375,
            -9.98402083170343e-31,
            1.265625,
            1.71875,
            0.45703125,
            -0.81640625,
            0.69140625,
            1.125,
            -0.91796875,
            0.8125,
            -0.52734375,
            1.609375,
            0.62109375,
            2.0,
            -0.52734375,
            -0.046875,
            -0.1884765625,
            -0.384765625,
            -1.625,
            -2.046875,
            0.0135498046875,
            -0.408203125,
            -2.09375,
            -1.25,
            -1.234375,
            1.6796875,
            -0.53515625,
            -2.328125,
            math.inf,
            -1.15625,
            -0.306640625,
            1.0078125,
            -0.5390625,
            0.03515625,
            1.6328125,
            0.8671875,
            1.0,
            0.396484375,
            -1.078125,
            -0.296875,
            0.59375,
            -0.0,
            -0.5625,
            -0.103515625,
            0.8828125,
            -1.09375,
            0.85546875,
            0.48046875,
            -9.183549615799121e-41,
            -0.5546875,
            0.9140625,
            1.0234375,
            0.74609375,
            -2.015625,
            0.1748046875,
            0.392578125,
            -0.95703125,
            1.203125,
            0.75390625,
            1.0859375,
            2.78125,
            -1.7734375,
            -0.7734375,
            -9.98402083170343e-31,
            0.60546875,
            -0.0,
            -1.484375,
            0.7265625,
            0.546875,
            -1.0,
            0.259765625,
            -0.306640625,
            -1.8125,
            -0.55859375,
            -0.44921875,
            0.7109375,
            0.05810546875,
            math.inf,
            -0.1572265625,
            -0.26171875,
            0.7578125,
            -0.65625,
            0.6015625,
            -0.40625,
            -0.296875,
            -0.92578125,
            0.21875,
            0.96875,
            0.8203125,
            -0.22265625,
            -1.0,
            -1.265625,
            0.0,
            -0.8125,
            -1.71875,
            -0.515625,
            -1.0,
            -9.183549615799121e-41,
            -1.328125,
            0.88671875,
            -0.2275390625,
            1.375,
            -0.431640625,
            1.1328125,
            -0.73046875,
            1.0078125,
            0.72265625,
            1.4921875,
            -0.53125,
            -1.046875,
            -1.4296875,
            -1.2578125,
            -0.95703125,
            0.6796875,
            0.5546875,
            0.50390625,
            -0.6171875,
            0.56640625,
            -0.349609375,
            1.0,
            -0.034423828125,
            -1.328125,
            2.484375,
            0.734375,
            -1.2578125,
            -1.0,
            -0.56640625,
            1.078125,
            -1.6484375,
            -1.421875,
            0.314453125,
            -2.671875,
            -1.7109375,
            0.32421875,
            -0.9765625,
            -0.8515625,
            2.953125,
            -0.07666015625,
            0.326171875,
            -1.1953125,
            0.55859375,
            -9984.0,
            9984.0,
            0.326171875,
            1.015625,
            -1.8203125,
            -2.0625,
            -0.8828125,
            0.6171875,
            1.0,
            0.2109375,
            -9.98402083170343e-31,
            9984.0,
            -1.5234375,
            -0.7109375,
            -0.73828125,
            -0.01031494140625,
            0.875,
            0.78515625,
            0.0,
            -1.2578125,
            2.75,
            -9.183549615799121e-41,
            0.16015625,
            0.412109375,
            -1.84375,
            -1.015625,
            -0.54296875,
            -1.453125,
            0.6796875,
            -0.408203125,
            -1.7421875,
            0.2265625,
            -0.40625,
            0.279296875,
            -0.0179443359375,
            1.5703125,
            -1.3359375,
            0.1171875,
            1.1953125,
            0.24609375,
            math.inf,
            -0.1103515625,
            0.435546875,
            0.0,
            0.46875,
            -0.6640625,
            0.271484375,
            -0.48046875,
            9.98402083170343e-31,
            -0.49609375,
            0.00060272216796875,
            -0.70703125,
            -0.92578125,
            0.1064453125,
            -9.183549615799121e-41,
            0.54296875,
        ],
        "transposed",
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
        v0 = torch.sinh(x0)
        v1 = torch.log(v0)
        v2 = aten.neg.default(v1)
        v3 = torch.special.round(v2, decimals=1)
        return (
            v2,
            v3,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7021247, "inputs": [{"shape": [16, 16], "dtype": "bfloat16", "seed": 321053600, "profile": "edges", "layout": "transposed", "low": -8, "high": 8, "values": null}], "state": {}, "nodes": [{"call": "torch.sinh", "kind": "function", "args": [{"x": 0}], "kwargs": {}, "family": "unary[cuvil.sinh]", "ctor": null, "module": null}, {"call": "torch.log", "kind": "function", "args": [{"v": 0}], "kwargs": {}, "family": "unary[cuvil.log]", "ctor": null, "module": null}, {"call": "aten.neg.default", "kind": "aten", "args": [{"v": 1}], "kwargs": {}, "family": "unary[cuvil.neg]", "ctor": null, "module": null}, {"call": "torch.special.round", "kind": "function", "args": [{"v": 2}], "kwargs": {"decimals": 1}, "family": "_round", "ctor": null, "module": null}], "outputs": [2, 3]}'
