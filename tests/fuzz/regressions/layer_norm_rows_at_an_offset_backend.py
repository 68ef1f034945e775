"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7001128).

layer_norm (aten.layer_norm through torch.compile; fx and export refuse the in-place
sub on an input) of rows of three near -1e4: Cuvil centred each row at its float32
mean, rounded to a 1e-3 grid there, and was 2.3x the tolerance off where eager was
close. Fixed in codegen/reduce.py (_row_moments: mean and variance in float64, the row
normalised in float64 and rounded once: the exact layer_norm of its float32 input).

Found as: wrong on backend:O3: output 0: error 2.25x the tolerance at flat index 32: cuvil -0.3739013373851776, eager -0.3737567663192749, float64 -0.37375619816627637
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import math

import torch
import torch.nn as nn

aten = torch.ops.aten
STATE = {
    "p1": (
        [3],
        "float32",
        [0.42587316036224365, -2.135374069213867, 0.2555544376373291],
        "contiguous",
    ),
    "p2": (
        [3],
        "float32",
        [math.inf, 0.5572026371955872, -0.012417096644639969],
        "contiguous",
    ),
}
INPUTS = [
    (
        [1, 4, 4, 3],
        "float32",
        [
            1.490951418876648,
            -1.4533143043518066,
            -0.7773849368095398,
            1.0236015319824219,
            -0.7929995656013489,
            0.05319096893072128,
            0.23460540175437927,
            1.0841079950332642,
            0.7141931056976318,
            -1.2370396852493286,
            0.5757352113723755,
            0.4254295825958252,
            0.24103659391403198,
            0.830834150314331,
            0.03397196903824806,
            -0.2539612054824829,
            1.452906847000122,
            0.9473733901977539,
            1.6685779094696045,
            -0.23828625679016113,
            0.643981397151947,
            -0.053216200321912766,
            0.6434081196784973,
            1.365360975265503,
            0.020068377256393433,
            -0.8812928795814514,
            0.23474165797233582,
            -0.8776252269744873,
            0.4731142818927765,
            -2.379840612411499,
            1.4075708389282227,
            1.3806242942810059,
            0.1557026207447052,
            0.6144729256629944,
            -0.910768449306488,
            -0.014226594939827919,
            0.9127788543701172,
            -0.3508595824241638,
            -0.9508897662162781,
            -0.7391918301582336,
            -0.9696986079216003,
            -1.873143196105957,
            0.5309538841247559,
            -0.07068844884634018,
            1.8130316734313965,
            -0.8993511199951172,
            0.7838266491889954,
            1.0787745714187622,
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
        self.p1 = nn.Parameter(_t(STATE["p1"]), requires_grad=False)
        self.p2 = nn.Parameter(_t(STATE["p2"]), requires_grad=False)

    def forward(self, x0):
        v0 = x0.sub_(10000.0)
        v1 = aten.layer_norm.default(v0, [3], self.p1, self.p2, 1e-05, False)
        return (v1,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


CONFIGS = ["fx:O0", "fx:O3", "export:O0", "export:O3", "backend:O3"]

EXPECT = "refused"  # fx and export refuse the in-place sub on an input
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7001128, "inputs": [{"shape": [1, 4, 4, 3], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [1.490951418876648, -1.4533143043518066, -0.7773849368095398, 1.0236015319824219, -0.7929995656013489, 0.05319096893072128, 0.23460540175437927, 1.0841079950332642, 0.7141931056976318, -1.2370396852493286, 0.5757352113723755, 0.4254295825958252, 0.24103659391403198, 0.830834150314331, 0.03397196903824806, -0.2539612054824829, 1.452906847000122, 0.9473733901977539, 1.6685779094696045, -0.23828625679016113, 0.643981397151947, -0.053216200321912766, 0.6434081196784973, 1.365360975265503, 0.020068377256393433, -0.8812928795814514, 0.23474165797233582, -0.8776252269744873, 0.4731142818927765, -2.379840612411499, 1.4075708389282227, 1.3806242942810059, 0.1557026207447052, 0.6144729256629944, -0.910768449306488, -0.014226594939827919, 0.9127788543701172, -0.3508595824241638, -0.9508897662162781, -0.7391918301582336, -0.9696986079216003, -1.873143196105957, 0.5309538841247559, -0.07068844884634018, 1.8130316734313965, -0.8993511199951172, 0.7838266491889954, 1.0787745714187622]}], "state": {"p1": {"shape": [3], "dtype": "float32", "seed": 1938228399, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}, "p2": {"shape": [3], "dtype": "float32", "seed": 852765548, "profile": "nonfinite", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": ".sub_", "kind": "method", "args": [{"x": 0}, 10000.0], "kwargs": {}, "family": "binary[cuvil.sub]", "ctor": null, "module": null}, {"call": "aten.layer_norm.default", "kind": "aten", "args": [{"v": 0}, [3], {"p": "p1"}, {"p": "p2"}, 1e-05, false], "kwargs": {}, "family": "layer_norm", "ctor": null, "module": null}], "outputs": [1]}'
