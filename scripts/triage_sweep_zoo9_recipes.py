"""The recipes of scripts/triage_sweep_zoo9.py: tiny-config ncps, entmax, nflows,
deepctr-torch and pytorch-metric-learning models (random weights, nothing downloaded) and
the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe): `inputs` are the lines of
example_inputs() (`g` is a seeded torch.Generator), each with its `dynamic` spec: `True`
when dim 0 is the batch (`{0: BATCH}`), a string for another spec (`{0: BATCH, 1: SEQ}`
for a (batch, sequence) input), `False` for none (a flag, a float, `None`). Constructor
kwargs written as a string are source (they may name the extra imported classes and
`torch`); `extra` adds names imported from the module, or whole import lines."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as None / a flag / a Python number: no Dim
BS = "{0: BATCH, 1: SEQ}"  # (batch, sequence, ...)


def _x(shape: str, name: str = "x", spec=B) -> tuple:
    return (f"{name} = torch.randn({shape}, {G})", spec)


def _r(case, fam, module, cls, kw, inputs, extra=None) -> tuple:
    r = (case, fam, module, cls, kw, inputs)
    return r + ((extra,) if extra else ())


# ------------------------------------------------------------------ ncps
NC = "ncps.torch"
AUTO = "from ncps.wirings import AutoNCP"
FULL = "from ncps.wirings import FullyConnected"
SEQ = _x("2, 8, 4", "x", BS)  # (batch, length, features)
SEQ_T = _x("8, 2, 4", "x", "{0: SEQ, 1: BATCH}")  # sequence-major
STEP = _x("2, 4", "x")  # one time step
HX = _x("2, 8", "hx")
# CfC / LTC squeeze each step's timespans, which only broadcasts for a batch of one
SEQ1 = _x("1, 8, 4", "x", "{1: SEQ}")
TS = (f"timespans = torch.rand(1, 8, {G}) + 0.5", "{1: SEQ}")
# ------------------------------------------------------------------ entmax
SCORES = _x("8, 6", "X")
TARGET = (f"target = torch.randint(0, 6, (8,), {G})", B)
# ------------------------------------------------------------------ nflows
NT = "nflows.transforms"
FLOW_X = _x("8, 4", "inputs")
CTX = _x("8, 3", "context")
IMG = _x("2, 4, 8, 8", "inputs")
MASK = "mask=torch.tensor([1, 0, 1, 0])"
NET = "transform_net_create_fn=lambda i, o: ResidualNet(i, o, hidden_features=8, num_blocks=1)"
RESNET = "from nflows.nn.nets import ResidualNet"
# ------------------------------------------------------------------ deepctr-torch
DC = "deepctr_torch.models"
FEATS = "from deepctr_torch.inputs import SparseFeat, DenseFeat"  # what FC names
SPARSE = "from deepctr_torch.inputs import SparseFeat"  # SFC
VARLEN = "from deepctr_torch.inputs import SparseFeat, VarLenSparseFeat"  # HIST
FC = "[SparseFeat('s1', 10, 4), SparseFeat('s2', 10, 4), DenseFeat('d1', 1), DenseFeat('d2', 1)]"
SFC = "[SparseFeat('s1', 10, 4), SparseFeat('s2', 10, 4), SparseFeat('s3', 10, 4)]"
CTR = f"{FC}, {FC}, dnn_hidden_units=(8,), device='cpu'"
CTR_X = (
    f"X = torch.cat([torch.randint(0, 10, (8, 2), {G}).float(), torch.randn(8, 2, {G})], 1)",
    B,
)
SPARSE_X = (f"X = torch.randint(0, 10, (8, 3), {G}).float()", B)
HIST = (
    "[SparseFeat('user', 10, 4), SparseFeat('item_id', 10, 4),"
    " VarLenSparseFeat(SparseFeat('hist_item_id', 10, 4, embedding_name='item_id'),"
    " maxlen=4, length_name='seq_length')]"
)
HIST_X = (
    f"X = torch.cat([torch.randint(1, 10, (8, 6), {G}), torch.randint(1, 5, (8, 1), {G})], 1).float()",
    B,
)
# ------------------------------------------------------------------ pytorch-metric-learning
PL = "pytorch_metric_learning.losses"
PM = "pytorch_metric_learning.miners"
EMB = _x("8, 16", "embeddings")
LABELS = ("labels = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])", B)
REF = _x("8, 16", "ref_emb")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ ncps
    _r("ncps_cfc", "ncps-cfc", NC, "CfC", "input_size=4, units=8", [SEQ]),
    _r("ncps_cfc_mixed", "ncps-cfc", NC, "CfC", "input_size=4, units=8, mixed_memory=True", [SEQ]),
    _r("ncps_cfc_no_gate_backbone", "ncps-cfc", NC, "CfC", "input_size=4, units=8, mode='no_gate', backbone_units=8, backbone_layers=2", [SEQ]),
    _r("ncps_cfc_seq_major", "ncps-cfc", NC, "CfC", "input_size=4, units=8, batch_first=False", [SEQ_T]),
    _r("ncps_cfc_timespans", "ncps-cfc", NC, "CfC", "input_size=4, units=8", [SEQ1, ("hx = None", NONE), TS]),
    _r("ncps_cfc_wired", "ncps-cfc", NC, "CfC", "input_size=4, units=AutoNCP(12, 2)", [SEQ], [AUTO]),
    _r("ncps_cfc_unbatched", "ncps-cfc", NC, "CfC", "input_size=4, units=8", [_x("8, 4", "x", "{0: SEQ}")]),
    _r("ncps_ltc", "ncps-ltc", NC, "LTC", "input_size=4, units=8", [SEQ]),
    _r("ncps_ltc_wired_mixed", "ncps-ltc", NC, "LTC", "input_size=4, units=AutoNCP(12, 2), mixed_memory=True, return_sequences=False", [SEQ], [AUTO]),
    _r("ncps_ltc_timespans", "ncps-ltc", NC, "LTC", "input_size=4, units=8", [SEQ1, ("hx = None", NONE), TS]),
    _r("ncps_cfc_cell", "ncps-cells", NC, "CfCCell", "input_size=4, hidden_size=8, backbone_units=8, backbone_layers=1", [STEP, HX, ("ts = 1.0", NONE)]),
    _r("ncps_ltc_cell", "ncps-cells", NC, "LTCCell", "wiring=FullyConnected(8), in_features=4", [STEP, HX], [FULL]),
    _r("ncps_wired_cfc_cell", "ncps-cells", NC, "WiredCfCCell", "input_size=4, wiring=AutoNCP(12, 2)", [STEP, _x("2, 12", "hx"), _x("2, 1", "timespans")], [AUTO]),
    _r("ncps_lstm_cell", "ncps-cells", "ncps.torch.lstm", "LSTMCell", "input_size=4, hidden_size=8", [STEP, ("states = (torch.zeros(2, 8), torch.zeros(2, 8))", "({0: BATCH}, {0: BATCH})")]),
    # ------------------------------------------------------------------ entmax
    _r("entmax_sparsemax", "entmax-activations", "entmax", "Sparsemax", "dim=-1", [SCORES]),
    _r("entmax_sparsemax_topk", "entmax-activations", "entmax", "Sparsemax", "dim=-1, k=3", [SCORES]),
    _r("entmax_entmax15", "entmax-activations", "entmax", "Entmax15", "dim=-1", [SCORES]),
    _r("entmax_entmax15_topk", "entmax-activations", "entmax", "Entmax15", "dim=1, k=2", [SCORES]),
    _r("entmax_entmax_bisect", "entmax-bisect", "entmax", "EntmaxBisect", "alpha=1.5, dim=-1, n_iter=10", [SCORES]),
    _r("entmax_entmax_bisect_alpha", "entmax-bisect", "entmax", "EntmaxBisect", "alpha=torch.tensor(1.3), dim=-1, n_iter=10", [SCORES]),
    _r("entmax_normmax_bisect", "entmax-bisect", "entmax", "NormmaxBisect", "alpha=2, dim=-1, n_iter=10", [SCORES]),
    _r("entmax_budget_bisect", "entmax-bisect", "entmax", "BudgetBisect", "budget=2, dim=-1, n_iter=10", [SCORES]),
    _r("entmax_sparsemax_loss", "entmax-losses", "entmax", "SparsemaxLoss", {}, [SCORES, TARGET]),
    _r("entmax_entmax15_loss", "entmax-losses", "entmax", "Entmax15Loss", "k=4, reduction='sum'", [SCORES, TARGET]),
    _r("entmax_entmax_bisect_loss", "entmax-losses", "entmax", "EntmaxBisectLoss", "alpha=1.5, n_iter=10", [SCORES, TARGET]),
    # ------------------------------------------------------------------ nflows
    _r("nflows_maf", "nflows-autoregressive", NT, "MaskedAffineAutoregressiveTransform", "features=4, hidden_features=8", [FLOW_X]),
    _r("nflows_maf_context", "nflows-autoregressive", NT, "MaskedAffineAutoregressiveTransform", "features=4, hidden_features=8, context_features=3, num_blocks=1, use_residual_blocks=False, use_batch_norm=True", [FLOW_X, CTX]),
    _r("nflows_rq_autoregressive", "nflows-autoregressive", NT, "MaskedPiecewiseRationalQuadraticAutoregressiveTransform", "features=4, hidden_features=8, num_bins=4, tails='linear', tail_bound=3.0", [FLOW_X]),
    _r("nflows_linear_autoregressive", "nflows-autoregressive", NT, "MaskedPiecewiseLinearAutoregressiveTransform", "num_bins=4, features=4, hidden_features=8", [(f"inputs = torch.rand(8, 4, {G})", B)]),
    _r("nflows_affine_coupling", "nflows-coupling", NT, "AffineCouplingTransform", f"{MASK}, {NET}", [FLOW_X], [RESNET]),
    _r("nflows_rq_coupling", "nflows-coupling", NT, "PiecewiseRationalQuadraticCouplingTransform", f"{MASK}, {NET}, num_bins=4, tails='linear', tail_bound=3.0", [FLOW_X], [RESNET]),
    _r("nflows_lu_linear", "nflows-linear", NT, "LULinear", "features=4", [FLOW_X]),
    _r("nflows_one_by_one_conv", "nflows-linear", NT, "OneByOneConvolution", "num_channels=4", [IMG]),
    _r("nflows_batch_norm", "nflows-normalization", NT, "BatchNorm", "features=4", [FLOW_X]),
    _r("nflows_composite", "nflows-base", NT, "CompositeTransform", "[ActNorm(4), ReversePermutation(4), LULinear(4)]", [FLOW_X], ["ActNorm", "ReversePermutation", "LULinear"]),
    _r("nflows_inverse_sigmoid", "nflows-base", NT, "InverseTransform", "Sigmoid()", [(f"inputs = torch.rand(8, 4, {G})", B)], ["Sigmoid"]),
    _r("nflows_logit", "nflows-nonlinearities", NT, "Logit", {}, [(f"inputs = torch.rand(8, 4, {G})", B)]),
    _r("nflows_squeeze", "nflows-reshape", NT, "SqueezeTransform", {}, [IMG]),
    _r("nflows_rq_cdf", "nflows-nonlinearities", NT, "PiecewiseRationalQuadraticCDF", "shape=[4], num_bins=4, tails='linear', tail_bound=3.0", [FLOW_X]),
    _r("nflows_conv_resnet", "nflows-nets", "nflows.nn.nets", "ConvResidualNet", "in_channels=4, out_channels=4, hidden_channels=8, num_blocks=1", [IMG]),
    # ------------------------------------------------------------------ deepctr-torch
    _r("ctr_deepfm", "ctr-models", DC, "DeepFM", CTR, [CTR_X], [FEATS]),
    _r("ctr_wdl", "ctr-models", DC, "WDL", CTR, [CTR_X], [FEATS]),
    _r("ctr_dcn", "ctr-models", DC, "DCN", f"{CTR}, cross_num=2", [CTR_X], [FEATS]),
    _r("ctr_xdeepfm", "ctr-models", DC, "xDeepFM", f"{CTR}, cin_layer_size=(4, 4)", [CTR_X], [FEATS]),
    _r("ctr_autoint", "ctr-models", DC, "AutoInt", f"{CTR}, att_layer_num=1, att_head_num=2", [CTR_X], [FEATS]),
    _r("ctr_afm", "ctr-models", DC, "AFM", f"{SFC}, {SFC}, attention_factor=4, device='cpu'", [SPARSE_X], [SPARSE]),
    _r("ctr_pnn", "ctr-models", DC, "PNN", f"{SFC}, dnn_hidden_units=(8,), use_outter=True, device='cpu'", [SPARSE_X], [SPARSE]),
    _r("ctr_ccpm", "ctr-models", DC, "CCPM", f"{SFC}, {SFC}, conv_kernel_width=(2, 2), conv_filters=(2, 2), dnn_hidden_units=(8,), device='cpu'", [SPARSE_X], [SPARSE]),
    _r("ctr_fibinet", "ctr-models", DC, "FiBiNET", f"{CTR}, reduction_ratio=1", [CTR_X], [FEATS]),
    _r("ctr_difm", "ctr-models", DC, "DIFM", f"{CTR}, att_head_num=2", [CTR_X], [FEATS]),
    _r("ctr_mlr", "ctr-models", DC, "MLR", f"{FC}, region_num=2, device='cpu'", [CTR_X], [FEATS]),
    _r("ctr_din", "ctr-sequence", DC, "DIN", f"{HIST}, ['item_id'], dnn_hidden_units=(8,), att_hidden_size=(8,), device='cpu'", [HIST_X], [VARLEN]),
    _r("ctr_dien", "ctr-sequence", DC, "DIEN", f"{HIST}, ['item_id'], gru_type='AUGRU', dnn_hidden_units=(8,), att_hidden_units=(8,), device='cpu'", [HIST_X], [VARLEN]),
    _r("ctr_mmoe", "ctr-multitask", DC, "MMOE", f"{FC}, num_experts=2, expert_dnn_hidden_units=(8,), gate_dnn_hidden_units=(4,), tower_dnn_hidden_units=(4,)", [CTR_X], [FEATS]),
    _r("ctr_ple", "ctr-multitask", DC, "PLE", f"{FC}, shared_expert_num=1, specific_expert_num=1, num_levels=1, expert_dnn_hidden_units=(8,), gate_dnn_hidden_units=(4,), tower_dnn_hidden_units=(4,)", [CTR_X], [FEATS]),
    # ------------------------------------------------------------------ pytorch-metric-learning
    _r("pml_triplet", "pml-losses", PL, "TripletMarginLoss", "margin=0.1", [EMB, LABELS]),
    _r("pml_contrastive", "pml-losses", PL, "ContrastiveLoss", {}, [EMB, LABELS]),
    _r("pml_ntxent", "pml-losses", PL, "NTXentLoss", "temperature=0.1", [EMB, LABELS]),
    _r("pml_multi_similarity", "pml-losses", PL, "MultiSimilarityLoss", {}, [EMB, LABELS]),
    _r("pml_supcon", "pml-losses", PL, "SupConLoss", {}, [EMB, LABELS]),
    _r("pml_fast_ap", "pml-losses", PL, "FastAPLoss", "num_bins=4", [EMB, LABELS]),
    _r("pml_nca", "pml-losses", PL, "NCALoss", {}, [EMB, LABELS]),
    _r("pml_arcface", "pml-proxy", PL, "ArcFaceLoss", "num_classes=4, embedding_size=16", [EMB, LABELS]),
    _r("pml_proxy_anchor", "pml-proxy", PL, "ProxyAnchorLoss", "num_classes=4, embedding_size=16", [EMB, LABELS]),
    _r("pml_soft_triple", "pml-proxy", PL, "SoftTripleLoss", "num_classes=4, embedding_size=16, centers_per_class=2", [EMB, LABELS]),
    _r("pml_vicreg", "pml-losses", PL, "VICRegLoss", {}, [EMB, ("labels = None", NONE), ("indices_tuple = None", NONE), REF]),
    _r("pml_batch_hard_miner", "pml-miners", PM, "BatchHardMiner", {}, [EMB, LABELS]),
    _r("pml_multi_similarity_miner", "pml-miners", PM, "MultiSimilarityMiner", "epsilon=0.1", [EMB, LABELS]),
    _r("pml_triplet_miner", "pml-miners", PM, "TripletMarginMiner", "margin=0.2, type_of_triplets='semihard'", [EMB, LABELS]),
    _r("pml_pair_margin_miner", "pml-miners", PM, "PairMarginMiner", "pos_margin=0.2, neg_margin=0.8", [EMB, LABELS]),
]
# fmt: on
