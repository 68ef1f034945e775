"""The recipes of scripts/triage_sweep_zoo18.py: tiny-config nnts, dynamic-network-architectures,
skrl, torchgan and pytorchcv models (random weights, nothing downloaded: none of the five
libraries fetches weights or data unless asked for pretrained weights, which no recipe
does) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo17_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines. skrl's "classes" are its model instantiators (`deterministic_model(...)`), and
pytorchcv's its model functions (`quartznet5x5_en_ls(...)`), as a user calls them."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ nnts
NT = "nnts.torch.models."
HP = ["Hyperparams"]
X16 = _x("4, 16, 1")  # (batch, time, channels)
X32 = _x("4, 32, 2")
MASK = ("pad_mask = torch.ones(4, 16)", B)
MARK = ("x_mark = torch.randn(4, 16, 4, generator=g)", B)  # hourly time features
LSTM_HP = "params=Hyperparams(optimizer=None, loss_fn=None, input_dim=2, hidden_dim=8, n_layers=1)"
LSTM_X = [
    "from nnts.utils import Hyperparams",
    "from nnts.torch.preprocessing import masked_mean_abs_scaling",
    "from nnts.torch.models.baselstm import LinearModel",
]
LSTM_KW = f"LinearModel, {LSTM_HP}, scaling_fn=masked_mean_abs_scaling, output_dim=1"
# ------------------------------------------------------------------ dynamic-network-architectures
DU = "dynamic_network_architectures.architectures.unet"
DR = "dynamic_network_architectures.architectures.resnet"
DV = "dynamic_network_architectures.architectures.vgg"
DP = "dynamic_network_architectures.architectures.primus"
U2 = (
    "input_channels=1, n_stages=3, features_per_stage=[4, 8, 16], conv_op=torch.nn.Conv2d, "
    "kernel_sizes=3, strides=[1, 2, 2], n_conv_per_stage=2, num_classes=2, "
    "n_conv_per_stage_decoder=2, norm_op=torch.nn.InstanceNorm2d, nonlin=torch.nn.LeakyReLU"
)
U3 = U2.replace("Conv2d", "Conv3d").replace("InstanceNorm2d", "InstanceNorm3d")
U1 = U2.replace("Conv2d", "Conv1d").replace("InstanceNorm2d", "InstanceNorm1d")
R2 = U2.replace("n_conv_per_stage=2", "n_blocks_per_stage=1")
IMG = _x("2, 1, 16, 16")
VOL = _x("1, 1, 8, 8, 8")
PRIMUS = "input_channels=1, embed_dim=48, patch_embed_size=(4, 4, 4), num_classes=2, eva_depth=1, eva_numheads=2, input_shape=(8, 8, 8)"
# ------------------------------------------------------------------ skrl
SK = "skrl.utils.model_instantiators.torch"
GY = ["import gymnasium"]
BOX4 = "observation_space=gymnasium.spaces.Box(-1, 1, (4,))"
ACT2 = "action_space=gymnasium.spaces.Box(-1, 1, (2,))"
NET = "network=[{'name': 'net', 'input': 'OBSERVATIONS', 'layers': [16, 16], 'activations': 'elu'}]"
SKW = f"{BOX4}, {ACT2}, {NET}, output='ACTIONS'"
OBS = (
    "inputs = {'observations': torch.randn(4, 4, generator=g)}",
    "{'observations': {0: BATCH}}",
)
# ------------------------------------------------------------------ torchgan
TM = "torchgan.models"
TL = "torchgan.layers"
GEN = "encoding_dims=16, out_size=16, out_channels=1, step_channels=8"
DIS = "in_size=16, in_channels=1, step_channels=8"
Z = _x("4, 16", "z")
TIMG = _x("4, 1, 16, 16")
LAB = ("y = torch.randint(0, 3, (4,), generator=g)", B)
# ------------------------------------------------------------------ pytorchcv
CV = "pytorchcv.models."
RGB = _x("1, 3, 64, 64")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ nnts
    _r("nt_tsmixer", "nt-mixer", NT + "tsmixer", "TSMixer", "sequence_length=16, prediction_length=4, input_channels=1, params=Hyperparams(ff_dim=8, num_blocks=2)", [X16], HP),
    _r("nt_tsmixer_ln", "nt-mixer", NT + "tsmixer", "TSMixer", "sequence_length=16, prediction_length=4, input_channels=1, params=Hyperparams(ff_dim=8, num_blocks=2, revin=False, norm_type='layer')", [X16], HP),
    _r("nt_tsmixer_wrong", "nt-mixer", NT + "tsmixer", "TSMixer", "sequence_length=16, prediction_length=4, input_channels=1, params=Hyperparams(ff_dim=8, num_blocks=2)", [_x("4, 12, 1")], HP),
    _r("nt_timemixer", "nt-mixer", NT + "timemixer", "TimeMixer", "16, 4, Hyperparams(freq='h', d_model=8, d_ff=8, e_layers=1)", [X16, MARK], HP),
    _r("nt_dlinear", "nt-linear", NT + "dlinear", "DLinear", "h=4, input_size=32, c_in=2, configs=Hyperparams(enc_in=2)", [X32], HP),
    _r("nt_dlinear_shared", "nt-linear", NT + "dlinear", "DLinear", "h=4, input_size=32, c_in=2, configs=Hyperparams(enc_in=2, individual=False)", [X32], HP),
    _r("nt_nlinear", "nt-linear", NT + "nlinear", "NLinear", "h=4, input_size=32, c_in=2, configs=Hyperparams(enc_in=2)", [X32], HP),
    _r("nt_nbeats", "nt-basis", NT + "nbeats", "NBeats", "h=4, input_size=16, configs=Hyperparams(num_stacks=2, layer_size=16)", [X16, ("input_mask = torch.ones(4, 16, 1)", B)], HP),
    _r("nt_nhits", "nt-basis", NT + "nhits", "NHITS", "h=4, input_size=16, configs=Hyperparams()", [X16, MASK], HP),
    _r("nt_tide", "nt-basis", NT + "tide", "TiDE", "h=4, input_size=16, configs=Hyperparams(hidden_size=16, temporal_decoder_dim=8)", [X16, MASK], HP),
    _r("nt_patchtst", "nt-transformer", NT + "patchtst", "PatchTST", "h=4, input_size=32, c_in=2, configs=Hyperparams(n_layers=1, e_layers=1, d_model=16, d_ff=32, patch_len=8, stride=4)", [X32], HP),
    _r("nt_patchtst_dec", "nt-transformer", NT + "patchtst", "PatchTST", "h=4, input_size=32, c_in=2, configs=Hyperparams(n_layers=1, e_layers=1, d_model=16, d_ff=32, patch_len=8, stride=4, decomposition=True)", [X32], HP),
    _r("nt_autoformer", "nt-transformer", NT + "autoformer", "Autoformer", "h=4, input_size=16, c_in=1, configs=Hyperparams(d_model=16, n_heads=2, e_layers=1, d_layers=1, d_ff=32, moving_avg=5)", [X16, MARK, ("x_mark_dec = torch.randn(4, 12, 4, generator=g)", B)], HP),
    _r("nt_itransformer", "nt-transformer", NT + "itransformer", "iTransformer", "16, 4, Hyperparams(freq='h', d_model=16, n_heads=2, d_ff=16, e_layers=1)", [X16, MARK], HP),
    _r("nt_timesnet", "nt-timesnet", NT + "timesnet", "TimesNet", "16, 4, Hyperparams(freq='h', d_model=8, d_ff=8, e_layers=1, top_k=2, num_kernels=2)", [X16, MARK], HP),
    _r("nt_baselstm", "nt-lstm", NT + "baselstm", "BaseLSTM", LSTM_KW, [X16, MASK], LSTM_X),
    _r("nt_seglstm", "nt-lstm", NT + "seglstm", "SegLSTM", LSTM_KW + ", segment_length=4", [X16, MASK], LSTM_X),
    _r("nt_unrolled", "nt-lstm", NT + "unrolledlstm", "UnrolledLSTM", LSTM_KW, [X16, MASK, ("H = 4", NONE)], LSTM_X),
    # ------------------------------------------------------------------ dynamic-network-architectures
    _r("dn_plain2d", "dn-unet", DU, "PlainConvUNet", U2, [IMG]),
    _r("dn_plain3d", "dn-unet", DU, "PlainConvUNet", U3, [VOL]),
    _r("dn_plain1d", "dn-unet", DU, "PlainConvUNet", U1, [_x("2, 1, 16")]),
    _r("dn_plain_ds", "dn-unet", DU, "PlainConvUNet", U2 + ", deep_supervision=True", [IMG]),
    _r("dn_plain_bn", "dn-unet", DU, "PlainConvUNet", U2.replace("InstanceNorm2d", "BatchNorm2d") + ", dropout_op=torch.nn.Dropout2d, dropout_op_kwargs={'p': 0.2}", [IMG]),
    _r("dn_plain_odd", "dn-unet", DU, "PlainConvUNet", U2, [_x("2, 1, 15, 15")]),
    _r("dn_plain_rank", "dn-unet", DU, "PlainConvUNet", U2, [_x("2, 1, 8, 8, 8")]),
    _r("dn_resenc", "dn-resunet", DU, "ResidualEncoderUNet", R2, [IMG]),
    _r("dn_resenc3d", "dn-resunet", DU, "ResidualEncoderUNet", R2.replace("Conv2d", "Conv3d").replace("InstanceNorm2d", "InstanceNorm3d"), [VOL]),
    _r("dn_resunet", "dn-resunet", DU, "ResidualUNet", R2, [IMG]),
    _r("dn_resnet18", "dn-resnet", DR, "ResNet18", "n_classes=3, n_input_channels=1", [_x("2, 1, 32, 32")]),
    _r("dn_resnet_se", "dn-resnet", DR, "ResNetD", "n_classes=3, n_input_channel=1, config='18', squeeze_excitation=True, stochastic_depth_p=0.1", [_x("2, 1, 32, 32")]),
    _r("dn_resnet3d", "dn-resnet", DR, "ResNetD", "n_classes=3, n_input_channel=1, config='18', input_dimension=3", [_x("1, 1, 32, 32, 32")]),
    _r("dn_vgg", "dn-vgg", DV, "VGG16", "n_classes=3, n_input_channel=1", [_x("2, 1, 32, 32")]),
    _r("dn_primus_abs", "dn-primus", DP, "Primus", PRIMUS + ", use_rot_pos_emb=False", [VOL]),
    # ------------------------------------------------------------------ skrl
    _r("sk_det", "sk-deterministic", SK, "deterministic_model", SKW, [OBS], GY),
    _r("sk_det_clip", "sk-deterministic", SK, "deterministic_model", SKW + ", clip_actions=True", [OBS], GY),
    _r("sk_det_tanh", "sk-deterministic", SK, "deterministic_model", f"{BOX4}, {ACT2}, {NET}, output='2 * tanh(ACTIONS)'", [OBS], GY),
    _r("sk_det_states", "sk-deterministic", SK, "deterministic_model", f"state_space=gymnasium.spaces.Box(-1, 1, (4,)), {ACT2}, network=[{{'name': 'net', 'input': 'STATES', 'layers': [16], 'activations': 'relu'}}], output='ACTIONS'", [("inputs = {'states': torch.randn(4, 4, generator=g)}", "{'states': {0: BATCH}}")], GY),
    _r("sk_det_f64", "sk-deterministic", SK, "deterministic_model", SKW, [("inputs = {'observations': torch.randn(4, 4, generator=g, dtype=torch.float64)}", "{'observations': {0: BATCH}}")], GY),
    _r("sk_gauss", "sk-gaussian", SK, "gaussian_model", SKW, [OBS], GY),
    _r("sk_gauss_taken", "sk-gaussian", SK, "gaussian_model", SKW, [("inputs = {'observations': torch.randn(4, 4, generator=g), 'taken_actions': torch.randn(4, 2, generator=g)}", "{'observations': {0: BATCH}, 'taken_actions': {0: BATCH}}")], GY),
    _r("sk_mvgauss", "sk-gaussian", SK, "multivariate_gaussian_model", SKW, [OBS], GY),
    _r("sk_cat", "sk-categorical", SK, "categorical_model", f"{BOX4}, action_space=gymnasium.spaces.Discrete(3), {NET}, output='ACTIONS'", [OBS], GY),
    _r("sk_multicat", "sk-categorical", SK, "multicategorical_model", f"{BOX4}, action_space=gymnasium.spaces.MultiDiscrete([2, 3]), {NET}, output='ACTIONS'", [OBS], GY),
    _r("sk_conv", "sk-deterministic", SK, "deterministic_model", f"observation_space=gymnasium.spaces.Box(0, 1, (3, 8, 8)), {ACT2}, network=[{{'name': 'net', 'input': 'OBSERVATIONS', 'layers': [{{'conv2d': {{'out_channels': 4, 'kernel_size': 3}}}}, 'flatten', 16], 'activations': 'relu'}}], output='ACTIONS'", [("inputs = {'observations': torch.rand(4, 3, 8, 8, generator=g)}", "{'observations': {0: BATCH}}")], GY),
    # ------------------------------------------------------------------ torchgan
    _r("tg_dcgen", "tg-dcgan", TM, "DCGANGenerator", GEN, [Z]),
    _r("tg_dcgen_wrong", "tg-dcgan", TM, "DCGANGenerator", GEN, [_x("4, 8", "z")]),
    _r("tg_dcdisc", "tg-dcgan", TM, "DCGANDiscriminator", DIS, [TIMG]),
    _r("tg_dcdisc_fm", "tg-dcgan", TM, "DCGANDiscriminator", DIS, [TIMG, ("feature_matching = True", NONE)]),
    _r("tg_condgen", "tg-conditional", TM, "ConditionalGANGenerator", "num_classes=3, " + GEN, [Z, LAB]),
    _r("tg_conddisc", "tg-conditional", TM, "ConditionalGANDiscriminator", "num_classes=3, " + DIS, [TIMG, LAB]),
    _r("tg_acgen", "tg-acgan", TM, "ACGANGenerator", "num_classes=3, " + GEN, [Z, LAB]),
    _r("tg_acdisc", "tg-acgan", TM, "ACGANDiscriminator", "num_classes=3, " + DIS, [TIMG]),
    _r("tg_acdisc_combine", "tg-acgan", TM, "ACGANDiscriminator", "num_classes=3, " + DIS, [TIMG, ("mode = 'combine'", NONE)]),
    _r("tg_infogen", "tg-infogan", TM, "InfoGANGenerator", "dim_dis=3, dim_cont=2, " + GEN, [Z, ("c_dis = torch.nn.functional.one_hot(torch.randint(0, 3, (4,), generator=g), 3).float()", B), _x("4, 2", "c_cont")]),
    _r("tg_infodisc", "tg-infogan", TM, "InfoGANDiscriminator", "dim_dis=3, dim_cont=2, " + DIS, [TIMG, ("return_latents = True", NONE)]),
    _r("tg_aegen", "tg-began", TM, "AutoEncodingGenerator", GEN, [Z]),
    _r("tg_aedisc", "tg-began", TM, "AutoEncodingDiscriminator", DIS + ", encoding_dims=16", [TIMG]),
    _r("tg_aedisc_energy", "tg-began", TM, "AutoEncodingDiscriminator", DIS + ", encoding_dims=16, energy=False", [TIMG]),
    _r("tg_minibatch", "tg-layers", TL, "MinibatchDiscrimination1d", "8, 4", [_x("4, 8")]),
    _r("tg_vbn", "tg-layers", TL, "VirtualBatchNorm", "8", [_x("4, 8, 4, 4")]),
    _r("tg_selfattn", "tg-layers", TL, "SelfAttention2d", "8", [_x("2, 8, 4, 4")]),
    _r("tg_spectral", "tg-layers", TL, "SpectralNorm2d", "torch.nn.Conv2d(3, 4, 3)", [_x("2, 3, 8, 8")]),
    _r("tg_residual", "tg-layers", TL, "ResidualBlock2d", "filters=[4, 4, 4], kernels=[3, 3], paddings=[1, 1]", [_x("2, 4, 8, 8")]),
    _r("tg_dense", "tg-layers", TL, "DenseBlock2d", "depth=2, in_channels=4, growth_rate=4, block=BasicBlock2d, kernel=3, padding=1", [_x("2, 4, 8, 8")], ["BasicBlock2d"]),
    # ------------------------------------------------------------------ pytorchcv
    _r("cv_quartznet", "cv-asr", CV + "quartznet", "quartznet5x5_en_ls", "in_channels=64, from_audio=False", [_x("2, 64, 48"), ("x_len = torch.tensor([48, 40])", B)]),
    _r("cv_quartznet_wrong", "cv-asr", CV + "quartznet", "quartznet5x5_en_ls", "in_channels=64, from_audio=False", [_x("2, 80, 48"), ("x_len = torch.tensor([48, 40])", B)]),
    _r("cv_voca", "cv-face", CV + "voca", "voca8flame", "", [_x("2, 1, 16, 29"), ("pid = torch.tensor([3, 1])", B)]),
    _r("cv_nvpattexp", "cv-face", CV + "nvpattexp", "nvpattexp116bazel76", "", [_x("2, 8, 16, 29"), ("pid = torch.tensor([3, 1])", B)]),
    _r("cv_superpoint", "cv-keypoints", CV + "superpointnet", "superpointnet", "", [_x("1, 1, 64, 64")]),
    _r("cv_superpoint_rgb", "cv-keypoints", CV + "superpointnet", "superpointnet", "", [RGB]),
    _r("cv_raft", "cv-flow", CV + "raft", "raft_small", "", [_x("1, 3, 64, 64", "image1"), _x("1, 3, 64, 64", "image2")]),
    _r("cv_lwopenpose", "cv-pose", CV + "lwopenpose_cmupan", "lwopenpose2d_mobilenet_cmupan_coco", "in_size=(64, 64)", [RGB]),
    _r("cv_lwopenpose3d", "cv-pose", CV + "lwopenpose_cmupan", "lwopenpose3d_mobilenet_cmupan_coco", "in_size=(64, 64)", [RGB]),
    _r("cv_simplepose", "cv-pose", CV + "simplepose_coco", "simplepose_resnet18_coco", "in_size=(64, 48)", [_x("1, 3, 64, 48")]),
    _r("cv_ibppose", "cv-pose", CV + "ibppose_coco", "ibppose_coco", "in_size=(64, 64)", [RGB]),
    _r("cv_centernet", "cv-detection", CV + "centernet", "centernet_resnet18_voc", "in_size=(64, 64)", [RGB]),
    _r("cv_centernet_heat", "cv-detection", CV + "centernet", "centernet_resnet18_voc", "in_size=(64, 64), return_heatmap=True", [RGB]),
    _r("cv_lffd", "cv-detection", CV + "lffd", "lffd20x5s320v2_widerface", "", [_x("1, 3, 160, 160")]),
    _r("cv_fastscnn", "cv-segmentation", CV + "fastscnn", "fastscnn_cityscapes", "in_size=(64, 64)", [RGB]),
    _r("cv_sinet", "cv-segmentation", CV + "sinet", "sinet_cityscapes", "in_size=(128, 128)", [_x("1, 3, 128, 128")]),
]
# fmt: on
