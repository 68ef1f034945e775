"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7021650).

An in-place add_ into a tensor a factory made (torch.zeros) crashed under export:
the in-place dtype rule (half += float stays half) read `.type` of the written value,
which export holds as a torch tensor (whose `.type` is a method), not an IR value.
Fixed: frontend/graph.py takes the written dtype of an IR value, a compile-time tensor
or a torch tensor. fx refuses the write (it sees the zeros as a constant), hence
EXPECT "refused": ok or a clean refusal, never a crash.

Found as: crash on export:O0 and export:O3: FrontendError: cannot lower aten.add_.Tensor:
AttributeError: 'builtin_function_or_method' object has no attribute 'dtype' (also
aten.copy_, fill_, masked_fill_: seeds 7020547, 7021571, 7021044, 7021934)
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn

STATE = {"p0": ([1], "float32", [-2.0035037994384766], "contiguous")}
INPUTS = []


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
        self.p0 = nn.Parameter(_t(STATE["p0"]), requires_grad=False)

    def forward(self):
        v0 = torch.zeros([7])
        v1 = v0.add_(self.p0)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7021650, "inputs": [], "state": {"p0": {"shape": [1], "dtype": "float32", "seed": 1838956873, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "torch.zeros", "kind": "function", "args": [[7]], "kwargs": {}, "family": "factory[0]", "ctor": null, "module": null}, {"call": ".add_", "kind": "method", "args": [{"v": 0}, {"p": "p0"}], "kwargs": {}, "family": "binary[cuvil.add]", "ctor": null, "module": null}], "outputs": [1]}'


EXPECT = "refused"
