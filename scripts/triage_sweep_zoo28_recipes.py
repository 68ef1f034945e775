"""The recipes of scripts/triage_sweep_zoo28.py: tiny-config deel-torchlip, torch-activation,
elegantrl, mup and pytorch-revgrad models (random weights, nothing downloaded: every model
is built from its classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo27_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. deel-torchlip's
Lipschitz-constrained layers and losses take a feature vector (batch, 8), a feature map
(batch, 4, 8, 8) or a sequence map (batch, 4, 16), the losses a prediction and a target;
torch-activation's activations take a feature map; elegantrl's actor / critic / Q networks
take a state batch (batch, 6) and, for the critics, an action batch (batch, 3); mup's
readouts sit at the end of a small MLP given its base shapes (`set_base_shapes`, which
returns the model); pytorch-revgrad's gradient reversal layer takes a feature vector."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ deel-torchlip
DL = "deel.torchlip"
V8 = _x("2, 8")
IMG = _x("2, 4, 8, 8")
M1 = _x("2, 4, 16")
ONEHOT = ("target = torch.nn.functional.one_hot(torch.tensor([0, 2]), 3).float()", B)
SIGN = ("target = torch.tensor([[1.0], [-1.0]])", B)
P3 = _x("2, 3", "input")
P1 = _x("2, 1", "input")
# ------------------------------------------------------------------ torch-activation
TA = "torch_activation"
# ------------------------------------------------------------------ elegantrl
ER = "elegantrl.agents.net"
NET = "dims=[16, 16], state_dim=6, action_dim=3"
ST = _x("2, 6", "state")
AC = _x("2, 3", "action")
# ------------------------------------------------------------------ mup
MU = "mup"
MLP = "torch.nn.Sequential(torch.nn.Linear(8, {w}), torch.nn.ReLU(), MuReadout({w}, 4{kw}))"
RO = ["MuReadout"]
# ------------------------------------------------------------------ pytorch-revgrad
RG = "pytorch_revgrad"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ deel-torchlip
    _r("dl_speclin", "dl-linear", DL, "SpectralLinear", "8, 4", [V8]),
    _r("dl_frolin", "dl-linear", DL, "FrobeniusLinear", "8, 4", [V8]),
    _r("dl_speclin_f64", "dl-linear", DL, "SpectralLinear", "8, 4", [("x = torch.randn(2, 8, dtype=torch.float64, generator=g)", B)]),
    _r("dl_specconv", "dl-conv", DL, "SpectralConv2d", "4, 6, 3", [IMG]),
    _r("dl_specconv_circ", "dl-conv", DL, "SpectralConv2d", "4, 6, 3, padding=1, padding_mode='circular'", [IMG]),
    _r("dl_specconv_sym", "dl-conv", DL, "SpectralConv2d", "4, 6, 3, padding=1, padding_mode='symmetric'", [IMG]),
    _r("dl_frobconv", "dl-conv", DL, "FrobeniusConv2d", "4, 6, 3", [IMG]),
    _r("dl_specconv1d", "dl-conv", DL, "SpectralConv1d", "4, 6, 3", [M1]),
    _r("dl_specconvt", "dl-conv", DL, "SpectralConvTranspose2d", "4, 6, 3", [IMG]),
    _r("dl_padconv", "dl-conv", DL, "PadConv2d", "4, 6, 3, padding=1, padding_mode='reflect'", [IMG]),
    _r("dl_specconv_rank2", "dl-conv", DL, "SpectralConv2d", "4, 6, 3", [_x("8, 8")]),
    _r("dl_groupsort", "dl-act", DL, "GroupSort", "2", [V8]),
    _r("dl_groupsort_img", "dl-act", DL, "GroupSort", "2", [IMG]),
    _r("dl_groupsort2", "dl-act", DL, "GroupSort2", "", [V8]),
    _r("dl_fullsort", "dl-act", DL, "FullSort", "", [V8]),
    _r("dl_maxmin", "dl-act", DL, "MaxMin", "", [V8]),
    _r("dl_maxmin_dim", "dl-act", DL, "MaxMin", "dim=1", [IMG]),
    _r("dl_lprelu", "dl-act", DL, "LPReLU", "", [IMG]),
    _r("dl_householder", "dl-act", DL, "HouseHolder", "4", [IMG]),
    _r("dl_invdown", "dl-pool", DL, "InvertibleDownSampling", "2", [IMG]),
    _r("dl_invup", "dl-pool", DL, "InvertibleUpSampling", "2", [_x("2, 16, 4, 4")]),
    _r("dl_savg", "dl-pool", DL, "ScaledAvgPool2d", "2", [IMG]),
    _r("dl_sl2", "dl-pool", DL, "ScaledL2NormPool2d", "2", [IMG]),
    _r("dl_sadavg", "dl-pool", DL, "ScaledAdaptiveAvgPool2d", "(1, 1)", [IMG]),
    _r("dl_sadl2", "dl-pool", DL, "ScaledAdaptativeL2NormPool2d", "(1, 1)", [IMG]),
    _r("dl_layercenter", "dl-norm", DL, "LayerCentering", "4", [IMG]),
    _r("dl_batchcenter", "dl-norm", DL, "BatchCentering", "4", [IMG]),
    _r("dl_batchlipnorm", "dl-norm", DL, "BatchLipNorm", "4", [IMG]),
    _r("dl_seq", "dl-seq", DL, "Sequential", "SpectralConv2d(4, 6, 3), GroupSort2(), ScaledAdaptiveAvgPool2d((1, 1)), torch.nn.Flatten(), SpectralLinear(6, 3)", [IMG], ["SpectralConv2d", "GroupSort2", "ScaledAdaptiveAvgPool2d", "SpectralLinear"]),
    _r("dl_hkr", "dl-loss", DL, "HKRLoss", "alpha=10.0", [P1, SIGN]),
    _r("dl_kr", "dl-loss", DL, "KRLoss", "", [P1, SIGN]),
    _r("dl_hinge", "dl-loss", DL, "HingeMarginLoss", "", [P1, SIGN]),
    _r("dl_krmulti", "dl-loss", DL, "KRMulticlassLoss", "", [P3, ONEHOT]),
    _r("dl_hkrmulti", "dl-loss", DL, "HKRMulticlassLoss", "alpha=10.0", [P3, ONEHOT]),
    _r("dl_softhkr", "dl-loss", DL, "SoftHKRMulticlassLoss", "", [P3, ONEHOT]),
    _r("dl_lsehkr", "dl-loss", DL, "LseHKRMulticlassLoss", "", [P3, ONEHOT]),
    _r("dl_taucross", "dl-loss", DL, "TauCrossEntropyLoss", "tau=2.0", [P3, ("target = torch.tensor([0, 2])", B)]),
    _r("dl_taubce", "dl-loss", DL, "TauBCEWithLogitsLoss", "tau=2.0", [P1, ("target = torch.tensor([[1.0], [0.0]])", B)]),
    _r("dl_cathinge", "dl-loss", DL, "CategoricalHingeLoss", "", [P3, ONEHOT]),
    # ------------------------------------------------------------------ torch-activation
    _r("ta_arelu", "ta-param", TA, "AReLU", "", [IMG]),
    _r("ta_arelu_ip", "ta-inplace", TA, "AReLU", "inplace=True", [IMG]),
    _r("ta_aplu", "ta-param", TA, "APLU", "", [IMG]),
    _r("ta_dyrelu", "ta-param", TA, "DYReLU", "", [IMG]),
    _r("ta_frelu_ip", "ta-inplace", TA, "FReLU", "inplace=True", [IMG]),
    _r("ta_kaf", "ta-kernel", TA, "KAF", "", [IMG]),
    _r("ta_pau", "ta-rational", TA, "PAU", "", [IMG]),
    _r("ta_rpau", "ta-rational", TA, "RPAU", "", [IMG]),
    _r("ta_opau", "ta-rational", TA, "OPAU", "", [IMG]),
    _r("ta_smu_ip", "ta-inplace", TA, "SMU", "inplace=True", [IMG]),
    _r("ta_maxout", "ta-shape", TA, "Maxout", "", [IMG]),
    _r("ta_crelu", "ta-shape", TA, "CReLU", "dim=1", [IMG]),
    _r("ta_ncrelu", "ta-shape", TA, "NCReLU", "", [IMG]),
    _r("ta_splash", "ta-kernel", TA, "SPLASH", "", [IMG]),
    _r("ta_mtlu", "ta-kernel", TA, "MTLU", "", [IMG]),
    _r("ta_srrelu", "ta-param", TA, "SRReLU", "", [IMG]),
    _r("ta_softexp", "ta-param", TA, "SoftExponential", "learnable=True", [IMG]),
    _r("ta_softexp_ip", "ta-inplace", TA, "SoftExponential", "inplace=True", [IMG]),
    _r("ta_rowdy", "ta-combo", TA, "RowdyActivation", "", [IMG]),
    _r("ta_adacomb", "ta-combo", TA, "AdaptiveCombination1", "learnable=True", [IMG]),
    _r("ta_glsoftmax", "ta-shape", TA, "GLSoftmax", "input_shape=8", [IMG]),
    _r("ta_melu", "ta-kernel", TA, "MeLU", "", [IMG]),
    _r("ta_apaf", "ta-combo", TA, "APAF", "", [IMG]),
    _r("ta_dknn", "ta-combo", TA, "DKNN", "", [IMG]),
    _r("ta_slaf", "ta-kernel", TA, "SLAF", "", [IMG]),
    _r("ta_mogu", "ta-kernel", TA, "MoGU", "", [IMG]),
    _r("ta_cpn", "ta-kernel", TA, "CPN", "", [IMG]),
    _r("ta_star_ip", "ta-inplace", TA, "StarReLU", "inplace=True", [IMG]),
    _r("ta_hat_ip", "ta-inplace", TA, "Hat", "inplace=True", [IMG]),
    _r("ta_delu", "ta-param", TA, "DELU", "learnable=True", [IMG]),
    _r("ta_catf", "ta-combo", TA, "CatAF", "", [IMG]),
    # ------------------------------------------------------------------ elegantrl
    _r("er_qnet", "er-q", ER, "QNet", NET, [ST]),
    _r("er_qduel", "er-q", ER, "QNetDuel", NET, [ST]),
    _r("er_qtwin", "er-q", ER, "QNetTwin", NET, [ST]),
    _r("er_qtwinduel", "er-q", ER, "QNetTwinDuel", NET, [ST]),
    _r("er_actor", "er-actor", ER, "Actor", NET, [ST]),
    _r("er_sac", "er-actor", ER, "ActorSAC", NET, [ST]),
    _r("er_fixsac", "er-actor", ER, "ActorFixSAC", NET, [ST]),
    _r("er_ppo", "er-actor", ER, "ActorPPO", NET, [ST]),
    _r("er_dppo", "er-actor", ER, "ActorDiscretePPO", NET, [ST]),
    _r("er_critic", "er-critic", ER, "Critic", NET, [ST, AC]),
    _r("er_critictwin", "er-critic", ER, "CriticTwin", NET, [ST, AC]),
    _r("er_criticppo", "er-critic", ER, "CriticPPO", NET, [ST]),
    _r("er_dense", "er-enc", ER, "DenseNet", "8", [V8]),
    _r("er_conv", "er-enc", ER, "ConvNet", "3, 8, image_size=112", [_x("2, 112, 112, 3")]),
    _r("er_qnet_f64", "er-q", ER, "QNet", NET, [("state = torch.randn(2, 6, dtype=torch.float64, generator=g)", B)]),
    # ------------------------------------------------------------------ mup
    _r("mu_readout", "mu-readout", MU, "set_base_shapes", MLP.format(w=16, kw="") + ", None", [V8], RO),
    _r("mu_readout_base", "mu-readout", MU, "set_base_shapes", MLP.format(w=32, kw="") + ", " + MLP.format(w=16, kw=""), [V8], RO),
    _r("mu_readout_zero", "mu-readout", MU, "set_base_shapes", MLP.format(w=16, kw=", readout_zero_init=True, output_mult=2.0") + ", None", [V8], RO),
    _r("mu_readout_rank1", "mu-readout", MU, "set_base_shapes", MLP.format(w=16, kw="") + ", None", [_x("2, 7")], RO),
    # ------------------------------------------------------------------ pytorch-revgrad
    _r("rg_revgrad", "rg-layer", RG, "RevGrad", "", [V8]),
    _r("rg_alpha", "rg-layer", RG, "RevGrad", "alpha=0.5", [IMG]),
]
# fmt: on
