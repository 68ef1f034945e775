"""The recipes of scripts/triage_sweep_zoo7.py: tiny-config zuko, snntorch, demucs,
pytorch-tcn and gpytorch models (random weights, nothing downloaded) and the arguments a
user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe): `inputs` are the lines of
example_inputs() (`g` is a seeded torch.Generator), each with its `dynamic` spec: `True`
when dim 0 is the batch (`{0: BATCH}`), a string for another spec (`{1: BATCH}` for a
time-major input), `False` for none (a flag, `None`). Constructor kwargs written as a
string are source (they may name the extra imported classes and `torch`); `extra` adds
names imported from the module, or whole import lines."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as None / a flag: no Dim


def _x(shape: str, name: str = "x", spec=B) -> tuple:
    return (f"{name} = torch.randn({shape}, {G})", spec)


def _r(case, fam, module, cls, kw, inputs, extra=None) -> tuple:
    r = (case, fam, module, cls, kw, inputs)
    return r + ((extra,) if extra else ())


# ------------------------------------------------------------------ zuko
ZF = "zuko.flows"
CTX = _x("8, 2", "c")  # the context a conditional flow is called on
FLOW = "features=3, context=2, transforms=2, hidden_features=[16, 16]"
# ------------------------------------------------------------------ snntorch
SN = "snntorch"
CUR = _x("8, 16")  # an input current, (batch, features)
MEM = _x("8, 16", "mem")
# ------------------------------------------------------------------ demucs
HT = "demucs.htdemucs"
HD = "demucs.hdemucs"
DM = "demucs.demucs"
DT = "demucs.transformer"
SRC = "sources=['drums', 'bass'], audio_channels=2"
MIX = _x("2, 2, 2048", "mix")  # (batch, audio channels, samples)
HYBRID = f"{SRC}, channels=8, depth=2, nfft=256, samplerate=8000, segment=1"
HDEMUCS = f"{SRC}, channels=8, depth=3, nfft=256, samplerate=8000"  # depth 2: the branches' sizes differ
# ------------------------------------------------------------------ pytorch-tcn
TCN = "num_inputs=4, num_channels=[8, 8], kernel_size=3, dropout=0.0"
SEQ = _x("2, 4, 32")  # (batch, channels, time)
# ------------------------------------------------------------------ gpytorch
GK = "gpytorch.kernels"
GM = "gpytorch.means"
X1 = _x("8, 3", "x1")
X2 = _x("6, 3", "x2")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ zuko
    _r("zuko_maf", "zuko-autoregressive", ZF, "MAF", FLOW, [CTX]),
    _r("zuko_maf_uncond", "zuko-autoregressive", ZF, "MAF", "features=3, transforms=2, hidden_features=[16]", [("c = None", NONE)]),
    _r("zuko_mat", "zuko-autoregressive", "zuko.flows.autoregressive", "MaskedAutoregressiveTransform", "features=3, context=2, hidden_features=[16]", [CTX]),
    _r("zuko_nsf", "zuko-spline", ZF, "NSF", f"{FLOW}, bins=4", [CTX]),
    _r("zuko_ncsf", "zuko-spline", ZF, "NCSF", f"{FLOW}, bins=4", [CTX]),
    _r("zuko_sospf", "zuko-polynomial", ZF, "SOSPF", f"{FLOW}, degree=3, polynomials=2", [CTX]),
    _r("zuko_bpf", "zuko-polynomial", ZF, "BPF", f"{FLOW}, degree=4", [CTX]),
    _r("zuko_naf", "zuko-neural", ZF, "NAF", "features=3, context=2, transforms=1, signal=4, hidden_features=[16]", [CTX]),
    _r("zuko_unaf", "zuko-neural", ZF, "UNAF", "features=3, context=2, transforms=1, signal=4, hidden_features=[16]", [CTX]),
    _r("zuko_nice", "zuko-coupling", ZF, "NICE", "features=4, context=2, transforms=2, hidden_features=[16]", [CTX]),
    _r("zuko_realnvp", "zuko-coupling", ZF, "RealNVP", "features=4, context=2, transforms=2, hidden_features=[16]", [CTX]),
    _r("zuko_gf", "zuko-gaussianization", ZF, "GF", "features=3, context=2, transforms=2, components=4, hidden_features=[16]", [CTX]),
    _r("zuko_cnf", "zuko-continuous", ZF, "CNF", "features=3, context=2, hidden_features=[16, 16]", [CTX]),
    _r("zuko_gmm", "zuko-mixtures", "zuko.mixtures", "GMM", "features=3, context=2, components=2, hidden_features=[16]", [CTX]),
    _r("zuko_mlp", "zuko-nn", "zuko.nn", "MLP", "in_features=4, out_features=3, hidden_features=[16, 16], normalize=True", [_x("8, 4")]),
    _r("zuko_masked_mlp", "zuko-nn", "zuko.nn", "MaskedMLP", "adjacency=torch.tril(torch.ones(3, 3, dtype=torch.bool), diagonal=-1), hidden_features=[16]", [_x("8, 3")]),
    _r("zuko_monotonic_mlp", "zuko-nn", "zuko.nn", "MonotonicMLP", "in_features=3, out_features=3, hidden_features=[16]", [_x("8, 3")]),
    _r("zuko_stacked_linear", "zuko-nn", "zuko.nn", "Linear", "in_features=4, out_features=3, stack=2", [_x("8, 2, 4")]),
    # ------------------------------------------------------------------ snntorch
    _r("snn_leaky", "snn-leaky", SN, "Leaky", "beta=0.9", [CUR]),
    _r("snn_leaky_mem", "snn-leaky", SN, "Leaky", "beta=0.9", [CUR, MEM]),
    _r("snn_leaky_hidden", "snn-leaky", SN, "Leaky", "beta=0.9, init_hidden=True, output=True", [CUR]),
    _r("snn_leaky_zero", "snn-leaky", SN, "Leaky", "beta=0.9, reset_mechanism='zero', reset_delay=False", [CUR, MEM]),
    _r("snn_leaky_inhibition", "snn-leaky", SN, "Leaky", "beta=0.9, inhibition=True", [CUR, MEM]),
    _r("snn_leaky_learn", "snn-leaky", SN, "Leaky", "beta=torch.full((16,), 0.9), learn_beta=True, learn_threshold=True", [CUR, MEM]),
    _r("snn_synaptic", "snn-synaptic", SN, "Synaptic", "alpha=0.8, beta=0.9", [CUR]),
    _r("snn_alpha", "snn-alpha", SN, "Alpha", "alpha=0.9, beta=0.8", [CUR]),
    _r("snn_lapicque", "snn-lapicque", SN, "Lapicque", "beta=0.9", [CUR, MEM]),
    _r("snn_rleaky", "snn-rleaky", SN, "RLeaky", "beta=0.9, linear_features=16", [CUR]),
    _r("snn_rsynaptic", "snn-rsynaptic", SN, "RSynaptic", "alpha=0.8, beta=0.9, linear_features=16", [CUR]),
    _r("snn_slstm", "snn-slstm", SN, "SLSTM", "input_size=16, hidden_size=8", [CUR]),
    _r("snn_sconv2dlstm", "snn-sconv2dlstm", SN, "SConv2dLSTM", "in_channels=2, out_channels=4, kernel_size=3", [_x("2, 2, 8, 8")]),
    _r("snn_leaky_parallel", "snn-leakyparallel", SN, "LeakyParallel", "input_size=16, hidden_size=8", [_x("5, 8, 16", "x", "{1: BATCH}")]),
    _r("snn_state_leaky", "snn-stateleaky", SN, "StateLeaky", "beta=0.9, channels=16", [_x("5, 8, 16", "x", "{1: BATCH}")]),
    _r("snn_linear_leaky", "snn-linearleaky", SN, "LinearLeaky", "beta=0.9, in_features=16, out_features=8", [_x("5, 8, 16", "x", "{1: BATCH}")]),
    _r("snn_delta_leaky", "snn-deltaleaky", SN, "DeltaLeaky", "beta=0.9", [CUR, (f"mem = (torch.randn(8, 16, {G}), torch.zeros(8, 16))", "({0: BATCH}, {0: BATCH})")]),
    _r("snn_associative", "snn-associative", SN, "AssociativeLeaky", "in_dim=16, d_value=4, d_key=4, num_spiking_neurons=16", [_x("5, 8, 16", "x", "{1: BATCH}")]),
    # ------------------------------------------------------------------ demucs
    _r("htdemucs", "demucs-htdemucs", HT, "HTDemucs", f"{HYBRID}, t_layers=1, t_heads=2, t_hidden_scale=1.0", [MIX]),
    _r("htdemucs_cross_first", "demucs-htdemucs", HT, "HTDemucs", f"{HYBRID}, t_layers=2, t_heads=2, t_hidden_scale=1.0, t_cross_first=True, t_emb='cape'", [MIX]),
    _r("htdemucs_no_transformer", "demucs-htdemucs", HT, "HTDemucs", f"{HYBRID}, t_layers=0", [MIX]),
    _r("hdemucs", "demucs-hdemucs", HD, "HDemucs", HDEMUCS, [MIX]),
    _r("hdemucs_time_only", "demucs-hdemucs", HD, "HDemucs", f"{HDEMUCS}, hybrid=False", [MIX]),
    _r("demucs", "demucs-demucs", DM, "Demucs", f"{SRC}, channels=8, depth=2, resample=False", [MIX]),
    _r("demucs_resample_lstm", "demucs-demucs", DM, "Demucs", f"{SRC}, channels=8, depth=2, lstm_layers=1", [MIX]),
    _r("demucs_dconv", "demucs-demucs", DM, "DConv", "channels=16, depth=2, attn=True, lstm=True, heads=2", [_x("2, 16, 32")]),
    _r("demucs_local_state", "demucs-demucs", DM, "LocalState", "channels=16, heads=2, nfreqs=2", [_x("2, 16, 32")]),
    _r("demucs_blstm", "demucs-demucs", DM, "BLSTM", "dim=16, max_steps=16", [_x("2, 16, 40")]),
    _r("demucs_cross_transformer", "demucs-transformer", DT, "CrossTransformerEncoder", "dim=16, num_heads=2, num_layers=2, hidden_scale=1.0", [_x("2, 16, 8, 6"), _x("2, 16, 10", "xt")]),
    _r("demucs_henc", "demucs-hdemucs", HD, "HEncLayer", "chin=4, chout=8, dconv_kw={'depth': 1, 'compress': 2}", [_x("2, 4, 32, 10")]),
    _r("demucs_scaled_embedding", "demucs-hdemucs", HD, "ScaledEmbedding", "num_embeddings=16, embedding_dim=8, smooth=True", [(f"idx = torch.randint(0, 16, (5,), {G})", B)]),
    # ------------------------------------------------------------------ pytorch-tcn
    _r("tcn", "tcn-tcn", "pytorch_tcn", "TCN", TCN, [SEQ]),
    _r("tcn_nlc", "tcn-tcn", "pytorch_tcn", "TCN", f"{TCN}, input_shape='NLC'", [_x("2, 32, 4")]),
    _r("tcn_skip", "tcn-tcn", "pytorch_tcn", "TCN", f"{TCN}, use_skip_connections=True", [SEQ]),
    _r("tcn_noncausal", "tcn-tcn", "pytorch_tcn", "TCN", f"{TCN}, causal=False, use_norm='batch_norm'", [SEQ]),
    _r("tcn_layer_norm_gate", "tcn-tcn", "pytorch_tcn", "TCN", f"{TCN}, use_norm='layer_norm', use_gate=True", [SEQ]),
    _r("tcn_embedding", "tcn-tcn", "pytorch_tcn", "TCN", f"{TCN}, embedding_shapes=[(6,)], embedding_mode='concat'", [SEQ, _x("2, 6", "embeddings")]),
    _r("tcn_streaming", "tcn-tcn", "pytorch_tcn", "TCN", TCN, [_x("1, 4, 8"), ("embeddings = None", NONE), ("inference = True", NONE)]),
    _r("tcn_projection", "tcn-tcn", "pytorch_tcn", "TCN", f"{TCN}, output_projection=2, output_activation='tanh'", [SEQ]),
    _r("tcn_conv", "tcn-conv", "pytorch_tcn", "TemporalConv1d", "in_channels=4, out_channels=8, kernel_size=3, dilation=2", [SEQ]),
    _r("tcn_conv_transpose", "tcn-conv", "pytorch_tcn", "TemporalConvTranspose1d", "in_channels=4, out_channels=8, kernel_size=4, stride=2", [SEQ]),
    _r("tcn_pad", "tcn-pad", "pytorch_tcn.pad", "TemporalPad1d", "padding=3, in_channels=4, causal=True", [SEQ]),
    # ------------------------------------------------------------------ gpytorch
    _r("gp_rbf", "gpytorch-kernels", GK, "RBFKernel", {}, [X1, X2]),
    _r("gp_rbf_self", "gpytorch-kernels", GK, "RBFKernel", "ard_num_dims=3", [X1]),
    _r("gp_rbf_diag", "gpytorch-kernels", GK, "RBFKernel", {}, [X1, X1, ("diag = True", NONE)]),
    _r("gp_matern", "gpytorch-kernels", GK, "MaternKernel", "nu=1.5", [X1, X2]),
    _r("gp_scale_rbf", "gpytorch-kernels", GK, "ScaleKernel", "RBFKernel()", [X1, X2], ["RBFKernel"]),
    _r("gp_additive", "gpytorch-kernels", GK, "AdditiveKernel", "RBFKernel(), LinearKernel()", [X1, X2], ["RBFKernel", "LinearKernel"]),
    _r("gp_product", "gpytorch-kernels", GK, "ProductKernel", "RBFKernel(), PeriodicKernel()", [X1, X2], ["RBFKernel", "PeriodicKernel"]),
    _r("gp_periodic", "gpytorch-kernels", GK, "PeriodicKernel", {}, [X1, X2]),
    _r("gp_rq", "gpytorch-kernels", GK, "RQKernel", {}, [X1, X2]),
    _r("gp_polynomial", "gpytorch-kernels", GK, "PolynomialKernel", "power=2", [X1, X2]),
    _r("gp_cosine", "gpytorch-kernels", GK, "CosineKernel", {}, [X1, X2]),
    _r("gp_spectral_mixture", "gpytorch-kernels", GK, "SpectralMixtureKernel", "num_mixtures=2, ard_num_dims=3", [X1, X2]),
    _r("gp_rff", "gpytorch-kernels", GK, "RFFKernel", "num_samples=16", [X1, X2]),
    _r("gp_index", "gpytorch-kernels", GK, "IndexKernel", "num_tasks=3, rank=1", [(f"i1 = torch.randint(0, 3, (8, 1), {G})", B), (f"i2 = torch.randint(0, 3, (6, 1), {G})", B)]),
    _r("gp_constant_mean", "gpytorch-means", GM, "ConstantMean", {}, [X1]),
    _r("gp_linear_mean", "gpytorch-means", GM, "LinearMean", "input_size=3", [X1]),
    _r("gp_gaussian_likelihood", "gpytorch-likelihoods", "gpytorch.likelihoods", "GaussianLikelihood", {}, [_x("8", "f")]),
]
# fmt: on
