"""The recipes of scripts/triage_sweep_zoo19.py: tiny-config pythae, fastmri, xlstm, pyod and
diffwave models (random weights, nothing downloaded: none of the five libraries fetches
weights or data in the classes swept) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo18_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines. pythae's models take one dict (`{'data': x}`) as their documented input; pyod's
classes are the torch networks inside its detectors, and xlstm's sLSTM uses its pure-torch
`vanilla` backend (the default `cuda` backend compiles a CUDA kernel)."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ pythae
PY = "pythae.models"
DIMS = "input_dim=(1, 8, 8), latent_dim=2"
DATA = (
    "inputs = {'data': torch.rand(4, 1, 8, 8, generator=g)}",
    "{'data': {0: BATCH}}",
)


def _py(case, cls, cfg, kw="", data=DATA):
    return _r(
        case,
        "py-" + cls.lower().replace("_", ""),
        PY,
        cls,
        f"model_config={cfg}({DIMS}{kw})",
        [data],
        [cfg],
    )


# ------------------------------------------------------------------ fastmri
FM = "fastmri.models"
IMG = _x("2, 1, 16, 16")
KSP = _x("1, 4, 16, 16, 2", "masked_kspace")
FMASK = ("mask = (torch.arange(16) % 2 == 0).float().reshape(1, 1, 1, 16, 1)", B)
MASK = ("mask = (torch.arange(16) % 2 == 0).reshape(1, 1, 1, 16, 1)", B)
VN = "num_cascades=2, sens_chans=4, sens_pools=2, chans=4, pools=2"
# ------------------------------------------------------------------ xlstm
XL = "xlstm"
XX = [
    "xLSTMBlockStackConfig",
    "mLSTMBlockConfig",
    "mLSTMLayerConfig",
    "sLSTMBlockConfig",
    "sLSTMLayerConfig",
    "FeedForwardConfig",
]
MB = "mlstm_block=mLSTMBlockConfig(mlstm=mLSTMLayerConfig(conv1d_kernel_size=4, qkv_proj_blocksize=4, num_heads=2))"
SB = "slstm_block=sLSTMBlockConfig(slstm=sLSTMLayerConfig(backend='vanilla', num_heads=2, conv1d_kernel_size=4), feedforward=FeedForwardConfig(proj_factor=1.3, act_fn='gelu'))"
STACK = "context_length=8, num_blocks={n}, embedding_dim=16"
SEQ = _x("2, 8, 16")
# ------------------------------------------------------------------ pyod
PO = "pyod.models."
F8 = _x("4, 8")
# ------------------------------------------------------------------ diffwave
DW = "diffwave.model"
DWP = "AttrDict(residual_channels=8, residual_layers=4, dilation_cycle_length=2, n_mels=8, noise_schedule=[0.1] * 10)"
AUDIO = _x("2, 512", "audio")
SPEC = _x("2, 8, 2", "spectrogram")
STEP = ("diffusion_step = torch.tensor([3, 7])", B)

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ pythae
    _py("py_ae", "AE", "AEConfig"),
    _py("py_vae", "VAE", "VAEConfig"),
    _py("py_betavae", "BetaVAE", "BetaVAEConfig", ", beta=2.0"),
    _py("py_iwae", "IWAE", "IWAEConfig", ", number_samples=3"),
    _py("py_vqvae", "VQVAE", "VQVAEConfig", ", num_embeddings=8"),
    _py("py_svae", "SVAE", "SVAEConfig"),
    _py("py_pvae", "PoincareVAE", "PoincareVAEConfig"),
    _py("py_vamp", "VAMP", "VAMPConfig", ", number_components=4"),
    _py("py_wae", "WAE_MMD", "WAE_MMD_Config"),
    _py("py_aae", "Adversarial_AE", "Adversarial_AE_Config"),
    _py("py_iaf", "VAE_IAF", "VAE_IAF_Config", ", n_made_blocks=1"),
    _py("py_linnf", "VAE_LinNF", "VAE_LinNF_Config", ", flows=['Planar', 'Radial']"),
    _py("py_btcvae", "BetaTCVAE", "BetaTCVAEConfig"),
    _py("py_msssim", "MSSSIM_VAE", "MSSSIM_VAEConfig", ", window_size=3"),
    _py("py_vae_f64", "VAE", "VAEConfig", data=("inputs = {'data': torch.rand(4, 1, 8, 8, generator=g, dtype=torch.float64)}", "{'data': {0: BATCH}}")),
    # ------------------------------------------------------------------ fastmri
    _r("fm_unet", "fm-unet", FM, "Unet", "in_chans=1, out_chans=1, chans=4, num_pool_layers=2", [IMG]),
    _r("fm_unet_odd", "fm-unet", FM, "Unet", "in_chans=1, out_chans=1, chans=4, num_pool_layers=2", [_x("2, 1, 15, 15")]),
    _r("fm_unet_rank", "fm-unet", FM, "Unet", "in_chans=1, out_chans=1, chans=4, num_pool_layers=2", [_x("2, 16, 16")]),
    _r("fm_normunet", "fm-varnet", FM + ".varnet", "NormUnet", "chans=4, num_pools=2", [_x("1, 1, 16, 16, 2")]),
    _r("fm_sens", "fm-varnet", FM + ".varnet", "SensitivityModel", "chans=4, num_pools=2", [KSP, MASK]),
    _r("fm_sens_low", "fm-varnet", FM + ".varnet", "SensitivityModel", "chans=4, num_pools=2", [KSP, MASK, ("num_low_frequencies = 4", NONE)]),
    _r("fm_varnet", "fm-varnet", FM, "VarNet", VN, [KSP, MASK]),
    _r("fm_varnet_low", "fm-varnet", FM, "VarNet", VN, [KSP, MASK, ("num_low_frequencies = 4", NONE)]),
    _r("fm_varnet_nocenter", "fm-varnet", FM, "VarNet", VN + ", mask_center=False", [KSP, MASK]),
    _r("fm_varnet_fmask", "fm-varnet", FM, "VarNet", VN, [KSP, ("mask = torch.ones(1, 1, 1, 16, 1)", B)]),
    _r("fm_block", "fm-varnet", FM + ".varnet", "VarNetBlock", "NormUnet(chans=4, num_pools=2)", [_x("1, 4, 16, 16, 2", "current_kspace"), _x("1, 4, 16, 16, 2", "ref_kspace"), MASK, _x("1, 4, 16, 16, 2", "sens_maps")], ["NormUnet"]),
    _r("fm_adaptive", "fm-adaptive", FM + ".adaptive_varnet", "AdaptiveVarNet", "budget=4, num_cascades=1, sens_chans=4, sens_pools=2, chans=4, pools=2, crop_size=(16, 16), num_sense_lines=4, policy_fc_size=16", [_x("1, 4, 16, 16, 2", "kspace"), KSP, ("mask = ((torch.arange(16) % 2 == 0) | ((torch.arange(16) - 8).abs() < 3)).float().reshape(1, 1, 1, 16, 1)", B)]),
    _r("fm_loupe", "fm-policy", FM + ".policy", "LOUPEPolicy", "num_actions=16, budget=4", [FMASK, _x("1, 4, 16, 16, 2", "kspace")]),
    _r("fm_straight", "fm-policy", FM + ".policy", "StraightThroughPolicy", "budget=4, crop_size=(16, 16), fc_size=16", [_x("1, 2, 16, 16", "kspace_pred"), FMASK]),
    # ------------------------------------------------------------------ xlstm
    _r("xl_mstack", "xl-stack", XL, "xLSTMBlockStack", f"xLSTMBlockStackConfig({MB}, {STACK.format(n=1)})", [SEQ], XX),
    _r("xl_sstack", "xl-stack", XL, "xLSTMBlockStack", f"xLSTMBlockStackConfig({SB}, {STACK.format(n=1)}, slstm_at=[0])", [SEQ], XX),
    _r("xl_mixed", "xl-stack", XL, "xLSTMBlockStack", f"xLSTMBlockStackConfig({MB}, {SB}, {STACK.format(n=2)}, slstm_at=[1])", [SEQ], XX),
    _r("xl_mstack_short", "xl-stack", XL, "xLSTMBlockStack", f"xLSTMBlockStackConfig({MB}, {STACK.format(n=1)})", [_x("2, 6, 16")], XX),
    _r("xl_mstack_long", "xl-stack", XL, "xLSTMBlockStack", f"xLSTMBlockStackConfig({MB}, {STACK.format(n=1)})", [_x("2, 12, 16")], XX),
    _r("xl_lm", "xl-lm", XL, "xLSTMLMModel", f"xLSTMLMModelConfig({MB}, {SB}, {STACK.format(n=2)}, slstm_at=[1], vocab_size=32)", [("idx = torch.randint(0, 32, (2, 8), generator=g)", B)], XX + ["xLSTMLMModelConfig"]),
    _r("xl_lm_float", "xl-lm", XL, "xLSTMLMModel", f"xLSTMLMModelConfig({MB}, {STACK.format(n=1)}, vocab_size=32)", [_x("2, 8", "idx")], XX + ["xLSTMLMModelConfig"]),
    _r("xl_mlayer", "xl-layer", XL, "mLSTMLayer", "mLSTMLayerConfig(embedding_dim=16, context_length=8, num_heads=2)", [SEQ], ["mLSTMLayerConfig"]),
    _r("xl_slayer", "xl-layer", XL, "sLSTMLayer", "sLSTMLayerConfig(embedding_dim=16, num_heads=2, backend='vanilla')", [SEQ], ["sLSTMLayerConfig"]),
    _r("xl_ffn", "xl-layer", XL, "GatedFeedForward", "FeedForwardConfig(embedding_dim=16, proj_factor=1.3)", [SEQ], ["FeedForwardConfig"]),
    _r("xl_conv", "xl-layer", XL + ".components.conv", "CausalConv1d", "CausalConv1dConfig(feature_dim=16, kernel_size=4)", [SEQ], ["CausalConv1dConfig"]),
    _r("xl_headwise", "xl-layer", XL + ".components.linear_headwise", "LinearHeadwiseExpand", "LinearHeadwiseExpandConfig(in_features=16, num_heads=4)", [SEQ], ["LinearHeadwiseExpandConfig"]),
    # ------------------------------------------------------------------ pyod
    _r("po_ae", "po-autoencoder", PO + "auto_encoder", "AutoEncoderModel", "8, hidden_neuron_list=[8, 4]", [F8]),
    _r("po_ae_nobn", "po-autoencoder", PO + "auto_encoder", "AutoEncoderModel", "8, hidden_neuron_list=[8, 4], batch_norm=False", [F8]),
    _r("po_ae_wrong", "po-autoencoder", PO + "auto_encoder", "AutoEncoderModel", "8, hidden_neuron_list=[8, 4]", [_x("4, 6")]),
    _r("po_vae", "po-vae", PO + "vae", "VAEModel", "8, encoder_neuron_list=[8, 4], decoder_neuron_list=[4, 8]", [F8]),
    _r("po_svdd", "po-svdd", PO + "deep_svdd", "InnerDeepSVDD", "n_features=8, use_ae=False, hidden_neurons=[8, 4], hidden_activation='relu', output_activation='sigmoid', dropout_rate=0.2, l2_regularizer=0.1", [F8]),
    _r("po_svdd_ae", "po-svdd", PO + "deep_svdd", "InnerDeepSVDD", "n_features=8, use_ae=True, hidden_neurons=[8, 4], hidden_activation='relu', output_activation='sigmoid', dropout_rate=0.2, l2_regularizer=0.1", [F8]),
    _r("po_devnet", "po-devnet", PO + "devnet", "DevNetD", "8", [F8]),
    _r("po_sogaal_d", "po-gaal", PO + "so_gaal", "Discriminator", "latent_size=8, data_size=64", [F8]),
    _r("po_lunar", "po-lunar", PO + "lunar", "WEIGHT_MODEL", "4", [_x("4, 4")]),
    _r("po_anomtr", "po-transformer", PO + "ts_anomaly_transformer", "_AnomalyTransformerModel", "n_channels=2, window_size=8, d_model=8, n_heads=2, n_layers=1", [_x("4, 8, 2")]),
    _r("po_anomtr_short", "po-transformer", PO + "ts_anomaly_transformer", "_AnomalyTransformerModel", "n_channels=2, window_size=8, d_model=8, n_heads=2, n_layers=1", [_x("4, 6, 2")]),
    _r("po_dif", "po-dif", PO + "dif", "MLPnet", "8, n_hidden=[8], n_output=4, skip_connection=True, activation='relu'", [F8]),
    # ------------------------------------------------------------------ diffwave
    _r("dw_diffwave", "dw-diffwave", DW, "DiffWave", DWP, [AUDIO, SPEC, STEP], ["from diffwave.params import AttrDict"]),
    _r("dw_diffwave_fstep", "dw-diffwave", DW, "DiffWave", DWP, [AUDIO, SPEC, ("diffusion_step = torch.tensor(2.5)", NONE)], ["from diffwave.params import AttrDict"]),
    _r("dw_diffwave_int", "dw-diffwave", DW, "DiffWave", DWP, [AUDIO, SPEC, ("diffusion_step = torch.tensor(3)", NONE)], ["from diffwave.params import AttrDict"]),
    _r("dw_diffwave_len", "dw-diffwave", DW, "DiffWave", DWP, [_x("2, 500", "audio"), SPEC, STEP], ["from diffwave.params import AttrDict"]),
    _r("dw_embed", "dw-layers", DW, "DiffusionEmbedding", "10", [STEP]),
    _r("dw_upsampler", "dw-layers", DW, "SpectrogramUpsampler", "8", [SPEC]),
    _r("dw_resblock", "dw-layers", DW, "ResidualBlock", "8, 8, 2", [_x("2, 8, 16"), _x("2, 8, 16", "conditioner"), _x("2, 512", "diffusion_step")]),
]
# fmt: on
