"""``cuvil.compile(..., quantize=...)`` end to end (docs/QUANT.md): static int8 with
calibration, dynamic int8, bf16, skip lists, the instruction set, torch.ao's PT2E form,
``cuvil.torch.compile``, and the errors a user gets for bad input."""

from __future__ import annotations

import copy
import warnings

import pytest
import torch

import cuvil
from cuvil.codegen.cpu import resolve_isa
from cuvil.errors import CuvilError
from cuvil.ir.interpreter import interpret
from cuvil.ir.ops.quant import f32
from cuvil.passes.quant_calib import ValueRange, qparams, weight_qparams


class MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(48, 64)
        self.fc2 = torch.nn.Linear(64, 32)
        self.fc3 = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class CNN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 24, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(24, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        return self.fc(torch.relu(self.conv2(x)).mean((2, 3)))


def _mlp():
    torch.manual_seed(0)
    return MLP().eval(), torch.randn(4, 48), [torch.randn(4, 48) for _ in range(6)]


def _sqnr(ref: torch.Tensor, got: torch.Tensor) -> float:
    return float(10 * torch.log10(ref.pow(2).sum() / (ref - got).pow(2).sum()))


def _fake_quant_eager(model: torch.nn.Module, info) -> torch.nn.Module:
    """The model with torch's own fake-quant ops where Cuvil quantized: per-channel
    symmetric weights, the calibrated per-tensor input scale and zero point."""
    layers = {layer.name: layer for layer in info.layers if layer.status == "int8"}
    fq = copy.deepcopy(model)
    for name, mod in fq.named_modules():
        layer = layers.get(name.replace(".", "_"))
        if layer is None:
            continue
        scales = torch.tensor(weight_qparams(mod.weight.data))
        zeros = torch.zeros(len(scales), dtype=torch.int32)
        mod.weight.data = torch.fake_quantize_per_channel_affine(
            mod.weight.data, scales, zeros, 0, -127, 127
        )
        s, z = layer.scale, layer.zero_point
        mod.register_forward_pre_hook(
            lambda m, args, s=s, z=z: (
                torch.fake_quantize_per_tensor_affine(args[0], s, z, 0, 255),
            )
        )
    return fq


@pytest.fixture(scope="module")
def mlp_int8():
    model, x, calib = _mlp()
    return model, x, cuvil.compile(model, [x], quantize="int8", calibration_data=calib)


def test_static_int8_mlp_runs_int8_kernels_close_to_float(mlp_int8):
    model, x, compiled = mlp_int8
    ops = [k.op_name for k in compiled.program.kernels]
    assert ops == ["cuvil.quantize", "cuvil.qlinear", "cuvil.qlinear", "cuvil.qlinear"]
    assert _sqnr(model(x).detach(), compiled(x)) > 30
    info = compiled.quantization
    assert [ly.status for ly in info.layers] == ["int8"] * 3 and info.batches == 6
    assert compiled.options.quantize.isa == resolve_isa("int8")  # recorded


def test_static_int8_equals_its_ir_and_tracks_torch_fake_quant(mlp_int8):
    """Compiled == the folded IR's integer semantics, bit for bit; and within a few
    quantization steps of eager PyTorch with torch's fake-quant ops (fp rounding of
    the float accumulation may flip a requantization)."""
    model, x, compiled = mlp_int8
    got = compiled(x)
    assert torch.equal(got, interpret(compiled.module, [x])[0])
    fq = _fake_quant_eager(model, compiled.quantization)(x).detach()
    assert _sqnr(fq, got) > 40


def test_dynamic_int8_and_bf16_need_no_calibration():
    model, x, _ = _mlp()
    ref = model(x).detach()
    dyn = cuvil.compile(model, [x], quantize={"int8": True, "dynamic": True})
    assert {k.op_name for k in dyn.program.kernels} == {"cuvil.qlinear"}
    assert _sqnr(ref, dyn(x)) > 30
    bf = cuvil.torch.compile(model, target="cpu", quantize="bf16", enable_fusion=True)
    assert _sqnr(ref, bf(x)) > 40
    assert {k.op_name for k in bf.compiled_for([x]).program.kernels} == {
        "cuvil.linear_bf16"
    }


def test_skip_leaves_named_layers_in_float_and_symmetric_portable_works():
    model, x, calib = _mlp()
    opts = {
        "int8": True,
        "skip": ["fc3"],
        "activations": "symmetric",
        "isa": "portable",
    }
    compiled = cuvil.compile(model, [x], quantize=opts, calibration_data=calib)
    by_name = {ly.name: ly for ly in compiled.quantization.layers}
    assert by_name["fc3"].status == "float" and "skip" in by_name["fc3"].reason
    assert by_name["fc1"].zero_point == 128  # symmetric = u8 with zero point 128
    assert compiled.options.to_dict()["quantize"]["isa"] == "portable"  # debug key
    kinds = [k.op_name for k in compiled.program.kernels]
    assert "cuvil.linear" in kinds or "cuvil.fused" in kinds
    assert _sqnr(model(x).detach(), compiled(x)) > 30


def test_cnn_int8_folds_batch_norm_and_runs_conv_chains_nhwc():
    torch.manual_seed(1)
    model = CNN().eval()
    model.bn1.running_mean.uniform_(-0.5, 0.5)
    model.bn1.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 12, 12)
    calib = [torch.randn(2, 3, 12, 12) for _ in range(4)]
    compiled = cuvil.compile(model, [x], quantize="int8", calibration_data=calib)
    ops = [k.op_name for k in compiled.program.kernels]
    assert ops.count("cuvil.qconv2d") == 2 and "cuvil.batch_norm" not in ops
    assert "nhwc" in str(compiled.module)  # conv1's u8 input and output
    assert _sqnr(model(x).detach(), compiled(x)) > 30


