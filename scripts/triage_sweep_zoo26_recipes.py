"""The recipes of scripts/triage_sweep_zoo26.py: tiny-config fightingcv-attention, auto-esn
and akita-torch models (random weights, nothing downloaded: every model is built from its
classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo25_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. fightingcv-attention's
attention / MLP / convolution blocks take a feature map (batch, channels, h, w), a token
sequence (batch, tokens, d_model) or queries / keys / values; auto-esn's echo state
networks a series (time, features) or a batch of series (batch, time, features); akita-torch's
Hi-C layers a one-hot DNA sequence (batch, length, 4), a 1-d map (batch, channels, length)
or a 2-d contact map (batch, channels, s, s)."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ fightingcv-attention
FA = "fightingcv_attention.attention"
FM = "fightingcv_attention.mlp"
FC = "fightingcv_attention.conv"
FR = "fightingcv_attention.rep"
IMG = _x("2, 16, 7, 7")
IMG8 = _x("2, 8, 8, 8")
TOK = _x("2, 7, 16")
QKV = [_x("2, 7, 16", "queries"), _x("2, 7, 16", "keys"), _x("2, 7, 16", "values")]
ATT = "d_model=16, d_k=8, d_v=8, h=2, dropout=0.0"
# ------------------------------------------------------------------ auto-esn
AE = "auto_esn.esn"
ACT = ["from auto_esn.esn.reservoir import activation as A"]
SER = (f"x = torch.randn(16, 2, {G})", False)  # one series (time, features): no batch
SERB = _x("2, 16, 2")
# ------------------------------------------------------------------ akita-torch
AK = "akita_torch.nn"
M1 = _x("2, 8, 32")
M2 = _x("2, 8, 6, 6")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ fightingcv-attention
    _r("fa_sdpa", "fa-seq", FA + ".SelfAttention", "ScaledDotProductAttention", ATT, QKV),
    _r("fa_sdpa_mask", "fa-seq", FA + ".SelfAttention", "ScaledDotProductAttention", ATT, [*QKV, ("attention_mask = torch.zeros(2, 2, 7, 7, dtype=torch.bool)", B)]),
    _r("fa_sdpa_none", "fa-seq", FA + ".SelfAttention", "ScaledDotProductAttention", ATT, [*QKV, ("attention_mask = None", NONE), (f"attention_weights = torch.rand(2, 2, 7, 7, {G})", B)]),
    _r("fa_simp", "fa-seq", FA + ".SimplifiedSelfAttention", "SimplifiedScaledDotProductAttention", "d_model=16, h=2, dropout=0.0", QKV),
    _r("fa_emsa", "fa-seq", FA + ".EMSA", "EMSA", "d_model=16, d_k=8, d_v=8, h=2, dropout=0.0, H=4, W=4, ratio=2", [_x("2, 16, 16", "queries"), _x("2, 16, 16", "keys"), _x("2, 16, 16", "values")]),
    _r("fa_muse", "fa-seq", FA + ".MUSEAttention", "MUSEAttention", ATT, QKV),
    _r("fa_ufo", "fa-seq", FA + ".UFOAttention", "UFOAttention", ATT, QKV),
    _r("fa_ext", "fa-seq", FA + ".ExternalAttention", "ExternalAttention", "d_model=16, S=8", [_x("2, 7, 16", "queries")]),
    _r("fa_aft", "fa-seq", FA + ".AFT", "AFT_FULL", "d_model=16, n=7", [TOK]),
    _r("fa_mvit2", "fa-seq", FA + ".MobileViTv2Attention", "MobileViTv2Attention", "d_model=16", [TOK]),
    _r("fa_se", "fa-chan", FA + ".SEAttention", "SEAttention", "channel=16, reduction=4", [IMG]),
    _r("fa_sk", "fa-chan", FA + ".SKAttention", "SKAttention", "channel=16, reduction=4, L=8", [IMG]),
    _r("fa_cbam", "fa-chan", FA + ".CBAM", "CBAMBlock", "channel=16, reduction=4, kernel_size=7", [IMG]),
    _r("fa_bam", "fa-chan", FA + ".BAM", "BAMBlock", "channel=16, reduction=4, dia_val=2", [IMG]),
    _r("fa_eca", "fa-chan", FA + ".ECAAttention", "ECAAttention", "kernel_size=3", [IMG]),
    _r("fa_danet", "fa-spatial", FA + ".DANet", "DAModule", "d_model=512, kernel_size=3, H=7, W=7", [_x("2, 512, 7, 7")]),
    _r("fa_psa", "fa-chan", FA + ".PSA", "PSA", "channel=16, reduction=4, S=4", [IMG]),
    _r("fa_pps", "fa-spatial", FA + ".PolarizedSelfAttention", "ParallelPolarizedSelfAttention", "channel=16", [IMG]),
    _r("fa_sps", "fa-spatial", FA + ".PolarizedSelfAttention", "SequentialPolarizedSelfAttention", "channel=16", [IMG]),
    _r("fa_cot", "fa-spatial", FA + ".CoTAttention", "CoTAttention", "dim=16, kernel_size=3", [IMG]),
    _r("fa_res", "fa-chan", FA + ".ResidualAttention", "ResidualAttention", "channel=16, num_class=5, la=0.2", [IMG]),
    _r("fa_shuffle", "fa-chan", FA + ".ShuffleAttention", "ShuffleAttention", "channel=16, reduction=4, G=2", [IMG]),
    _r("fa_simam", "fa-chan", FA + ".SimAM", "SimAM", "", [IMG]),
    _r("fa_sge", "fa-chan", FA + ".SGE", "SpatialGroupEnhance", "groups=4", [IMG]),
    _r("fa_a2", "fa-spatial", FA + ".A2Atttention", "DoubleAttention", "16, 8, 8", [IMG]),
    _r("fa_coord", "fa-spatial", FA + ".CoordAttention", "CoordAtt", "16, 16, reduction=4", [IMG]),
    _r("fa_triplet", "fa-spatial", FA + ".TripletAttention", "TripletAttention", "", [IMG]),
    _r("fa_outlook", "fa-spatial", FA + ".OutlookAttention", "OutlookAttention", "dim=16, attn_drop=0.0", [_x("2, 6, 6, 16")]),
    _r("fa_vip", "fa-spatial", FA + ".ViP", "WeightedPermuteMLP", "dim=16, seg_dim=8", [_x("2, 8, 8, 16")]),
    _r("fa_cc", "fa-spatial", FA + ".CrissCrossAttention", "CrissCrossAttention", "16", [IMG]),
    _r("fa_halo", "fa-spatial", FA + ".HaloAttention", "HaloAttention", "dim=16, block_size=2, halo_size=1, dim_head=8, heads=2", [_x("2, 16, 8, 8")]),
    _r("fa_acmix", "fa-spatial", FA + ".ACmixAttention", "ACmix", "16, 16", [_x("2, 16, 8, 8")]),
    _r("fa_parnet", "fa-chan", FA + ".ParNetAttention", "ParNetAttention", "channel=16", [IMG]),
    _r("fa_mvit", "fa-spatial", FA + ".MobileViTAttention", "MobileViTAttention", "in_channel=3, dim=16, kernel_size=3, patch_size=2", [_x("2, 3, 8, 8")]),
    _r("fa_axial", "fa-spatial", FA + ".Axial_attention", "AxialAttention", "dim=16, dim_index=1, heads=2", [_x("2, 16, 4, 4")]),
    _r("fa_axial_img", "fa-spatial", FA + ".Axial_attention", "AxialImageTransformer", "dim=16, depth=1, heads=2, reversible=False", [_x("2, 16, 4, 4")]),
    _r("fa_gmlp", "fa-mlp", FM + ".g_mlp", "gMLP", "num_tokens=10, len_sen=7, dim=16, d_ff=32, num_layers=1", [(f"x = torch.randint(0, 10, (2, 7), {G})", B)]),
    _r("fa_mixer", "fa-mlp", FM + ".mlp_mixer", "MlpMixer", "num_classes=5, num_blocks=1, patch_size=4, tokens_hidden_dim=8, channels_hidden_dim=8, tokens_mlp_dim=4, channels_mlp_dim=16", [_x("2, 3, 8, 8")]),
    _r("fa_resmlp", "fa-mlp", FM + ".resmlp", "ResMLP", "dim=16, image_size=8, patch_size=4, depth=1, class_num=5", [_x("2, 3, 8, 8")]),
    _r("fa_smlp", "fa-mlp", FM + ".sMLP_block", "sMLPBlock", "h=8, w=8, c=16", [_x("2, 16, 8, 8")]),
    _r("fa_repmlp", "fa-mlp", FM + ".repmlp", "RepMLP", "C=8, O=8, H=8, W=8, h=4, w=4, fc3_groups=2, repconv_kernels=[1, 3]", [IMG8]),
    _r("fa_condconv", "fa-conv", FC + ".CondConv", "CondConv", "in_planes=8, out_planes=8, kernel_size=3, stride=1, padding=1, K=2", [IMG8]),
    _r("fa_dynconv", "fa-conv", FC + ".DynamicConv", "DynamicConv", "in_planes=8, out_planes=8, kernel_size=3, stride=1, padding=1, K=2", [IMG8]),
    _r("fa_dsconv", "fa-conv", FC + ".DepthwiseSeparableConvolution", "DepthwiseSeparableConvolution", "8, 16", [IMG8]),
    _r("fa_invol", "fa-conv", FC + ".Involution", "Involution", "kernel_size=3, in_channel=8, stride=1, group=2, ratio=2", [IMG8]),
    _r("fa_mbconv", "fa-conv", FC + ".MBConv", "MBConvBlock", "ksize=3, input_filters=8, output_filters=8, image_size=8", [IMG8]),
    _r("fa_acnet", "fa-conv", FR + ".acnet", "ACNet", "8, 8", [IMG8]),
    _r("fa_repvgg", "fa-conv", FR + ".repvgg", "RepBlock", "8, 8", [IMG8]),
    _r("fa_se_wrongch", "fa-chan", FA + ".SEAttention", "SEAttention", "channel=16, reduction=4", [_x("2, 8, 7, 7")]),
    _r("fa_sdpa_f64", "fa-seq", FA + ".SelfAttention", "ScaledDotProductAttention", ATT, [(f"queries = torch.randn(2, 7, 16, {G}, dtype=torch.float64)", B), QKV[1], QKV[2]]),
    # ------------------------------------------------------------------ auto-esn
    _r("ae_cell", "ae-cell", AE + ".reservoir.cell", "ESNCell", "2, 8", [SER]),
    _r("ae_cell_relu", "ae-cell", AE + ".reservoir.cell", "ESNCell", "2, 8, activation=A.relu(leaky_rate=0.5)", [SER], ACT),
    _r("ae_deepcell", "ae-cell", AE + ".reservoir.cell", "DeepESNCell", "2, 8, num_layers=2, activation=A.tanh()", [SER], ACT),
    _r("ae_groupcell", "ae-cell", AE + ".reservoir.cell", "GroupOfESNCell", "2, 8, 2", [SER]),
    _r("ae_multi", "ae-cell", AE + ".reservoir.multi_time_series", "MultiTimeSeriesHandler", "ESNCell(2, 8)", [SERB], ["from auto_esn.esn.reservoir.cell import ESNCell"]),
    _r("ae_act", "ae-act", AE + ".reservoir.activation", "Activation", "activation_function=torch.tanh, leaky_rate=0.5", [_x("2, 8", "pre_activation"), _x("2, 8", "prev_state")]),
    _r("ae_act_selfnorm", "ae-act", AE + ".reservoir.activation", "Activation", "activation_function=SelfNorm(10.0), leaky_rate=0.9", [_x("2, 8", "pre_activation"), _x("2, 8", "prev_state")], ["SelfNorm"]),
    _r("ae_readout", "ae-readout", AE + ".readout.nn_readout", "AutoNNReadout", "input_dim=8, output_dim=1", [_x("4, 8", "input")]),
    _r("ae_readout_bin", "ae-readout", AE + ".readout.nn_readout", "AutoNNReadout", "input_dim=8, output_dim=1, mode=ReadoutMode.BinaryClassification", [_x("4, 8", "input")], ["ReadoutMode"]),
    _r("ae_svd", "ae-readout", AE + ".readout.svr_readout", "SVDReadout", "16, 1", [_x("4, 16", "input")]),
    _r("ae_deep", "ae-esn", AE + ".esn", "DeepESN", "input_size=2, hidden_size=8, output_dim=1", [SER]),
    _r("ae_deep_batch", "ae-esn", AE + ".esn", "DeepESN", "input_size=2, hidden_size=8, output_dim=1", [SERB]),
    _r("ae_group", "ae-esn", AE + ".esn", "GroupOfESN", "input_size=2, hidden_size=8, output_dim=1, groups=2", [SER]),
    _r("ae_gdeep", "ae-esn", AE + ".esn", "GroupedDeepESN", "input_size=2, hidden_size=8, output_dim=1, groups=2, num_layers=(1, 1)", [SER]),
    _r("ae_flex", "ae-esn", AE + ".esn", "FlexDeepESN", "readout=AutoNNReadout(16, 1), input_size=2, hidden_size=8", [SER], ["from auto_esn.esn.readout.nn_readout import AutoNNReadout"]),
    _r("ae_deep_rank4", "ae-esn", AE + ".esn", "DeepESN", "input_size=2, hidden_size=8, output_dim=1", [_x("2, 2, 16, 2")]),
    _r("ae_cell_f64", "ae-cell", AE + ".reservoir.cell", "ESNCell", "2, 8", [(f"x = torch.randn(16, 2, {G}, dtype=torch.float64)", False)]),
    # ------------------------------------------------------------------ akita-torch
    _r("ak_block1d", "ak-1d", AK + ".block", "AkitaConvBlock1D", "in_dim=4, out_dim=8, kernel_size=5, pool_size=2, norm_type='batch'", [_x("2, 4, 32")]),
    _r("ak_block1d_sep", "ak-1d", AK + ".block", "AkitaConvBlock1D", "in_dim=4, out_dim=8, kernel_size=5, conv_type='separable', pool_size=2, pool_type='softmax'", [_x("2, 4, 32")]),
    _r("ak_tower", "ak-1d", AK + ".block", "AkitaConvTower1D", "8, out_dim_init=8, out_dim_mult=1, kernel_size=3, pool_size=2, repeat=2, norm_type='batch'", [M1]),
    _r("ak_dres1d", "ak-1d", AK + ".block", "AkitaDialatedResidualBlock1D", "in_dim=8, mid_dim=4, rate_mult=1.75, repeat=2, norm_type='batch'", [M1]),
    _r("ak_block2d", "ak-2d", AK + ".block", "AkitaConvBlock2D", "in_dim=8, out_dim=8, kernel_size=3, symmetric=True, norm_type='batch'", [M2]),
    _r("ak_dres2d", "ak-2d", AK + ".block", "AkitaDialatedResidualBlock2D", "in_dim=8, mid_dim=4, kernel_size=3, rate_mult=1.75, repeat=2, norm_type='batch'", [M2]),
    _r("ak_onetwo", "ak-2d", AK + ".module", "OneToTwo", "operation='mean'", [_x("2, 8, 6")]),
    _r("ak_onetwo_max", "ak-2d", AK + ".module", "OneToTwo", "operation='max'", [_x("2, 8, 6")]),
    _r("ak_onetwo_cat", "ak-2d", AK + ".module", "OneToTwo", "operation='concat'", [_x("2, 8, 6")]),
    _r("ak_dist", "ak-2d", AK + ".module", "ConcatDist2D", "", [M2]),
    _r("ak_crop", "ak-head", AK + ".module", "Cropping2D", "1", [M2]),
    _r("ak_uppertri", "ak-head", AK + ".module", "UpperTri", "diagonal_offset=2", [M2]),
    _r("ak_ffn", "ak-head", AK + ".module", "FFNForUpperTri", "8, 3", [_x("2, 8, 10")]),
    _r("ak_ffn_relu", "ak-head", AK + ".module", "FFNForUpperTri", "8, 3, activation='relu'", [_x("2, 8, 10")]),
    _r("ak_switch", "ak-head", AK + ".module", "SwitchReverseTriu", "diagonal_offset=2", [_x("2, 10, 3"), ("reverse = True", NONE)]),
    _r("ak_switch_false", "ak-head", AK + ".module", "SwitchReverseTriu", "diagonal_offset=2", [_x("2, 10, 3"), ("reverse = False", NONE)]),
    _r("ak_rc", "ak-aug", AK + ".module", "StochasticReverseComplement", "", [_x("2, 32, 4")]),
    _r("ak_shift", "ak-aug", AK + ".module", "StochasticShift", "shift_max=3", [_x("2, 32, 4")]),
    _r("ak_onehot", "ak-aug", AK + ".module", "OneHot2Indices", "", [_x("2, 32, 4")]),
    _r("ak_full", "ak-model", "akita_torch.model", "Akita", "AkitaConfig(target_crop=2)", [_x("2, 16384, 4")], ["AkitaConfig"]),
    _r("ak_block1d_wrongch", "ak-1d", AK + ".block", "AkitaConvBlock1D", "in_dim=4, out_dim=8, kernel_size=5, pool_size=2, norm_type='batch'", [_x("2, 32, 4")]),
]
# fmt: on
