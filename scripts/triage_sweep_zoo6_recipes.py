"""The recipes of scripts/triage_sweep_zoo6.py: tiny-config neuraloperator, compressai,
hiera-transformer, stable-baselines3 and rtdl-revisiting-models models (random weights,
nothing downloaded) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe): `inputs` are the lines of
example_inputs() (`g` is a seeded torch.Generator), each with its `dynamic` spec: `True`
when dim 0 is the batch (`{0: BATCH}`), a string for another spec (`{0: BATCH, 1: SEQ}`),
`False` for none (a flag, `None`, a size tuple). Constructor kwargs written as a string
are source (they may name the extra imported classes and `torch`); `extra` adds names
imported from the module, or whole import lines."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch
BS = "{0: BATCH, 1: SEQ}"  # (batch, sequence)
NONE = False  # an input passed as None / a flag: no Dim


def _x(shape: str, name: str = "x", spec=B) -> tuple:
    return (f"{name} = torch.randn({shape}, {G})", spec)


def _r(case, fam, module, cls, kw, inputs, extra=None) -> tuple:
    r = (case, fam, module, cls, kw, inputs)
    return r + ((extra,) if extra else ())


# ------------------------------------------------------------------ neuraloperator
NO = "neuralop.models"
NL = "neuralop.layers"
FNO2 = "n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2"
GRID = _x("2, 1, 16, 16")
GRID8 = _x("2, 8, 16, 16")
# ------------------------------------------------------------------ compressai
CM = "compressai.models"
CL = "compressai.layers"
IMG = (f"x = torch.rand(2, 3, 64, 64, {G})", B)
FEAT = _x("2, 8, 16, 16")
# ------------------------------------------------------------------ hiera-transformer
HI = "hiera.hiera"
HIERA = "input_size=(64, 64), embed_dim=16, num_heads=1, num_classes=10, stages=(1, 1, 1, 1), q_pool=2, mask_unit_size=(8, 8)"
HIERA_VIDEO = (
    "input_size=(4, 64, 64), embed_dim=16, num_heads=1, num_classes=10, stages=(1, 1, 1, 1), "
    "q_pool=2, q_stride=(1, 2, 2), mask_unit_size=(1, 8, 8), patch_kernel=(3, 7, 7), "
    "patch_stride=(2, 4, 4), patch_padding=(1, 3, 3), sep_pos_embed=True"
)
HMASK = (
    "mask = torch.tensor([[True, False, True, True], [True, True, False, True]])",
    NONE,
)
# ------------------------------------------------------------------ stable-baselines3
SP = "from gymnasium import spaces"
LR = "lr_schedule=lambda _: 1e-3"
BOX6 = "spaces.Box(-1.0, 1.0, (6,))"
IMG_SPACE = "spaces.Box(0, 255, (3, 64, 64), dtype='uint8')"
OBS = _x("8, 6", "obs")
OBS_IMG = (f"obs = torch.randint(0, 256, (2, 3, 64, 64), {G}).float()", B)
OBS_DICT = (
    f"obs = {{'img': torch.randint(0, 256, (2, 3, 64, 64), {G}).float(), 'vec': torch.randn(2, 4, {G})}}",
    "{'img': {0: BATCH}, 'vec': {0: BATCH}}",
)
DICT_SPACE = f"spaces.Dict({{'img': {IMG_SPACE}, 'vec': spaces.Box(-1.0, 1.0, (4,))}})"


def _sb3(case, fam, module, cls, kw, inputs) -> tuple:
    return _r(case, f"sb3-{fam}", f"stable_baselines3.{module}", cls, kw, inputs, [SP])


AC = "common.policies"
# ------------------------------------------------------------------ rtdl-revisiting-models
RT = "rtdl_revisiting_models"
TAB = _x("8, 10")
FTT = (
    "n_cont_features=6, cat_cardinalities=[3, 4], d_out=2, n_blocks=2, d_block=16, "
    "attention_n_heads=2, attention_dropout=0.0, ffn_d_hidden_multiplier=2.0, "
    "ffn_dropout=0.0, residual_dropout=0.0"
)
XCONT = _x("8, 6", "x_cont")
XCAT = (
    f"x_cat = torch.stack([torch.randint(0, 3, (8,), {G}), torch.randint(0, 4, (8,), {G})], 1)",
    B,
)
BACKBONE = (
    "d_out=2, n_blocks=2, d_block=16, attention_n_heads=2, attention_dropout=0.0, "
    "ffn_d_hidden_multiplier=2.0, ffn_dropout=0.0, residual_dropout=0.0"
)
TOK = _x("8, 5, 16", "x", BS)

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ neuraloperator
    _r("fno2d", "neuralop-fno", NO, "FNO", FNO2, [GRID]),
    _r("fno1d", "neuralop-fno", NO, "FNO", "n_modes=(4,), in_channels=1, out_channels=1, hidden_channels=8, n_layers=2", [_x("2, 1, 16")]),
    _r("fno_nogrid", "neuralop-fno", NO, "FNO", f"{FNO2}, positional_embedding=None", [GRID]),
    _r("fno_padding", "neuralop-fno", NO, "FNO", f"{FNO2}, domain_padding=0.25", [GRID]),
    _r("fno_groupnorm", "neuralop-fno", NO, "FNO", f"{FNO2}, norm='group_norm'", [GRID]),
    _r("fno_scaling", "neuralop-fno", NO, "FNO", f"{FNO2}, resolution_scaling_factor=0.5", [GRID]),
    _r("tfno", "neuralop-fno", NO, "TFNO", f"{FNO2}, factorization='tucker', rank=0.5", [GRID]),
    _r("tfno_cp", "neuralop-fno", NO, "TFNO", f"{FNO2}, factorization='cp', rank=0.5, implementation='factorized'", [GRID]),
    _r("uno", "neuralop-uno", NO, "UNO", "in_channels=1, out_channels=1, hidden_channels=8, lifting_channels=8, projection_channels=8, n_layers=2, uno_out_channels=[8, 8], uno_n_modes=[[4, 4], [4, 4]], uno_scalings=[[1.0, 1.0], [1.0, 1.0]], channel_mlp_skip='linear'", [GRID]),
    _r("spectral_conv", "neuralop-spectral_convolution", f"{NL}.spectral_convolution", "SpectralConv", "in_channels=8, out_channels=8, n_modes=(4, 4)", [GRID8]),
    _r("grid_embedding", "neuralop-embeddings", f"{NL}.embeddings", "GridEmbeddingND", "in_channels=1, dim=2", [GRID]),
    _r("grid_embedding_2d", "neuralop-embeddings", f"{NL}.embeddings", "GridEmbedding2D", "in_channels=1", [GRID]),
    _r("sinusoidal_embedding", "neuralop-embeddings", f"{NL}.embeddings", "SinusoidalEmbedding", "in_channels=2, num_frequencies=3", [_x("2, 16, 2")]),
    _r("channel_mlp", "neuralop-channel_mlp", f"{NL}.channel_mlp", "ChannelMLP", "in_channels=8, out_channels=8, hidden_channels=16", [GRID8]),
    # ------------------------------------------------------------------ compressai
    _r("cai_factorized", "compressai-google", CM, "FactorizedPrior", "N=8, M=12", [IMG]),
    _r("cai_factorized_relu", "compressai-google", CM, "FactorizedPriorReLU", "N=8, M=12", [IMG]),
    _r("cai_hyperprior", "compressai-google", CM, "ScaleHyperprior", "N=8, M=12", [IMG]),
    _r("cai_mean_scale", "compressai-google", CM, "MeanScaleHyperprior", "N=8, M=12", [IMG]),
    _r("cai_joint", "compressai-google", CM, "JointAutoregressiveHierarchicalPriors", "N=8, M=12", [IMG]),
    _r("cai_cheng_anchor", "compressai-waseda", CM, "Cheng2020Anchor", "N=8", [IMG]),
    _r("cai_cheng_attention", "compressai-waseda", CM, "Cheng2020Attention", "N=8", [IMG]),
    _r("cai_checkerboard", "compressai-sensetime", CM, "Cheng2020AnchorCheckerboard", "N=8", [IMG]),
    _r("cai_elic", "compressai-sensetime", CM, "Elic2022Official", "N=16, M=32, groups=[4, 4, 8, 16]", [IMG]),
    _r("cai_hyperprior_vbr", "compressai-vbr", CM, "ScaleHyperpriorVbr", "N=8, M=12", [IMG]),
    _r("cai_entropy_bottleneck", "compressai-entropy_models", "compressai.entropy_models", "EntropyBottleneck", "channels=8", [FEAT]),
    _r("cai_gaussian_conditional", "compressai-entropy_models", "compressai.entropy_models", "GaussianConditional", "scale_table=None", [FEAT, (f"scales = torch.rand(2, 8, 16, 16, {G}) + 0.5", B)]),
    _r("cai_gdn", "compressai-gdn", CL, "GDN", "in_channels=8", [FEAT]),
    _r("cai_masked_conv", "compressai-layers", CL, "MaskedConv2d", "in_channels=8, out_channels=8, kernel_size=5, padding=2", [FEAT]),
    _r("cai_attention_block", "compressai-layers", CL, "AttentionBlock", "N=8", [FEAT]),
    # ------------------------------------------------------------------ hiera-transformer
    _r("hiera", "hiera-hiera", HI, "Hiera", HIERA, [_x("2, 3, 64, 64")]),
    _r("hiera_mask", "hiera-hiera", HI, "Hiera", HIERA, [_x("2, 3, 64, 64"), HMASK]),
    _r("hiera_intermediates", "hiera-hiera", HI, "Hiera", HIERA, [_x("2, 3, 64, 64"), ("mask = None", NONE), ("return_intermediates = True", NONE)]),
    _r("hiera_video", "hiera-hiera", HI, "Hiera", HIERA_VIDEO, [_x("2, 3, 4, 64, 64")]),
    _r("hiera_mae", "hiera-hiera_mae", "hiera.hiera_mae", "MaskedAutoencoderHiera", f"{HIERA}, decoder_embed_dim=16, decoder_depth=1, decoder_num_heads=1", [_x("2, 3, 64, 64")]),
    _r("hiera_block", "hiera-hiera", HI, "HieraBlock", "dim=16, dim_out=32, heads=2, q_stride=4, window_size=4, use_mask_unit_attn=True", [_x("2, 16, 16", "x", BS)]),
    _r("hiera_mu_attention", "hiera-hiera", HI, "MaskUnitAttention", "dim=16, dim_out=16, heads=2, window_size=4, use_mask_unit_attn=True", [_x("2, 16, 16", "x", BS)]),
    _r("hiera_patch_embed", "hiera-hiera", HI, "PatchEmbed", "dim_in=3, dim_out=16, kernel=(7, 7), stride=(4, 4), padding=(3, 3)", [_x("2, 3, 64, 64"), (f"mask = torch.rand(2, 1, 2, 2, {G}) > 0.5", B)]),
    _r("hiera_unroll", "hiera-hiera_utils", "hiera.hiera_utils", "Unroll", "input_size=(64, 64), patch_stride=(4, 4), unroll_schedule=[(2, 2)] * 3", [_x("2, 256, 16")]),
    # ------------------------------------------------------------------ stable-baselines3
    _sb3("sb3_ac_discrete", "policies", AC, "ActorCriticPolicy", f"{BOX6}, spaces.Discrete(3), {LR}, net_arch=[16, 16]", [OBS]),
    _sb3("sb3_ac_box", "policies", AC, "ActorCriticPolicy", f"{BOX6}, spaces.Box(-1.0, 1.0, (2,)), {LR}, net_arch=[16, 16]", [OBS]),
    _sb3("sb3_ac_deterministic", "policies", AC, "ActorCriticPolicy", f"{BOX6}, spaces.Discrete(3), {LR}, net_arch=[16, 16]", [OBS, ("deterministic = True", NONE)]),
    _sb3("sb3_ac_multidiscrete", "policies", AC, "ActorCriticPolicy", f"{BOX6}, spaces.MultiDiscrete([3, 2]), {LR}, net_arch=[16, 16]", [OBS]),
    _sb3("sb3_ac_multibinary", "policies", AC, "ActorCriticPolicy", f"{BOX6}, spaces.MultiBinary(4), {LR}, net_arch=[16, 16]", [OBS]),
    _sb3("sb3_ac_sde", "policies", AC, "ActorCriticPolicy", f"{BOX6}, spaces.Box(-1.0, 1.0, (2,)), {LR}, net_arch=[16, 16], use_sde=True", [OBS]),
    _sb3("sb3_ac_cnn", "policies", AC, "ActorCriticCnnPolicy", f"{IMG_SPACE}, spaces.Discrete(3), {LR}, features_extractor_kwargs=dict(features_dim=32)", [OBS_IMG]),
    _sb3("sb3_multi_input", "policies", AC, "MultiInputActorCriticPolicy", f"{DICT_SPACE}, spaces.Discrete(3), {LR}, net_arch=[16]", [OBS_DICT]),
    _sb3("sb3_nature_cnn", "torch_layers", "common.torch_layers", "NatureCNN", f"{IMG_SPACE}, features_dim=32", [OBS_IMG]),
    _sb3("sb3_dqn", "dqn_policies", "dqn.policies", "DQNPolicy", f"{BOX6}, spaces.Discrete(3), {LR}, net_arch=[16, 16]", [OBS]),
    _sb3("sb3_sac", "sac_policies", "sac.policies", "SACPolicy", f"{BOX6}, spaces.Box(-1.0, 1.0, (2,)), {LR}, net_arch=[16, 16]", [OBS]),
    _sb3("sb3_sac_sde", "sac_policies", "sac.policies", "SACPolicy", f"{BOX6}, spaces.Box(-1.0, 1.0, (2,)), {LR}, net_arch=[16, 16], use_sde=True", [OBS]),
    _sb3("sb3_td3", "td3_policies", "td3.policies", "TD3Policy", f"{BOX6}, spaces.Box(-1.0, 1.0, (2,)), {LR}, net_arch=[16, 16]", [OBS]),
    # ------------------------------------------------------------------ rtdl-revisiting-models
    _r("rtdl_mlp", "rtdl-models", RT, "MLP", "d_in=10, d_out=3, n_blocks=2, d_block=16, dropout=0.0", [TAB]),
    _r("rtdl_resnet", "rtdl-models", RT, "ResNet", "d_in=10, d_out=3, n_blocks=2, d_block=16, d_hidden_multiplier=2.0, dropout1=0.0, dropout2=0.0", [TAB]),
    _r("rtdl_ftt", "rtdl-models", RT, "FTTransformer", FTT, [XCONT, XCAT]),
    _r("rtdl_ftt_cont", "rtdl-models", RT, "FTTransformer", FTT.replace("[3, 4]", "[]"), [XCONT, ("x_cat = None", NONE)]),
    _r("rtdl_ftt_linformer", "rtdl-models", RT, "FTTransformer", f"{FTT}, linformer_kv_compression_ratio=0.5, linformer_kv_compression_sharing='headwise'", [XCONT, XCAT]),
    _r("rtdl_backbone", "rtdl-models", RT, "FTTransformerBackbone", BACKBONE, [TOK]),
    _r("rtdl_backbone_relu", "rtdl-models", RT, "FTTransformerBackbone", f"{BACKBONE}, ffn_activation='ReLU'", [TOK]),
    _r("rtdl_mha", "rtdl-models", RT, "MultiheadAttention", "d_embedding=16, n_heads=2, dropout=0.0", [TOK, ("x_kv = x", BS)]),
    _r("rtdl_linear_embeddings", "rtdl-models", RT, "LinearEmbeddings", "n_features=6, d_embedding=8", [XCONT]),
    _r("rtdl_cat_embeddings", "rtdl-models", RT, "CategoricalEmbeddings", "cardinalities=[3, 4], d_embedding=8", [XCAT]),
    _r("rtdl_cls_embedding", "rtdl-models", RT, "_CLSEmbedding", "d_embedding=8", [("batch_dims = (8,)", "(None,)")]),
]
# fmt: on
