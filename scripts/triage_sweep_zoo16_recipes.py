"""The recipes of scripts/triage_sweep_zoo16.py: tiny-config snac, pytorch-ood, easyfsl,
positional-encodings and nbeats-pytorch models (random weights, nothing downloaded: no
swept class fetches weights; SNAC.from_pretrained and pytorch-ood's model registry
would, and are never called) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo15_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines. `SUPPORT` gives the few-shot (easyfsl) cases their support set: a user calls
`process_support_set(support_images, support_labels)` once, then the model on queries;
scripts/triage_sweep_zoo16.py renders that call into Model()."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ snac
SN = "snac"
SNL = "snac.layers"
TINY = (
    "sampling_rate=16000, encoder_dim=16, encoder_rates=[2, 2], decoder_dim=64, "
    "decoder_rates=[2, 2], attn_window_size=4, codebook_size=16, codebook_dim=2, "
    "vq_strides=[2, 1], noise=False"
)
AUDIO = _x("2, 1, 32", "audio_data")  # (batch, 1, time)
# ------------------------------------------------------------------ pytorch-ood
PO = "pytorch_ood.loss"
POM = "pytorch_ood.model"
LOGITS = _x("4, 3", "logits")  # (batch, classes)
TARGET = ("target = torch.tensor([0, 2, -1, 1])", B)  # -1: an outlier (OOD) sample
TARGET_IN = ("target = torch.tensor([0, 2, 1, 1])", B)  # in-distribution only
FEAT = _x("4, 5", "features")  # (batch, embedding)
# ------------------------------------------------------------------ easyfsl
FS = "easyfsl.methods"
BACKBONE = "backbone=torch.nn.Linear(8, 6)"
QUERY = _x("3, 8", "query_images")  # (queries, input features)
SUPPORT_SET = (
    "model.process_support_set(torch.randn(6, 8), torch.tensor([0, 0, 1, 1, 2, 2]))"
)
SUPPORT_MAPS = (
    "model.process_support_set(torch.randn(4, 3, 6, 6), torch.tensor([0, 0, 1, 1]))"
)
# ------------------------------------------------------------------ positional-encodings
PE = "positional_encodings.torch_encodings"
# ------------------------------------------------------------------ nbeats-pytorch
NB = "nbeats_pytorch.model"
NBT = (
    "hidden_layer_units=8, nb_blocks_per_stack=1, forecast_length=3, backcast_length=6"
)
SERIES = _x("2, 6", "backcast")  # (batch, backcast length)
CPU = "torch.device('cpu')"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ snac
    _r("sn_snac", "sn-snac", SN, "SNAC", TINY, [AUDIO]),
    _r("sn_snac_noattn", "sn-snac", SN, "SNAC", TINY.replace("attn_window_size=4", "attn_window_size=None"), [AUDIO]),
    _r("sn_snac_dense", "sn-snac", SN, "SNAC", TINY + ", depthwise=False", [AUDIO]),
    _r("sn_snac_long", "sn-snac", SN, "SNAC", TINY, [_x("1, 1, 50", "audio_data")]),
    _r("sn_snac_2d", "sn-snac", SN, "SNAC", TINY, [_x("2, 32", "audio_data")]),
    _r("sn_snac_int", "sn-snac", SN, "SNAC", TINY, [(f"audio_data = torch.randint(-300, 300, (2, 1, 32), {G}, dtype=torch.int16)", B)]),
    _r("sn_encoder", "sn-encoder", SNL, "Encoder", "d_model=16, strides=[2, 2], depthwise=True, attn_window_size=4", [_x("2, 1, 16")]),
    _r("sn_encoder_noattn", "sn-encoder", SNL, "Encoder", "d_model=4, strides=[2, 2], attn_window_size=None", [_x("2, 1, 16")]),
    _r("sn_decoder", "sn-decoder", SNL, "Decoder", "16, 64, [2, 2], depthwise=True, attn_window_size=4", [_x("2, 16, 4")]),
    _r("sn_decoder_dense", "sn-decoder", SNL, "Decoder", "16, 8, [2, 2], attn_window_size=None", [_x("2, 16, 4")]),
    _r("sn_rvq", "sn-vq", "snac.vq", "ResidualVectorQuantize", "input_dim=8, codebook_size=16, codebook_dim=2, vq_strides=[2, 1]", [_x("2, 8, 8", "z")]),
    _r("sn_vq", "sn-vq", "snac.vq", "VectorQuantize", "8, 16, 2, stride=2", [_x("2, 8, 8", "z")]),
    _r("sn_vq_odd", "sn-vq", "snac.vq", "VectorQuantize", "8, 16, 2, stride=2", [_x("2, 8, 7", "z")]),
    _r("sn_mha", "sn-attention", "snac.attention", "LocalMHA", "dim=8, window_size=4, dim_head=4", [_x("2, 8, 8")]),
    _r("sn_mha_norope", "sn-attention", "snac.attention", "LocalMHA", "dim=8, window_size=4, dim_head=4, use_rotary_pos_emb=False", [_x("2, 8, 8")]),
    _r("sn_snake", "sn-layers", SNL, "Snake1d", "4", [_x("2, 4, 8")]),
    _r("sn_decblock", "sn-layers", SNL, "DecoderBlock", "input_dim=8, output_dim=4, stride=2", [_x("2, 8, 5")]),
    # ------------------------------------------------------------------ pytorch-ood
    _r("po_ce", "po-loss", PO, "CrossEntropyLoss", "", [LOGITS, TARGET]),
    _r("po_entropic", "po-loss", PO, "EntropicOpenSetLoss", "", [LOGITS, TARGET]),
    _r("po_oe", "po-loss", PO, "OutlierExposureLoss", "alpha=0.5", [LOGITS, TARGET]),
    _r("po_oe_in", "po-loss", PO, "OutlierExposureLoss", "alpha=0.5", [LOGITS, TARGET_IN]),
    _r("po_energy", "po-loss", PO, "EnergyRegularizedLoss", "", [LOGITS, TARGET]),
    _r("po_logitnorm", "po-loss", PO, "LogitNorm", "t=0.5", [LOGITS, TARGET_IN]),
    _r("po_background", "po-loss", PO, "BackgroundClassLoss", "3", [_x("4, 4", "logits"), TARGET]),
    _r("po_objectosphere", "po-loss", PO, "ObjectosphereLoss", "", [LOGITS, FEAT, TARGET]),
    _r("po_conf", "po-loss", PO, "ConfidenceLoss", "", [LOGITS, ("confidence = torch.rand(4, 1, generator=g)", B), TARGET]),
    _r("po_ce_float", "po-loss", PO, "CrossEntropyLoss", "", [LOGITS, ("target = torch.tensor([0.0, 2.0, -1.0, 1.0])", B)]),
    _r("po_cac", "po-centers-loss", PO, "CACLoss", "3", [_x("4, 3", "distances"), TARGET]),
    _r("po_center", "po-centers-loss", PO, "CenterLoss", "3, 5", [_x("4, 3", "distmat"), TARGET]),
    _r("po_ii", "po-centers-loss", PO, "IILoss", "3, 5", [FEAT, TARGET_IN]),
    _r("po_mchad", "po-centers-loss", PO, "MCHADLoss", "3, 5", [_x("4, 3", "distmat"), TARGET]),
    _r("po_svdd", "po-svdd", PO, "DeepSVDDLoss", "5", [FEAT]),
    _r("po_svdd_radius", "po-svdd", PO, "DeepSVDDLoss", "5, radius=0.5", [FEAT, TARGET]),
    _r("po_sad", "po-svdd", PO, "DeepSADLoss", "5", [FEAT, TARGET]),
    _r("po_vos", "po-vos", PO, "VOSRegLoss", "torch.nn.Linear(1, 2), torch.nn.Linear(3, 1)", [LOGITS, TARGET]),
    _r("po_wrn", "po-wrn", POM, "WideResNet", "num_classes=3, depth=10, widen_factor=1, drop_rate=0.0", [_x("2, 3, 32, 32")]),
    _r("po_wrn_gray", "po-wrn", POM, "WideResNet", "num_classes=3, depth=10, widen_factor=1, drop_rate=0.0", [_x("2, 1, 32, 32")]),
    _r("po_centers", "po-centers", POM, "ClassCenters", "3, 5", [FEAT]),
    _r("po_running", "po-centers", POM, "RunningCenters", "3, 5", [FEAT]),
    _r("po_gru", "po-gru", POM, "GRUClassifier", "3, 20, embedding_dim=4", [(f"x = torch.randint(2, 20, (2, 6), {G})", B)]),
    # ------------------------------------------------------------------ easyfsl
    _r("fs_proto", "fs-proto", FS, "PrototypicalNetworks", BACKBONE, [QUERY]),
    _r("fs_proto_softmax", "fs-proto", FS, "PrototypicalNetworks", BACKBONE + ", use_softmax=True", [QUERY]),
    _r("fs_proto_norm", "fs-proto", FS, "PrototypicalNetworks", BACKBONE + ", feature_normalization=2.0", [QUERY]),
    _r("fs_proto_identity", "fs-proto", FS, "PrototypicalNetworks", "", [_x("3, 8", "query_images")]),
    _r("fs_proto_wrong", "fs-proto", FS, "PrototypicalNetworks", BACKBONE, [_x("3, 7", "query_images")]),
    _r("fs_simple", "fs-simple", FS, "SimpleShot", BACKBONE, [QUERY]),
    _r("fs_bdcspn", "fs-bdcspn", FS, "BDCSPN", BACKBONE, [QUERY]),
    _r("fs_laplacian", "fs-laplacian", FS, "LaplacianShot", BACKBONE + ", inference_steps=3, knn=2", [QUERY]),
    _r("fs_matching", "fs-matching", FS, "MatchingNetworks", BACKBONE + ", feature_dimension=6", [QUERY]),
    _r("fs_relation", "fs-relation", FS, "RelationNetworks", "backbone=torch.nn.Conv2d(3, 4, 3, padding=1), feature_dimension=4", [_x("3, 3, 6, 6", "query_images")]),
    _r("fs_feat", "fs-feat", FS, "FEAT", BACKBONE + ", attention_module=MultiHeadAttention(1, 6, 6, 6)", [QUERY], ["from easyfsl.modules.attention_modules import MultiHeadAttention"]),
    _r("fs_tim", "fs-tim", FS, "TIM", BACKBONE + ", fine_tuning_steps=2", [QUERY]),
    _r("fs_finetune", "fs-finetune", FS, "Finetune", BACKBONE + ", fine_tuning_steps=2", [QUERY]),
    _r("fs_transductive", "fs-finetune", FS, "TransductiveFinetuning", BACKBONE + ", fine_tuning_steps=2", [QUERY]),
    _r("fs_ptmap", "fs-ptmap", FS, "PTMAP", BACKBONE + ", fine_tuning_steps=2", [QUERY]),
    # ------------------------------------------------------------------ positional-encodings
    _r("pe_1d", "pe-1d", PE, "PositionalEncoding1D", "6", [_x("2, 5, 6")]),
    _r("pe_1d_odd", "pe-1d", PE, "PositionalEncoding1D", "5", [_x("2, 5, 5")]),
    _r("pe_1d_rank", "pe-1d", PE, "PositionalEncoding1D", "6", [_x("5, 6")]),
    _r("pe_1d_half", "pe-1d", PE, "PositionalEncoding1D", "6", [(f"x = torch.randn(2, 5, 6, {G}).half()", B)]),
    _r("pe_p1d", "pe-1d", PE, "PositionalEncodingPermute1D", "6", [_x("2, 6, 5")]),
    _r("pe_2d", "pe-2d", PE, "PositionalEncoding2D", "8", [_x("2, 4, 5, 8")]),
    _r("pe_p2d", "pe-2d", PE, "PositionalEncodingPermute2D", "8", [_x("2, 8, 4, 5")]),
    _r("pe_3d", "pe-3d", PE, "PositionalEncoding3D", "6", [_x("1, 2, 3, 4, 6")]),
    _r("pe_p3d", "pe-3d", PE, "PositionalEncodingPermute3D", "6", [_x("1, 6, 2, 3, 4")]),
    _r("pe_summer", "pe-summer", PE, "Summer", "PositionalEncoding2D(8)", [_x("2, 4, 5, 8")], ["PositionalEncoding2D"]),
    _r("pe_summer_1d", "pe-summer", PE, "Summer", "PositionalEncodingPermute1D(6)", [_x("2, 6, 5")], ["PositionalEncodingPermute1D"]),
    # ------------------------------------------------------------------ nbeats-pytorch
    _r("nb_generic", "nb-net", NB, "NBeatsNet", f"stack_types=('generic', 'generic'), thetas_dim=(4, 4), {NBT}", [SERIES]),
    _r("nb_interpretable", "nb-net", NB, "NBeatsNet", f"thetas_dim=(3, 4), {NBT}", [SERIES]),
    _r("nb_shared", "nb-net", NB, "NBeatsNet", f"stack_types=('generic',), thetas_dim=(4,), share_weights_in_stack=True, {NBT.replace('stack=1', 'stack=2')}", [SERIES]),
    _r("nb_harmonics", "nb-net", NB, "NBeatsNet", f"stack_types=('seasonality',), thetas_dim=(4,), nb_harmonics=2, {NBT}", [SERIES]),
    _r("nb_3d", "nb-net", NB, "NBeatsNet", f"stack_types=('generic',), thetas_dim=(4,), {NBT}", [_x("2, 6, 1", "backcast")]),
    _r("nb_short", "nb-net", NB, "NBeatsNet", f"stack_types=('generic',), thetas_dim=(4,), {NBT}", [_x("2, 5", "backcast")]),
    _r("nb_f64", "nb-net", NB, "NBeatsNet", f"stack_types=('trend',), thetas_dim=(3,), {NBT}", [(f"backcast = torch.randn(2, 6, {G}, dtype=torch.float64)", B)]),
    _r("nb_generic_block", "nb-blocks", NB, "GenericBlock", f"8, 4, {CPU}, 6, 3", [_x("2, 6")]),
    _r("nb_trend_block", "nb-blocks", NB, "TrendBlock", f"8, 3, {CPU}, 6, 3", [_x("2, 6")]),
    _r("nb_seasonality_block", "nb-blocks", NB, "SeasonalityBlock", f"8, 3, {CPU}, 6, 3", [_x("2, 6")]),
]
# fmt: on

# the support set each easyfsl case is given before its queries (see the module doc)
SUPPORT = {r[0]: SUPPORT_SET for r in RECIPES if r[2] == FS}
SUPPORT["fs_relation"] = SUPPORT_MAPS
