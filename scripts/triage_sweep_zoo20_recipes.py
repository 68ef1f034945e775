"""The recipes of scripts/triage_sweep_zoo20.py: tiny-config pytorch-frame, tabm and
rtdl_num_embeddings models (random weights, nothing downloaded: none of the three
libraries fetches weights or data in the classes swept) and the arguments a user passes
them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo19_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. pytorch-frame's
models take one `TensorFrame` (numerical columns `a` to `d` with their statistics);
its convolutions take the (batch, columns, channels) tensor."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ pytorch-frame
TF = "torch_frame.nn"
TFX = [
    "from torch_frame import stype, TensorFrame",
    "from torch_frame.data.stats import StatType",
    "COL_STATS = {c: {StatType.MEAN: 0.0, StatType.STD: 1.0} for c in 'abcd'}",
    "COL_NAMES = {stype.numerical: list('abcd')}",
]
FRAME = (
    "tf = TensorFrame({stype.numerical: torch.randn(4, 4, generator=g)}, COL_NAMES)",
    NONE,
)
CS = "col_stats=COL_STATS, col_names_dict=COL_NAMES"
COLS = _x("4, 4, 8")
# ------------------------------------------------------------------ tabm
TM = "tabm"
ENS = _x("4, 3, 8")  # (batch, k, features)
F8 = _x("4, 8")
MLP = "d_in=8, n_blocks=2, d_block=16, dropout=0.0"
# ------------------------------------------------------------------ rtdl_num_embeddings
RN = "rtdl_num_embeddings"
BINS = "BINS = [torch.linspace(-2.0, 2.0, 5) for _ in range(8)]"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ pytorch-frame
    _r("tf_mlp", "tf-mlp", TF, "MLP", f"channels=8, out_channels=1, num_layers=2, {CS}", [FRAME], TFX),
    _r("tf_resnet", "tf-resnet", TF, "ResNet", f"channels=8, out_channels=1, num_layers=2, {CS}", [FRAME], TFX),
    _r("tf_ftt", "tf-fttransformer", TF, "FTTransformer", f"channels=8, out_channels=1, num_layers=1, {CS}", [FRAME], TFX),
    _r("tf_tabt", "tf-tabtransformer", TF, "TabTransformer", f"channels=8, out_channels=1, num_layers=1, num_heads=2, encoder_pad_size=2, attn_dropout=0.0, ffn_dropout=0.0, {CS}", [FRAME], TFX),
    _r("tf_excel", "tf-excelformer", TF, "ExcelFormer", f"in_channels=8, out_channels=1, num_cols=4, num_layers=1, num_heads=2, {CS}", [FRAME], TFX),
    _r("tf_trompt", "tf-trompt", TF, "Trompt", f"channels=8, out_channels=1, num_prompts=2, num_layers=1, {CS}", [FRAME], TFX),
    _r("tf_tabnet", "tf-tabnet", TF, "TabNet", f"out_channels=1, num_layers=2, split_feat_channels=4, split_attn_channels=4, gamma=1.3, {CS}", [FRAME], TFX),
    _r("tf_excel_conv", "tf-conv", TF, "ExcelFormerConv", "8, 4, 2", [COLS]),
    _r("tf_ft_convs", "tf-conv", TF, "FTTransformerConvs", "8, num_layers=1, nhead=2", [COLS]),
    _r("tf_tab_conv", "tf-conv", TF, "TabTransformerConv", "8, 2", [COLS]),
    _r("tf_trompt_conv", "tf-conv", TF, "TromptConv", "8, 4, 2", [COLS, _x("4, 2, 8", "x_prompt")]),
    _r("tf_diam", "tf-conv", TF + ".conv.excelformer_conv", "DiaM", "8, 4, 2, 0.0", [COLS]),
    _r("tf_excel_conv_wrong", "tf-conv", TF, "ExcelFormerConv", "8, 4, 2", [_x("4, 5, 8")]),
    _r("tf_linear_enc", "tf-encoder", TF, "LinearEncoder", "8, stats_list=[{StatType.MEAN: 0.0, StatType.STD: 1.0}] * 4, stype=stype.numerical", [_x("4, 4", "feat")], TFX),
    _r("tf_stypewise", "tf-encoder", TF, "StypeWiseFeatureEncoder", f"8, {CS}, stype_encoder_dict={{stype.numerical: LinearEncoder()}}", [FRAME], TFX + ["LinearEncoder"]),
    _r("tf_decoder", "tf-decoder", TF, "ExcelFormerDecoder", "8, 1, 4", [COLS]),
    _r("tf_trompt_dec", "tf-decoder", TF, "TromptDecoder", "8, 1, 2", [_x("4, 2, 8")]),
    _r("tf_mlp_frame_wrong", "tf-mlp", TF, "MLP", f"channels=8, out_channels=1, num_layers=2, {CS}", [("tf = TensorFrame({stype.numerical: torch.randn(4, 3, generator=g)}, {stype.numerical: list('abc')})", NONE)], TFX),
    # ------------------------------------------------------------------ tabm
    _r("tm_tabm", "tm-tabm", TM, "TabM.make", "n_num_features=8, d_out=1, k=3, n_blocks=2, d_block=16", [F8]),
    _r("tm_tabm_cat", "tm-tabm", TM, "TabM.make", "n_num_features=8, cat_cardinalities=[3, 5], d_out=1, k=3, n_blocks=2, d_block=16", [F8, ("x_cat = torch.randint(0, 3, (4, 2), generator=g)", B)]),
    _r("tm_tabm_emb", "tm-tabm", TM, "TabM.make", "n_num_features=8, d_out=1, k=3, n_blocks=2, d_block=16, num_embeddings=PeriodicEmbeddings(8, lite=True)", [F8], ["from rtdl_num_embeddings import PeriodicEmbeddings"]),
    _r("tm_tabm_packed", "tm-tabm", TM, "TabM.make", "n_num_features=8, d_out=1, k=3, n_blocks=2, d_block=16, arch_type='tabm-packed'", [F8]),
    _r("tm_tabm_mini", "tm-tabm", TM, "TabM.make", "n_num_features=8, d_out=1, k=3, n_blocks=2, d_block=16, arch_type='tabm-mini'", [F8]),
    _r("tm_tabm_wrong", "tm-tabm", TM, "TabM.make", "n_num_features=8, d_out=1, k=3, n_blocks=2, d_block=16", [_x("4, 6")]),
    _r("tm_mlp", "tm-backbone", TM, "MLPBackbone", MLP, [F8]),
    _r("tm_ens", "tm-backbone", TM, "MLPBackboneEnsemble", MLP + ", k=3", [ENS]),
    _r("tm_mini", "tm-backbone", TM, "MLPBackboneMiniEnsemble", MLP + ", k=3, affine_bias=True, affine_scaling_init='normal'", [ENS]),
    _r("tm_batchens", "tm-backbone", TM, "MLPBackboneBatchEnsemble", MLP + ", k=3, tabm_init=True, scaling_init='random-signs', start_scaling_init_chunks=None", [ENS]),
    _r("tm_linens", "tm-layers", TM, "LinearEnsemble", "8, 4, k=3", [ENS]),
    _r("tm_lbe", "tm-layers", TM, "LinearBatchEnsemble", "8, 4, k=3, scaling_init='random-signs'", [ENS]),
    _r("tm_bn", "tm-layers", TM, "BatchNorm1dEnsemble", "8, k=3", [ENS]),
    _r("tm_ln", "tm-layers", TM, "LayerNormEnsemble", "8, k=3", [ENS]),
    _r("tm_view", "tm-layers", TM, "EnsembleView", "k=3", [F8]),
    _r("tm_affine", "tm-layers", TM, "ElementwiseAffine", "(3, 8), bias=True, scaling_init='normal'", [ENS]),
    _r("tm_onehot", "tm-layers", TM, "_OneHotEncoding", "[3, 5]", [("x = torch.randint(0, 3, (4, 2), generator=g)", B)]),
    _r("tm_linens_rank", "tm-layers", TM, "LinearEnsemble", "8, 4, k=3", [F8]),
    # ------------------------------------------------------------------ rtdl_num_embeddings
    _r("rn_linear", "rn-linear", RN, "LinearEmbeddings", "8, 4", [F8]),
    _r("rn_linrelu", "rn-linear", RN, "LinearReLUEmbeddings", "8, 4", [F8]),
    _r("rn_periodic", "rn-periodic", RN, "PeriodicEmbeddings", "8, 4, lite=False", [F8]),
    _r("rn_periodic_lite", "rn-periodic", RN, "PeriodicEmbeddings", "8, 4, lite=True", [F8]),
    _r("rn_periodic_wrong", "rn-periodic", RN, "PeriodicEmbeddings", "8, 4, lite=False", [_x("4, 6")]),
    _r("rn_ple", "rn-piecewise", RN, "PiecewiseLinearEmbeddings", "BINS, 4, activation=False, version='B'", [F8], [BINS]),
    _r("rn_ple_a", "rn-piecewise", RN, "PiecewiseLinearEmbeddings", "BINS, 4, activation=True, version='A'", [F8], [BINS]),
    _r("rn_plenc", "rn-piecewise", RN, "PiecewiseLinearEncoding", "BINS", [F8], [BINS]),
    _r("rn_plenc_ragged", "rn-piecewise", RN, "PiecewiseLinearEncoding", "[torch.linspace(-2.0, 2.0, 3 + i) for i in range(8)]", [F8]),
]
# fmt: on
