"""The recipes of scripts/triage_sweep_zoo25.py: tiny-config deepod, torchfm, cached_conv
and torch-dct models (random weights, nothing downloaded: every model is built from its
classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo24_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. deepod's anomaly
detection networks take a table (batch, features) or a window of a multivariate series
(batch, time, features); torchfm's click-through-rate models a Long tensor of field ids
(batch, fields); cached_conv's streaming convolutions a signal (batch, channels, time);
torch-dct's LinearDCT a signal (batch, n)."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ deepod
DN = "deepod.core.networks.base_networks"
DT = "deepod.core.networks.ts_network_transformer"
DC = "deepod.core.networks.ts_network_tcn"
DTS = "deepod.models.time_series"
DTB = "deepod.models.tabular"
TAB = _x("4, 6")
SEQ = _x("2, 16, 3")
TST = "n_features=3, n_output=4, seq_len=16, d_model=8, n_heads=2, n_hidden='8', dropout=0.0"
# ------------------------------------------------------------------ torchfm
TM = "torchfm.model"
FD = "field_dims=[5, 7, 4], embed_dim=4"
IDS = (f"x = torch.randint(0, 4, (2, 3), {G})", B)
# ------------------------------------------------------------------ cached_conv
CC = "cached_conv.convs"
SIG = _x("2, 3, 16")
CCI = ["import torch.nn as nn"]
# ------------------------------------------------------------------ torch-dct
TD = "torch_dct._dct"
SIG8 = _x("2, 8")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ deepod
    _r("dp_mlp", "dp-mlp", DN, "MLPnet", "n_features=6, n_hidden='8,4', n_output=4", [TAB]),
    _r("dp_mlp_bn", "dp-mlp", DN, "MLPnet", "n_features=6, n_hidden='8,4', n_output=4, batch_norm=True, dropout=0.0", [TAB]),
    _r("dp_mlp_skip", "dp-mlp", DN, "MLPnet", "n_features=6, n_hidden='8,4', n_output=4, skip_connection='concat'", [TAB]),
    _r("dp_mlpae", "dp-mlp", DN, "MlpAE", "n_features=6, n_hidden='8,4', n_emb=3", [TAB]),
    _r("dp_convnet", "dp-conv", DN, "ConvNet", "n_features=6, n_hidden=8, n_layers=2", [_x("2, 6, 4")]),
    _r("dp_gru", "dp-rnn", DN, "GRUNet", "n_features=3, n_hidden='8', n_output=4", [SEQ]),
    _r("dp_lstm", "dp-rnn", DN, "LSTMNet", "n_features=3, n_hidden='8', n_output=4", [SEQ]),
    _r("dp_convseq", "dp-conv", DN, "ConvSeqEncoder", "n_features=3, n_hidden='8', n_output=4, n_layers=2, seq_len=16", [SEQ]),
    _r("dp_tcnae", "dp-tcn", DC, "TcnAE", "n_features=3, n_hidden='8,4', n_emb=4, dropout=0.0", [SEQ]),
    _r("dp_tcn", "dp-tcn", DC, "TCNnet", "n_features=3, n_hidden='8,4', n_output=4, dropout=0.0", [SEQ]),
    _r("dp_dilated", "dp-tcn", "deepod.core.networks.ts_network_dilated_conv", "DilatedConvEncoder", "n_features=3, n_hidden='8', n_output=4", [SEQ]),
    _r("dp_tst_layer", "dp-tst", DT, "TransformerBatchNormEncoderLayer", "d_model=8, nhead=2, dim_feedforward=8, dropout=0.0, activation='ReLU'", [_x("16, 2, 8", "src", "{1: BATCH}")]),
    _r("dp_tst_enc", "dp-tst", DT, "TransformerEncoderLayer", "d_model=8, nhead=2, dim_feedforward=8, dropout=0.0", [_x("16, 2, 8", "src", "{1: BATCH}")]),
    _r("dp_tst_enc_mask", "dp-tst", DT, "TransformerEncoderLayer", "d_model=8, nhead=2, dim_feedforward=8, dropout=0.0", [_x("16, 2, 8", "src", "{1: BATCH}"), ("src_mask = None", NONE), ("src_key_padding_mask = torch.zeros(2, 16, dtype=torch.bool)", B)]),
    _r("dp_tst_pos", "dp-tst", DT, "FixedPositionalEncoding", "d_model=8, dropout=0.0, max_len=32", [_x("16, 2, 8", "x", "{1: BATCH}")]),
    _r("dp_tst_learnpos", "dp-tst", DT, "LearnablePositionalEncoding", "d_model=8, dropout=0.0, max_len=32", [_x("16, 2, 8", "x", "{1: BATCH}")]),
    _r("dp_tst_tok", "dp-tst", DT, "TokenEmbedding", "n_features=3, d_model=8", [SEQ]),
    _r("dp_tranad_pos", "dp-tranad", DTS + ".tranad", "PositionalEncoding", "d_model=6, dropout=0.0, max_len=10", [_x("10, 2, 6", "x", "{1: BATCH}"), ("pos = 0", NONE)]),
    _r("dp_tranad_enc", "dp-tranad", DTS + ".tranad", "TransformerEncoderLayer", "d_model=6, nhead=3", [_x("10, 2, 6", "src", "{1: BATCH}")]),
    _r("dp_tranad_dec", "dp-tranad", DTS + ".tranad", "TransformerDecoderLayer", "d_model=6, nhead=3", [_x("1, 2, 6", "tgt", "{1: BATCH}"), _x("10, 2, 6", "memory", "{1: BATCH}")]),
    _r("dp_antr_attn", "dp-antr", DTS + ".anomalytransformer", "AttentionLayer", "AnomalyAttention(win_size=16, mask_flag=False, output_attention=True, device='cpu'), d_model=8, n_heads=2", [_x("2, 16, 8", "queries"), _x("2, 16, 8", "keys"), _x("2, 16, 8", "values"), ("attn_mask = None", NONE)], ["AnomalyAttention"]),
    _r("dp_antr", "dp-antr", DTS + ".anomalytransformer", "AnomalyTransformerModel", "win_size=16, enc_in=3, c_out=3, d_model=8, n_heads=2, e_layers=1, d_ff=8, device='cpu'", [SEQ]),
    _r("dp_couta", "dp-couta", DTS + ".couta", "COUTANet", "input_dim=3, hidden_dims=8, rep_hidden=8, pretext_hidden=4, n_output=4, dropout=0.0", [SEQ]),
    _r("dp_couta_nodup", "dp-couta", DTS + ".couta", "COUTANet", "input_dim=3, hidden_dims=8, rep_hidden=8, pretext_hidden=4, n_output=4, dropout=0.0, dup=False, pretext=False", [SEQ]),
    _r("dp_timesnet", "dp-timesnet", DTS + ".timesnet", "TimesNetModel", "seq_len=16, pred_len=0, enc_in=3, c_out=3, e_layers=1, d_model=8, d_ff=8, dropout=0.0, top_k=2, num_kernels=2", [SEQ]),
    _r("dp_timesblock", "dp-timesnet", DTS + ".timesnet", "TimesBlock", "seq_len=16, pred_len=0, top_k=2, d_model=8, d_ff=8, num_kernels=2", [_x("2, 16, 8")]),
    _r("dp_goad", "dp-tabular", DTB + ".goad", "GoadNet", "n_input=6, n_hidden=8, n_layers=2, n_output=4", [_x("2, 6, 4")]),
    _r("dp_icl", "dp-tabular", DTB + ".icl", "ICLNet", "n_features=6, kernel_size=2, hidden_dims='8', rep_dim=4", [TAB]),
    _r("dp_neutral", "dp-tabular", DTB + ".neutral", "TabNeutralADNet", "n_features=6, n_trans=3, enc_hidden_dims='8', trans_hidden_dims=8, rep_dim=4, device='cpu'", [TAB]),
    _r("dp_rca", "dp-tabular", DTB + ".rca", "RCANet", "n_features=6, hidden_dims='8', rep_dim=4", [TAB, _x("4, 6", "x2")]),
    _r("dp_prenet", "dp-tabular", DTB + ".prenet", "DualInputNet", "n_features=6, hidden_dims='8', rep_dim=4", [TAB, _x("4, 6", "x2")]),
    _r("dp_feawad", "dp-tabular", DTB + ".feawad", "FeaWadNet", "n_features=6, network='MLP', n_hidden='8,4', n_hidden2='8,4', n_emb=3", [TAB]),
    _r("dp_feawad_seq", "dp-tabular", DTB + ".feawad", "FeaWadNet", "n_features=3, network='MLP', n_hidden='8,4', n_hidden2='8,4', n_emb=3", [SEQ]),
    _r("dp_dsvdd_loss", "dp-loss", DTB + ".dsvdd", "DSVDDLoss", "c=torch.zeros(4)", [_x("4, 4", "rep")]),
    _r("dp_dsad_loss", "dp-loss", DTB + ".dsad", "DSADLoss", "c=torch.zeros(4)", [_x("4, 4", "rep"), ("semi_targets = torch.tensor([0, 1, -1, 0])", B)]),
    _r("dp_gru_f64", "dp-rnn", DN, "GRUNet", "n_features=3, n_hidden='8', n_output=4", [(f"x = torch.randn(2, 16, 3, {G}, dtype=torch.float64)", B)]),
    _r("dp_mlp_wrong", "dp-mlp", DN, "MLPnet", "n_features=6, n_hidden='8,4', n_output=4", [_x("4, 5")]),
    # ------------------------------------------------------------------ torchfm
    _r("tf_lr", "tf-linear", TM + ".lr", "LogisticRegressionModel", "field_dims=[5, 7, 4]", [IDS]),
    _r("tf_fm", "tf-fm", TM + ".fm", "FactorizationMachineModel", FD, [IDS]),
    _r("tf_ffm", "tf-fm", TM + ".ffm", "FieldAwareFactorizationMachineModel", FD, [IDS]),
    _r("tf_fnn", "tf-deep", TM + ".fnn", "FactorizationSupportedNeuralNetworkModel", f"{FD}, mlp_dims=(8,), dropout=0.0", [IDS]),
    _r("tf_wd", "tf-deep", TM + ".wd", "WideAndDeepModel", f"{FD}, mlp_dims=(8,), dropout=0.0", [IDS]),
    _r("tf_dfm", "tf-deep", TM + ".dfm", "DeepFactorizationMachineModel", f"{FD}, mlp_dims=(8,), dropout=0.0", [IDS]),
    _r("tf_nfm", "tf-deep", TM + ".nfm", "NeuralFactorizationMachineModel", f"{FD}, mlp_dims=(8,), dropouts=(0.0, 0.0)", [IDS]),
    _r("tf_fnfm", "tf-deep", TM + ".fnfm", "FieldAwareNeuralFactorizationMachineModel", f"{FD}, mlp_dims=(8,), dropouts=(0.0, 0.0)", [IDS]),
    _r("tf_ipnn", "tf-pnn", TM + ".pnn", "ProductNeuralNetworkModel", f"{FD}, mlp_dims=(8,), dropout=0.0", [IDS]),
    _r("tf_opnn", "tf-pnn", TM + ".pnn", "ProductNeuralNetworkModel", f"{FD}, mlp_dims=(8,), dropout=0.0, method='outer'", [IDS]),
    _r("tf_dcn", "tf-cross", TM + ".dcn", "DeepCrossNetworkModel", f"{FD}, num_layers=2, mlp_dims=(8,), dropout=0.0", [IDS]),
    _r("tf_xdfm", "tf-cross", TM + ".xdfm", "ExtremeDeepFactorizationMachineModel", f"{FD}, mlp_dims=(8,), dropout=0.0, cross_layer_sizes=(4, 4)", [IDS]),
    _r("tf_xdfm_full", "tf-cross", TM + ".xdfm", "ExtremeDeepFactorizationMachineModel", f"{FD}, mlp_dims=(8,), dropout=0.0, cross_layer_sizes=(4, 4), split_half=False", [IDS]),
    _r("tf_afm", "tf-attn", TM + ".afm", "AttentionalFactorizationMachineModel", f"{FD}, attn_size=4, dropouts=(0.0, 0.0)", [IDS]),
    _r("tf_afi", "tf-attn", TM + ".afi", "AutomaticFeatureInteractionModel", f"{FD}, atten_embed_dim=8, num_heads=2, num_layers=2, mlp_dims=(8,), dropouts=(0.0, 0.0)", [IDS]),
    _r("tf_afn", "tf-attn", TM + ".afn", "AdaptiveFactorizationNetwork", f"{FD}, LNN_dim=4, mlp_dims=(8,), dropouts=(0.0, 0.0, 0.0)", [IDS]),
    _r("tf_ncf", "tf-ncf", TM + ".ncf", "NeuralCollaborativeFiltering", "field_dims=[5, 7], user_field_idx=np.array((0,)), item_field_idx=np.array((1,)), embed_dim=4, mlp_dims=(8,), dropout=0.0", [(f"x = torch.randint(0, 5, (2, 2), {G})", B)], ["import numpy as np"]),
    _r("tf_ncf_int", "tf-ncf", TM + ".ncf", "NeuralCollaborativeFiltering", "field_dims=[5, 7], user_field_idx=0, item_field_idx=1, embed_dim=4, mlp_dims=(8,), dropout=0.0", [(f"x = torch.randint(0, 5, (2, 2), {G})", B)]),
    _r("tf_cin", "tf-cross", "torchfm.layer", "CompressedInteractionNetwork", "input_dim=3, cross_layer_sizes=(4, 4)", [_x("2, 3, 4")]),
    _r("tf_opn", "tf-pnn", "torchfm.layer", "OuterProductNetwork", "num_fields=3, embed_dim=4", [_x("2, 3, 4")]),
    _r("tf_fm_float", "tf-fm", TM + ".fm", "FactorizationMachineModel", FD, [(f"x = torch.rand(2, 3, {G}) * 4", B)]),
    # ------------------------------------------------------------------ cached_conv
    _r("tf_dfm_4f", "tf-deep", TM + ".dfm", "DeepFactorizationMachineModel", f"{FD}, mlp_dims=(8,), dropout=0.0", [(f"x = torch.randint(0, 4, (2, 4), {G})", B)]),
    _r("cc_pad", "cc-pad", CC, "CachedPadding1d", "padding=2", [SIG]),
    _r("cc_pad_crop", "cc-pad", CC, "CachedPadding1d", "padding=2, crop=True", [SIG]),
    _r("cc_conv", "cc-conv", CC, "CachedConv1d", "3, 4, 3, padding=1", [SIG]),
    _r("cc_conv_stride", "cc-conv", CC, "CachedConv1d", "3, 4, 4, stride=2, padding=1", [SIG]),
    _r("cc_convt", "cc-conv", CC, "CachedConvTranspose1d", "3, 4, 4, stride=2, padding=1", [SIG]),
    _r("cc_conv_plain", "cc-conv", CC, "Conv1d", "3, 4, 3, padding=(2, 0)", [SIG]),
    _r("cc_seq", "cc-seq", CC, "CachedSequential", "CachedConv1d(3, 4, 3, padding=1), nn.ReLU(), CachedConv1d(4, 4, 3, padding=1)", [SIG], ["CachedConv1d", *CCI]),
    _r("cc_align", "cc-seq", CC, "AlignBranches", "CachedConv1d(3, 4, 3, padding=1), CachedConv1d(3, 4, 5, padding=2)", [SIG], ["CachedConv1d"]),
    _r("cc_branches", "cc-seq", CC, "Branches", "Conv1d(3, 4, 3, padding=(1, 1)), Conv1d(3, 4, 5, padding=(2, 2))", [SIG], ["Conv1d"]),
    _r("cc_conv_bigbatch", "cc-conv", CC, "CachedConv1d", "3, 4, 3, padding=1", [_x("65, 3, 16")]),
    _r("cc_conv_wrongch", "cc-conv", CC, "CachedConv1d", "3, 4, 3, padding=1", [_x("2, 5, 16")]),
    # ------------------------------------------------------------------ torch-dct
    _r("td_dct", "td-linear", TD, "LinearDCT", "8, 'dct'", [SIG8]),
    _r("td_idct", "td-linear", TD, "LinearDCT", "8, 'idct', norm='ortho'", [SIG8]),
    _r("td_dct1", "td-linear", TD, "LinearDCT", "8, 'dct1'", [SIG8]),
    _r("td_idct1", "td-linear", TD, "LinearDCT", "8, 'idct1'", [SIG8]),
    _r("td_dct_f64", "td-linear", TD, "LinearDCT", "8, 'dct'", [(f"x = torch.randn(2, 8, {G}, dtype=torch.float64)", B)]),
]
# fmt: on
