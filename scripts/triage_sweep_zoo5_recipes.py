"""The recipes of scripts/triage_sweep_zoo5.py: tiny-config segment-anything, fair-esm,
openai-whisper, pytorch-tabnet and e3nn models (random weights, nothing downloaded) and
the arguments a user passes them.

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


def _x(shape: str, name: str = "x", spec=B) -> tuple:
    return (f"{name} = torch.randn({shape}, {G})", spec)


NONE = False  # an input passed as None / a flag: no Dim
# ------------------------------------------------------------------ segment-anything
SAM = "segment_anything.modeling"
ENC = "img_size=64, patch_size=8, embed_dim=32, depth=2, num_heads=2, out_chans=16"
PROMPT = "embed_dim=16, image_embedding_size=(8, 8), input_image_size=(64, 64), mask_in_chans=4"
TWT = "TwoWayTransformer(depth=2, embedding_dim=16, num_heads=2, mlp_dim=32)"
DEC = f"transformer_dim=16, transformer={TWT}, num_multimask_outputs=3, iou_head_depth=2, iou_head_hidden_dim=16"
POINTS = (
    f"points = (torch.rand(2, 3, 2, {G}) * 64, torch.randint(0, 2, (2, 3), {G}))",
    "({0: BATCH, 1: SEQ}, {0: BATCH, 1: SEQ})",
)
SAM_FULL = (
    f"image_encoder=ImageEncoderViT({ENC}, use_rel_pos=True, window_size=4, global_attn_indexes=(1,)), "
    f"prompt_encoder=PromptEncoder({PROMPT}), mask_decoder=MaskDecoder({DEC})"
)
SAM_IN = (
    f"batched_input = [{{'image': torch.rand(3, 48, 64, {G}) * 255, 'original_size': (48, 64), "
    f"'point_coords': torch.rand(1, 2, 2, {G}) * 64, 'point_labels': torch.ones(1, 2)}}]",
    "[{'image': None, 'original_size': (None, None), 'point_coords': {1: SEQ}, 'point_labels': {1: SEQ}}]",
)


def _sam(case: str, fam: str, cls: str, kw, inputs, extra=None) -> tuple:
    r = (case, f"sam-{fam}", SAM, cls, kw, inputs)
    return r + ((extra,) if extra else ())


# ------------------------------------------------------------------ fair-esm
TOKENS = (f"tokens = torch.randint(4, 24, (2, 12), {G})", BS)
NS = "from argparse import Namespace"
ESM_ARGS = "num_layers=2, layers=2, embed_dim=32, ffn_embed_dim=64, attention_heads=4, max_positions=64, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, final_bias=True"


def _esm(case: str, fam: str, module: str, cls: str, kw, inputs, extra=None) -> tuple:
    r = (case, f"esm-{fam}", module, cls, kw, inputs)
    return r + ((extra,) if extra else ())


TBE = (f"x = torch.randn(12, 2, 32, {G})", "{0: SEQ, 1: BATCH}")  # (seq, batch, embed)
# ------------------------------------------------------------------ openai-whisper
WM = "whisper.model"
DIMS = "n_mels=16, n_audio_ctx=16, n_audio_state=32, n_audio_head=2, n_audio_layer=2, n_vocab=64, n_text_ctx=16, n_text_state=32, n_text_head=2, n_text_layer=2"
MEL = _x("2, 16, 32", "mel")
TEXT = (f"tokens = torch.randint(0, 64, (2, 8), {G})", BS)
XA = _x("2, 16, 32", "xa")
XS = _x("2, 8, 32", "x", BS)


def _wh(case: str, cls: str, kw, inputs, extra=None) -> tuple:
    r = (case, "whisper-model", WM, cls, kw, inputs)
    return r + ((extra,) if extra else ())


# ------------------------------------------------------------------ pytorch-tabnet
TN = "pytorch_tabnet.tab_network"
TAB = _x("8, 10")
TAB_CAT = (
    f"x = torch.cat([torch.randint(0, 4, (8, 2), {G}).float(), torch.randn(8, 8, {G})], 1)",
    B,
)
TKW = "n_d=8, n_a=8, n_steps=2, virtual_batch_size=4"
GM = "group_attention_matrix=torch.eye(10)"


def _tab(case: str, cls: str, kw: str, inputs=(TAB,), fam="tab_network", module=TN):
    return (case, f"tabnet-{fam}", module, cls, kw, list(inputs))


# ------------------------------------------------------------------ e3nn
IRR = "'2x0e + 2x1o'"  # dim 8


def _e3(case: str, fam: str, module: str, cls: str, kw, inputs) -> tuple:
    return (case, f"e3nn-{fam}", module, cls, kw, inputs)


X8 = _x("6, 8")
GP = (
    "irreps_in=None, irreps_hidden='4x0e + 2x1o', irreps_out='1x0e', irreps_node_attr='0e', "
    "irreps_edge_attr='0e + 1o', layers=2, max_radius=1.5, number_of_basis=4, radial_layers=1, "
    "radial_neurons=8, num_neighbors=3.0, num_nodes=5.0"
)
GP_IN = (
    f"data = {{'pos': torch.randn(10, 3, {G}), 'batch': torch.tensor([0] * 5 + [1] * 5)}}",
    "{'pos': {0: BATCH}, 'batch': {0: BATCH}}",
)

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ segment-anything
    _sam("sam_encoder_relpos", "image_encoder", "ImageEncoderViT", f"{ENC}, use_rel_pos=True, window_size=4, global_attn_indexes=(1,)", [_x("2, 3, 64, 64")]),
    _sam("sam_encoder_pad", "image_encoder", "ImageEncoderViT", f"{ENC}, window_size=3, global_attn_indexes=(1,)", [_x("2, 3, 64, 64")]),
    _sam("sam_encoder_plain", "image_encoder", "ImageEncoderViT", ENC, [_x("2, 3, 64, 64")]),
    _sam("sam_prompt_points", "prompt_encoder", "PromptEncoder", PROMPT, [POINTS, ("boxes = None", NONE), ("masks = None", NONE)]),
    _sam("sam_prompt_boxes", "prompt_encoder", "PromptEncoder", PROMPT, [("points = None", NONE), (f"boxes = torch.rand(2, 4, {G}) * 64", B), ("masks = None", NONE)]),
    _sam("sam_prompt_masks", "prompt_encoder", "PromptEncoder", PROMPT, [("points = None", NONE), ("boxes = None", NONE), _x("2, 1, 32, 32", "masks")]),
    ("sam_pos_random", "sam-prompt_encoder", f"{SAM}.prompt_encoder", "PositionEmbeddingRandom", "num_pos_feats=8", [("size = (8, 8)", "(None, None)")]),
    _sam("sam_mask_decoder", "mask_decoder", "MaskDecoder", DEC, [_x("1, 16, 8, 8", "image_embeddings", NONE), _x("1, 16, 8, 8", "image_pe", NONE), _x("2, 3, 16", "sparse_prompt_embeddings", BS), _x("2, 16, 8, 8", "dense_prompt_embeddings"), ("multimask_output = True", NONE)], ["TwoWayTransformer"]),
    _sam("sam_two_way", "transformer", "TwoWayTransformer", "depth=2, embedding_dim=16, num_heads=2, mlp_dim=32", [_x("2, 16, 8, 8", "image_embedding"), _x("2, 16, 8, 8", "image_pe"), _x("2, 3, 16", "point_embedding", BS)]),
    _sam("sam_full", "sam", "Sam", SAM_FULL, [SAM_IN, ("multimask_output = False", NONE)], ["ImageEncoderViT", "PromptEncoder", "MaskDecoder", "TwoWayTransformer"]),
    # ------------------------------------------------------------------ fair-esm
    _esm("esm2", "esm2", "esm", "ESM2", "num_layers=2, embed_dim=32, attention_heads=4, alphabet='ESM-1b'", [TOKENS]),
    _esm("esm2_nodrop", "esm2", "esm", "ESM2", "num_layers=2, embed_dim=32, attention_heads=4, alphabet='ESM-1b', token_dropout=False", [TOKENS]),
    _esm("esm2_contacts", "esm2", "esm", "ESM2", "num_layers=2, embed_dim=32, attention_heads=4, alphabet='ESM-1b', token_dropout=False", [TOKENS, ("repr_layers = [2]", "[None]"), ("need_head_weights = False", NONE), ("return_contacts = True", NONE)]),
    _esm("esm1b", "esm1", "esm", "ProteinBertModel", f"Namespace(arch='roberta_large', {ESM_ARGS}), Alphabet.from_architecture('ESM-1b')", [TOKENS], ["Alphabet", NS]),
    _esm("esm1", "esm1", "esm", "ProteinBertModel", f"Namespace(arch='protein_bert_base', {ESM_ARGS}), Alphabet.from_architecture('ESM-1')", [TOKENS], ["Alphabet", NS]),
    _esm("esm_msa", "msa_transformer", "esm", "MSATransformer", f"Namespace({ESM_ARGS}, embed_positions_msa=True, max_tokens=2**14, max_tokens_per_msa=2**14), Alphabet.from_architecture('MSA Transformer')", [(f"tokens = torch.randint(4, 24, (2, 3, 12), {G})", "{0: BATCH, 2: SEQ}")], ["Alphabet", NS]),
    _esm("esm_layer", "modules", "esm.modules", "TransformerLayer", "embed_dim=32, ffn_embed_dim=64, attention_heads=4, use_rotary_embeddings=True", [TBE]),
    _esm("esm_layer_bias_kv", "modules", "esm.modules", "TransformerLayer", "embed_dim=32, ffn_embed_dim=64, attention_heads=4, add_bias_kv=True, use_esm1b_layer_norm=True", [TBE]),
    _esm("esm_sinusoidal_pos", "modules", "esm.modules", "SinusoidalPositionalEmbedding", "embed_dim=16, padding_idx=1", [TOKENS]),
    _esm("esm_learned_pos", "modules", "esm.modules", "LearnedPositionalEmbedding", "num_embeddings=32, embedding_dim=16, padding_idx=1", [TOKENS]),
    _esm("esm_contact_head", "modules", "esm.modules", "ContactPredictionHead", "in_features=8, prepend_bos=True, append_eos=True, eos_idx=2", [TOKENS, _x("2, 2, 4, 12, 12", "attentions")]),
    _esm("esm_row_attention", "axial_attention", "esm.axial_attention", "RowSelfAttention", "embed_dim=32, num_heads=4, max_tokens_per_msa=16", [_x("3, 12, 2, 32", "x", "{1: SEQ, 2: BATCH}")]),
    _esm("esm_column_attention", "axial_attention", "esm.axial_attention", "ColumnSelfAttention", "embed_dim=32, num_heads=4", [_x("3, 12, 2, 32", "x", "{1: SEQ, 2: BATCH}")]),
    _esm("esm_rotary", "rotary_embedding", "esm.rotary_embedding", "RotaryEmbedding", "dim=8", [_x("4, 12, 8", "q", "{0: BATCH, 1: SEQ}"), _x("4, 12, 8", "k", "{0: BATCH, 1: SEQ}")]),
    _esm("esm_mha", "multihead_attention", "esm.multihead_attention", "MultiheadAttention", "embed_dim=32, num_heads=4, self_attention=True", [_x("12, 2, 32", "query", "{0: SEQ, 1: BATCH}"), ("key = query", "{0: SEQ, 1: BATCH}"), ("value = query", "{0: SEQ, 1: BATCH}")]),
    # ------------------------------------------------------------------ openai-whisper
    _wh("whisper", "Whisper", f"ModelDimensions({DIMS})", [MEL, TEXT], ["ModelDimensions"]),
    _wh("whisper_encoder", "AudioEncoder", "n_mels=16, n_ctx=16, n_state=32, n_head=2, n_layer=2", [MEL]),
    _wh("whisper_decoder", "TextDecoder", "n_vocab=64, n_ctx=16, n_state=32, n_head=2, n_layer=2", [TEXT, XA]),
    _wh("whisper_decoder_cache", "TextDecoder", "n_vocab=64, n_ctx=16, n_state=32, n_head=2, n_layer=2", [TEXT, XA, ("kv_cache = {}", "{}")]),
    _wh("whisper_attention_mask", "MultiHeadAttention", "n_state=32, n_head=2", [XS, ("xa = None", NONE), ("mask = torch.empty(8, 8).fill_(-float('inf')).triu_(1)", NONE)]),
    _wh("whisper_cross_block", "ResidualAttentionBlock", "n_state=32, n_head=2, cross_attention=True", [XS, XA]),
    # ------------------------------------------------------------------ pytorch-tabnet
    _tab("tabnet", "TabNet", f"input_dim=10, output_dim=3, {TKW}, {GM}"),
    _tab("tabnet_cat", "TabNet", f"input_dim=10, output_dim=3, {TKW}, cat_idxs=[0, 1], cat_dims=[4, 4], cat_emb_dim=[2, 2], {GM}", [TAB_CAT]),
    _tab("tabnet_entmax", "TabNet", f"input_dim=10, output_dim=3, {TKW}, mask_type='entmax', {GM}"),
    _tab("tabnet_group", "TabNet", f"input_dim=10, output_dim=3, {TKW}, group_attention_matrix=torch.eye(10)[:5] * 0.5 + torch.eye(10)[5:] * 0.5"),
    _tab("tabnet_pretraining", "TabNetPretraining", f"input_dim=10, pretraining_ratio=0.2, {TKW}, {GM}"),
    _tab("tabnet_no_emb", "TabNetNoEmbeddings", f"input_dim=10, output_dim=[3, 2], {TKW}, group_attention_matrix=torch.eye(10)"),
    _tab("tabnet_gbn", "GBN", "input_dim=10, virtual_batch_size=4"),
    _tab("tabnet_sparsemax", "Sparsemax", "dim=-1", fam="sparsemax", module="pytorch_tabnet.sparsemax"),
    _tab("tabnet_entmax15", "Entmax15", "dim=-1", fam="sparsemax", module="pytorch_tabnet.sparsemax"),
    # ------------------------------------------------------------------ e3nn
    _e3("e3nn_linear", "o3_linear", "e3nn.o3", "Linear", f"{IRR}, '3x0e + 1x1o'", [X8]),
    _e3("e3nn_fctp", "o3_tensor_product", "e3nn.o3", "FullyConnectedTensorProduct", f"{IRR}, {IRR}, '2x0e + 1x1o + 1x1e'", [X8, _x("6, 8", "y")]),
    _e3("e3nn_elementwise_tp", "o3_tensor_product", "e3nn.o3", "ElementwiseTensorProduct", f"{IRR}, {IRR}", [X8, _x("6, 8", "y")]),
    _e3("e3nn_tensor_square", "o3_tensor_product", "e3nn.o3", "TensorSquare", IRR, [X8]),
    _e3("e3nn_sph", "o3_spherical_harmonics", "e3nn.o3", "SphericalHarmonics", "'1x0e + 1x1o + 1x2e', normalize=True", [_x("6, 3")]),
    _e3("e3nn_norm", "o3_norm", "e3nn.o3", "Norm", IRR, [X8]),
    _e3("e3nn_s2grid", "o3_s2grid", "e3nn.o3", "ToS2Grid", "lmax=2, res=(8, 9)", [_x("2, 9")]),
    _e3("e3nn_gate", "nn_gate", "e3nn.nn", "Gate", "'2x0e', [torch.relu], '2x0e', [torch.sigmoid], '2x1o'", [_x("6, 10")]),
    _e3("e3nn_fc", "nn_fc", "e3nn.nn", "FullyConnectedNet", "[4, 16, 8], torch.nn.functional.silu", [_x("6, 4")]),
    _e3("e3nn_batchnorm", "nn_batchnorm", "e3nn.nn", "BatchNorm", IRR, [X8]),
    _e3("e3nn_normact", "nn_normact", "e3nn.nn", "NormActivation", "'2x1o', torch.sigmoid", [_x("6, 6")]),
    _e3("e3nn_gate_points", "gate_points_2101", "e3nn.nn.models.gate_points_2101", "Network", GP, [GP_IN]),
]
# fmt: on
