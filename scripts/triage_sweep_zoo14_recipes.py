"""The recipes of scripts/triage_sweep_zoo14.py: tiny-config tensorkrowch,
tensorly-torch, torch-rechub, asteroid-filterbanks and torchcvnn models (random weights,
nothing downloaded) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo13_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines (imports, and the module-level objects a model and its inputs share: torch-rechub's
feature lists, which name the keys of the feature dict a user feeds)."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ tensorkrowch
TK = "tensorkrowch.models"
SEQ5 = _x("2, 5, 2", "data")  # (batch, n_features, phys_dim)
SEQ4 = _x("2, 4, 2", "data")
SEQ3 = _x("2, 3, 2", "data")
IMG = _x("2, 2, 4, 4", "image")  # (batch, in_channels, h, w)
# ------------------------------------------------------------------ tensorly-torch
TL = "tltorch"
X8 = _x("2, 8")
XC = _x("2, 4, 8, 8")
X433 = _x("2, 4, 3, 3")
# ------------------------------------------------------------------ torch-rechub
RR = "torch_rechub.models.ranking"
RM = "torch_rechub.models.multi_task"
RC = "torch_rechub.models.matching"
FEAT = [
    "from torch_rechub.basic.features import DenseFeature, SequenceFeature, SparseFeature",
    'SPARSE = [SparseFeature("user_id", vocab_size=10, embed_dim=4), SparseFeature("item_id", vocab_size=10, embed_dim=4)]',
    'DENSE = [DenseFeature("age")]',
    'HIST = [SequenceFeature("hist_item", vocab_size=10, embed_dim=4, pooling="concat", shared_with="item_id")]',
    'HIST_MEAN = [SequenceFeature("hist_item", vocab_size=10, embed_dim=4, pooling="mean", shared_with="item_id")]',
]
BS = '{"user_id": {0: BATCH}, "item_id": {0: BATCH}, "age": {0: BATCH}, "hist_item": {0: BATCH}}'
XD = (
    'x = {"user_id": torch.randint(0, 10, (2,), generator=g), "item_id": torch.randint(0, 10, (2,), generator=g), '
    '"age": torch.rand(2, generator=g), "hist_item": torch.randint(1, 10, (2, 5), generator=g)}',
    BS,
)
XD_FLOAT = (
    'x = {"user_id": torch.rand(2, generator=g) * 10, "item_id": torch.randint(0, 10, (2,), generator=g), '
    '"age": torch.rand(2, generator=g), "hist_item": torch.randint(1, 10, (2, 5), generator=g)}',
    BS,
)
XD_MISSING = (
    'x = {"user_id": torch.randint(0, 10, (2,), generator=g), "item_id": torch.randint(0, 10, (2,), generator=g)}',
    '{"user_id": {0: BATCH}, "item_id": {0: BATCH}}',
)
MLP = '{"dims": [8]}'
TOWERS = '[{"dims": [4]}, {"dims": [4]}]'
TASKS = '["classification", "classification"]'
# ------------------------------------------------------------------ asteroid-filterbanks
AF = "asteroid_filterbanks"
WAV = _x("2, 64", "waveform")  # (batch, time)
WAV3 = _x("2, 1, 64", "waveform")  # (batch, 1, time)
# ------------------------------------------------------------------ torchcvnn
CV = "torchcvnn.nn"
Z = (f"z = torch.randn(2, 4, 8, 8, dtype=torch.complex64, {G})", B)  # complex image

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ tensorkrowch
    _r("tk_mps", "tk-mps", TK, "MPS", "n_features=5, phys_dim=2, bond_dim=3", [SEQ5]),
    _r("tk_mps_list", "tk-mps", TK, "MPS", "n_features=3, phys_dim=[2, 3, 4], bond_dim=3", [(f"data = [torch.randn(2, 2, {G}), torch.randn(2, 3, {G}), torch.randn(2, 4, {G})]", "[{0: BATCH}, {0: BATCH}, {0: BATCH}]")]),
    _r("tk_mps_open", "tk-mps", TK, "MPS", "n_features=5, phys_dim=2, bond_dim=3, boundary='pbc'", [SEQ5]),
    _r("tk_mps_wrong_phys", "tk-mps", TK, "MPS", "n_features=5, phys_dim=2, bond_dim=3", [_x("2, 5, 3", "data")]),
    _r("tk_mps_f64", "tk-mps", TK, "MPS", "n_features=5, phys_dim=2, bond_dim=3", [(f"data = torch.randn(2, 5, 2, {G}, dtype=torch.float64)", B)]),
    _r("tk_umps", "tk-umps", TK, "UMPS", "n_features=4, phys_dim=2, bond_dim=3", [SEQ4]),
    _r("tk_mps_layer", "tk-mps-layer", TK, "MPSLayer", "n_features=4, in_dim=2, out_dim=3, bond_dim=3", [SEQ3]),
    _r("tk_mps_layer_pbc", "tk-mps-layer", TK, "MPSLayer", "n_features=4, in_dim=2, out_dim=3, bond_dim=3, boundary='pbc'", [SEQ3]),
    _r("tk_umps_layer", "tk-umps-layer", TK, "UMPSLayer", "n_features=4, in_dim=2, out_dim=3, bond_dim=3", [SEQ3]),
    _r("tk_conv_mps", "tk-conv-mps", TK, "ConvMPS", "in_channels=2, bond_dim=3, kernel_size=2", [IMG]),
    _r("tk_conv_umps", "tk-conv-mps", TK, "ConvUMPS", "in_channels=2, bond_dim=3, kernel_size=2", [IMG]),
    _r("tk_conv_mps_layer", "tk-conv-mps", TK, "ConvMPSLayer", "in_channels=2, out_channels=3, bond_dim=3, kernel_size=2", [IMG]),
    _r("tk_conv_umps_layer", "tk-conv-mps", TK, "ConvUMPSLayer", "in_channels=2, out_channels=3, bond_dim=3, kernel_size=2", [IMG]),
    _r("tk_peps", "tk-peps", TK, "PEPS", "n_rows=2, n_cols=2, in_dim=3, bond_dim=[3, 3]", [_x("2, 4, 3", "data")]),
    _r("tk_upeps", "tk-peps", TK, "UPEPS", "n_rows=2, n_cols=2, in_dim=3, bond_dim=[3, 3]", [_x("2, 4, 3", "data")]),
    _r("tk_tree", "tk-tree", TK, "Tree", "sites_per_layer=[4, 2, 1], bond_dim=[[3, 3, 4], [4, 4, 2], [2, 2, 2]]", [_x("2, 8, 3", "data")]),
    _r("tk_utree", "tk-tree", TK, "UTree", "sites_per_layer=[4, 2, 1], bond_dim=[3, 3, 3]", [_x("2, 8, 3", "data")]),
    _r("tk_conv_tree", "tk-tree", TK, "ConvTree", "sites_per_layer=[2, 1], bond_dim=[[2, 2, 3], [3, 3, 5]], kernel_size=2", [_x("2, 2, 2, 2", "image")]),
    _r("tk_tree_rank2", "tk-tree", TK, "Tree", "sites_per_layer=[4, 2, 1], bond_dim=[[3, 3, 4], [4, 4, 2], [2, 2, 2]]", [_x("2, 24", "data")]),
    # ------------------------------------------------------------------ tensorly-torch
    _r("tl_linear_cp", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='cp', rank=4", [X8]),
    _r("tl_linear_tucker", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='tucker', rank=4", [X8]),
    _r("tl_linear_dense", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='dense'", [X8]),
    _r("tl_linear_blocktt", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='blocktt', rank=4", [X8]),
    _r("tl_linear_recon", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='cp', rank=4, implementation='reconstructed'", [X8]),
    _r("tl_linear_tucker_recon", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='tucker', rank=4, implementation='reconstructed'", [X8]),
    _r("tl_linear_layers", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='cp', rank=4, n_layers=2", [X8, ("indices = 1", NONE)]),
    _r("tl_linear_wrong", "tl-linear", TL, "FactorizedLinear", "(2, 4), (2, 3), factorization='cp', rank=4", [_x("2, 7")]),
    _r("tl_conv_cp", "tl-conv", TL, "FactorizedConv", "4, 6, 3, order=2, factorization='cp', rank=4", [XC]),
    _r("tl_conv_tucker", "tl-conv", TL, "FactorizedConv", "4, 6, 3, order=2, factorization='tucker', rank=4", [XC]),
    _r("tl_conv_tt", "tl-conv", TL, "FactorizedConv", "4, 6, 3, order=2, factorization='tt', rank=4", [XC]),
    _r("tl_conv_recon", "tl-conv", TL, "FactorizedConv", "4, 6, 3, order=2, factorization='cp', rank=4, implementation='reconstructed'", [XC]),
    _r("tl_conv1d_cp", "tl-conv", TL, "FactorizedConv", "4, 6, 3, order=1, factorization='cp', rank=4", [_x("2, 4, 16")]),
    _r("tl_trl", "tl-trl", TL, "TRL", "(4, 3, 3), (5,), factorization='cp', rank=4", [X433]),
    _r("tl_trl_tucker", "tl-trl", TL, "TRL", "(4, 3, 3), (5,), factorization='tucker', rank=4", [X433]),
    _r("tl_trl_bias", "tl-trl", TL, "TRL", "(4, 3, 3), (5,), bias=True, factorization='tt', rank=4", [X433]),
    _r("tl_tcl", "tl-tcl", TL, "TCL", "(4, 3, 3), (2, 2, 2)", [X433]),
    _r("tl_tcl_rank", "tl-tcl", TL, "TCL", "(4, 3, 3), (2, 2, 2)", [_x("2, 4, 9")]),
    _r("tl_embedding", "tl-embedding", TL, "FactorizedEmbedding", "16, 8, factorization='blocktt', rank=4", [(f"input = torch.randint(0, 16, (2, 5), {G})", B)]),
    _r("tl_embedding_cp", "tl-embedding", TL, "FactorizedEmbedding", "16, 8, factorization='cp', rank=4", [(f"input = torch.randint(0, 16, (2, 5), {G})", B)]),
    _r("tl_embedding_1d", "tl-embedding", TL, "FactorizedEmbedding", "16, 8, factorization='tucker', rank=4", [(f"input = torch.randint(0, 16, (6,), {G})", B)]),
    # ------------------------------------------------------------------ torch-rechub
    _r("rh_deepfm", "rh-ranking", RR, "DeepFM", f"deep_features=DENSE + SPARSE, fm_features=SPARSE, mlp_params={MLP}", [XD], FEAT),
    _r("rh_widedeep", "rh-ranking", RR, "WideDeep", f"wide_features=SPARSE, deep_features=DENSE + SPARSE, mlp_params={MLP}", [XD], FEAT),
    _r("rh_dcn", "rh-ranking", RR, "DCN", f"features=DENSE + SPARSE, n_cross_layers=2, mlp_params={MLP}", [XD], FEAT),
    _r("rh_dcnv2", "rh-ranking", RR, "DCNv2", f"features=DENSE + SPARSE, n_cross_layers=2, mlp_params={MLP}, low_rank=4, num_experts=2", [XD], FEAT),
    _r("rh_autoint", "rh-ranking", RR, "AutoInt", f"sparse_features=SPARSE, dense_features=DENSE, num_layers=1, num_heads=2, mlp_params={MLP}", [XD], FEAT),
    _r("rh_fibinet", "rh-ranking", RR, "FiBiNet", f"features=SPARSE, mlp_params={MLP}", [XD], FEAT),
    _r("rh_din", "rh-ranking", RR, "DIN", f"features=SPARSE, history_features=HIST, target_features=SPARSE[1:], mlp_params={MLP}, attention_mlp_params={MLP}", [XD], FEAT),
    _r("rh_deepfm_float_ids", "rh-ranking", RR, "DeepFM", f"deep_features=DENSE + SPARSE, fm_features=SPARSE, mlp_params={MLP}", [XD_FLOAT], FEAT),
    _r("rh_widedeep_missing", "rh-ranking", RR, "WideDeep", f"wide_features=SPARSE, deep_features=DENSE + SPARSE, mlp_params={MLP}", [XD_MISSING], FEAT),
    _r("rh_mmoe", "rh-multitask", RM, "MMOE", f"features=DENSE + SPARSE, task_types={TASKS}, n_expert=2, expert_params={MLP}, tower_params_list={TOWERS}", [XD], FEAT),
    _r("rh_ple", "rh-multitask", RM, "PLE", f"features=DENSE + SPARSE, task_types={TASKS}, n_level=1, n_expert_specific=1, n_expert_shared=1, expert_params={MLP}, tower_params_list={TOWERS}", [XD], FEAT),
    _r("rh_shared_bottom", "rh-multitask", RM, "SharedBottom", f"features=DENSE + SPARSE, task_types={TASKS}, bottom_params={MLP}, tower_params_list={TOWERS}", [XD], FEAT),
    _r("rh_esmm", "rh-multitask", RM, "ESMM", f"user_features=SPARSE[:1], item_features=SPARSE[1:], cvr_params={MLP}, ctr_params={MLP}", [XD], FEAT),
    _r("rh_dssm", "rh-matching", RC, "DSSM", f"user_features=SPARSE[:1] + HIST_MEAN, item_features=SPARSE[1:], user_params={MLP}, item_params={MLP}", [XD], FEAT),
    _r("rh_narm", "rh-matching", RC, "NARM", "HIST[0], hidden_dim=4, emb_dropout_p=0.0, session_rep_dropout_p=0.0", [XD], FEAT),
    # ------------------------------------------------------------------ asteroid-filterbanks
    _r("af_stft_enc", "af-encoder", AF, "Encoder", "STFTFB(16, 16, stride=8)", [WAV], ["STFTFB"]),
    _r("af_free_enc", "af-encoder", AF, "Encoder", "FreeFB(8, 16, stride=8)", [WAV], ["FreeFB"]),
    _r("af_sinc_enc", "af-encoder", AF, "Encoder", "ParamSincFB(8, 16, stride=8)", [WAV], ["ParamSincFB"]),
    _r("af_analytic_enc", "af-encoder", AF, "Encoder", "AnalyticFreeFB(8, 16, stride=8)", [WAV], ["AnalyticFreeFB"]),
    _r("af_stft_enc_3d", "af-encoder", AF, "Encoder", "STFTFB(16, 16, stride=8)", [WAV3], ["STFTFB"]),
    _r("af_stft_enc_pad", "af-encoder", AF, "Encoder", "STFTFB(16, 16, stride=8), padding=8", [WAV], ["STFTFB"]),
    _r("af_stft_enc_pinv", "af-encoder", AF, "Encoder", "STFTFB(16, 16, stride=8), is_pinv=True", [WAV], ["STFTFB"]),
    _r("af_stft_enc_int", "af-encoder", AF, "Encoder", "STFTFB(16, 16, stride=8)", [(f"waveform = torch.randint(-100, 100, (2, 64), {G})", B)], ["STFTFB"]),
    _r("af_stft_dec", "af-decoder", AF, "Decoder", "STFTFB(16, 16, stride=8)", [_x("2, 18, 7", "spec")], ["STFTFB"]),
    _r("af_stft_dec_len", "af-decoder", AF, "Decoder", "STFTFB(16, 16, stride=8)", [_x("2, 18, 7", "spec"), ("length = 64", NONE)], ["STFTFB"]),
    _r("af_free_dec", "af-decoder", AF, "Decoder", "FreeFB(8, 16, stride=8)", [_x("2, 8, 7", "spec")], ["FreeFB"]),
    _r("af_stft_dec_4d", "af-decoder", AF, "Decoder", "STFTFB(16, 16, stride=8)", [_x("2, 3, 18, 7", "spec")], ["STFTFB"]),
    _r("af_pcen", "af-pcen", AF + ".pcen", "PCEN", "n_channels=8", [_x("2, 8, 7", "mag_spec")]),
    _r("af_pcen_trainable", "af-pcen", AF + ".pcen", "PCEN", "n_channels=8, trainable=True, per_channel_smoothing=True", [_x("2, 8, 7", "mag_spec")]),
    _r("af_stateful_pcen", "af-pcen", AF + ".pcen", "StatefulPCEN", "n_channels=8", [_x("2, 8, 7", "mag_spec")]),
    # ------------------------------------------------------------------ torchcvnn
    _r("cv_crelu", "cv-activation", CV, "CReLU", {}, [Z]),
    _r("cv_modrelu", "cv-activation", CV, "modReLU", {}, [Z]),
    _r("cv_zrelu", "cv-activation", CV, "zReLU", {}, [Z]),
    _r("cv_cardioid", "cv-activation", CV, "Cardioid", {}, [Z]),
    _r("cv_mod", "cv-activation", CV, "Mod", {}, [Z]),
    _r("cv_cprelu", "cv-activation", CV, "CPReLU", {}, [Z]),
    _r("cv_crelu_real", "cv-activation", CV, "CReLU", {}, [_x("2, 4, 8, 8", "z")]),
    _r("cv_bn2d", "cv-norm", CV, "BatchNorm2d", "4", [Z]),
    _r("cv_layernorm", "cv-norm", CV, "LayerNorm", "8", [Z]),
    _r("cv_rmsnorm", "cv-norm", CV, "RMSNorm", "8", [Z]),
    _r("cv_bn2d_real", "cv-norm", CV, "BatchNorm2d", "4", [_x("2, 4, 8, 8", "z")]),
    _r("cv_maxpool", "cv-pool", CV, "MaxPool2d", "2", [Z]),
    _r("cv_upsample", "cv-pool", CV, "Upsample", "scale_factor=2", [Z]),
    _r("cv_convt", "cv-conv", CV, "ConvTranspose2d", "4, 2, 3", [Z]),
    _r("cv_mha", "cv-attention", CV, "MultiheadAttention", "8, 2", [(f"query = torch.randn(5, 2, 8, dtype=torch.complex64, {G})", "{1: BATCH}"), (f"key = torch.randn(5, 2, 8, dtype=torch.complex64, {G})", "{1: BATCH}"), (f"value = torch.randn(5, 2, 8, dtype=torch.complex64, {G})", "{1: BATCH}")]),
    _r("cv_encoder_layer", "cv-attention", CV, "TransformerEncoderLayer", "d_model=8, nhead=2, dim_feedforward=16, dropout=0.0", [(f"src = torch.randn(5, 2, 8, dtype=torch.complex64, {G})", "{1: BATCH}")]),
]
# fmt: on
