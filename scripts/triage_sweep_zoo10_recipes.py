"""The recipes of scripts/triage_sweep_zoo10.py: tiny-config pyro-ppl, kymatio, opacus,
brevitas and auraloss models (random weights, nothing downloaded) and the arguments a
user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo9_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
import lines."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as None / a flag / a Python number: no Dim
BS = "{0: BATCH, 1: SEQ}"  # (batch, sequence, ...)
SB = "{0: SEQ, 1: BATCH}"  # sequence-major
# ------------------------------------------------------------------ pyro-ppl
PN = "pyro.nn"
CE = "pyro.contrib.cevae"
AG = "pyro.infer.autoguide"
CEVAE = "from pyro.contrib.cevae import Model as CevaeModel"
CFG = "{'feature_dim': 4, 'latent_dim': 2, 'hidden_dim': 8, 'num_layers': 2, 'outcome_dist': 'normal'}"
FLOW_X = _x("8, 4")
CTX = _x("8, 3", "context")
CE_X = _x("8, 4")
CE_T = (f"t = torch.randint(0, 2, (8,), {G}).float()", B)
CE_Y = _x("8", "y")
# ------------------------------------------------------------------ kymatio
K1 = "kymatio.scattering1d.frontend.torch_frontend"
K2 = "kymatio.scattering2d.frontend.torch_frontend"
SIG = _x("2, 64")
IMG16 = _x("2, 16, 16")
# ------------------------------------------------------------------ opacus
OL = "opacus.layers"
OG = "opacus.grad_sample"
MLP = (
    "torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))"
)
SEQ = _x("2, 5, 4", "x", BS)  # (batch, length, features)
STEP = _x("2, 4")
QKV = [
    _x("5, 2, 8", n, SB) for n in ("query", "key", "value")
]  # (length, batch, embed)
# ------------------------------------------------------------------ brevitas
BN = "brevitas.nn"
INT8_ACT = "from brevitas.quant import Int8ActPerTensorFloat"
X4 = _x("2, 4")
IMG = _x("2, 3, 8, 8")
# ------------------------------------------------------------------ auraloss
AF = "auraloss.freq"
AT = "auraloss.time"
AUDIO = [_x("2, 1, 256", "input"), _x("2, 1, 256", "target")]
STEREO = [_x("2, 2, 256", "input"), _x("2, 2, 256", "target")]
RES = "fft_sizes=[32, 64], hop_sizes=[8, 16], win_lengths=[32, 64]"
STFT = "fft_size=64, hop_size=16, win_length=32"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ pyro-ppl
    _r("pyro_arnn", "pyro-nn", PN, "AutoRegressiveNN", "4, [8]", [FLOW_X]),
    _r("pyro_arnn_skip", "pyro-nn", PN, "AutoRegressiveNN", "4, [8, 8], param_dims=[1, 1, 2], skip_connections=True", [FLOW_X]),
    _r("pyro_arnn_single", "pyro-nn", PN, "AutoRegressiveNN", "4, [8], param_dims=[1]", [FLOW_X]),
    _r("pyro_carnn", "pyro-nn", PN, "ConditionalAutoRegressiveNN", "4, 3, [8]", [FLOW_X, CTX]),
    _r("pyro_dense", "pyro-nn", PN, "DenseNN", "3, [8], param_dims=[1, 1]", [_x("8, 3")]),
    _r("pyro_cdense", "pyro-nn", PN, "ConditionalDenseNN", "4, 3, [8], param_dims=[2]", [FLOW_X, CTX]),
    _r("pyro_cevae_diag_normal", "pyro-cevae-nets", CE, "DiagNormalNet", "[4, 8, 2]", [CE_X]),
    _r("pyro_cevae_bernoulli", "pyro-cevae-nets", CE, "BernoulliNet", "[4, 8]", [CE_X]),
    _r("pyro_cevae_exponential", "pyro-cevae-nets", CE, "ExponentialNet", "[4, 8]", [CE_X]),
    _r("pyro_cevae_prewhitener", "pyro-cevae-nets", CE, "PreWhitener", "torch.randn(16, 4)", [CE_X]),
    _r("pyro_cevae_model", "pyro-cevae", "pyro.contrib", "cevae.Model", CFG, [CE_X, CE_T, CE_Y]),
    _r("pyro_cevae_guide", "pyro-cevae", CE, "Guide", CFG, [CE_X, CE_T, CE_Y]),
    _r("pyro_auto_normal", "pyro-autoguide", AG, "AutoNormal", f"CevaeModel({CFG})", [CE_X, CE_T, CE_Y], [CEVAE]),
    _r("pyro_auto_diag_normal", "pyro-autoguide", AG, "AutoDiagonalNormal", f"CevaeModel({CFG})", [CE_X, CE_T, CE_Y], [CEVAE]),
    # ------------------------------------------------------------------ kymatio
    _r("kym_1d", "kymatio-1d", K1, "ScatteringTorch1D", "J=2, shape=64", [SIG]),
    _r("kym_1d_q", "kymatio-1d", K1, "ScatteringTorch1D", "J=2, shape=64, Q=2, max_order=1", [SIG]),
    _r("kym_1d_list", "kymatio-1d", K1, "ScatteringTorch1D", "J=2, shape=64, out_type='list'", [SIG]),
    _r("kym_1d_t", "kymatio-1d", K1, "ScatteringTorch1D", "J=2, shape=64, T=16", [SIG]),
    _r("kym_1d_channels", "kymatio-1d", K1, "ScatteringTorch1D", "J=2, shape=64, oversampling=1", [_x("2, 3, 64")]),
    _r("kym_2d", "kymatio-2d", K2, "ScatteringTorch2D", "J=1, shape=(16, 16), L=4", [IMG16]),
    _r("kym_2d_order1", "kymatio-2d", K2, "ScatteringTorch2D", "J=2, shape=(16, 16), L=4, max_order=1", [_x("2, 3, 16, 16")]),
    _r("kym_2d_list", "kymatio-2d", K2, "ScatteringTorch2D", "J=1, shape=(16, 16), L=4, out_type='list'", [IMG16]),
    _r("kym_2d_prepad", "kymatio-2d", K2, "ScatteringTorch2D", "J=1, shape=(16, 16), L=4, pre_pad=True", [_x("2, 20, 20")]),
    # ------------------------------------------------------------------ opacus
    _r("opacus_dplstm", "opacus-rnn", OL, "DPLSTM", "4, 8, batch_first=True", [SEQ]),
    _r("opacus_dplstm_bi2", "opacus-rnn", OL, "DPLSTM", "4, 8, num_layers=2, bidirectional=True, batch_first=True", [SEQ]),
    _r("opacus_dplstm_state", "opacus-rnn", OL, "DPLSTM", "4, 8", [_x("5, 2, 4", "x", SB), ("state = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))", "({1: BATCH}, {1: BATCH})")]),
    _r("opacus_dpgru", "opacus-rnn", OL, "DPGRU", "4, 8, batch_first=True", [SEQ]),
    _r("opacus_dprnn", "opacus-rnn", OL, "DPRNN", "4, 8, nonlinearity='relu', batch_first=True, dropout=0.0", [SEQ]),
    _r("opacus_dplstm_cell", "opacus-rnn-cells", "opacus.layers.dp_rnn", "DPLSTMCell", "4, 8, True", [STEP, ("hc = (torch.zeros(2, 8), torch.zeros(2, 8))", "({0: BATCH}, {0: BATCH})")]),
    _r("opacus_dpgru_cell", "opacus-rnn-cells", "opacus.layers.dp_rnn", "DPGRUCell", "4, 8, True", [STEP, _x("2, 8", "h")]),
    _r("opacus_dpmha", "opacus-attention", OL, "DPMultiheadAttention", "8, 2", QKV),
    _r("opacus_dpmha_bias_kv", "opacus-attention", OL, "DPMultiheadAttention", "8, 2, add_bias_kv=True, add_zero_attn=True", QKV),
    _r("opacus_dpmha_mask", "opacus-attention", OL, "DPMultiheadAttention", "8, 2", [*QKV, ("key_padding_mask = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])", True)]),
    _r("opacus_gsm_mlp", "opacus-grad-sample", OG, "GradSampleModule", MLP, [STEP]),
    _r("opacus_gsm_conv", "opacus-grad-sample", OG, "GradSampleModule", "torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.GroupNorm(2, 4), torch.nn.Flatten(), torch.nn.Linear(144, 2))", [_x("2, 3, 8, 8")]),
    _r("opacus_gsm_embedding", "opacus-grad-sample", OG, "GradSampleModule", "torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.LayerNorm(4), torch.nn.Flatten(), torch.nn.Linear(12, 2))", [(f"ids = torch.randint(0, 10, (2, 3), {G})", B)]),
    _r("opacus_gsm_functorch", "opacus-grad-sample", OG, "GradSampleModule", "torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.PReLU(), torch.nn.Linear(8, 2))", [STEP]),
    _r("opacus_gsm_ew", "opacus-grad-sample", "opacus.grad_sample.gsm_exp_weights", "GradSampleModuleExpandedWeights", MLP, [STEP]),
    _r("opacus_gsm_fgc", "opacus-grad-sample", OG, "GradSampleModuleFastGradientClipping", MLP, [STEP]),
    _r("opacus_gsm_dplstm", "opacus-grad-sample", OG, "GradSampleModule", "DPLSTM(4, 8, batch_first=True)", [SEQ], ["from opacus.layers import DPLSTM"]),
    # ------------------------------------------------------------------ brevitas
    _r("brev_linear", "brevitas-linear", BN, "QuantLinear", "4, 8, bias=True", [X4]),
    _r("brev_linear_qt", "brevitas-linear", BN, "QuantLinear", "4, 8, bias=True, input_quant=Int8ActPerTensorFloat, return_quant_tensor=True", [X4], [INT8_ACT]),
    _r("brev_linear_int32_bias", "brevitas-linear", BN, "QuantLinear", "4, 8, bias=True, input_quant=Int8ActPerTensorFloat, bias_quant=Int32Bias", [X4], ["from brevitas.quant import Int8ActPerTensorFloat, Int32Bias"]),
    _r("brev_linear_per_channel", "brevitas-linear", BN, "QuantLinear", "4, 8, bias=False, weight_quant=Int8WeightPerChannelFloat, weight_bit_width=4", [X4], ["from brevitas.quant import Int8WeightPerChannelFloat"]),
    _r("brev_conv2d", "brevitas-conv", BN, "QuantConv2d", "3, 4, 3", [IMG]),
    _r("brev_conv1d", "brevitas-conv", BN, "QuantConv1d", "3, 4, 3, weight_bit_width=4", [_x("2, 3, 16")]),
    _r("brev_conv_transpose2d", "brevitas-conv", BN, "QuantConvTranspose2d", "3, 4, 2, stride=2", [IMG]),
    _r("brev_relu", "brevitas-activation", BN, "QuantReLU", "bit_width=4", [X4]),
    _r("brev_identity_qt", "brevitas-activation", BN, "QuantIdentity", "return_quant_tensor=True", [X4]),
    _r("brev_hardtanh", "brevitas-activation", BN, "QuantHardTanh", "max_val=1.0, min_val=-1.0", [X4]),
    _r("brev_sigmoid", "brevitas-activation", BN, "QuantSigmoid", {}, [X4]),
    _r("brev_eltwise_add", "brevitas-eltwise", BN, "QuantEltwiseAdd", "input_quant=Int8ActPerTensorFloat, output_quant=Int8ActPerTensorFloat", [_x("2, 4", "a"), _x("2, 4", "b")], [INT8_ACT]),
    _r("brev_scale_bias", "brevitas-eltwise", BN, "QuantScaleBias", "4, bias=True, runtime_shape=(1, -1)", [X4]),
    _r("brev_mha", "brevitas-attention", BN, "QuantMultiheadAttention", "8, 2, packed_in_proj=False", QKV),
    _r("brev_sdpa", "brevitas-attention", BN, "QuantScaledDotProductAttention", {}, [_x("2, 2, 5, 4", n) for n in ("query", "key", "value")]),
    _r("brev_lstm", "brevitas-rnn", BN, "QuantLSTM", "4, 8, batch_first=True", [SEQ]),
    _r("brev_rnn", "brevitas-rnn", BN, "QuantRNN", "4, 8, batch_first=True", [SEQ]),
    _r("brev_embedding", "brevitas-embedding", BN, "QuantEmbedding", "10, 4", [(f"ids = torch.randint(0, 10, (2, 3), {G})", B)]),
    # ------------------------------------------------------------------ auraloss
    _r("aura_stft", "auraloss-freq", AF, "STFTLoss", STFT, AUDIO),
    _r("aura_stft_full", "auraloss-freq", AF, "STFTLoss", f"{STFT}, w_lin_mag=1.0, w_phs=1.0, output='full'", AUDIO),
    _r("aura_stft_scale_invariant", "auraloss-freq", AF, "STFTLoss", f"{STFT}, scale_invariance=True", AUDIO),
    _r("aura_stft_perceptual", "auraloss-freq", AF, "STFTLoss", f"{STFT}, perceptual_weighting=True, sample_rate=16000", AUDIO),
    _r("aura_mrstft", "auraloss-freq", AF, "MultiResolutionSTFTLoss", RES, AUDIO),
    _r("aura_random_resolution", "auraloss-freq", AF, "RandomResolutionSTFTLoss", "resolutions=2, min_fft_size=16, max_fft_size=64", AUDIO),
    _r("aura_sum_difference", "auraloss-freq", AF, "SumAndDifferenceSTFTLoss", RES, STEREO),
    _r("aura_spectral_convergence", "auraloss-freq", AF, "SpectralConvergenceLoss", {}, [_x("2, 33, 17", "x_mag"), _x("2, 33, 17", "y_mag")]),
    _r("aura_esr", "auraloss-time", AT, "ESRLoss", {}, AUDIO),
    _r("aura_dc", "auraloss-time", AT, "DCLoss", {}, AUDIO),
    _r("aura_logcosh", "auraloss-time", AT, "LogCoshLoss", {}, AUDIO),
    _r("aura_snr", "auraloss-time", AT, "SNRLoss", {}, AUDIO),
    _r("aura_sisdr", "auraloss-time", AT, "SISDRLoss", {}, AUDIO),
    _r("aura_fir", "auraloss-perceptual", "auraloss.perceptual", "FIRFilter", "filter_type='aw', fs=16000", AUDIO),
    _r("aura_sum_and_difference", "auraloss-perceptual", "auraloss.perceptual", "SumAndDifference", {}, [_x("2, 2, 256")]),
]
# fmt: on
