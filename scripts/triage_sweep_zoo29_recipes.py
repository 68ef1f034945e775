"""The recipes of scripts/triage_sweep_zoo29.py: tiny-config antialiased-cnns,
torchensemble, yet-another-retnet and s5-pytorch models (random weights, nothing
downloaded: every model is built from its classes with `pretrained=False`) and the
arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo28_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. antialiased-cnns'
blurred CNNs take a (batch, 3, 64, 64) image (AlexNet a 128 x 128 one) and its BlurPool layers a feature map;
torchensemble's ensembles wrap a small MLP (or its soft decision trees) and take a
(batch, 8) feature batch: their estimators are made as `fit()` makes them
(`model.estimators_` extended with `model._make_estimator()`, see
scripts/triage_sweep_zoo29.py); yet-another-retnet's RetNet takes token ids and labels,
its decoder layers and retention a (batch, seq, 16) sequence; s5-pytorch's S5 layers and
blocks take a (batch, seq, 8) signal."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
BS = "{0: BATCH, 1: SEQ}"
# ------------------------------------------------------------------ antialiased-cnns
AA = "antialiased_cnns"
IM = _x("2, 3, 64, 64")
FM = _x("2, 4, 8, 8")
# ------------------------------------------------------------------ torchensemble
TE = "torchensemble"
MLP = "torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))"
ENS = f"estimator={MLP}, n_estimators=2, cuda=False"
LIN = "estimator=torch.nn.Linear, estimator_args={'in_features': 8, 'out_features': 3}, n_estimators=2, cuda=False"
V8 = _x("2, 8")
# ------------------------------------------------------------------ yet-another-retnet
RN = "yet_another_retnet.retnet"
RT = "yet_another_retnet.retention"
TOK = ("inputs = torch.randint(0, 32, (2, 8), generator=g)", B)
LAB = ("labels = torch.randint(0, 32, (2, 8), generator=g)", B)
TOK_S = ("inputs = torch.randint(0, 32, (2, 8), generator=g)", BS)
LAB_S = ("labels = torch.randint(0, 32, (2, 8), generator=g)", BS)
RNET = "32, d_model=16, nhead=2, num_layers=2, dim_feedforward=32, dropout=0.0"
LAYER = "16, 2, dim_feedforward=32, dropout=0.0"
SQ = _x("2, 8, 16")
SQ_S = _x("2, 8, 16", "x", BS)
Q = _x("2, 8, 16", "query")
K = _x("2, 8, 16", "key")
V = _x("2, 8, 16", "value")
# ------------------------------------------------------------------ s5-pytorch
S5M = "s5"
SIG = _x("2, 8, 8", "signal")
SIG_S = _x("2, 8, 8", "signal", BS)
XS = _x("2, 8, 8")
BLK = "dim=8, state_dim=8, bidir=False"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ antialiased-cnns
    _r("aa_resnet18", "aa-resnet", AA, "resnet18", "num_classes=4", [IM]),
    _r("aa_resnet18_full", "aa-resnet", AA, "resnet18", "num_classes=4, pool_only=False", [IM]),
    _r("aa_resnet18_f2", "aa-resnet", AA, "resnet18", "num_classes=4, filter_size=2", [IM]),
    _r("aa_resnext", "aa-resnet", AA, "resnext50_32x4d", "num_classes=4", [IM]),
    _r("aa_mobilenet", "aa-mobile", AA, "mobilenet_v2", "num_classes=4", [IM]),
    _r("aa_alexnet", "aa-alex", AA, "alexnet", "num_classes=4", [_x("2, 3, 128, 128")]),
    _r("aa_vgg11", "aa-vgg", AA, "vgg11", "num_classes=4", [IM]),
    _r("aa_vgg11bn", "aa-vgg", AA, "vgg11_bn", "num_classes=4, filter_size=3", [IM]),
    _r("aa_densenet", "aa-dense", AA, "densenet121", "num_classes=4", [IM]),
    _r("aa_blurpool", "aa-blur", AA, "BlurPool", "4", [FM]),
    _r("aa_blurpool_f1", "aa-blur", AA, "BlurPool", "4, filt_size=1", [FM]),
    _r("aa_blurpool_f5", "aa-blur", AA, "BlurPool", "4, filt_size=5, stride=3", [FM]),
    _r("aa_blurpool_zero", "aa-blur", AA, "BlurPool", "4, pad_type='zero', filt_size=3", [FM]),
    _r("aa_blurpool_repl", "aa-blur", AA, "BlurPool", "4, pad_type='repl', pad_off=1", [FM]),
    _r("aa_blurpool1d", "aa-blur", AA, "BlurPool1D", "4", [_x("2, 4, 16")]),
    _r("aa_blurpool1d_f1", "aa-blur", AA, "BlurPool1D", "4, filt_size=1", [_x("2, 4, 16")]),
    _r("aa_blurpool_hw", "aa-blur", AA, "BlurPool", "4", [_x("2, 4, 16, 16", "x", "{0: BATCH, 2: SEQ, 3: SEQ}")]),
    _r("aa_blurpool1d_len", "aa-blur", AA, "BlurPool1D", "4", [_x("2, 4, 16", "x", BS.replace("1:", "2:"))]),
    _r("aa_resnet18_rank2", "aa-resnet", AA, "resnet18", "num_classes=4", [_x("32, 32")]),
    # ------------------------------------------------------------------ torchensemble
    _r("te_voting", "te-voting", TE, "VotingClassifier", ENS, [V8]),
    _r("te_voting_hard", "te-voting", TE, "VotingClassifier", ENS + ", voting_strategy='hard'", [V8]),
    _r("te_voting_reg", "te-voting", TE, "VotingRegressor", ENS, [V8]),
    _r("te_voting_lin", "te-voting", TE, "VotingClassifier", LIN, [V8]),
    _r("te_bagging", "te-bagging", TE, "BaggingClassifier", ENS, [V8]),
    _r("te_bagging_reg", "te-bagging", TE, "BaggingRegressor", ENS, [V8]),
    _r("te_fusion", "te-fusion", TE, "FusionClassifier", ENS, [V8]),
    _r("te_fusion_reg", "te-fusion", TE, "FusionRegressor", ENS, [V8]),
    _r("te_gb", "te-boost", TE, "GradientBoostingClassifier", ENS, [V8]),
    _r("te_gb_reg", "te-boost", TE, "GradientBoostingRegressor", ENS, [V8]),
    _r("te_sgb", "te-boost", TE, "SoftGradientBoostingClassifier", ENS, [V8]),
    _r("te_sgb_reg", "te-boost", TE, "SoftGradientBoostingRegressor", ENS, [V8]),
    _r("te_snapshot", "te-snapshot", TE, "SnapshotEnsembleClassifier", ENS, [V8]),
    _r("te_snapshot_reg", "te-snapshot", TE, "SnapshotEnsembleRegressor", ENS, [V8]),
    _r("te_fge", "te-snapshot", TE, "FastGeometricClassifier", ENS, [V8]),
    _r("te_fge_reg", "te-snapshot", TE, "FastGeometricRegressor", ENS, [V8]),
    _r("te_adv", "te-adv", TE, "AdversarialTrainingClassifier", ENS, [V8]),
    _r("te_adv_reg", "te-adv", TE, "AdversarialTrainingRegressor", ENS, [V8]),
    _r("te_forest", "te-forest", TE, "NeuralForestClassifier", "n_estimators=2, depth=2, cuda=False", [V8]),
    _r("te_forest_reg", "te-forest", TE, "NeuralForestRegressor", "n_estimators=2, depth=2, cuda=False", [V8]),
    _r("te_voting_two", "te-voting", TE, "VotingClassifier", "estimator=torch.nn.Bilinear, estimator_args={'in1_features': 8, 'in2_features': 4, 'out_features': 3}, n_estimators=2, cuda=False", [V8, _x("2, 4", "y")]),
    _r("te_voting_f64", "te-voting", TE, "VotingClassifier", ENS, [("x = torch.randn(2, 8, dtype=torch.float64, generator=g)", B)]),
    # ------------------------------------------------------------------ yet-another-retnet
    _r("rn_retnet", "rn-model", RN, "RetNet", RNET, [TOK, LAB]),
    _r("rn_retnet_seq", "rn-model", RN, "RetNet", RNET, [TOK_S, LAB_S]),
    _r("rn_retnet_gelu", "rn-model", RN, "RetNet", RNET + ", activation='gelu', norm_first=False", [TOK, LAB]),
    _r("rn_retnet_float", "rn-model", RN, "RetNet", RNET, [("inputs = torch.rand(2, 8, generator=g) * 32", B), LAB]),
    _r("rn_layer", "rn-layer", RN, "RetNetDecoderLayer", LAYER, [SQ]),
    _r("rn_layer_seq", "rn-layer", RN, "RetNetDecoderLayer", LAYER, [SQ_S]),
    _r("rn_layer_post", "rn-layer", RN, "RetNetDecoderLayer", LAYER + ", norm_first=False, activation='relu'", [SQ]),
    _r("rn_decoder", "rn-layer", RN, "RetNetDecoder", f"RetNetDecoderLayer({LAYER}), 2", [SQ], ["RetNetDecoderLayer"]),
    _r("rn_msr", "rn-retention", RT, "MultiScaleRetention", "16, 2", [Q, K, V]),
    _r("rn_msr_seq", "rn-retention", RT, "MultiScaleRetention", "16, 2", [_x("2, 8, 16", "query", BS), _x("2, 8, 16", "key", BS), _x("2, 8, 16", "value", BS)]),
    _r("rn_msr_norel", "rn-retention", RT, "MultiScaleRetention", "16, 2, relative_position=False", [Q, K, V]),
    _r("rn_msr_weights", "rn-retention", RT, "MultiScaleRetention", "16, 2", [Q, K, V, ("need_weights = True", NONE)]),
    _r("rn_msr_gelu", "rn-retention", RT, "MultiScaleRetention", "16, 2, activation='gelu', bias=False", [Q, K, V]),
    _r("rn_layer_rank2", "rn-layer", RN, "RetNetDecoderLayer", LAYER, [_x("8, 16")]),
    # ------------------------------------------------------------------ s5-pytorch
    _r("s5_s5", "s5-layer", S5M, "S5", "8, state_width=8", [SIG]),
    _r("s5_s5_seq", "s5-layer", S5M, "S5", "8, state_width=8", [SIG_S]),
    _r("s5_bidir", "s5-layer", S5M, "S5", "8, state_width=8, bidir=True", [SIG]),
    _r("s5_liquid", "s5-layer", S5M, "S5", "8, state_width=8, liquid=True", [SIG]),
    _r("s5_blocks", "s5-layer", S5M, "S5", "8, state_width=16, block_count=2", [SIG]),
    _r("s5_degree", "s5-layer", S5M, "S5", "8, state_width=8, degree=2, bcInit='dense'", [SIG]),
    _r("s5_dense", "s5-layer", S5M, "S5", "8, state_width=8, bcInit='dense'", [SIG]),
    _r("s5_step", "s5-layer", S5M, "S5", "8, state_width=8", [SIG, ("step_scale = torch.rand(2, generator=g) + 0.5", B)]),
    _r("s5_step_float", "s5-layer", S5M, "S5", "8, state_width=8", [SIG, ("step_scale = 0.5", NONE)]),
    _r("s5_state", "s5-layer", S5M, "S5", "8, state_width=8", [SIG, ("step_scale = torch.ones(2)", B), ("state = torch.zeros(2, 8, dtype=torch.complex64)", B), ("return_state = True", NONE)]),
    _r("s5_block", "s5-block", S5M, "S5Block", BLK, [XS]),
    _r("s5_block_seq", "s5-block", S5M, "S5Block", BLK, [_x("2, 8, 8", "x", BS)]),
    _r("s5_block_bidir", "s5-block", S5M, "S5Block", "dim=8, state_dim=8, bidir=True, glu=False", [XS]),
    _r("s5_block_liquid", "s5-block", S5M, "S5Block", "dim=8, state_dim=8, bidir=False, liquid=True, ff_mult=2.0", [XS]),
    _r("s5_block_state", "s5-block", S5M, "S5Block", BLK, [XS, ("state = None", NONE), ("return_state = True", NONE)]),
    _r("s5_block_rank2", "s5-block", S5M, "S5Block", BLK, [_x("8, 8")]),
]
# fmt: on
