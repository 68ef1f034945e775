"""The recipes of scripts/triage_sweep_zoo21.py: tiny-config geffnet, a-unet,
pytorch-pretrained-vit, torchbnn and alias-free-torch models (random weights, nothing downloaded: every
model is built with `pretrained=False` or from its layers) and the arguments a user
passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo20_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. geffnet's networks
take a (batch, 3, 32, 32) image, a-unet's blocks a (batch, channels, length) signal or a
(batch, tokens, features) sequence, pytorch-pretrained-vit's a (batch, 3, 32, 32) image
or a (batch, tokens, features) sequence, torchbnn's layers a feature batch or an image,
alias-free-torch's a (batch, channels, time) signal or an image."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ geffnet
GE = "geffnet"
GL = "geffnet.conv2d_layers"
IMG = _x("2, 3, 32, 32")
NC = "pretrained=False, num_classes=10"
EXPORTABLE = ["from geffnet.config import set_exportable", "_ = set_exportable(True)"]
NOJIT = ["from geffnet.config import set_no_jit", "_ = set_no_jit(True)"]
# ------------------------------------------------------------------ a-unet
AU = "a_unet"
AX = "a_unet.apex"
SIG = _x("2, 4, 16")  # (batch, channels, length)
SEQ = _x("2, 6, 8")  # (batch, tokens, features)
XUNET = (
    "dim=1, in_channels=4, blocks=[XBlock(channels=8, factor=2, items=[ResnetItem]), "
    "XBlock(channels=16, factor=2, items=[ResnetItem])], resnet_groups=4"
)
XUNET_A = (
    "dim=1, in_channels=4, blocks=[XBlock(channels=8, factor=2, items=[ResnetItem, "
    "AttentionItem])], resnet_groups=4, attention_features=8, attention_heads=2"
)
XUNET_M = (
    "dim=1, in_channels=4, blocks=[XBlock(channels=8, factor=2, items=[ResnetItem, "
    "ModulationItem])], resnet_groups=4, modulation_features=6"
)
XU = ["XBlock", "ResnetItem"]
# ------------------------------------------------------------------ pytorch-pretrained-vit
PV = "pytorch_pretrained_vit"
PT = "pytorch_pretrained_vit.transformer"
TOK = _x("2, 5, 16")  # (batch, tokens, dim)
MASK = ("mask = torch.ones(2, 5)", B)
# ------------------------------------------------------------------ torchbnn
BN = "torchbnn"
F8 = _x("4, 8")
PRIOR = "prior_mu=0.0, prior_sigma=0.1"

# ------------------------------------------------------------------ alias-free-torch
AF = "alias_free_torch"
S1 = _x("2, 4, 32")  # (batch, channels, time)
S2 = _x("2, 4, 16, 16")  # (batch, channels, height, width)

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ geffnet
    _r("ge_effb0", "ge-efficientnet", GE, "efficientnet_b0", NC, [IMG]),
    _r("ge_tf_effb0", "ge-efficientnet", GE, "tf_efficientnet_b0", NC, [IMG]),
    _r("ge_tf_effb0_exp", "ge-efficientnet", GE, "tf_efficientnet_b0", NC, [IMG], EXPORTABLE),
    _r("ge_lite0", "ge-efficientnet", GE, "efficientnet_lite0", NC, [IMG]),
    _r("ge_es", "ge-efficientnet", GE, "efficientnet_es", NC, [IMG]),
    _r("ge_cc", "ge-efficientnet", GE, "efficientnet_cc_b0_4e", NC, [IMG]),
    _r("ge_effb0_nojit", "ge-efficientnet", GE, "efficientnet_b0", NC, [IMG], NOJIT),
    _r("ge_effb0_rank", "ge-efficientnet", GE, "efficientnet_b0", NC, [_x("3, 32, 32")]),
    _r("ge_mixnet_s", "ge-mixnet", GE, "mixnet_s", NC, [IMG]),
    _r("ge_tf_mixnet_s", "ge-mixnet", GE, "tf_mixnet_s", NC, [IMG]),
    _r("ge_mbv3_small", "ge-mobilenet", GE, "mobilenetv3_small_075", NC, [IMG]),
    _r("ge_tf_mbv3_small", "ge-mobilenet", GE, "tf_mobilenetv3_small_075", NC, [IMG]),
    _r("ge_mbv3_rw", "ge-mobilenet", GE, "mobilenetv3_rw", NC, [IMG]),
    _r("ge_mbv2", "ge-mobilenet", GE, "mobilenetv2_100", NC, [IMG]),
    _r("ge_mnasnet", "ge-nas", GE, "mnasnet_050", NC, [IMG]),
    _r("ge_spnasnet", "ge-nas", GE, "spnasnet_100", NC, [IMG]),
    _r("ge_fbnetc", "ge-nas", GE, "fbnetc_100", NC, [IMG]),
    _r("ge_create", "ge-nas", GE, "create_model", "'mnasnet_small', pretrained=False, num_classes=10, in_chans=1", [_x("2, 1, 32, 32")]),
    _r("ge_cond_conv", "ge-layers", GL, "CondConv2d", "8, 8, 3, num_experts=4", [_x("2, 8, 8, 8"), _x("2, 4", "routing")]),
    _r("ge_cond_conv_same", "ge-layers", GL, "CondConv2d", "8, 8, 3, stride=2, padding='same', num_experts=4", [_x("2, 8, 8, 8"), _x("2, 4", "routing")]),
    _r("ge_mixed_conv", "ge-layers", GL, "MixedConv2d", "8, 8, kernel_size=[3, 5]", [_x("2, 8, 8, 8")]),
    _r("ge_conv_same", "ge-layers", GL, "Conv2dSame", "4, 8, 3, stride=2", [_x("2, 4, 9, 9")]),
    _r("ge_conv_same_exp", "ge-layers", GL, "Conv2dSameExport", "4, 8, 3, stride=2", [_x("2, 4, 9, 9")]),
    _r("ge_se", "ge-layers", "geffnet.efficientnet_builder", "SqueezeExcite", "8, se_ratio=0.25", [_x("2, 8, 4, 4")]),
    _r("ge_cond_conv_wrong", "ge-layers", GL, "CondConv2d", "8, 8, 3, num_experts=4", [_x("2, 8, 8, 8"), _x("2, 3", "routing")]),
    # ------------------------------------------------------------------ a-unet
    _r("au_xunet", "au-xunet", AX, "XUNet", XUNET, [SIG], XU),
    _r("au_xunet_attn", "au-xunet", AX, "XUNet", XUNET_A, [SIG], XU + ["AttentionItem"]),
    _r("au_xunet_2d", "au-xunet", AX, "XUNet", XUNET.replace("dim=1", "dim=2"), [_x("2, 4, 8, 8")], XU),
    _r("au_time_unet", "au-plugin", AU, "TimeConditioningPlugin", "XUNet)(" + XUNET_M, [SIG, ("time = torch.rand(2, generator=g)", B)], ["from a_unet.apex import XUNet, XBlock, ResnetItem, ModulationItem"]),
    _r("au_cfg_unet", "au-plugin", AU, "ClassifierFreeGuidancePlugin", "XUNet, embedding_max_length=4)(" + XUNET.replace("resnet_groups=4", "resnet_groups=4, embedding_features=8").replace("items=[ResnetItem]), XBlock", "items=[ResnetItem, CrossAttentionItem]), XBlock") + ", attention_features=8, attention_heads=2", [SIG, _x("2, 4, 8", "embedding")], ["from a_unet.apex import XUNet, XBlock, ResnetItem, CrossAttentionItem"]),
    _r("au_block", "au-xunet", AX, "Block", "in_channels=4, channels=8, dim=1, factor=2, items=[ResnetItem], resnet_groups=4", [SIG], ["ResnetItem"]),
    _r("au_attention", "au-attention", AU, "Attention", "8, head_features=4, num_heads=2", [SEQ]),
    _r("au_cross_attention", "au-attention", AU, "CrossAttention", "context_features=6, features=8, head_features=4, num_heads=2", [SEQ, _x("2, 3, 6", "context")]),
    _r("au_attention_pos", "au-attention", AU, "Attention", "8, head_features=4, num_heads=2, max_length=8, positional_embedding_t=FixedEmbedding", [SEQ], ["FixedEmbedding"]),
    _r("au_linear_attention", "au-attention", AU, "LinearAttentionBase", "8, head_features=4, num_heads=2", [SEQ, _x("2, 6, 8", "k"), _x("2, 6, 8", "v")]),
    _r("au_fixed_emb", "au-attention", AU, "FixedEmbedding", "max_length=8, features=4", [SEQ]),
    _r("au_attention_wrong", "au-attention", AU, "Attention", "8, head_features=4, num_heads=2", [_x("2, 6, 6")]),
    _r("au_resnet", "au-blocks", AU, "ResnetBlock", "dim=1, in_channels=4, out_channels=8", [SIG]),
    _r("au_convnext", "au-blocks", AU, "ConvNextV2Block", "dim=1, channels=4", [SIG]),
    _r("au_grn", "au-blocks", AU, "GRN", "dim=2, channels=4", [_x("2, 4, 5, 5")]),
    _r("au_feedforward", "au-blocks", AU, "FeedForward", "8, 2", [SEQ]),
    _r("au_modulation", "au-blocks", AU, "Modulation", "8, 6", [SEQ, _x("2, 6", "features")]),
    _r("au_merge_cat", "au-blocks", AU, "MergeCat", "dim=1, channels=4", [SIG, _x("2, 4, 16", "y")]),
    _r("au_merge_mod", "au-blocks", AU, "MergeModulate", "dim=1, channels=4, modulation_features=6", [SIG, _x("2, 4, 16", "y"), _x("2, 6", "features")]),
    _r("au_upsample", "au-blocks", AU, "UpsampleInterpolate", "dim=1, factor=2, in_channels=4, out_channels=4", [SIG]),
    _r("au_number_emb", "au-blocks", AU, "NumberEmbedder", "features=8", [("x = torch.rand(4, generator=g)", B)]),
    _r("au_number_emb_list", "au-blocks", AU, "NumberEmbedder", "features=8", [("x = [0.1, 0.5, 0.9]", NONE)]),
    _r("au_modulation_wrong", "au-blocks", AU, "Modulation", "8, 6", [SEQ, _x("2, 5", "features")]),
    # ------------------------------------------------------------------ pytorch-pretrained-vit
    _r("pv_vit_b32", "pv-vit", PV, "ViT", "'B_32', pretrained=False, image_size=32, num_classes=10", [IMG]),
    _r("pv_vit_b16", "pv-vit", PV, "ViT", "'B_16', pretrained=False, image_size=32, num_classes=10, in_channels=1", [_x("2, 1, 32, 32")]),
    _r("pv_vit_wrong_size", "pv-vit", PV, "ViT", "'B_32', pretrained=False, image_size=32, num_classes=10", [_x("2, 3, 64, 64")]),
    _r("pv_transformer", "pv-transformer", PT, "Transformer", "num_layers=2, dim=16, num_heads=2, ff_dim=32, dropout=0.0", [TOK]),
    _r("pv_transformer_mask", "pv-transformer", PT, "Transformer", "num_layers=2, dim=16, num_heads=2, ff_dim=32, dropout=0.0", [TOK, MASK]),
    _r("pv_block", "pv-transformer", PT, "Block", "16, 2, 32, 0.0", [TOK, MASK]),
    _r("pv_block_nomask", "pv-transformer", PT, "Block", "16, 2, 32, 0.0", [TOK, ("mask = None", NONE)]),
    _r("pv_mhsa", "pv-transformer", PT, "MultiHeadedSelfAttention", "16, 2, 0.0", [TOK, MASK]),
    _r("pv_mhsa_bool_mask", "pv-transformer", PT, "MultiHeadedSelfAttention", "16, 2, 0.0", [TOK, ("mask = torch.ones(2, 5, dtype=torch.bool)", B)]),
    _r("pv_ffn", "pv-transformer", PT, "PositionWiseFeedForward", "16, 32", [TOK]),
    _r("pv_posemb", "pv-transformer", "pytorch_pretrained_vit.model", "PositionalEmbedding1D", "5, 16", [TOK]),
    _r("pv_mhsa_wrong", "pv-transformer", PT, "MultiHeadedSelfAttention", "16, 2, 0.0", [_x("2, 5, 12"), MASK]),
    # ------------------------------------------------------------------ torchbnn
    _r("bn_linear", "bn-layers", BN, "BayesLinear", f"{PRIOR}, in_features=8, out_features=4", [F8]),
    _r("bn_linear_nobias", "bn-layers", BN, "BayesLinear", f"{PRIOR}, in_features=8, out_features=4, bias=False", [F8]),
    _r("bn_conv", "bn-layers", BN, "BayesConv2d", f"{PRIOR}, in_channels=3, out_channels=8, kernel_size=3, padding=1", [_x("2, 3, 8, 8")]),
    _r("bn_conv_nobias", "bn-layers", BN, "BayesConv2d", f"{PRIOR}, in_channels=3, out_channels=8, kernel_size=3, bias=False", [_x("2, 3, 8, 8")]),
    _r("bn_bn", "bn-layers", BN, "BayesBatchNorm2d", f"{PRIOR}, num_features=8", [_x("2, 8, 4, 4")]),
    _r("bn_kl", "bn-loss", BN, "BKLLoss", "reduction='mean', last_layer_only=False", [("model = BayesLinear(0.0, 0.1, 4, 2)", NONE)], ["BayesLinear"]),
    _r("bn_linear_wrong", "bn-layers", BN, "BayesLinear", f"{PRIOR}, in_features=8, out_features=4", [_x("4, 6")]),
    # ------------------------------------------------------------------ alias-free-torch
    _r("af_act1d", "af-activation", AF, "Activation1d", "torch.nn.SiLU()", [S1]),
    _r("af_act1d_ratio", "af-activation", AF, "Activation1d", "torch.nn.GELU(), up_ratio=4, down_ratio=4, up_kernel_size=16, down_kernel_size=16", [S1]),
    _r("af_act2d", "af-activation", AF, "Activation2d", "torch.nn.SiLU()", [S2]),
    _r("af_up1d", "af-resample", AF, "UpSample1d", "2", [S1]),
    _r("af_down1d", "af-resample", AF, "DownSample1d", "2", [S1]),
    _r("af_up2d", "af-resample", AF, "UpSample2d", "2", [S2]),
    _r("af_down2d", "af-resample", AF, "DownSample2d", "2", [S2]),
    _r("af_lpf1d", "af-filter", AF, "LowPassFilter1d", "cutoff=0.25, half_width=0.3, stride=1, kernel_size=12", [S1]),
    _r("af_lpf2d", "af-filter", AF, "LowPassFilter2d", "cutoff=0.25, half_width=0.3, stride=2, padding_mode='reflect', kernel_size=12", [S2]),
    _r("af_act2d_rank", "af-activation", AF, "Activation2d", "torch.nn.SiLU()", [S1]),
]
# fmt: on
