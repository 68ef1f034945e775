"""The recipes of scripts/triage_sweep_zoo22.py: tiny-config flowtorch, sb3-contrib,
hippynn, allRank and lightly models (random weights, nothing downloaded: every model is
built from its classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo21_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. flowtorch's
bijectors take a (batch, features) sample, sb3-contrib's policies a (batch, obs)
observation (gymnasium spaces built in module-level lines), hippynn's networks and
layers flat atoms (atoms, features) with pair index lists (pairs,), allRank's models a
(batch, slate, features) slate with its padding mask and indices, lightly's heads and
losses (batch, features) embeddings."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
PAIRS = "{0: SEQ}"  # hippynn's pair lists: their own length
# ------------------------------------------------------------------ flowtorch
FB = "flowtorch.bijectors"
DAR = ["from flowtorch.parameters import DenseAutoregressive"]
S4 = "shape=torch.Size([4])"
FX = _x("8, 4")
# ------------------------------------------------------------------ sb3-contrib
SPACES = [
    "from gymnasium import spaces",
    "from stable_baselines3.common.utils import get_schedule_fn",
    "BOX = spaces.Box(-1.0, 1.0, (4,))",
    "ACT = spaces.Box(-1.0, 1.0, (2,))",
    "DISC = spaces.Discrete(3)",
]
FLAT = SPACES + ["from stable_baselines3.common.torch_layers import FlattenExtractor"]
LR = "get_schedule_fn(1e-3)"
OBS = _x("2, 4", "obs")
DET = ("deterministic = True", NONE)
# ------------------------------------------------------------------ hippynn
HN = "hippynn.networks.hipnn"
HL = "hippynn.layers"
HIPNN = (
    "n_features=8, n_sensitivities=4, dist_soft_min=0.5, dist_soft_max=3.0, "
    "dist_hard_max=4.0, n_atom_layers=1, n_interaction_layers=1, n_input_features=3"
)
FEAT = _x("6, 3", "features")
PF = (f"pair_first = torch.randint(0, 6, (10,), {G})", PAIRS)
PS = (f"pair_second = torch.randint(0, 6, (10,), {G})", PAIRS)
PD = (f"pair_dist = torch.rand(10, {G}) * 2 + 0.5", PAIRS)
PC = _x("10, 3", "pair_coord", PAIRS)
PAIR = [PF, PS, PD]
MOL = ("mol_index = torch.tensor([0, 0, 0, 1, 1, 1])", B)
NMOL = ("n_molecules = 2", NONE)
# ------------------------------------------------------------------ allRank
AM = "allrank.models.model"
AT = "allrank.models.transformer"
AP = "allrank.models.positional"
SLATE = _x("2, 5, 8")
SMASK = ("mask = torch.tensor([[False] * 5, [False, False, False, True, True]])", B)
IDX = ("indices = torch.arange(5).repeat(2, 1)", B)
TRANS = "make_transformer(N=1, d_ff=16, h=2, dropout=0.0, n_features=8"
PE = ["from allrank.config import PositionalEncoding"]
FC = "FCModel([8], input_norm=True, activation='ReLU', dropout=0.0, n_features=6)"
# ------------------------------------------------------------------ lightly
LH = "lightly.models.modules.heads"
LL = "lightly.loss"
E8 = _x("4, 8")
Z0 = _x("4, 6", "z_a")
Z1 = _x("4, 6", "z_b")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ flowtorch
    _r("ft_affine_ar", "ft-autoregressive", FB, "AffineAutoregressive", f"DenseAutoregressive(hidden_dims=(8,)), {S4}", [FX], DAR),
    _r("ft_spline_ar", "ft-autoregressive", FB, "SplineAutoregressive", f"DenseAutoregressive(hidden_dims=(8,)), {S4}", [FX], DAR),
    _r("ft_dense_ar", "ft-parameters", "flowtorch.parameters", "DenseAutoregressive", "[torch.Size([4]), torch.Size([4])], torch.Size([4]), None, hidden_dims=(8,)", [FX]),
    _r("ft_affine", "ft-elementwise", FB, "Affine", S4, [FX]),
    _r("ft_spline", "ft-elementwise", FB, "Spline", S4, [FX]),
    _r("ft_exp", "ft-fixed", FB, "Exp", S4, [FX]),
    _r("ft_sigmoid", "ft-fixed", FB, "Sigmoid", S4, [FX]),
    _r("ft_tanh", "ft-fixed", FB, "Tanh", S4, [FX]),
    _r("ft_softplus", "ft-fixed", FB, "Softplus", S4, [FX]),
    _r("ft_elu", "ft-fixed", FB, "ELU", S4, [FX]),
    _r("ft_leaky_relu", "ft-fixed", FB, "LeakyReLU", S4, [FX]),
    _r("ft_power", "ft-fixed", FB, "Power", f"{S4}, exponent=torch.tensor(2.0)", [(f"x = torch.rand(8, 4, {G}) + 0.5", B)]),
    _r("ft_permute", "ft-fixed", FB, "Permute", f"{S4}, permutation=torch.tensor([3, 1, 0, 2])", [FX]),
    _r("ft_affine_fixed", "ft-fixed", FB, "AffineFixed", f"{S4}, loc=1.0, scale=2.0", [FX]),
    _r("ft_invert", "ft-compose", FB, "Invert", f"Exp(), {S4}", [FX], ["Exp"]),
    _r("ft_affine_ar_wrong", "ft-autoregressive", FB, "AffineAutoregressive", f"DenseAutoregressive(hidden_dims=(8,)), {S4}", [_x("8, 5")], DAR),
    _r("ft_affine_ar_int", "ft-autoregressive", FB, "AffineAutoregressive", f"DenseAutoregressive(hidden_dims=(8,)), {S4}", [(f"x = torch.randint(0, 4, (8, 4), {G})", B)], DAR),
    # ------------------------------------------------------------------ sb3-contrib
    _r("sc_qrdqn", "sc-qrdqn", "sb3_contrib.qrdqn.policies", "QRDQNPolicy", f"BOX, DISC, {LR}, n_quantiles=5, net_arch=[8]", [OBS], SPACES),
    _r("sc_qrdqn_det", "sc-qrdqn", "sb3_contrib.qrdqn.policies", "QRDQNPolicy", f"BOX, DISC, {LR}, n_quantiles=5, net_arch=[8]", [OBS, DET], SPACES),
    _r("sc_quantile_net", "sc-qrdqn", "sb3_contrib.qrdqn.policies", "QuantileNetwork", "BOX, DISC, FlattenExtractor(BOX), 4, n_quantiles=5, net_arch=[8]", [OBS], FLAT),
    _r("sc_qrdqn_cnn", "sc-qrdqn", "sb3_contrib.qrdqn.policies", "CnnPolicy", f"spaces.Box(0, 255, (3, 36, 36), dtype=np.uint8), DISC, {LR}, n_quantiles=5, features_extractor_kwargs=dict(features_dim=8)", [(f"obs = torch.randint(0, 256, (2, 3, 36, 36), {G}, dtype=torch.uint8)", B)], SPACES + ["import numpy as np"]),
    _r("sc_qrdqn_dict", "sc-qrdqn", "sb3_contrib.qrdqn.policies", "MultiInputPolicy", f"spaces.Dict({{'a': BOX, 'b': spaces.Box(-1.0, 1.0, (2,))}}), DISC, {LR}, n_quantiles=5, net_arch=[8]", [(f"obs = {{'a': torch.randn(2, 4, {G}), 'b': torch.randn(2, 2, {G})}}", "{'a': {0: BATCH}, 'b': {0: BATCH}}")], SPACES),
    _r("sc_tqc", "sc-tqc", "sb3_contrib.tqc.policies", "TQCPolicy", f"BOX, ACT, {LR}, net_arch=[8], n_quantiles=5, n_critics=2", [OBS, DET], SPACES),
    _r("sc_tqc_actor", "sc-tqc", "sb3_contrib.tqc.policies", "Actor", "BOX, ACT, [8], FlattenExtractor(BOX), 4", [OBS, DET], FLAT),
    _r("sc_tqc_critic", "sc-tqc", "sb3_contrib.tqc.policies", "Critic", "BOX, ACT, [8], FlattenExtractor(BOX), 4, n_quantiles=5, n_critics=2", [OBS, _x("2, 2", "action")], FLAT),
    _r("sc_crossq", "sc-crossq", "sb3_contrib.crossq.policies", "CrossQPolicy", f"BOX, ACT, {LR}, net_arch=[8]", [OBS, DET], SPACES),
    _r("sc_crossq_critic", "sc-crossq", "sb3_contrib.crossq.policies", "CrossQCritic", "BOX, ACT, [8], FlattenExtractor(BOX), 4, n_critics=2", [OBS, _x("2, 2", "actions")], FLAT),
    _r("sc_batch_renorm", "sc-crossq", "sb3_contrib.common.torch_layers", "BatchRenorm", "4", [_x("8, 4")]),
    _r("sc_ars_linear", "sc-ars", "sb3_contrib.ars.policies", "ARSLinearPolicy", "BOX, ACT, with_bias=True", [OBS], SPACES),
    _r("sc_ars_disc", "sc-ars", "sb3_contrib.ars.policies", "ARSPolicy", "BOX, DISC, net_arch=[8]", [OBS], SPACES),
    _r("sc_maskable", "sc-maskable", "sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy", f"BOX, DISC, {LR}, net_arch=[8]", [OBS, DET], SPACES),
    _r("sc_maskable_mask", "sc-maskable", "sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy", f"BOX, DISC, {LR}, net_arch=[8]", [OBS, DET, ("action_masks = torch.tensor([[True, False, True], [True, True, False]])", B)], SPACES),
    _r("sc_recurrent", "sc-recurrent", "sb3_contrib.common.recurrent.policies", "RecurrentActorCriticPolicy", f"BOX, DISC, {LR}, net_arch=[8], lstm_hidden_size=8", [OBS, ("lstm_states = RNNStates((torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)), (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8)))", NONE), ("episode_starts = torch.zeros(2)", B), DET], SPACES + ["from sb3_contrib.common.recurrent.type_aliases import RNNStates"]),
    _r("sc_qrdqn_wrong", "sc-qrdqn", "sb3_contrib.qrdqn.policies", "QRDQNPolicy", f"BOX, DISC, {LR}, n_quantiles=5, net_arch=[8]", [_x("2, 5", "obs")], SPACES),
    # ------------------------------------------------------------------ hippynn
    _r("hp_hipnn", "hp-networks", HN, "Hipnn", HIPNN, [FEAT, *PAIR]),
    _r("hp_hipnn_2d_dist", "hp-networks", HN, "Hipnn", HIPNN, [FEAT, PF, PS, (f"pair_dist = torch.rand(10, 1, {G}) * 2 + 0.5", PAIRS)]),
    _r("hp_hipnn_noresnet", "hp-networks", HN, "Hipnn", HIPNN + ", resnet=False", [FEAT, *PAIR]),
    _r("hp_hipnn_vec", "hp-networks", HN, "HipnnVec", HIPNN, [FEAT, *PAIR, PC]),
    _r("hp_hipnn_quad", "hp-networks", HN, "HipnnQuad", HIPNN, [FEAT, *PAIR, PC]),
    _r("hp_hiphop", "hp-networks", "hippynn.networks.hiphop", "HipHopNNModule", HIPNN + ", l_max=2, n_max=2", [FEAT, *PAIR, PC]),
    _r("hp_onehot", "hp-indexers", "hippynn.layers.indexers", "OneHotSpecies", "species_set=[0, 1, 6]", [("species = torch.tensor([[1, 6, 0, 0], [1, 1, 6, 0]])", B)]),
    _r("hp_padding", "hp-indexers", "hippynn.layers.indexers", "PaddingIndexer", "", [_x("2, 4, 3", "features"), ("nonblank = torch.tensor([[True, True, True, False], [True, True, False, False]])", B)]),
    _r("hp_molsum", "hp-indexers", "hippynn.layers.indexers", "MolSummer", "", [_x("6, 8", "features"), MOL, NMOL]),
    _r("hp_fuzzy", "hp-indexers", "hippynn.layers.indexers", "FuzzyHistogram", "length=8, vmin=0.0, vmax=2.0", [(f"values = torch.rand(6, {G}) * 2", B)]),
    _r("hp_henergy", "hp-targets", "hippynn.layers.targets", "HEnergy", "feature_sizes=[3, 8]", [(f"all_features = [torch.randn(6, 3, {G}), torch.randn(6, 8, {G})]", NONE), MOL, NMOL]),
    _r("hp_hcharge", "hp-targets", "hippynn.layers.targets", "HCharge", "feature_sizes=[3, 8]", [(f"all_features = [torch.randn(6, 3, {G}), torch.randn(6, 8, {G})]", NONE)]),
    _r("hp_dipole", "hp-physics", "hippynn.layers.physics", "Dipole", "", [_x("6, 1", "charges"), _x("6, 3", "positions"), MOL, NMOL]),
    _r("hp_coulomb", "hp-physics", "hippynn.layers.physics", "CoulombEnergy", "energy_conversion_factor=1.0", [_x("6, 1", "charges"), PD, PF, PS, MOL, NMOL]),
    _r("hp_screened", "hp-physics", "hippynn.layers.physics", "ScreenedCoulombEnergy", "1.0, WolfScreening(alpha=0.3), radius=torch.tensor(4.0)", [_x("6, 1", "charges"), PD, PF, PS, MOL, NMOL], ["WolfScreening"]),
    _r("hp_wolf", "hp-physics", "hippynn.layers.physics", "WolfScreening", "alpha=0.3", [PD, ("radius = torch.tensor(4.0)", NONE)]),
    _r("hp_qscreen", "hp-physics", "hippynn.layers.physics", "QScreening", "p_value=2", [PD, ("radius = torch.tensor(4.0)", NONE)]),
    _r("hp_vecmag", "hp-physics", "hippynn.layers.physics", "VecMag", "", [_x("6, 3, 8", "vector_feature")]),
    _r("hp_interact", "hp-layers", "hippynn.layers.hiplayers.interactions", "InteractLayer", "3, 8, 4, 0.5, 3.0, 4.0, InverseSensitivityModule", [FEAT, *PAIR], ["from hippynn.layers.hiplayers.sensitivity import InverseSensitivityModule"]),
    _r("hp_hipnn_wrong", "hp-networks", HN, "Hipnn", HIPNN, [_x("6, 4", "features"), *PAIR]),
    # ------------------------------------------------------------------ allRank
    _r("ar_fc", "ar-model", AM, "FCModel", "[16, 8], input_norm=True, activation='ReLU', dropout=0.0, n_features=6", [_x("2, 5, 6")]),
    _r("ar_fc_plain", "ar-model", AM, "FCModel", "[8], input_norm=False, activation=None, dropout=None, n_features=6", [_x("2, 5, 6")]),
    _r("ar_output", "ar-model", AM, "OutputLayer", "8, 1, output_activation='Sigmoid'", [SLATE]),
    _r("ar_output_multi", "ar-model", AM, "OutputLayer", "8, 3", [SLATE]),
    _r("ar_ltr", "ar-model", AM, "LTRModel", f"{FC}, {TRANS}), OutputLayer(8, 1)", [_x("2, 5, 6"), SMASK, IDX], ["FCModel", "OutputLayer", "from allrank.models.transformer import make_transformer"]),
    _r("ar_ltr_noenc", "ar-model", AM, "LTRModel", f"{FC}, None, OutputLayer(8, 1)", [_x("2, 5, 6"), SMASK, IDX], ["FCModel", "OutputLayer"]),
    _r("ar_ltr_fixed", "ar-model", AM, "LTRModel", f"{FC}, {TRANS}, positional_encoding=PositionalEncoding('fixed', 8)), OutputLayer(8, 1)", [_x("2, 5, 6"), SMASK, IDX], ["FCModel", "OutputLayer", "from allrank.models.transformer import make_transformer"] + PE),
    _r("ar_encoder", "ar-transformer", AT, "make_transformer", "N=1, d_ff=16, h=2, dropout=0.0, n_features=8", [SLATE, SMASK, IDX]),
    _r("ar_encoder_fixed", "ar-transformer", AT, "make_transformer", "N=1, d_ff=16, h=2, dropout=0.0, n_features=8, positional_encoding=PositionalEncoding('fixed', 8)", [SLATE, SMASK, IDX], PE),
    _r("ar_encoder_learned", "ar-transformer", AT, "make_transformer", "N=2, d_ff=16, h=2, dropout=0.0, n_features=8, positional_encoding=PositionalEncoding('learned', 8)", [SLATE, SMASK, IDX], PE),
    _r("ar_mha", "ar-transformer", AT, "MultiHeadedAttention", "2, 8, dropout=0.0", [_x("2, 5, 8", "query"), _x("2, 5, 8", "key"), _x("2, 5, 8", "value"), ("mask = torch.tensor([[[False] * 5], [[False, False, False, True, True]]])", B)]),
    _r("ar_mha_nomask", "ar-transformer", AT, "MultiHeadedAttention", "2, 8, dropout=0.0", [_x("2, 5, 8", "query"), _x("2, 5, 8", "key"), _x("2, 5, 8", "value")]),
    _r("ar_ffn", "ar-transformer", AT, "PositionwiseFeedForward", "8, 16, dropout=0.0", [SLATE]),
    _r("ar_layernorm", "ar-transformer", AT, "LayerNorm", "8", [SLATE]),
    _r("ar_fixed_pe", "ar-positional", AP, "FixedPositionalEncoding", "8, max_len=16", [SLATE, SMASK, IDX]),
    _r("ar_learned_pe", "ar-positional", AP, "LearnedPositionalEncoding", "8, max_len=16", [SLATE, SMASK, IDX]),
    _r("ar_mha_wrong", "ar-transformer", AT, "MultiHeadedAttention", "2, 8, dropout=0.0", [_x("2, 5, 6", "query"), _x("2, 5, 6", "key"), _x("2, 5, 6", "value")]),
    _r("ar_fixed_pe_float", "ar-positional", AP, "FixedPositionalEncoding", "8, max_len=16", [SLATE, SMASK, ("indices = torch.arange(5.0).repeat(2, 1)", B)]),
    # ------------------------------------------------------------------ lightly
    _r("lt_simclr", "lt-heads", LH, "SimCLRProjectionHead", "input_dim=8, hidden_dim=16, output_dim=4", [E8]),
    _r("lt_barlow", "lt-heads", LH, "BarlowTwinsProjectionHead", "input_dim=8, hidden_dim=16, output_dim=4", [E8]),
    _r("lt_byol_pred", "lt-heads", LH, "BYOLPredictionHead", "input_dim=8, hidden_dim=16, output_dim=4", [E8]),
    _r("lt_moco", "lt-heads", LH, "MoCoProjectionHead", "input_dim=8, hidden_dim=16, output_dim=4", [E8]),
    _r("lt_dino", "lt-heads", LH, "DINOProjectionHead", "input_dim=8, hidden_dim=16, bottleneck_dim=4, output_dim=6", [E8]),
    _r("lt_msn", "lt-heads", LH, "MSNProjectionHead", "input_dim=8, hidden_dim=16, output_dim=4", [E8]),
    _r("lt_swav_protos", "lt-heads", LH, "SwaVPrototypes", "input_dim=8, n_prototypes=6", [E8]),
    _r("lt_smog_protos", "lt-heads", LH, "SMoGPrototypes", "torch.randn(3, 8), beta=0.9", [E8, _x("3, 8", "group_features", NONE)]),
    _r("lt_mmcr_head", "lt-heads", LH, "MMCRProjectionHead", "input_dim=8, hidden_dim=16, output_dim=4", [E8]),
    _r("lt_ntxent", "lt-loss", LL, "NTXentLoss", "temperature=0.5", [_x("4, 6", "out0"), _x("4, 6", "out1")]),
    _r("lt_ntxent_mem", "lt-loss", LL, "NTXentLoss", "temperature=0.5, memory_bank_size=(16, 6)", [_x("4, 6", "out0"), _x("4, 6", "out1")]),
    _r("lt_barlow_loss", "lt-loss", LL, "BarlowTwinsLoss", "", [Z0, Z1]),
    _r("lt_vicreg_loss", "lt-loss", LL, "VICRegLoss", "", [Z0, Z1]),
    _r("lt_tico_loss", "lt-loss", LL, "TiCoLoss", "", [Z0, Z1]),
    _r("lt_dcl_loss", "lt-loss", LL, "DCLLoss", "", [_x("4, 6", "out0"), _x("4, 6", "out1")]),
    _r("lt_dclw_loss", "lt-loss", LL, "DCLWLoss", "", [_x("4, 6", "out0"), _x("4, 6", "out1")]),
    _r("lt_koleo", "lt-loss", LL, "KoLeoLoss", "", [E8]),
    _r("lt_mmcr_loss", "lt-loss", LL, "MMCRLoss", "", [_x("4, 3, 8", "online"), _x("4, 3, 8", "momentum")]),
    _r("lt_msn_loss", "lt-loss", LL, "MSNLoss", "", [_x("4, 8", "anchors"), _x("2, 8", "targets"), _x("6, 8", "prototypes", NONE)]),
    _r("lt_dino_loss", "lt-loss", LL, "DINOLoss", "output_dim=6", [(f"teacher_out = [torch.randn(4, 6, {G}), torch.randn(4, 6, {G})]", NONE), (f"student_out = [torch.randn(4, 6, {G})]", NONE)]),
    _r("lt_nn_memory", "lt-memory", "lightly.models.modules", "NNMemoryBankModule", "size=(16, 8)", [E8]),
    _r("lt_resnet9", "lt-backbone", "lightly.models", "ResNetGenerator", "'resnet-9', num_classes=10", [_x("2, 3, 32, 32")]),
    _r("lt_ntxent_wrong", "lt-loss", LL, "NTXentLoss", "temperature=0.5", [_x("4, 6", "out0"), _x("4, 5", "out1")]),
]
# fmt: on
