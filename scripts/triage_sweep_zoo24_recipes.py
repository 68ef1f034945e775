"""The recipes of scripts/triage_sweep_zoo24.py: tiny-config dall-e, pygod,
microsoft-aurora, rl-games and wavenet_vocoder models (random weights, nothing downloaded: every model is
built from its classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo23_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. dall-e's dVAE
encoder / decoder take an image / a one-hot token map; pygod's graph anomaly detectors
(`pygod.nn`) node features and an edge_index (10 nodes, 20 edges; the node dim is the
dynamic one); Aurora takes a `Batch` of weather variables (an object), its submodules
tensors; rl-games' networks an observation dict (`{'obs': ...}`), its layers tensors."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ dall-e
DE = "dall_e.encoder"
DD = "dall_e.decoder"
ENC = "n_hid=64, n_blk_per_group=1, vocab_size=512, use_mixed_precision=False"
DEC = "n_init=8, n_hid=64, n_blk_per_group=1, vocab_size=512, use_mixed_precision=False"
ZTOK = (
    "z = torch.nn.functional.one_hot(torch.randint(0, 512, (2, 4, 4), generator=g), 512).permute(0, 3, 1, 2).float()",
    B,
)
# ------------------------------------------------------------------ pygod
PN = "pygod.nn"
X = (f"x = torch.randn(10, 8, {G})", B)
EI = (f"edge_index = torch.randint(0, 10, (2, 20), {G})", NONE)
S = ("s = (torch.rand(10, 10, generator=g) > 0.7).float()", B)
GAT = ["from torch_geometric.nn import GAT"]
GIN = ["from torch_geometric.nn import GIN"]
# ------------------------------------------------------------------ aurora
AM = "aurora.model"
AUR = "surf_vars=('2t', '10u'), static_vars=('lsm',), atmos_vars=('z', 't'), window_size=(1, 2, 2), encoder_depths=(1, 1), encoder_num_heads=(2, 4), decoder_depths=(1, 1), decoder_num_heads=(4, 2), latent_levels=2, patch_size=2, embed_dim=16, num_heads=2, use_lora=False"
BATCH = (
    "batch = Batch(surf_vars={k: torch.randn(1, 2, 8, 16, generator=g) for k in ('2t', '10u')}, "
    "static_vars={'lsm': torch.randn(8, 16, generator=g)}, "
    "atmos_vars={k: torch.randn(1, 2, 2, 8, 16, generator=g) for k in ('z', 't')}, "
    "metadata=Metadata(lat=torch.linspace(90, -90, 8), lon=torch.linspace(0, 360, 17)[:-1], "
    "time=(datetime(2020, 6, 1, 12),), atmos_levels=(100, 500)))",
    NONE,
)
BI = ["from aurora import Batch, Metadata", "from datetime import datetime"]
# ------------------------------------------------------------------ rl-games
NB = "rl_games.algos_torch.network_builder"
MLP = (
    "'mlp': {'units': [16, 8], 'activation': 'elu', 'initializer': {'name': 'default'}}"
)
DISC = "'space': {'discrete': {}}"
CONT = "'space': {'continuous': {'mu_activation': 'None', 'sigma_activation': 'None', 'mu_init': {'name': 'default'}, 'sigma_init': {'name': 'const_initializer', 'val': 0}, 'fixed_sigma': True}}"
OBS = ("obs_dict = {'obs': torch.randn(2, 6, generator=g)}", "{'obs': {0: BATCH}}")
OBS_IMG = (
    "obs_dict = {'obs': torch.randn(2, 12, 12, 3, generator=g)}",
    "{'obs': {0: BATCH}}",
)
A2C = "A2CBuilder.Network"
LAY = "rl_games.algos_torch.layers"
# ------------------------------------------------------------------ wavenet_vocoder
WN = "wavenet_vocoder.wavenet"
WK = "out_channels=16, layers=4, stacks=2, residual_channels=8, gate_channels=8, skip_out_channels=8"
WX = _x("2, 16, 20")
WC = _x("2, 4, 20", "c")


def _net(extra: str = "", space: str = DISC, mlp: str = MLP) -> str:
    return f"{{{mlp}, {space}{', ' + extra if extra else ''}}}, actions_num=3, input_shape=(6,)"


CNN = "'cnn': {'type': 'conv2d', 'activation': 'relu', 'initializer': {'name': 'default'}, 'convs': [{'filters': 4, 'kernel_size': 3, 'strides': 2, 'padding': 0}]}"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ dall-e
    _r("de_enc", "de-encoder", DE, "Encoder", ENC, [_x("2, 3, 16, 16")]),
    _r("de_enc_1ch", "de-encoder", DE, "Encoder", f"{ENC}, input_channels=1", [_x("2, 1, 16, 16")]),
    _r("de_enc_mp", "de-encoder", DE, "Encoder", "n_hid=64, n_blk_per_group=1, vocab_size=512", [_x("2, 3, 16, 16")]),
    _r("de_enc_block", "de-encoder", DE, "EncoderBlock", "n_in=8, n_out=16, n_layers=2", [_x("2, 8, 8, 8")]),
    _r("de_dec", "de-decoder", DD, "Decoder", DEC, [ZTOK]),
    _r("de_dec_mp", "de-decoder", DD, "Decoder", "n_init=8, n_hid=64, n_blk_per_group=1, vocab_size=512", [ZTOK]),
    _r("de_dec_block", "de-decoder", DD, "DecoderBlock", "n_in=8, n_out=16, n_layers=2", [_x("2, 8, 8, 8")]),
    _r("de_conv", "de-conv", "dall_e.utils", "Conv2d", "n_in=4, n_out=8, kw=3", [_x("2, 4, 8, 8")]),
    _r("de_enc_3d", "de-encoder", DE, "Encoder", ENC, [_x("3, 16, 16")]),
    _r("de_enc_f64", "de-encoder", DE, "Encoder", ENC, [(f"x = torch.randn(2, 3, 16, 16, {G}, dtype=torch.float64)", B)]),
    # ------------------------------------------------------------------ pygod
    _r("pg_dominant", "pg-dominant", PN, "DOMINANTBase", "in_dim=8, hid_dim=8, num_layers=4", [X, EI]),
    _r("pg_dominant_sig", "pg-dominant", PN, "DOMINANTBase", "in_dim=8, hid_dim=8, num_layers=2, sigmoid_s=True", [X, EI]),
    _r("pg_dominant_gat", "pg-dominant", PN, "DOMINANTBase", "in_dim=8, hid_dim=8, num_layers=4, backbone=GAT", [X, EI], GAT),
    _r("pg_anomalydae", "pg-anomalydae", PN, "AnomalyDAEBase", "in_dim=8, num_nodes=10, emb_dim=8, hid_dim=8", [X, EI, ("batch_size = 10", NONE)]),
    _r("pg_cola", "pg-cola", PN, "CoLABase", "in_dim=8, hid_dim=8, num_layers=2", [X, EI]),
    _r("pg_gaan", "pg-gaan", PN, "GAANBase", "in_dim=8, noise_dim=4, hid_dim=8, num_layers=4", [X, (f"noise = torch.randn(10, 4, {G})", B)]),
    _r("pg_gae", "pg-gae", PN, "GAEBase", "in_dim=8, hid_dim=8, num_layers=2", [X, EI]),
    _r("pg_gae_recon", "pg-gae", PN, "GAEBase", "in_dim=8, hid_dim=8, num_layers=2, recon_s=True", [X, EI]),
    _r("pg_gae_gin", "pg-gae", PN, "GAEBase", "in_dim=8, hid_dim=8, num_layers=2, backbone=GIN", [X, EI], GIN),
    _r("pg_done", "pg-done", PN, "DONEBase", "x_dim=8, s_dim=10, hid_dim=8, num_layers=4", [X, S, EI]),
    _r("pg_adone", "pg-done", PN, "AdONEBase", "x_dim=8, s_dim=10, hid_dim=8, num_layers=4", [X, S, EI]),
    _r("pg_guide", "pg-guide", PN, "GUIDEBase", "dim_a=8, dim_s=4, hid_a=8, hid_s=4, num_layers=4", [X, (f"s = torch.randn(10, 4, {G})", B), EI]),
    _r("pg_dmgd", "pg-dmgd", PN, "DMGDBase", "in_dim=8, hid_dim=8", [X, EI]),
    _r("pg_ocgnn", "pg-ocgnn", PN, "OCGNNBase", "in_dim=8, hid_dim=8", [X, EI]),
    _r("pg_ocgnn_gat", "pg-ocgnn", PN, "OCGNNBase", "in_dim=8, hid_dim=8, backbone=GAT", [X, EI], GAT),
    _r("pg_decoder", "pg-layers", "pygod.nn.decoder", "DotProductDecoder", "in_dim=8, hid_dim=8, num_layers=2, sigmoid_s=True", [X, EI]),
    _r("pg_gna", "pg-layers", "pygod.nn.encoder", "GNA", "in_channels=10, hidden_channels=8, num_layers=2, out_channels=4, dropout=0.0, act=torch.relu", [S, EI]),
    _r("pg_neighdiff", "pg-layers", "pygod.nn.conv", "NeighDiff", "", [X, EI]),
    _r("pg_dominant_wrong", "pg-dominant", PN, "DOMINANTBase", "in_dim=8, hid_dim=8, num_layers=4", [(f"x = torch.randn(10, 6, {G})", B), EI]),
    _r("pg_dominant_fei", "pg-dominant", PN, "DOMINANTBase", "in_dim=8, hid_dim=8, num_layers=4", [X, ("edge_index = torch.randint(0, 10, (2, 20), generator=g).float()", NONE)]),
    # ------------------------------------------------------------------ aurora
    _r("au_aurora", "au-aurora", AM + ".aurora", "Aurora", AUR, [BATCH], BI),
    _r("au_aurora_lora", "au-aurora", AM + ".aurora", "Aurora", AUR.replace("use_lora=False", "use_lora=True, lora_steps=2"), [BATCH], BI),
    _r("au_aurora_stab", "au-aurora", AM + ".aurora", "Aurora", AUR + ", stabilise_level_agg=True, positive_surf_vars=('2t',)", [BATCH], BI),
    _r("au_patch", "au-encoder", AM + ".patchembed", "LevelPatchEmbed", "var_names=('a', 'b'), patch_size=2, embed_dim=8, history_size=2", [_x("2, 2, 2, 8, 8"), ("var_names = ('a', 'b')", NONE)]),
    _r("au_fourier", "au-encoder", AM + ".fourier", "FourierExpansion", "lower=0.01, upper=100.0", [(f"x = torch.rand(2, 5, {G}) * 10 + 0.1", B), ("d = 8", NONE)]),
    _r("au_resampler", "au-encoder", AM + ".perceiver", "PerceiverResampler", "latent_dim=8, context_dim=8, depth=1, head_dim=4, num_heads=2", [_x("2, 3, 8", "latents"), _x("2, 5, 8")]),
    _r("au_attn", "au-encoder", AM + ".perceiver", "PerceiverAttention", "latent_dim=8, context_dim=8, head_dim=4, num_heads=2", [_x("2, 3, 8", "latents"), _x("2, 5, 8")]),
    _r("au_film", "au-swin", AM + ".film", "AdaptiveLayerNorm", "dim=8, context_dim=4", [_x("2, 6, 8"), _x("2, 4", "c")]),
    _r("au_lora", "au-swin", AM + ".lora", "LoRA", "in_features=8, out_features=8, r=2", [_x("2, 8")]),
    _r("au_lora_roll", "au-swin", AM + ".lora", "LoRARollout", "in_features=8, out_features=8, r=2, alpha=4, dropout=0.0, max_steps=3, mode='all'", [_x("2, 8"), ("step = 1", NONE)]),
    _r("au_winattn", "au-swin", AM + ".swin3d", "WindowAttention", "dim=8, window_size=(1, 2, 2), num_heads=2", [_x("3, 4, 8")]),
    _r("au_mlp", "au-swin", AM + ".swin3d", "MLP", "in_features=8, hidden_features=16", [_x("2, 5, 8")]),
    _r("au_aurora_wrongvar", "au-aurora", AM + ".aurora", "Aurora", AUR, [(BATCH[0].replace("('2t', '10u')}", "('2t',)}"), NONE)], BI),
    # ------------------------------------------------------------------ rl-games
    _r("rl_a2c", "rl-a2c", NB, A2C, _net(), [OBS], ["A2CBuilder"]),
    _r("rl_a2c_cont", "rl-a2c", NB, A2C, _net(space=CONT), [OBS], ["A2CBuilder"]),
    _r("rl_a2c_sep", "rl-a2c", NB, A2C, _net("'separate': True"), [OBS], ["A2CBuilder"]),
    _r("rl_a2c_ln", "rl-a2c", NB, A2C, _net("'normalization': 'layer_norm'"), [OBS], ["A2CBuilder"]),
    _r("rl_a2c_d2rl", "rl-a2c", NB, A2C, _net(mlp=MLP.replace("'default'}", "'default'}, 'd2rl': True")), [OBS], ["A2CBuilder"]),
    _r("rl_a2c_lstm_states", "rl-a2c-rnn", NB, A2C, _net("'rnn': {'units': 8, 'layers': 1, 'name': 'lstm'}"), [("obs_dict = {'obs': torch.randn(2, 6, generator=g), 'rnn_states': (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))}", "{'obs': {0: BATCH}, 'rnn_states': ({1: BATCH}, {1: BATCH})}")], ["A2CBuilder"]),
    _r("rl_a2c_cnn", "rl-a2c-cnn", NB, A2C, _net(CNN).replace("(6,)", "(12, 12, 3)"), [OBS_IMG], ["A2CBuilder"]),
    _r("rl_resnet", "rl-a2c-cnn", NB, "A2CResnetBuilder.Network", _net("'cnn': {'conv_depths': [4, 8], 'activation': 'relu', 'initializer': {'name': 'default'}}").replace("(6,)", "(12, 12, 3)"), [OBS_IMG], ["A2CResnetBuilder"]),
    _r("rl_rms", "rl-norm", "rl_games.algos_torch.running_mean_std", "RunningMeanStd", "insize=(6,)", [_x("2, 6")]),
    _r("rl_rms_denorm", "rl-norm", "rl_games.algos_torch.running_mean_std", "RunningMeanStd", "insize=(6,)", [_x("2, 6"), ("denorm = True", NONE)]),
    _r("rl_rms_obs", "rl-norm", "rl_games.algos_torch.running_mean_std", "RunningMeanStdObs", "insize={'a': (6,), 'b': (3,)}", [("x = {'a': torch.randn(2, 6, generator=g), 'b': torch.randn(2, 3, generator=g)}", "{'a': {0: BATCH}, 'b': {0: BATCH}}")]),
    _r("rl_moving", "rl-norm", "rl_games.algos_torch.moving_mean_std", "GeneralizedMovingStats", "insize=(6,)", [_x("2, 6")]),
    _r("rl_d2rl", "rl-layers", "rl_games.algos_torch.d2rl", "D2RLNet", "input_size=6, units=[8, 8], activations=[torch.nn.ReLU(), torch.nn.ReLU()], norm_func_name=None", [_x("2, 6")]),
    _r("rl_softargmax", "rl-layers", "rl_games.algos_torch.spatial_softmax", "SpatialSoftArgmax", "normalize=True", [_x("2, 3, 6, 6")]),
    _r("rl_symlog", "rl-layers", LAY, "SymLog", "", [_x("2, 6")]),
    # ------------------------------------------------------------------ wavenet_vocoder
    _r("wn_base", "wn-wavenet", WN, "WaveNet", WK, [WX]),
    _r("wn_scalar", "wn-wavenet", WN, "WaveNet", WK.replace("out_channels=16", "out_channels=30") + ", scalar_input=True", [_x("2, 1, 20")]),
    _r("wn_local", "wn-wavenet", WN, "WaveNet", f"{WK}, cin_channels=4", [WX, WC]),
    _r("wn_upsample", "wn-wavenet", WN, "WaveNet", f"{WK}, cin_channels=4, upsample_conditional_features=True, upsample_scales=[2, 2]", [WX, _x("2, 4, 5", "c")]),
    _r("wn_speaker", "wn-wavenet", WN, "WaveNet", f"{WK}, gin_channels=4, n_speakers=3", [WX, ("c = None", NONE), ("g = torch.tensor([[0], [2]])", B)]),
    _r("wn_gext", "wn-wavenet", WN, "WaveNet", f"{WK}, gin_channels=4, use_speaker_embedding=False", [WX, ("c = None", NONE), (f"g = torch.randn(2, 4, 1, {G})", B)]),
    _r("wn_softmax", "wn-wavenet", WN, "WaveNet", WK, [WX, ("c = None", NONE), ("g = None", NONE), ("softmax = True", NONE)]),
    _r("wn_nown", "wn-wavenet", WN, "WaveNet", f"{WK}, weight_normalization=False, legacy=False", [WX]),
    _r("wn_resblock", "wn-modules", "wavenet_vocoder.modules", "ResidualConv1dGLU", "residual_channels=8, gate_channels=8, kernel_size=3, skip_out_channels=8, dilation=2", [_x("2, 8, 20")]),
    _r("wn_resblock_c", "wn-modules", "wavenet_vocoder.modules", "ResidualConv1dGLU", "residual_channels=8, gate_channels=8, kernel_size=3, skip_out_channels=8, cin_channels=4, dilation=2", [_x("2, 8, 20"), WC]),
    _r("wn_conv", "wn-modules", "wavenet_vocoder.conv", "Conv1d", "4, 8, 3, dilation=2, padding=4", [_x("2, 4, 20")]),
    _r("wn_speaker_float", "wn-wavenet", WN, "WaveNet", f"{WK}, gin_channels=4, n_speakers=3", [WX, ("c = None", NONE), ("g = torch.tensor([[0.0], [2.0]])", B)]),
    _r("wn_wrong_channels", "wn-wavenet", WN, "WaveNet", WK, [_x("2, 8, 20")]),
    _r("rl_a2c_wrong", "rl-a2c", NB, A2C, _net(), [("obs_dict = {'obs': torch.randn(2, 5, generator=g)}", "{'obs': {0: BATCH}}")], ["A2CBuilder"]),
    _r("rl_a2c_tensor", "rl-a2c", NB, A2C, _net(), [_x("2, 6", "obs_dict")], ["A2CBuilder"]),
]
# fmt: on
