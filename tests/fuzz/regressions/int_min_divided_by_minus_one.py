"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7031121).

Integer floor_divide, remainder and fmod of the type's minimum by -1: x86's idiv traps
(SIGFPE: the worker died compiling 7031121, whose .long() of -inf is INT64_MIN, then
// a buffer holding -1). torch gives MIN // -1 = MIN (wrapping) and remainder 0.
Fixed: codegen/scalar_math.py divides by -1 as a negation (_sdiv_srem). Written from
the seed's graph (the worker death leaves no record to shrink from).

Found as: crash on fx:O0: worker died: SIGFPE
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "b0": (
        [8],
        "int32",
        [-2147483648, 5, -2147483648, -2147483648, 7, 1, -2147483648, 0],
        "contiguous",
    )
}
INPUTS = [
    (
        [8],
        "int64",
        [
            -9223372036854775808,
            -9223372036854775808,
            -9223372036854775808,
            7,
            -7,
            -9223372036854775807,
            5,
            -9223372036854775808,
        ],
        "contiguous",
    ),
    ([8], "int64", [-1, 1, 2, -1, -2, -1, 3, -1], "contiguous"),
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
        self.register_buffer("b0", _t(STATE["b0"]))

    def forward(self, x0, x1):
        v0 = aten.floor_divide.default(x0, x1)
        v1 = torch.remainder(x0, x1)
        v2 = torch.fmod(x0, x1)
        v3 = aten.floor_divide.default(self.b0, -1)
        v4 = torch.remainder(self.b0, -1)
        return (
            v0,
            v1,
            v2,
            v3,
            v4,
        )


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7031121, "inputs": [{"shape": [8], "dtype": "int64", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": [-9223372036854775808, -9223372036854775808, -9223372036854775808, 7, -7, -9223372036854775807, 5, -9223372036854775808]}, {"shape": [8], "dtype": "int64", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": [-1, 1, 2, -1, -2, -1, 3, -1]}], "state": {"b0": {"shape": [8], "dtype": "int32", "seed": 0, "profile": "small", "layout": "contiguous", "low": -8, "high": 8, "values": [-2147483648, 5, -2147483648, -2147483648, 7, 1, -2147483648, 0]}}, "nodes": [{"call": "aten.floor_divide.default", "kind": "aten", "args": [{"x": 0}, {"x": 1}], "kwargs": {}, "family": "_floordiv", "ctor": null, "module": null}, {"call": "torch.remainder", "kind": "function", "args": [{"x": 0}, {"x": 1}], "kwargs": {}, "family": "binary[cuvil.remainder]", "ctor": null, "module": null}, {"call": "torch.fmod", "kind": "function", "args": [{"x": 0}, {"x": 1}], "kwargs": {}, "family": "binary[cuvil.fmod]", "ctor": null, "module": null}, {"call": "aten.floor_divide.default", "kind": "aten", "args": [{"p": "b0"}, -1], "kwargs": {}, "family": "_floordiv", "ctor": null, "module": null}, {"call": "torch.remainder", "kind": "function", "args": [{"p": "b0"}, -1], "kwargs": {}, "family": "binary[cuvil.remainder]", "ctor": null, "module": null}], "outputs": [0, 1, 2, 3, 4]}'
