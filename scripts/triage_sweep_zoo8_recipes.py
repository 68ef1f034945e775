"""The recipes of scripts/triage_sweep_zoo8.py: tiny-config mambapy, torchani, nnAudio,
pytorch-crf and pfrl models (random weights, nothing downloaded) and the arguments a
user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe): `inputs` are the lines of
example_inputs() (`g` is a seeded torch.Generator), each with its `dynamic` spec: `True`
when dim 0 is the batch (`{0: BATCH}`), a string for another spec (`{0: BATCH, 1: SEQ}`
for a (batch, sequence) input, `{1: BATCH}` for a sequence-major one), `False` for none
(a flag, a float, `None`). Constructor kwargs written as a string are source (they may
name the extra imported classes and `torch`); `extra` adds names imported from the
module, or whole import lines. A "class" may be a library factory function
(torchani's `simple_ani`) or a dotted classmethod (`AEVComputer.like_1x`)."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as None / a flag / a Python number: no Dim
BS = "{0: BATCH, 1: SEQ}"  # (batch, sequence, ...)


def _x(shape: str, name: str = "x", spec=B) -> tuple:
    return (f"{name} = torch.randn({shape}, {G})", spec)


def _r(case, fam, module, cls, kw, inputs, extra=None) -> tuple:
    r = (case, fam, module, cls, kw, inputs)
    return r + ((extra,) if extra else ())


# ------------------------------------------------------------------ mambapy
MB = "mambapy.mamba"
MCFG = "MambaConfig(d_model=16, n_layers=2, d_state=4, d_conv=3)"
SEQX = _x("2, 8, 16", "x", BS)  # (batch, length, d_model)
TOK = (f"tokens = torch.randint(1, 32, (2, 8), {G})", BS)
JCFG = (
    "JambaLMConfig(d_model=16, n_layers=4, mlp_size=32, d_state=4, d_conv=3,"
    " num_attention_heads=2, num_key_value_heads=1, num_experts=4,"
    " num_experts_per_tok=2, attn_layer_offset=1, attn_layer_period=2,"
    " expert_layer_offset=1, expert_layer_period=2, vocab_size=32)"
)
VCFG = "MambaConfig(d_model=16, n_layers=2, d_state=4, d_conv=3)"
# ------------------------------------------------------------------ torchani
SPECIES = ("species = torch.tensor([[0, 1, 0, 0, 3], [1, 0, 0, 2, 0]])", B)
ZNUMS = ("species = torch.tensor([[1, 6, 1, 1, 8], [6, 1, 1, 7, 1]])", B)
COORDS = (f"coords = torch.randn(2, 5, 3, {G}) * 1.5", B)
SC = (
    f"species_coordinates = (torch.tensor([[1, 6, 1, 1, 8], [6, 1, 1, 7, 1]]), torch.randn(2, 5, 3, {G}) * 1.5)",
    "({0: BATCH}, {0: BATCH})",
)
ANI = "symbols=('H', 'C', 'N', 'O'), lot='wb97x-631gd', radial_shifts=4, angular_shifts=2, sections=2"
AEV = "num_species=4, radial_num_shifts=4, angular_num_shifts=2, angular_num_sections=2"
# ------------------------------------------------------------------ nnAudio
NA = "nnAudio.features"
WAV = _x("2, 2048")  # (batch, samples)
SR = "sr=8000"
# ------------------------------------------------------------------ pytorch-crf
EMI = _x("6, 2, 4", "emissions", "{0: SEQ, 1: BATCH}")  # (seq, batch, tags)
TAGS = (f"tags = torch.randint(0, 4, (6, 2), {G})", "{0: SEQ, 1: BATCH}")
MASK = (
    "mask = torch.tensor([[1, 1]] * 4 + [[1, 0]] * 2, dtype=torch.uint8)",
    "{0: SEQ, 1: BATCH}",
)
EMI_BF = _x("2, 6, 4", "emissions", BS)
TAGS_BF = (f"tags = torch.randint(0, 4, (2, 6), {G})", BS)
# ------------------------------------------------------------------ pfrl
OBS = _x("8, 4", "obs")
ACT = _x("8, 2", "action")
IMG = _x("2, 4, 84, 84")  # an Atari frame stack

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ mambapy
    _r("mamba", "mamba-mamba", MB, "Mamba", MCFG, [SEQX], ["MambaConfig"]),
    _r("mamba_seq_scan", "mamba-mamba", MB, "Mamba", "MambaConfig(d_model=16, n_layers=1, d_state=4, d_conv=3, pscan=False)", [SEQX], ["MambaConfig"]),
    _r("mamba_inner_ln", "mamba-mamba", MB, "Mamba", "MambaConfig(d_model=16, n_layers=1, d_state=4, d_conv=3, inner_layernorms=True, mup=True)", [SEQX], ["MambaConfig"]),
    _r("mamba_block", "mamba-mamba", MB, "MambaBlock", MCFG, [SEQX], ["MambaConfig"]),
    _r("mamba_residual", "mamba-mamba", MB, "ResidualBlock", MCFG, [SEQX], ["MambaConfig"]),
    _r("mamba_rmsnorm", "mamba-mamba", MB, "RMSNorm", "d_model=16", [SEQX]),
    _r("jamba", "mamba-jamba", "mambapy.jamba", "Jamba", JCFG, [SEQX], ["JambaLMConfig"]),
    _r("jamba_lm", "mamba-jamba", "mambapy.jamba", "JambaLM", JCFG, [TOK], ["JambaLMConfig"]),
    _r("jamba_moe", "mamba-jamba", "mambapy.jamba", "SparseMoEBlock", f"{JCFG}, num_experts=4, num_experts_per_tok=2", [SEQX], ["JambaLMConfig"]),
    _r("jamba_attention", "mamba-jamba", "mambapy.jamba", "AttentionLayer", f"{JCFG}, num_experts=1", [SEQX], ["JambaLMConfig"]),
    _r("vmamba", "mamba-vim", "mambapy.vim", "VMamba", VCFG, [SEQX], ["MambaConfig"]),
    _r("vmamba_block", "mamba-vim", "mambapy.vim", "VMambaBlock", VCFG, [SEQX], ["MambaConfig"]),
    # ------------------------------------------------------------------ torchani
    _r("ani_simple", "ani-arch", "torchani.arch", "simple_ani", ANI, [SC]),
    _r("ani_simple_dispersion", "ani-arch", "torchani.arch", "simple_ani", f"{ANI}, dispersion=True, repulsion=False", [SC]),
    _r("ani_simple_shared", "ani-arch", "torchani.arch", "simple_ani", f"{ANI}, container='ANISharedNetworks', repulsion=False", [SC]),
    _r("ani_aev", "ani-aev", "torchani.aev", "AEVComputer.like_1x", AEV, [SPECIES, COORDS]),
    _r("ani_aev_2x", "ani-aev", "torchani.aev", "AEVComputer.like_2x", AEV, [SPECIES, COORDS]),
    _r("ani_networks", "ani-nn", "torchani.nn", "ANINetworks.like_1x", "in_dim=24", [SPECIES, _x("2, 5, 24", "aevs")]),
    _r("ani_networks_atomic", "ani-nn", "torchani.nn", "ANINetworks.like_1x", "in_dim=24", [SPECIES, _x("2, 5, 24", "aevs"), ("atomic = True", NONE)]),
    _r("ani_simple_ensemble", "ani-arch", "torchani.arch", "simple_ani", f"{ANI}, ensemble_size=2, repulsion=False", [SC]),
    _r("ani_simple_pbc", "ani-arch", "torchani.arch", "simple_ani", f"{ANI}, repulsion=False", [SC, ("cell = torch.eye(3) * 12.0", NONE), ("pbc = torch.tensor([True, True, True])", NONE)]),
    _r("ani_simple_q", "ani-arch", "torchani.arch", "simple_aniq", ANI, [SC]),
    _r("ani_aev_cell_list_single", "ani-aev", "torchani.aev", "AEVComputer.like_1x", f"{AEV}, neighborlist='cell_list'", [("species = torch.tensor([[0, 1, 0, 0, 3]])", NONE), (f"coords = torch.randn(1, 5, 3, {G}) * 1.5", NONE)]),
    _r("ani_aev_smooth", "ani-aev", "torchani.aev", "AEVComputer.like_1x", f"{AEV}, cutoff_fn='smooth'", [SPECIES, COORDS]),
    _r("ani_species_converter", "ani-nn", "torchani.nn", "SpeciesConverter", "['H', 'C', 'N', 'O']", [ZNUMS]),
    _r("ani_all_pairs", "ani-neighbors", "torchani.neighbors", "AllPairs", {}, [("cutoff = 5.2", NONE), SPECIES, COORDS]),
    _r("ani_self_energy", "ani-sae", "torchani.sae", "SelfEnergy", "['H', 'C', 'N', 'O'], [-0.5, -37.8, -54.6, -75.0]", [SPECIES]),
    # ------------------------------------------------------------------ nnAudio
    _r("nna_stft", "nna-stft", NA, "STFT", f"n_fft=64, hop_length=16, {SR}, verbose=False", [WAV]),
    _r("nna_stft_magnitude", "nna-stft", NA, "STFT", f"n_fft=64, hop_length=16, {SR}, output_format='Magnitude', freq_scale='log', fmin=50, fmax=4000, verbose=False", [WAV]),
    _r("nna_stft_phase", "nna-stft", NA, "STFT", f"n_fft=64, hop_length=16, {SR}, output_format='Phase', center=False, verbose=False", [WAV]),
    _r("nna_istft", "nna-stft", NA, "iSTFT", f"n_fft=64, hop_length=16, {SR}, verbose=False", [_x("2, 33, 20, 2", "X"), ("onesided = True", NONE)]),
    _r("nna_mel", "nna-mel", NA, "MelSpectrogram", f"{SR}, n_fft=128, n_mels=16, hop_length=32, verbose=False", [WAV]),
    _r("nna_mel_trainable", "nna-mel", NA, "MelSpectrogram", f"{SR}, n_fft=128, n_mels=16, hop_length=32, trainable_mel=True, trainable_STFT=True, verbose=False", [WAV]),
    _r("nna_mfcc", "nna-mel", NA, "MFCC", f"{SR}, n_mfcc=8, n_fft=128, n_mels=16, hop_length=32, verbose=False", [WAV]),
    _r("nna_cqt1992", "nna-cqt", NA, "CQT1992v2", f"{SR}, hop_length=64, fmin=200, n_bins=12, bins_per_octave=12, verbose=False", [WAV]),
    _r("nna_cqt2010", "nna-cqt", NA, "CQT2010v2", f"{SR}, hop_length=64, fmin=200, n_bins=12, bins_per_octave=12, verbose=False", [WAV]),
    _r("nna_cqt_complex", "nna-cqt", NA, "CQT1992v2", f"{SR}, hop_length=64, fmin=200, n_bins=12, bins_per_octave=12, output_format='Complex', verbose=False", [WAV]),
    _r("nna_cqt1992_fft", "nna-cqt", NA, "CQT1992", f"{SR}, hop_length=64, fmin=200, n_bins=12, bins_per_octave=12", [WAV]),
    _r("nna_cqt2010_fft", "nna-cqt", NA, "CQT2010", f"{SR}, hop_length=64, fmin=200, n_bins=12, bins_per_octave=12, verbose=False", [WAV]),
    _r("nna_vqt", "nna-vqt", NA, "VQT", f"{SR}, hop_length=64, fmin=200, n_bins=12, bins_per_octave=12, gamma=2, verbose=False", [WAV]),
    _r("nna_gammatone", "nna-gammatone", NA, "Gammatonegram", f"{SR}, n_fft=128, n_bins=16, hop_length=32, verbose=False", [WAV]),
    # ------------------------------------------------------------------ pytorch-crf
    _r("crf", "crf-crf", "torchcrf", "CRF", "num_tags=4", [EMI, TAGS]),
    _r("crf_mask", "crf-crf", "torchcrf", "CRF", "num_tags=4", [EMI, TAGS, MASK]),
    _r("crf_mean", "crf-crf", "torchcrf", "CRF", "num_tags=4", [EMI, TAGS, ("mask = None", NONE), ("reduction = 'mean'", NONE)]),
    _r("crf_token_mean", "crf-crf", "torchcrf", "CRF", "num_tags=4", [EMI, TAGS, MASK, ("reduction = 'token_mean'", NONE)]),
    _r("crf_batch_first", "crf-crf", "torchcrf", "CRF", "num_tags=4, batch_first=True", [EMI_BF, TAGS_BF]),
    # ------------------------------------------------------------------ pfrl
    _r("pfrl_mlp", "pfrl-nn", "pfrl.nn", "MLP", "in_size=4, out_size=2, hidden_sizes=(8, 8)", [OBS]),
    _r("pfrl_mlp_bn", "pfrl-nn", "pfrl.nn", "MLPBN", "in_size=4, out_size=2, hidden_sizes=(8, 8), normalize_input=True", [OBS]),
    _r("pfrl_small_atari", "pfrl-nn", "pfrl.nn", "SmallAtariCNN", {}, [IMG]),
    _r("pfrl_large_atari", "pfrl-nn", "pfrl.nn", "LargeAtariCNN", "n_output_channels=64", [IMG]),
    _r("pfrl_empirical_norm", "pfrl-nn", "pfrl.nn", "EmpiricalNormalization", "shape=(4,)", [OBS]),
    _r("pfrl_empirical_norm_clip", "pfrl-nn", "pfrl.nn", "EmpiricalNormalization", "shape=(4,), clip_threshold=5.0, until=100", [OBS, ("update = False", NONE)]),
    _r("pfrl_noisy_linear", "pfrl-nn", "pfrl.nn", "FactorizedNoisyLinear", "torch.nn.Linear(4, 2)", [OBS]),
    _r("pfrl_bound_by_tanh", "pfrl-nn", "pfrl.nn", "BoundByTanh", "low=[-1.0, -2.0], high=[1.0, 2.0]", [ACT]),
    _r("pfrl_concat_obs_action", "pfrl-nn", "pfrl.nn", "ConcatObsAndAction", {}, [("obs_action = (torch.randn(8, 4), torch.randn(8, 2))", "({0: BATCH}, {0: BATCH})")]),
    _r("pfrl_branched", "pfrl-nn", "pfrl.nn", "Branched", "torch.nn.Linear(4, 2), torch.nn.Linear(4, 3)", [OBS]),
    _r("pfrl_gaussian_head", "pfrl-policies", "pfrl.policies", "GaussianHeadWithStateIndependentCovariance", "action_size=2, var_type='diagonal'", [_x("8, 2", "mean")]),
    _r("pfrl_gaussian_diag", "pfrl-policies", "pfrl.policies", "GaussianHeadWithDiagonalCovariance", {}, [_x("8, 4", "mean_var")]),
    _r("pfrl_gaussian_fixed", "pfrl-policies", "pfrl.policies", "GaussianHeadWithFixedCovariance", "scale=0.5", [_x("8, 2", "mean")]),
    _r("pfrl_softmax_head", "pfrl-policies", "pfrl.policies", "SoftmaxCategoricalHead", {}, [_x("8, 3", "logits")]),
    _r("pfrl_deterministic_head", "pfrl-policies", "pfrl.policies", "DeterministicHead", {}, [_x("8, 2", "loc")]),
    _r("pfrl_fc_q", "pfrl-qfunctions", "pfrl.q_functions", "FCStateQFunctionWithDiscreteAction", "ndim_obs=4, n_actions=3, n_hidden_channels=8, n_hidden_layers=2", [OBS]),
    _r("pfrl_distributional_q", "pfrl-qfunctions", "pfrl.q_functions", "DistributionalFCStateQFunctionWithDiscreteAction", "ndim_obs=4, n_actions=3, n_atoms=5, v_min=-1.0, v_max=1.0, n_hidden_channels=8, n_hidden_layers=1", [OBS]),
    _r("pfrl_dueling_dqn", "pfrl-qfunctions", "pfrl.q_functions", "DuelingDQN", "n_actions=3", [IMG]),
    _r("pfrl_fc_sa_q", "pfrl-qfunctions", "pfrl.q_functions", "FCSAQFunction", "n_dim_obs=4, n_dim_action=2, n_hidden_channels=8, n_hidden_layers=2", [OBS, ACT]),
    _r("pfrl_fc_bn_late_action_q", "pfrl-qfunctions", "pfrl.q_functions", "FCBNLateActionSAQFunction", "n_dim_obs=4, n_dim_action=2, n_hidden_channels=8, n_hidden_layers=2", [OBS, ACT]),
    _r("pfrl_fc_late_action_q", "pfrl-qfunctions", "pfrl.q_functions", "FCLateActionSAQFunction", "n_dim_obs=4, n_dim_action=2, n_hidden_channels=8, n_hidden_layers=2", [OBS, ACT]),
]
# fmt: on
