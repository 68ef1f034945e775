"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7055155).

aten.mean.dim of a float32 tensor with dtype=torch.bfloat16. torch's CPU mean to a
16-bit dtype sums the input cast to float32, divides and rounds once; Cuvil cast the
input to bfloat16 first (each element rounded: 7.6x the tolerance on a cancelling row).
Fixed: frontend/lower_reduce.py (_reduce, _half_mean).

Found as: wrong on fx:O0: output 0: error 7.62x the tolerance at flat index 1: cuvil -0.00421142578125, eager -0.0033416748046875, float64 -0.003347770869731903
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {}
INPUTS = [
    (
        [1, 2, 2, 5],
        "float32",
        [
            -0.3902662694454193,
            -1.5681334733963013,
            0.23891744017601013,
            -0.10124083608388901,
            1.2791638374328613,
            -0.21776463091373444,
            1.4257432222366333,
            0.6613799333572388,
            -0.47811222076416016,
            0.720211386680603,
            0.7594585418701172,
            1.6435496807098389,
            0.6261993646621704,
            -0.5413163900375366,
            -1.7564218044281006,
            -0.36180052161216736,
            -0.4552360475063324,
            -1.2389476299285889,
            1.1060479879379272,
            0.1849891096353531,
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
        v0 = aten.mean.dim(x0, [2, 3], False, dtype=torch.bfloat16)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7055155, "inputs": [{"shape": [1, 2, 2, 5], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-0.3902662694454193, -1.5681334733963013, 0.23891744017601013, -0.10124083608388901, 1.2791638374328613, -0.21776463091373444, 1.4257432222366333, 0.6613799333572388, -0.47811222076416016, 0.720211386680603, 0.7594585418701172, 1.6435496807098389, 0.6261993646621704, -0.5413163900375366, -1.7564218044281006, -0.36180052161216736, -0.4552360475063324, -1.2389476299285889, 1.1060479879379272, 0.1849891096353531]}], "state": {}, "nodes": [{"call": "aten.mean.dim", "kind": "aten", "args": [{"x": 0}, [2, 3], false], "kwargs": {"dtype": {"dtype": "bfloat16"}}, "family": "reduce[cuvil.mean]", "ctor": null, "module": null}], "outputs": [0]}'