def test_a_model_quantized_with_torch_ao_compiles_to_int8_kernels():
    """FX graph mode's decomposed reference model has PT2E's q/dq ops."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization import quantize_fx as qf

    torch.manual_seed(2)
    model = CNN().eval()
    x = torch.randn(1, 3, 10, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prepared = qf.prepare_fx(model, get_default_qconfig_mapping("x86"), (x,))
        for _ in range(3):
            prepared(torch.randn(1, 3, 10, 10))
        ref_model = qf._convert_to_reference_decomposed_fx(prepared)
    compiled = cuvil.compile(ref_model, [x])
    ops = [k.op_name for k in compiled.program.kernels]
    assert ops.count("cuvil.qconv2d") == 2 and "cuvil.qlinear" in ops
    ref = ref_model(x)
    torch.testing.assert_close(compiled(x), ref, rtol=0, atol=2 * ref.abs().max() / 127)


BAD = [
    (dict(quantize="int8"), "needs calibration data"),
    (
        dict(quantize="int8", calibration_data=[torch.randn(3, 48)]),
        "calibration batch 0",
    ),
    (dict(quantize="int8", calibration_data=torch.randn(4, 48)), "list of batches"),
    (dict(quantize="bf16", calibration_data=[torch.randn(4, 48)]), "static int8"),
    (
        dict(
            quantize={"int8": True, "skip": ["fc9"]},
            calibration_data=[torch.randn(4, 48)],
        ),
        "no layer is called 'fc9'",
    ),
    (dict(quantize={"int8": True, "bf16": True}), "one mode"),
    (dict(quantize={"int8": True, "isa": "sse"}), "isa='sse' is not one of"),
    (dict(quantize="int4"), "mode='int4' is not one of"),
    (dict(quantize="int8", options={"quantize": "bf16"}), "given twice"),
]


@pytest.mark.parametrize("kwargs, message", BAD)
def test_bad_quantize_input_is_a_clear_error(kwargs, message):
    model, x, _ = _mlp()
    with pytest.raises(CuvilError) as info:
        cuvil.compile(model, [x], **kwargs)
    assert message in str(info.value)


def test_activation_qparams_and_percentile_calibration():
    assert qparams(0.5, 2.0, "affine") == (qparams(0.0, 2.0, "affine"))  # holds 0
    scale, zp, lo, hi = qparams(-1.0, 3.0, "affine")
    assert (zp, lo, hi) == (64, 0, 255) and scale == f32(4.0 / 255)
    assert qparams(-1.0, 3.0, "symmetric")[1:] == (128, 1, 255)
    r = ValueRange()
    r.observe(torch.cat([torch.linspace(-1, 1, 100_000), torch.tensor([50.0])]), True)
    lo, hi = r.clipped(99.99)
    assert (r.lo, r.hi) == (-1.0, 50.0) and -1.0 <= lo < -0.99 and 0.99 < hi < 1.0


def test_an_unavailable_instruction_set_is_refused_by_name():
    zen5 = frozenset({"avx512f", "avx512bw", "avx512vnni", "avx512bf16"})
    assert resolve_isa("int8", "auto", zen5) == "avx512"
    assert resolve_isa("bf16", "auto", frozenset({"avx2"})) == "portable"
    with pytest.raises(CuvilError) as info:
        resolve_isa("int8", "amx", zen5)
    assert "lacks amx-tile, amx-int8" in str(info.value)
    assert "avx512, portable" in info.value.hint


def test_a_model_without_contractions_cannot_be_quantized():
    with pytest.raises(CuvilError, match="no layer of the model can be quantized"):
        cuvil.compile(torch.nn.ReLU(), [torch.randn(3)], quantize="bf16")


@pytest.mark.slow
def test_a_saved_int8_model_loads_and_runs_in_a_fresh_process(tmp_path):
    """cuvil.load checks the instruction set (and asks for AMX's tile state) before
    the library runs: a fresh process gets the same bits."""
    import subprocess
    import sys

    model, x, calib = _mlp()
    compiled = cuvil.compile(model, [x], quantize="int8", calibration_data=calib)
    cuvil.save(compiled, tmp_path / "b")
    torch.save({"x": x, "y": compiled(x)}, tmp_path / "io.pt")
    d = tmp_path
    code = (
        f"import torch, cuvil; m = cuvil.load(r'{d}/b'); d = torch.load(r'{d}/io.pt');"
        "assert torch.equal(m(d['x']), d['y']); print(m.options.quantize.isa)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == compiled.options.quantize.isa


_AVX2_HOST = """
import sys, torch, llvmlite.binding as llvm
feats = "+sse4.2,+popcnt,+avx,+avx2,+fma,+f16c,+bmi,+bmi2,+lzcnt,+movbe,+cx16,+64bit,+cmov"
llvm.get_host_cpu_name = lambda: "haswell"  # what a CPU without AVX-512 reports
llvm.get_host_cpu_features = lambda: type("F", (), {"flatten": lambda s: feats})()
import cuvil
from cuvil.errors import CuvilError
d = torch.load(sys.argv[1], weights_only=False)
m, x = d["model"], d["x"]
q = cuvil.compile(m, [x], quantize="int8", calibration_data=d["calib"])
assert q.options.quantize.isa == "portable", q.options.quantize.isa
assert torch.equal(q(x), d["int8"])  # the integer part is exact on every isa
b = cuvil.compile(m, [x], quantize="bf16")
assert b.options.quantize.isa == "portable"
torch.testing.assert_close(b(x), d["bf16"], rtol=1e-4, atol=1e-5)
try:
    cuvil.compile(m, [x], quantize={"int8": True, "isa": "avx512"}, calibration_data=d["calib"])
    raise SystemExit("isa='avx512' compiled on a CPU without it")
except CuvilError as e:
    assert "lacks avx512f" in str(e), e
print("ok")
"""


@pytest.mark.slow
def test_a_cpu_without_avx512_gets_the_portable_kernels_and_the_same_bits(tmp_path):
    """Feature detection, not hard-coding: in a process where LLVM sees a Haswell (no
    AVX-512, VNNI or AMX), "auto" picks the portable kernels, whose int8 results equal
    this machine's bit for bit, and asking for avx512 is a CuvilError."""
    import os
    import subprocess
    import sys

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(48, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)
    ).eval()
    x, calib = torch.randn(5, 48), [torch.randn(5, 48) for _ in range(4)]
    q = cuvil.compile(model, [x], quantize="int8", calibration_data=calib)
    b = cuvil.compile(model, [x], quantize="bf16")
    d = {"model": model, "x": x, "calib": calib, "int8": q(x), "bf16": b(x)}
    torch.save(d, tmp_path / "case.pt")
    env = dict(os.environ, CUVIL_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", _AVX2_HOST, str(tmp_path / "case.pt")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


class _Grouped(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)  # not depthwise
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(self.dw(torch.relu(self.c1(x))).mean((2, 3)))


def test_an_unsupported_layer_in_an_int8_model_stays_float_and_says_why(capsys):
    """The documented float fallback: a grouped (not depthwise) convolution between
    int8 layers runs as a float32 conv2d, the report names the reason, the output
    stays close (depthwise ones are int8: tests/codegen/test_quant_depthwise.py)."""
    torch.manual_seed(0)
    model, x = _Grouped().eval(), torch.randn(2, 3, 10, 10)
    calib = [torch.randn(2, 3, 10, 10) for _ in range(3)]
    with cuvil.debug_level(1):  # CUVIL_DEBUG=1 names the fallback too
        compiled = cuvil.compile(model, [x], quantize="int8", calibration_data=calib)
    line = next(ln for ln in capsys.readouterr().err.splitlines() if "quantize" in ln)
    assert "2 int8, 1 float" in line and "dw: a grouped convolution" in line
    status = {ly.name: (ly.status, ly.reason) for ly in compiled.quantization.layers}
    assert status["c1"][0] == status["fc"][0] == "int8"
    assert status["dw"][0] == "float" and "grouped convolution" in status["dw"][1]
    ops = [k.op_name for k in compiled.program.kernels]
    assert ops.count("cuvil.qconv2d") == 1 and "cuvil.conv2d" in ops
    assert _sqnr(model(x).detach(), compiled(x)) > 30


class _FakeQuantRegion(torch.nn.Module):
    """A QAT-style model whose quantized region holds ops fold-qdq has no int8 kernel
    for: a 1-d convolution and a linear on int8 (signed) activations, between a
    linear it does fold."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(12, 16)
        self.conv = torch.nn.Conv1d(1, 2, 3)
        self.head = torch.nn.Linear(28, 5)

    @staticmethod
    def _fq(t, scale, zp, lo=0, hi=255):
        return torch.fake_quantize_per_tensor_affine(t, scale, zp, lo, hi)

    @staticmethod
    def _fw(w):
        return torch.fake_quantize_per_tensor_affine(w, 0.01, 0, -127, 127)

    def forward(self, x):
        y = torch.relu(
            torch.nn.functional.linear(
                self._fq(x, 0.02, 128), self._fw(self.fc.weight), self.fc.bias
            )
        )
        y = torch.nn.functional.conv1d(
            self._fq(y.unsqueeze(1), 0.01, 0),
            self._fw(self.conv.weight),
            self.conv.bias,
        )
        y = self._fq(y.flatten(1), 0.02, 0, -128, 127)  # int8 activations: no kernel
        return torch.nn.functional.linear(y, self._fw(self.head.weight), self.head.bias)


def test_unsupported_ops_in_a_quantized_region_run_as_float_fake_quant():
    """The documented fallback for a model quantized elsewhere: what fold-qdq does not
    match stays quantize / dequantize around a float32 op, which computes torch's
    fake-quant eager result; what it matches (the first linear) is int8."""
    torch.manual_seed(4)
    model, x = _FakeQuantRegion().eval(), torch.randn(3, 12)
    compiled = cuvil.compile(model, [x])
    ops = [k.op_name for k in compiled.program.kernels]
    assert ops.count("cuvil.qlinear") == 1 and "cuvil.qconv2d" not in ops
    assert "cuvil.quantize" in ops and "cuvil.dequantize" in ops
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
