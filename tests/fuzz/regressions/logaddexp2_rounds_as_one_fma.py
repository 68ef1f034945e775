"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7059369).

logaddexp2(x, x) of -1 then logical_and: torch's kernel is
m + log1p(exp2(-|a - b|)) * (1/ln 2), which its compiler contracts to one fma (scalar
and vector loops alike): -1.06e-08 for (-1, -1), True as a bool; Cuvil multiplied and
added apart and got 0.0, False. Fixed: scalar_math._logaddexp emits llvm.fma.

Found as: wrong on fx:O0: output 0: value differs where eager is stable at flat index 4: cuvil False, eager True, float64 True
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {
    "p2": (
        [3, 3],
        "float32",
        [
            -0.0280500166118145,
            -0.9273034334182739,
            -0.15637579560279846,
            -0.5271764993667603,
            -0.0632329061627388,
            0.5074141025543213,
            0.3161223232746124,
            0.4602692425251007,
            -0.45098042488098145,
        ],
        "contiguous",
    )
}
INPUTS = [
    (
        [3, 3],
        "float32",
        [-0.0, 0.0, -0.0, -0.0, -1.0, -0.0, -0.0, -0.0, 0.0],
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
        self.p2 = nn.Parameter(_t(STATE["p2"]), requires_grad=False)

    def forward(self, x0):
        v0 = torch.logaddexp2(x0, x0)
        v1 = v0.logical_and(self.p2)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7059369, "inputs": [{"shape": [3, 3], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-0.0, 0.0, -0.0, -0.0, -1.0, -0.0, -0.0, -0.0, 0.0]}], "state": {"p2": {"shape": [3, 3], "dtype": "float32", "seed": 986806429, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "torch.logaddexp2", "kind": "function", "args": [{"x": 0}, {"x": 0}], "kwargs": {}, "family": "binary[cuvil.logaddexp2]", "ctor": null, "module": null}, {"call": ".logical_and", "kind": "method", "args": [{"v": 0}, {"p": "p2"}], "kwargs": {}, "family": "_logical_and", "ctor": null, "module": null}], "outputs": [1]}'
