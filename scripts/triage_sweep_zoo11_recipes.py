"""The recipes of scripts/triage_sweep_zoo11.py: tiny-config loralib, piq, geomloss,
blitz-bayesian-pytorch and torchkge models (random weights, nothing downloaded) and the
arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo10_recipes.py:
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
# ------------------------------------------------------------------ loralib
# loralib's train(mode) returns None, so `Layer(...).eval()` is None: each LoRA layer is
# built inside a torch.nn.Sequential, as a model holds it (eval() still reaches it)
TN = "torch.nn"
LORA_LINEAR = "from loralib import Linear"
LORA_MERGEDLINEAR = "from loralib import MergedLinear"
LORA_EMBEDDING = "from loralib import Embedding"
LORA_CONV2D = "from loralib import Conv2d"
LORA_CONV1D = "from loralib import Conv1d"
X4 = _x("2, 4")
IDS = (f"ids = torch.randint(0, 10, (2, 3), {G})", B)
IMG = _x("2, 3, 8, 8")
# ------------------------------------------------------------------ piq
PQ = "piq"
PAIR = [
    (f"x = torch.rand(2, 3, 16, 16, {G})", B),
    (f"y = torch.rand(2, 3, 16, 16, {G})", B),
]
PAIR1 = [
    (f"x = torch.rand(2, 1, 16, 16, {G})", B),
    (f"y = torch.rand(2, 1, 16, 16, {G})", B),
]
PAIR48 = [
    (f"x = torch.rand(2, 3, 48, 48, {G})", B),
    (f"y = torch.rand(2, 3, 48, 48, {G})", B),
]
FEATS = [_x("8, 4", "x_features"), _x("8, 4", "y_features")]
FEX = "torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Conv2d(4, 4, 3), torch.nn.ReLU())"
# ------------------------------------------------------------------ geomloss
GL = "geomloss"
CLOUDS = [_x("2, 6, 3", "x"), _x("2, 5, 3", "y")]
CLOUD1 = [_x("6, 3", "x"), _x("5, 3", "y")]
WCLOUD = [
    (f"a = torch.rand(2, 6, {G}).softmax(-1)", B),
    _x("2, 6, 3", "x"),
    (f"b = torch.rand(2, 5, {G}).softmax(-1)", B),
    _x("2, 5, 3", "y"),
]
TZ = "backend='tensorized'"
# ------------------------------------------------------------------ blitz
BM = "blitz.modules"
SEQ = _x("2, 5, 4", "x", BS)  # (batch, length, features)
# ------------------------------------------------------------------ torchkge
KM = "torchkge.models"
KU = "torchkge.utils"
N_ENT, N_REL = 10, 3
TRIPLES = [
    (f"heads = torch.randint(0, {N_ENT}, (8,), {G})", B),
    (f"tails = torch.randint(0, {N_ENT}, (8,), {G})", B),
    (f"relations = torch.randint(0, {N_REL}, (8,), {G})", B),
    (f"negative_heads = torch.randint(0, {N_ENT}, (8,), {G})", B),
    (f"negative_tails = torch.randint(0, {N_ENT}, (8,), {G})", B),
]
NEG2 = [
    *TRIPLES[:3],
    (f"negative_heads = torch.randint(0, {N_ENT}, (16,), {G})", B),
    (f"negative_tails = torch.randint(0, {N_ENT}, (16,), {G})", B),
]
SCORES = [_x("8", "positive_triplets"), _x("8", "negative_triplets")]
KG = f"8, {N_ENT}, {N_REL}"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ loralib
    _r("lora_linear", "lora-linear", TN, "Sequential", "Linear(4, 8, r=2, lora_alpha=4)", [X4], [LORA_LINEAR]),
    _r("lora_linear_unmerged", "lora-linear", TN, "Sequential", "Linear(4, 8, r=2, merge_weights=False)", [X4], [LORA_LINEAR]),
    _r("lora_linear_fan_in", "lora-linear", TN, "Sequential", "Linear(4, 8, r=2, fan_in_fan_out=True, merge_weights=False)", [X4], [LORA_LINEAR]),
    _r("lora_linear_dropout", "lora-linear", TN, "Sequential", "Linear(4, 8, r=2, lora_dropout=0.1, merge_weights=False)", [X4], [LORA_LINEAR]),
    _r("lora_linear_r0", "lora-linear", TN, "Sequential", "Linear(4, 8, r=0)", [X4], [LORA_LINEAR]),
    _r("lora_merged", "lora-merged", TN, "Sequential", "MergedLinear(4, 12, r=2, enable_lora=[True, False, True], merge_weights=False)", [X4], [LORA_MERGEDLINEAR]),
    _r("lora_merged_seq", "lora-merged", TN, "Sequential", "MergedLinear(4, 12, r=2, enable_lora=[True, False, True], merge_weights=False)", [SEQ], [LORA_MERGEDLINEAR]),
    _r("lora_merged_fan_in", "lora-merged", TN, "Sequential", "MergedLinear(4, 12, r=2, enable_lora=[True, True, False], fan_in_fan_out=True)", [X4], [LORA_MERGEDLINEAR]),
    _r("lora_embedding", "lora-embedding", TN, "Sequential", "Embedding(10, 4, r=2, merge_weights=False)", [IDS], [LORA_EMBEDDING]),
    _r("lora_embedding_merged", "lora-embedding", TN, "Sequential", "Embedding(10, 4, r=2)", [IDS], [LORA_EMBEDDING]),
    _r("lora_conv2d", "lora-conv", TN, "Sequential", "Conv2d(3, 4, 3, r=2, merge_weights=False)", [IMG], [LORA_CONV2D]),
    _r("lora_conv2d_merged", "lora-conv", TN, "Sequential", "Conv2d(3, 4, 3, r=2)", [IMG], [LORA_CONV2D]),
    _r("lora_conv1d", "lora-conv", TN, "Sequential", "Conv1d(3, 4, 3, r=2, merge_weights=False)", [_x("2, 3, 16")], [LORA_CONV1D]),
    # ------------------------------------------------------------------ piq
    _r("piq_ssim", "piq-ssim", PQ, "SSIMLoss", "kernel_size=5", PAIR),
    _r("piq_ssim_gray", "piq-ssim", PQ, "SSIMLoss", "kernel_size=5, downsample=False", PAIR1),
    _r("piq_ms_ssim", "piq-ssim", PQ, "MultiScaleSSIMLoss", "kernel_size=3", PAIR48),
    _r("piq_tv", "piq-tv", PQ, "TVLoss", {}, [PAIR[0]]),
    _r("piq_tv_l1", "piq-tv", PQ, "TVLoss", "norm_type='l1', reduction='none'", [PAIR[0]]),
    _r("piq_tv_l2s", "piq-tv", PQ, "TVLoss", "norm_type='l2_squared'", [PAIR[0]]),
    _r("piq_gmsd", "piq-gmsd", PQ, "GMSDLoss", {}, PAIR),
    _r("piq_ms_gmsd", "piq-gmsd", PQ, "MultiScaleGMSDLoss", "chromatic=True", PAIR48),
    _r("piq_vif", "piq-vif", PQ, "VIFLoss", {}, PAIR48),
    _r("piq_fsim", "piq-fsim", PQ, "FSIMLoss", {}, PAIR),
    _r("piq_vsi", "piq-vsi", PQ, "VSILoss", {}, PAIR),
    _r("piq_mdsi", "piq-mdsi", PQ, "MDSILoss", {}, PAIR),
    _r("piq_haarpsi", "piq-haarpsi", PQ, "HaarPSILoss", {}, PAIR),
    _r("piq_srsim", "piq-srsim", PQ, "SRSIMLoss", {}, PAIR48),
    _r("piq_dss", "piq-dss", PQ, "DSSLoss", "sigma_weight=55.0", PAIR48),
    _r("piq_content", "piq-perceptual", PQ, "ContentLoss", f"feature_extractor={FEX}, layers=('1', '3'), weights=[1.0, 1.0]", PAIR),
    _r("piq_style", "piq-perceptual", PQ, "StyleLoss", f"feature_extractor={FEX}, layers=('3',)", PAIR),
    _r("piq_fid", "piq-feature-metrics", PQ, "FID", {}, FEATS),
    _r("piq_kid", "piq-feature-metrics", PQ, "KID", "subset_size=4", FEATS),
    _r("piq_msid", "piq-feature-metrics", PQ, "MSID", {}, FEATS),
    _r("piq_pr", "piq-feature-metrics", PQ, "PR", "nearest_k=2", FEATS),
    _r("piq_is", "piq-feature-metrics", PQ, "IS", "num_splits=2", FEATS),
    # ------------------------------------------------------------------ geomloss
    _r("gl_sinkhorn", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', blur=0.5, {TZ}", CLOUDS),
    _r("gl_sinkhorn_single", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', blur=0.5, {TZ}", CLOUD1),
    _r("gl_sinkhorn_weights", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', p=1, blur=0.5, {TZ}", WCLOUD),
    _r("gl_sinkhorn_potentials", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', blur=0.5, potentials=True, {TZ}", CLOUDS),
    _r("gl_sinkhorn_reach", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', blur=0.5, reach=1.0, debias=False, {TZ}", CLOUDS),
    _r("gl_sinkhorn_diameter", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', blur=0.5, diameter=4.0, {TZ}", CLOUDS),
    _r("gl_sinkhorn_diameter_weights", "geomloss-samples", GL, "SamplesLoss", f"'sinkhorn', p=1, blur=0.5, diameter=4.0, {TZ}", WCLOUD),
    _r("gl_energy", "geomloss-kernels", GL, "SamplesLoss", f"'energy', {TZ}", CLOUDS),
    _r("gl_gaussian", "geomloss-kernels", GL, "SamplesLoss", f"'gaussian', blur=0.5, {TZ}", CLOUDS),
    _r("gl_laplacian", "geomloss-kernels", GL, "SamplesLoss", f"'laplacian', blur=0.5, {TZ}", CLOUD1),
    _r("gl_energy_weights", "geomloss-kernels", GL, "SamplesLoss", f"'energy', {TZ}", WCLOUD),
    _r("gl_auto", "geomloss-kernels", GL, "SamplesLoss", "'gaussian', blur=0.5", CLOUD1),
    # ------------------------------------------------------------------ blitz
    _r("blitz_linear", "blitz-linear", BM, "BayesianLinear", "4, 8", [X4]),
    _r("blitz_linear_frozen", "blitz-linear", BM, "BayesianLinear", "4, 8, freeze=True", [X4]),
    _r("blitz_linear_prior", "blitz-linear", BM, "BayesianLinear", "4, 8, bias=False, prior_pi=0.5", [X4]),
    _r("blitz_conv2d", "blitz-conv", BM, "BayesianConv2d", "3, 4, (3, 3), padding=1", [IMG]),
    _r("blitz_conv1d", "blitz-conv", BM, "BayesianConv1d", "3, 4, 3", [_x("2, 3, 16")]),
    _r("blitz_conv2d_frozen", "blitz-conv", BM, "BayesianConv2d", "3, 4, (3, 3), freeze=True", [IMG]),
    _r("blitz_conv1d_frozen", "blitz-conv", BM, "BayesianConv1d", "3, 4, 3, freeze=True", [_x("2, 3, 16")]),
    _r("blitz_conv3d_frozen", "blitz-conv", BM, "BayesianConv3d", "2, 3, (3, 3, 3), freeze=True", [_x("2, 2, 4, 6, 6")]),
    _r("blitz_conv3d", "blitz-conv", BM, "BayesianConv3d", "2, 3, (3, 3, 3)", [_x("2, 2, 4, 6, 6")]),
    _r("blitz_embedding", "blitz-embedding", BM, "BayesianEmbedding", "10, 4", [IDS]),
    _r("blitz_embedding_frozen", "blitz-embedding", BM, "BayesianEmbedding", "10, 4, freeze=True", [IDS]),
    _r("blitz_lstm", "blitz-rnn", BM, "BayesianLSTM", "4, 8", [SEQ]),
    _r("blitz_lstm_peephole", "blitz-rnn", BM, "BayesianLSTM", "4, 8, peephole=True", [SEQ]),
    _r("blitz_lstm_frozen", "blitz-rnn", BM, "BayesianLSTM", "4, 8, freeze=True", [SEQ]),
    _r("blitz_lstm_frozen_state", "blitz-rnn", BM, "BayesianLSTM", "4, 8, freeze=True", [SEQ, ("hidden_states = (torch.zeros(2, 8), torch.zeros(2, 8))", "({0: BATCH}, {0: BATCH})")]),
    _r("blitz_gru", "blitz-rnn", BM, "BayesianGRU", "4, 8", [SEQ]),
    _r("blitz_gru_frozen", "blitz-rnn", BM, "BayesianGRU", "4, 8, freeze=True", [SEQ]),
    _r("blitz_vgg", "blitz-vgg", "blitz.models.b_vgg", "VGG", "make_layers([8, 'M', 512, 'M']), out_nodes=2", [_x("2, 3, 4, 4")], ["make_layers"]),
    # ------------------------------------------------------------------ torchkge
    _r("kge_transe", "kge-translation", KM, "TransEModel", KG, TRIPLES),
    _r("kge_transe_neg", "kge-translation", KM, "TransEModel", f"{KG}, dissimilarity_type='L1'", NEG2),
    _r("kge_transe_negrel", "kge-translation", KM, "TransEModel", KG, [*TRIPLES, (f"negative_relations = torch.randint(0, {N_REL}, (8,), {G})", B)]),
    _r("kge_transh", "kge-translation", KM, "TransHModel", KG, TRIPLES),
    _r("kge_transr", "kge-translation", KM, "TransRModel", f"8, 6, {N_ENT}, {N_REL}", TRIPLES),
    _r("kge_transd", "kge-translation", KM, "TransDModel", f"8, 6, {N_ENT}, {N_REL}", TRIPLES),
    _r("kge_toruse", "kge-translation", KM, "TorusEModel", f"{KG}, dissimilarity_type='torus_L2'", TRIPLES),
    _r("kge_toruse_l1", "kge-translation", KM, "TorusEModel", f"{KG}, dissimilarity_type='torus_L1'", TRIPLES),
    _r("kge_toruse_el2", "kge-translation", KM, "TorusEModel", f"{KG}, dissimilarity_type='torus_eL2'", TRIPLES),
    _r("kge_rescal", "kge-bilinear", KM, "RESCALModel", KG, TRIPLES),
    _r("kge_distmult", "kge-bilinear", KM, "DistMultModel", KG, TRIPLES),
    _r("kge_hole", "kge-bilinear", KM, "HolEModel", KG, TRIPLES),
    _r("kge_complex", "kge-bilinear", KM, "ComplExModel", KG, TRIPLES),
    _r("kge_analogy", "kge-bilinear", KM, "AnalogyModel", KG, TRIPLES),
    _r("kge_convkb", "kge-deep", KM, "ConvKBModel", f"8, 2, {N_ENT}, {N_REL}", TRIPLES),
    _r("kge_margin_loss", "kge-losses", KU, "MarginLoss", "1.0", SCORES),
    _r("kge_logistic_loss", "kge-losses", KU, "LogisticLoss", {}, SCORES),
    _r("kge_bce_loss", "kge-losses", KU, "BinaryCrossEntropyLoss", {}, SCORES),
]
# fmt: on
