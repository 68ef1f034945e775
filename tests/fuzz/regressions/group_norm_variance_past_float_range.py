"""Fuzz regression sample (cuvil_debug.fuzz, graph seed 7055279).

group_norm of a group holding 3.4e38, permuted into the query of an SDPA whose key
holds 3.4e38: torch's group_norm sums the squared deviations in float, so past
float's range var is inf, rstd 0 and the output is the bias (-0.95); Cuvil summed in
double and normalized (6.46, float64's value), and 6.46 * 3.4e38 overflowed the score
to inf, NaN after softmax, where eager's and float64's scores stayed finite. Fixed:
codegen/resample.emit_group_norm takes the sum past float's range as inf, as torch.

Found as: wrong on fx:O0: output 0: non-finite pattern differs at flat index 70: cuvil nan, eager 3.3999999521443642e+38, float64 3.3999999521443642e+38
Replayed by tests/fuzz/test_fuzz_regressions.py through fx and export at O0
and O3; alone: `cuvil-debug diff THIS_FILE`.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

aten = torch.ops.aten
STATE = {
    "p0": (
        [7],
        "float32",
        [
            -0.9541465044021606,
            0.34565970301628113,
            0.6887073516845703,
            -1.5009326934814453,
            0.6791605353355408,
            0.4662531614303589,
            -0.46563294529914856,
        ],
        "contiguous",
    )
}
INPUTS = [
    (
        [2, 7, 8],
        "float32",
        [
            -2.2881696224212646,
            1.0000000031710769e-30,
            -2.2312116622924805,
            0.2631654441356659,
            1.2339046001434326,
            3.3999999521443642e38,
            -0.17345751821994781,
            1.7460746765136719,
            -0.5706192851066589,
            1.9633516073226929,
            0.0,
            -10000.0,
            0.15873727202415466,
            -0.3684123456478119,
            -0.0,
            -0.5987079739570618,
            0.04714766517281532,
            0.1221080869436264,
            1.0000000031710769e-30,
            -0.7969232797622681,
            -0.40607747435569763,
            -2.006455421447754,
            -0.34665507078170776,
            -0.9714279770851135,
            -0.6082937121391296,
            -0.6547277569770813,
            -0.5648885369300842,
            -0.14687657356262207,
            0.4896092712879181,
            -0.3423353433609009,
            0.48542794585227966,
            -0.2301853895187378,
            0.03539098799228668,
            0.8444678783416748,
            -0.3061865568161011,
            1.357911467552185,
            -0.0,
            -0.5936676859855652,
            0.4761810600757599,
            -1.2411061525344849,
            -0.23716069757938385,
            -0.6484368443489075,
            -10000.0,
            -0.19443395733833313,
            -1.2274284362792969,
            2.4453394412994385,
            0.83223557472229,
            1.0000000031710769e-30,
            0.6018442511558533,
            -0.4487324059009552,
            -0.2660748064517975,
            -1.0345076322555542,
            -0.21903403103351593,
            -0.6148059368133545,
            1.0536667108535767,
            1.5380421876907349,
            -1.0,
            1.626712441444397,
            0.22987014055252075,
            -0.6172429919242859,
            10000.0,
            -1.7724841833114624,
            0.3745625913143158,
            -0.945701003074646,
            0.2788713574409485,
            0.6867924332618713,
            0.15162047743797302,
            1.0,
            -1.4116158485412598,
            -0.17557834088802338,
            -10000.0,
            3.2411859035491943,
            0.5287355184555054,
            0.0,
            1.7531278133392334,
            -9.99994610111476e-41,
            2.1617431640625,
            10000.0,
            -0.0,
            0.6107608079910278,
            -0.788463294506073,
            10000.0,
            -0.067928247153759,
            1.0,
            1.0205771923065186,
            1.0,
            -0.13195697963237762,
            -1.9405908584594727,
            0.6079978942871094,
            -0.09032668173313141,
            0.059138890355825424,
            0.03435457870364189,
            -0.9453392028808594,
            -0.42777228355407715,
            -0.1598641276359558,
            0.47878608107566833,
            1.475425362586975,
            0.6591775417327881,
            0.09462238848209381,
            0.29033568501472473,
            1.637008547782898,
            -0.685977041721344,
            0.27437180280685425,
            -0.11250121146440506,
            -0.8719024658203125,
            -1.21907639503479,
            0.7758672833442688,
            -0.7851938605308533,
            0.03149423375725746,
            -2.37447452545166,
            0.48293232917785645,
            1.3978008031845093,
        ],
        "offset",
    ),
    (
        [8, 1, 2],
        "float32",
        [
            -2.2881696224212646,
            -1.0,
            1.0000000031710769e-30,
            1.626712441444397,
            -2.2312116622924805,
            0.22987014055252075,
            0.2631654441356659,
            -0.6172429919242859,
            1.2339046001434326,
            10000.0,
            3.3999999521443642e38,
            -1.7724841833114624,
            -0.17345751821994781,
            0.3745625913143158,
            1.7460746765136719,
            -0.945701003074646,
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
        self.p0 = nn.Parameter(_t(STATE["p0"]), requires_grad=False)

    def forward(self, x0, x1):
        v0 = F.group_norm(x0, 1, bias=self.p0, eps=0.1)
        v1 = torch.permute(v0, [2, 1, 0])
        v2 = aten.scaled_dot_product_attention.default(
            v1, x1, x1, is_causal=False, scale=None
        )
        return (v2,)


def example_inputs():
    return tuple(_t(s) for s in INPUTS)


EXPECT = "ok"
# the graph as the fuzzer's data (cuvil_debug.fuzz.graph.Graph.from_json)
GRAPH = '{"seed": 7055279, "inputs": [{"shape": [2, 7, 8], "dtype": "float32", "seed": 1499233967, "profile": "edges", "layout": "offset", "low": -8, "high": 8, "values": null}, {"shape": [8, 1, 2], "dtype": "float32", "seed": 0, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": [-2.2881696224212646, -1.0, 1.0000000031710769e-30, 1.626712441444397, -2.2312116622924805, 0.22987014055252075, 0.2631654441356659, -0.6172429919242859, 1.2339046001434326, 10000.0, 3.3999999521443642e+38, -1.7724841833114624, -0.17345751821994781, 0.3745625913143158, 1.7460746765136719, -0.945701003074646]}], "state": {"p0": {"shape": [7], "dtype": "float32", "seed": 1236026355, "profile": "normal", "layout": "contiguous", "low": -8, "high": 8, "values": null}}, "nodes": [{"call": "F.group_norm", "kind": "function", "args": [{"x": 0}, 1], "kwargs": {"bias": {"p": "p0"}, "eps": 0.1}, "family": "group_norm", "ctor": null, "module": null}, {"call": "torch.permute", "kind": "function", "args": [{"v": 0}, [2, 1, 0]], "kwargs": {}, "family": "_permute", "ctor": null, "module": null}, {"call": "aten.scaled_dot_product_attention.default", "kind": "aten", "args": [{"v": 1}, {"x": 1}, {"x": 1}], "kwargs": {"is_causal": false, "scale": null}, "family": "_sdpa", "ctor": null, "module": null}], "outputs": [2]}'
