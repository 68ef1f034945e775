"""The recipes of scripts/triage_sweep_zoo27.py: tiny-config dnc, ttach, torchdistill and
torchlayers models (random weights, nothing downloaded: every model is built from its
classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo26_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. dnc's differentiable
neural computer takes a batch of sequences (batch, time, features), optionally its hidden
state tuple and flags; ttach's test-time-augmentation wrappers take an image batch
(batch, 3, h, w) around a small conv model; torchdistill's CIFAR classifiers and
distillation heads take images or feature maps; torchlayers' shape-inferring layers take
a feature map (batch, channels, h, w) or a sequence map (batch, channels, length)."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ dnc
DN = "dnc"
SEQ = _x("2, 5, 8", "input")
DNC = "input_size=8, hidden_size=16, nr_cells=5, cell_size=4, read_heads=2"
# ------------------------------------------------------------------ ttach
TT = "ttach"
SEG = "torch.nn.Conv2d(3, 2, 3, padding=1)"
CLS = "torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 5))"
KP = "torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(192, 8), torch.nn.Unflatten(1, (4, 2)))"
IMG3 = _x("2, 3, 8, 8", "image")
ALI = ["from ttach import aliases"]
# ------------------------------------------------------------------ torchdistill
TD = "torchdistill.models"
TDC = TD + ".classification"
CIF = _x("2, 3, 32, 32")
FM8 = _x("2, 8, 8, 8")
# ------------------------------------------------------------------ torchlayers
TL = "torchlayers"
IMG = _x("2, 4, 8, 8")
M1 = _x("2, 4, 16")
NN = ["import torch.nn as nn"]

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ dnc
    _r("dn_dnc", "dn-dnc", DN, "DNC", DNC, [SEQ]),
    _r("dn_gru", "dn-dnc", DN, "DNC", DNC + ", rnn_type='gru'", [SEQ]),
    _r("dn_rnn", "dn-dnc", DN, "DNC", DNC + ", rnn_type='rnn'", [SEQ]),
    _r("dn_layers", "dn-dnc", DN, "DNC", DNC + ", num_layers=2", [SEQ]),
    _r("dn_indep", "dn-dnc", DN, "DNC", DNC + ", independent_linears=True", [SEQ]),
    _r("dn_noshare", "dn-dnc", DN, "DNC", DNC + ", num_layers=2, share_memory=False", [SEQ]),
    _r("dn_hidden1", "dn-dnc", DN, "DNC", DNC + ", num_hidden_layers=1", [SEQ]),
    _r("dn_timefirst", "dn-dnc", DN, "DNC", DNC + ", batch_first=False", [_x("5, 2, 8", "input", "{1: BATCH}")]),
    _r("dn_debug", "dn-dnc", DN, "DNC", DNC + ", debug=True", [SEQ]),
    _r("dn_reset", "dn-dnc", DN, "DNC", DNC, [SEQ, ("hx = (None, None, None)", NONE), ("reset_experience = True", NONE)]),
    _r("dn_nopass", "dn-dnc", DN, "DNC", DNC, [SEQ, ("hx = (None, None, None)", NONE), ("reset_experience = False", NONE), ("pass_through_memory = False", NONE)]),
    _r("dn_clip0", "dn-dnc", DN, "DNC", DNC + ", clip=0", [SEQ]),
    _r("dn_mem", "dn-mem", DN + ".memory", "Memory", "input_size=16, mem_size=5, cell_size=4, read_heads=2", [_x("2, 16", "xi"), ("hidden = Memory(16, mem_size=5, cell_size=4, read_heads=2).reset(2)", NONE)]),
    _r("dn_rank2", "dn-dnc", DN, "DNC", DNC, [_x("5, 8", "input")]),
    # ------------------------------------------------------------------ ttach
    _r("tt_seg_flip", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.flip_transform()", [IMG3], ALI),
    _r("tt_seg_d4", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.d4_transform()", [IMG3], ALI),
    _r("tt_seg_gmean", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.hflip_transform(), merge_mode='gmean'", [IMG3], ALI),
    _r("tt_seg_max", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.vlip_transform(), merge_mode='max'", [IMG3], ALI),
    _r("tt_seg_tsharpen", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.flip_transform(), merge_mode='tsharpen'", [IMG3], ALI),
    _r("tt_seg_scale", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.multiscale_transform([1, 2])", [IMG3], ALI),
    _r("tt_seg_mul", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, ttach.Compose([ttach.Multiply([0.9, 1.1])])", [IMG3], ["import ttach"]),
    _r("tt_seg_add", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, ttach.Compose([ttach.Add([0.0, 0.5])])", [IMG3], ["import ttach"]),
    _r("tt_seg_rot", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, ttach.Compose([ttach.Rotate90([0, 90])])", [IMG3], ["import ttach"]),
    _r("tt_cls_flip", "tt-cls", TT, "ClassificationTTAWrapper", f"{CLS}, aliases.flip_transform()", [IMG3], ALI),
    _r("tt_cls_crop", "tt-cls", TT, "ClassificationTTAWrapper", f"{CLS}, aliases.five_crop_transform(6, 6)", [IMG3], ALI),
    _r("tt_cls_ten", "tt-cls", TT, "ClassificationTTAWrapper", f"{CLS}, aliases.ten_crop_transform(6, 6)", [IMG3], ALI),
    _r("tt_cls_min", "tt-cls", TT, "ClassificationTTAWrapper", f"{CLS}, aliases.d4_transform(), merge_mode='min'", [IMG3], ALI),
    _r("tt_cls_sum", "tt-cls", TT, "ClassificationTTAWrapper", f"{CLS}, aliases.hflip_transform(), merge_mode='sum'", [IMG3], ALI),
    _r("tt_kp_flip", "tt-kp", TT, "KeypointsTTAWrapper", f"{KP}, aliases.flip_transform()", [IMG3], ALI),
    _r("tt_kp_scaled", "tt-kp", TT, "KeypointsTTAWrapper", f"{KP}, aliases.hflip_transform(), scaled=True", [IMG3], ALI),
    _r("tt_seg_rank3", "tt-seg", TT, "SegmentationTTAWrapper", f"{SEG}, aliases.flip_transform()", [_x("3, 8, 8", "image")], ALI),
    # ------------------------------------------------------------------ torchdistill
    _r("td_resnet20", "td-cls", TDC + ".resnet", "resnet", "depth=20, num_classes=10, pretrained=False, progress=False", [CIF]),
    _r("td_wrn", "td-cls", TDC + ".wide_resnet", "wide_resnet", "depth=10, k=1, dropout_p=0.3, num_classes=10, pretrained=False, progress=False", [CIF]),
    _r("td_densenet", "td-cls", TDC + ".densenet", "densenet", "growth_rate=4, depth=10, num_init_features=8, bottleneck=True, num_classes=10, pretrained=False, progress=False", [CIF]),
    _r("td_densenet_nb", "td-cls", TDC + ".densenet", "densenet", "growth_rate=4, depth=10, num_init_features=8, bottleneck=False, num_classes=10, pretrained=False, progress=False", [CIF]),
    _r("td_para", "td-wrap", TD + ".wrapper", "Paraphraser4FactorTransfer", "k=0.5, num_input_channels=8", [_x("2, 8, 8, 8", "z")]),
    _r("td_para_nodec", "td-wrap", TD + ".wrapper", "Paraphraser4FactorTransfer", "k=0.5, num_input_channels=8, uses_decoder=False", [_x("2, 8, 8, 8", "z")]),
    _r("td_trans", "td-wrap", TD + ".wrapper", "Translator4FactorTransfer", "8, 4", [FM8]),
    _r("td_vid", "td-wrap", TD + ".wrapper", "Regressor4VID", "8, 8, 16, eps=1e-5, init_pred_var=5.0", [_x("2, 8, 8, 8", "student_feature_map")]),
    _r("td_crdnorm", "td-wrap", TD + ".wrapper", "Normalizer4CRD", "torch.nn.Linear(8, 4)", [_x("2, 8")]),
    _r("td_empty", "td-wrap", TD + ".wrapper", "EmptyModule", "", [FM8]),
    _r("td_convreg", "td-wrap", TD + ".adaptation", "ConvReg", "num_input_channels=8, num_output_channels=4, kernel_size=3, stride=1, padding=1", [FM8]),
    _r("td_resnet_gray", "td-cls", TDC + ".resnet", "resnet", "depth=20, num_classes=10, pretrained=False, progress=False", [_x("2, 1, 32, 32")]),
    # ------------------------------------------------------------------ torchlayers
    _r("tl_conv", "tl-conv", TL, "Conv", "8", [IMG]),
    _r("tl_conv1d", "tl-conv", TL, "Conv", "8, kernel_size=3", [M1]),
    _r("tl_convt", "tl-conv", TL, "ConvTranspose", "8", [IMG]),
    _r("tl_dwconv", "tl-conv", TL, "DepthwiseConv", "8", [IMG]),
    _r("tl_sepconv", "tl-conv", TL, "SeparableConv", "8", [IMG]),
    _r("tl_shuffle", "tl-block", TL, "ChannelShuffle", "2", [IMG]),
    _r("tl_split", "tl-block", TL, "ChannelSplit", "0.5", [IMG]),
    _r("tl_residual", "tl-block", TL, "Residual", "nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())", [IMG], NN),
    _r("tl_poly", "tl-block", TL, "Poly", "nn.Conv2d(4, 4, 3, padding=1), order=2", [IMG], NN),
    _r("tl_mpoly", "tl-block", TL, "MPoly", "nn.Conv2d(4, 4, 3, padding=1), nn.Conv2d(4, 4, 1)", [IMG], NN),
    _r("tl_waypoly", "tl-block", TL, "WayPoly", "nn.Conv2d(4, 4, 3, padding=1), nn.Conv2d(4, 4, 1)", [IMG], NN),
    _r("tl_se", "tl-block", TL, "SqueezeExcitation", "4", [IMG]),
    _r("tl_fire", "tl-block", TL, "Fire", "4, 8", [IMG]),
    _r("tl_irb", "tl-block", TL, "InvertedResidualBottleneck", "4", [IMG]),
    _r("tl_bn", "tl-norm", TL, "BatchNorm", "", [IMG]),
    _r("tl_in", "tl-norm", TL, "InstanceNorm", "", [IMG]),
    _r("tl_gn", "tl-norm", TL, "GroupNorm", "2, 4", [IMG]),
    _r("tl_gmax", "tl-pool", TL, "GlobalMaxPool", "", [IMG]),
    _r("tl_gavg", "tl-pool", TL, "GlobalAvgPool", "", [IMG]),
    _r("tl_maxpool", "tl-pool", TL, "MaxPool", "", [IMG]),
    _r("tl_avgpool", "tl-pool", TL, "AvgPool", "", [IMG]),
    _r("tl_norm", "tl-pre", TL, "Normalize", "torch.tensor([0.5, 0.5, 0.5, 0.5]), torch.tensor([0.2, 0.2, 0.2, 0.2])", [IMG]),
    _r("tl_sdepth", "tl-reg", TL, "StochasticDepth", "nn.Conv2d(4, 4, 3, padding=1)", [IMG], NN),
    _r("tl_dropout", "tl-reg", TL, "Dropout", "", [IMG]),
    _r("tl_noise", "tl-reg", TL, "StandardNormalNoise", "", [IMG]),
    _r("tl_concat", "tl-misc", TL, "Concatenate", "1", [(f"inputs = (torch.randn(2, 4, 8, 8, {G}), torch.randn(2, 4, 8, 8, {G}))", NONE)]),
    _r("tl_reshape", "tl-misc", TL, "Reshape", "4, 64", [IMG]),
    _r("tl_lambda", "tl-misc", TL, "Lambda", "lambda x: x * 2 + 1", [IMG]),
    _r("tl_hsig", "tl-misc", TL, "HardSigmoid", "", [IMG]),
    _r("tl_swish", "tl-misc", TL, "Swish", "", [IMG]),
    _r("tl_hswish", "tl-misc", TL, "HardSwish", "", [IMG]),
    _r("tl_conv_f64", "tl-conv", TL, "Conv", "8", [(f"x = torch.randn(2, 4, 8, 8, {G}, dtype=torch.float64)", B)]),
]
# fmt: on
