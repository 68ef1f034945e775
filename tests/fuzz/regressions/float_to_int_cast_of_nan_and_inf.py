"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7010594).

A float-to-integer cast of NaN, an infinity or an out-of-range value: C++ leaves it
undefined and torch's CPU kernels inherit x86's conversion (INT_MIN; int32's low bits for
narrower ints: uint8 of -5 is 251, of 70000 is 112). Cuvil emitted LLVM's fptosi, which is
poison there: 0 when O3 folded it (7010594: .long() of a var of one element, NaN),
-17179869376 where O3 vectorized it (7022415: .long() of a Hardtanh giving inf). Fixed:
the conversion is pinned to x86's rule (codegen/scalar.py _float_to_int), on every
target, so a compiled model gives what eager gives on x86 (docs/FUZZ.md). Buffers (b0,
b1: folded at O3) and inputs (x0, x1: compiled, vectorized code), float32 and float16.

Found as: wrong on fx:O3: value differs where eager is stable: cuvil 0, eager -9223372036854775808 (.long() of NaN folded at O3)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

STATE = {
    "b0": (
        [8],
        "float32",
        [
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
        ],
        "contiguous",
    ),
    "b1": (
        [8],
        "float16",
        [math.nan, math.inf, -math.inf, 60000.0, -5.0, 300.0, 1.5, -0.5],
        "contiguous",
    ),
}
INPUTS = [
    (
        [64],
        "float32",
        [
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
            math.nan,
            math.inf,
            -math.inf,
            1.0000000150474662e30,
            -3000000000.0,
            70000.0,
            -5.0,
            300.0,
        ],
        "contiguous",
    ),
    (
        [64],
        "float16",
        [
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
            math.nan,
            math.inf,
            -math.inf,
            60000.0,
            -5.0,
            300.0,
            1.5,
            -0.5,
        ],
        "contiguous",
    ),
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
        self.b0 = nn.Parameter(_t(STATE["b0"]), requires_grad=False)
        self.b1 = nn.Parameter(_t(STATE["b1"]), requires_grad=False)

    def forward(self, x0, x1):
        v0 = self.b0.long()
        v1 = self.b0.int()
        v2 = self.b0.byte()
        v3 = self.b1.long()
        v4 = self.b1.char()
        v5 = x0.long()
        v6 = x0.short()
        v7 = x1.long()
        v8 = x1.byte()
        return (
            v0,
            v1,
            v2,
            v3,
            v4,
            v5,
            v6,
            v7,
            v8,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7010594, "inputs": [{"shape": [64], "dtype": "float32", "seed": 0, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": [NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0, NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0]}, {"shape": [64], "dtype": "float16", "seed": 0, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": [NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5, NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5]}], "state": {"b0": {"shape": [8], "dtype": "float32", "seed": 0, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": [NaN, Infinity, -Infinity, 1e+30, -3000000000.0, 70000.0, -5.0, 300.0]}, "b1": {"shape": [8], "dtype": "float16", "seed": 0, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": [NaN, Infinity, -Infinity, 60000.0, -5.0, 300.0, 1.5, -0.5]}}, "nodes": [{"call": ".long", "kind": "method", "args": [{"p": "b0"}], "kwargs": {}, "family": "cast[torch.int64]", "ctor": null, "module": null}, {"call": ".int", "kind": "method", "args": [{"p": "b0"}], "kwargs": {}, "family": "cast[torch.int32]", "ctor": null, "module": null}, {"call": ".byte", "kind": "method", "args": [{"p": "b0"}], "kwargs": {}, "family": "cast[torch.uint8]", "ctor": null, "module": null}, {"call": ".long", "kind": "method", "args": [{"p": "b1"}], "kwargs": {}, "family": "cast[torch.int64]", "ctor": null, "module": null}, {"call": ".char", "kind": "method", "args": [{"p": "b1"}], "kwargs": {}, "family": "cast[torch.int8]", "ctor": null, "module": null}, {"call": ".long", "kind": "method", "args": [{"x": 0}], "kwargs": {}, "family": "cast[torch.int64]", "ctor": null, "module": null}, {"call": ".short", "kind": "method", "args": [{"x": 0}], "kwargs": {}, "family": "cast[torch.int16]", "ctor": null, "module": null}, {"call": ".long", "kind": "method", "args": [{"x": 1}], "kwargs": {}, "family": "cast[torch.int64]", "ctor": null, "module": null}, {"call": ".byte", "kind": "method", "args": [{"x": 1}], "kwargs": {}, "family": "cast[torch.uint8]", "ctor": null, "module": null}], "outputs": [0, 1, 2, 3, 4, 5, 6, 7, 8]}'
