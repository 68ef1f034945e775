"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7409921).

Found as: wrong on fx:O0: output 4: error 1.62x the tolerance at flat index 10: cuvil -0.376220703125, eager -0.3740234375, float64 -0.37413526779758033
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
STATE = {

}
INPUTS = [
    ([4, 2, 2], 'float64', [-0.12457378481601213, -1.2656299104354929, 0.08111213304583846, -0.2416115423236587, 0.3533812024704554, 1e-30, -1.8037477718336996, -0.8967524323529033, 1.144970054087017, -3.0849416033668358, -0.7336256806940084, 3.4e+38, 1.8492035683640033, 0.853441236459882, 1.3919354165393165, -0.0], 'contiguous')
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
        v0 = torch.sum(x0, [0, 2], False, dtype=torch.float16)
        return (v0,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = 'ok'
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7409921, "inputs": [{"shape": [4, 2, 2], "dtype": "float64", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-0.12457378481601213, -1.2656299104354929, 0.08111213304583846, -0.2416115423236587, 0.3533812024704554, 1e-30, -1.8037477718336996, -0.8967524323529033, 1.144970054087017, -3.0849416033668358, -0.7336256806940084, 3.4e+38, 1.8492035683640033, 0.853441236459882, 1.3919354165393165, -0.0]}], "state": {}, "nodes": [{"call": "torch.sum", "kind": "function", "args": [{"x": 0}, [0, 2], false], "kwargs": {"dtype": {"dtype": "float16"}}, "family": "reduce[cuvil.sum]", "ctor": null, "module": null}], "outputs": [0]}'
