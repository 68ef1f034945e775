"""The recipes of scripts/triage_sweep_zoo3.py: tiny-config vit-pytorch, x-transformers,
segmentation-models-pytorch and open_clip models (random weights, nothing downloaded)
and the arguments a user passes them.

A recipe is `(case, family, module, class, constructor kwargs, inputs[, extra names])`;
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec: `True` when dim 0 is the batch (`{0: BATCH}`), a string for another
spec (`{0: BATCH, 1: SEQ}`), `False` for none. Constructor kwargs written as a string are
source (they may name the extra imported classes)."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch
BS = "{0: BATCH, 1: SEQ}"  # batch and sequence


def _x(shape: str = "2, 3, 32, 32", name: str = "img") -> list:
    return [(f"{name} = torch.randn({shape}, {G})", B)]


def _tok(n: int = 12, name: str = "x", vocab: int = 64) -> tuple:
    return (f"{name} = torch.randint(0, {vocab}, (2, {n}), {G})", BS)


IMG = _x()
IMG64 = _x("2, 3, 64, 64")
VID = _x("2, 3, 4, 32, 32", "video")
VIT = dict(
    image_size=32,
    patch_size=8,
    num_classes=10,
    dim=32,
    depth=1,
    heads=2,
    mlp_dim=64,
    dim_head=16,
)
V3D = dict(VIT, frames=4, frame_patch_size=2)
V3D.pop("patch_size")
V3D["image_patch_size"] = 8
VP = "vit_pytorch"
XT = "x_transformers"
SMP = "segmentation_models_pytorch"
OC = "open_clip"
TW = "num_tokens=64, max_seq_len=16, attn_layers={}(dim=32, depth=1, heads=2{})"
OC_V = "dict(layers=1, width=32, head_width=16, patch_size=8, image_size=32{})"
OC_T = "dict(context_length=16, vocab_size=64, width=32, heads=2, layers=1{})"
OC_IN = IMG + [(f"text = torch.randint(0, 64, (2, 16), {G})", B)]


def _tw(layers: str = "Decoder", extra: str = "") -> str:
    return TW.format(layers, extra)


def _clip(vis: str = "", txt: str = "", more: str = "") -> str:
    return f"embed_dim=16, vision_cfg={OC_V.format(vis)}, text_cfg={OC_T.format(txt)}{more}"


def _smp(case: str, cls: str, enc: str = "resnet18", img=IMG64, **kw) -> tuple:
    fam = f"smp-{cls.lower()}"
    args = dict(encoder_name=enc, encoder_weights=None, classes=2, **kw)
    return (case, fam, SMP, cls, args, img)


# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ vit-pytorch
    ("vit", "vitp-vit", f"{VP}.vit", "ViT", VIT, IMG),
    ("vit_mean", "vitp-vit", f"{VP}.vit", "ViT", dict(VIT, pool="mean"), IMG),
    ("simple_vit", "vitp-simple_vit", f"{VP}.simple_vit", "SimpleViT", VIT, IMG),
    ("simple_vit_1d", "vitp-simple_vit_1d", f"{VP}.simple_vit_1d", "SimpleViT", dict({k: v for k, v in VIT.items() if k != "image_size"}, seq_len=64), _x("2, 3, 64", "series")),
    ("vit_1d", "vitp-vit_1d", f"{VP}.vit_1d", "ViT", dict({k: v for k, v in VIT.items() if k != "image_size"}, seq_len=64), _x("2, 3, 64", "series")),
    ("vit_3d", "vitp-vit_3d", f"{VP}.vit_3d", "ViT", V3D, VID),
    ("simple_vit_3d", "vitp-simple_vit_3d", f"{VP}.simple_vit_3d", "SimpleViT", V3D, VID),
    ("vivit", "vitp-vivit", f"{VP}.vivit", "ViViT", dict({k: v for k, v in V3D.items() if k != "depth"}, spatial_depth=1, temporal_depth=1, use_flash_attn=False), VID),
    ("vivit_fst", "vitp-vivit", f"{VP}.vivit", "ViViT", dict({k: v for k, v in V3D.items() if k != "depth"}, spatial_depth=1, temporal_depth=1, variant="factorized_self_attention", pool="mean", use_flash_attn=False), VID),
    ("cait", "vitp-cait", f"{VP}.cait", "CaiT", dict(VIT, cls_depth=1, layer_dropout=0.1), IMG),
    ("deepvit", "vitp-deepvit", f"{VP}.deepvit", "DeepViT", VIT, IMG),
    ("cct", "vitp-cct", f"{VP}.cct", "CCT", dict(img_size=32, embedding_dim=32, n_conv_layers=1, kernel_size=3, stride=1, padding=1, num_layers=1, num_heads=2, mlp_ratio=1.0, num_classes=10, positional_embedding="learnable"), IMG),
    ("cct_sine", "vitp-cct", f"{VP}.cct", "CCT", dict(img_size=32, embedding_dim=32, n_conv_layers=2, kernel_size=3, stride=1, padding=1, num_layers=1, num_heads=2, mlp_ratio=1.0, num_classes=10, positional_embedding="sine"), IMG),
    ("cross_vit", "vitp-cross_vit", f"{VP}.cross_vit", "CrossViT", dict(image_size=32, num_classes=10, sm_dim=32, lg_dim=48, sm_patch_size=8, sm_enc_depth=1, sm_enc_heads=2, sm_enc_mlp_dim=64, sm_enc_dim_head=16, lg_patch_size=16, lg_enc_depth=1, lg_enc_heads=2, lg_enc_mlp_dim=64, lg_enc_dim_head=16, cross_attn_depth=1, cross_attn_heads=2, cross_attn_dim_head=16, depth=1), IMG),
    ("crossformer", "vitp-crossformer", f"{VP}.crossformer", "CrossFormer", dict(dim=(32, 64, 64, 64), depth=(1, 1, 1, 1), global_window_size=(2, 2, 1, 1), local_window_size=2, cross_embed_kernel_sizes=((4, 8), (2, 4), (2, 4), (2, 4)), cross_embed_strides=(4, 2, 2, 2), num_classes=10), IMG64),
    ("cvt", "vitp-cvt", f"{VP}.cvt", "CvT", dict(num_classes=10, s1_emb_dim=16, s2_emb_dim=32, s2_heads=2, s2_depth=1, s3_emb_dim=32, s3_heads=2, s3_depth=1), IMG64),
    ("levit", "vitp-levit", f"{VP}.levit", "LeViT", dict(image_size=64, num_classes=10, stages=3, dim=(16, 32, 48), depth=1, heads=(2, 2, 2), mlp_mult=2, dim_key=8, dim_value=16, num_distill_classes=10), IMG64),
    ("look_vit", "vitp-look_vit", f"{VP}.look_vit", "LookViT", dict(image_size=64, num_classes=10, dim=32, depth=1, patch_size=16, heads=2, dim_head=16, highres_patch_size=8, cross_attn_heads=2, cross_attn_dim_head=16, dropout=0.0), IMG64),
    ("max_vit", "vitp-max_vit", f"{VP}.max_vit", "MaxViT", dict(num_classes=10, dim_conv_stem=16, dim=16, dim_head=8, depth=(1, 1), window_size=4, dropout=0.0), IMG64),
    ("max_vit_reg", "vitp-max_vit_with_registers", f"{VP}.max_vit_with_registers", "MaxViT", dict(num_classes=10, dim_conv_stem=16, dim=16, dim_head=8, depth=(1, 1), window_size=4, dropout=0.0), IMG64),
    ("mobile_vit", "vitp-mobile_vit", f"{VP}.mobile_vit", "MobileViT", dict(image_size=(64, 64), dims=[16, 24, 32], channels=[8, 8, 16, 16, 24, 24, 32, 32, 48, 48, 64], num_classes=10, depths=(1, 1, 1)), IMG64),
    ("nest", "vitp-nest", f"{VP}.nest", "NesT", dict(image_size=32, patch_size=4, num_classes=10, dim=16, heads=2, num_hierarchies=2, block_repeats=(1, 1), dim_head=8), IMG),
    ("parallel_vit", "vitp-parallel_vit", f"{VP}.parallel_vit", "ViT", VIT, IMG),
    ("pit", "vitp-pit", f"{VP}.pit", "PiT", dict(VIT, depth=(1, 1)), IMG),
    ("regionvit", "vitp-regionvit", f"{VP}.regionvit", "RegionViT", dict(dim=(16, 32, 32, 32), depth=(1, 1, 1, 1), window_size=2, num_classes=10, local_patch_size=4), IMG64),
    ("rvt", "vitp-rvt", f"{VP}.rvt", "RvT", VIT, IMG),
    ("scalable_vit", "vitp-scalable_vit", f"{VP}.scalable_vit", "ScalableViT", dict(num_classes=10, dim=16, heads=(1, 1, 2, 2), depth=(1, 1, 1, 1), ssa_dim_key=8, ssa_dim_value=8, iwsa_dim_key=8, iwsa_dim_value=8, reduction_factor=(2, 2, 1, 1), window_size=(2, 2, None, None)), IMG64),
    ("t2t", "vitp-t2t", f"{VP}.t2t", "T2TViT", dict(image_size=32, num_classes=10, dim=32, depth=1, heads=2, mlp_dim=64, dim_head=16, t2t_layers=((7, 4), (3, 2))), IMG),
    ("twins_svt", "vitp-twins_svt", f"{VP}.twins_svt", "TwinsSVT", dict(num_classes=10, s1_emb_dim=16, s1_local_patch_size=2, s1_global_k=2, s2_emb_dim=16, s2_local_patch_size=2, s2_global_k=2, s3_emb_dim=32, s3_local_patch_size=2, s3_global_k=2, s3_depth=1, s4_emb_dim=32, s4_local_patch_size=1, s4_global_k=1), IMG64),
    ("xcit", "vitp-xcit", f"{VP}.xcit", "XCiT", dict(VIT, cls_depth=1), IMG),
    ("ats_vit", "vitp-ats_vit", f"{VP}.ats_vit", "ViT", dict(VIT, depth=2, max_tokens_per_depth=(8, 4)), IMG),
    ("jumbo_vit", "vitp-jumbo_vit", f"{VP}.jumbo_vit", "JumboViT", VIT, IMG),
    ("vit_5", "vitp-vit_5", f"{VP}.vit_5", "ViT", VIT, IMG),
    ("simple_vit_fft", "vitp-simple_vit_with_fft", f"{VP}.simple_vit_with_fft", "SimpleViT", dict(VIT, freq_patch_size=8), IMG),
    ("simple_vit_qk_norm", "vitp-simple_vit_with_qk_norm", f"{VP}.simple_vit_with_qk_norm", "SimpleViT", VIT, IMG),
    ("simple_vit_registers", "vitp-simple_vit_with_register_tokens", f"{VP}.simple_vit_with_register_tokens", "SimpleViT", VIT, IMG),
    ("simple_vit_value_res", "vitp-simple_vit_with_value_residual", f"{VP}.simple_vit_with_value_residual", "SimpleViT", dict(VIT, depth=2), IMG),
    ("simple_vit_hyper", "vitp-simple_vit_with_hyper_connections", f"{VP}.simple_vit_with_hyper_connections", "SimpleViT", dict(VIT, num_residual_streams=2), IMG),
    ("simple_vit_relpos", "vitp-simple_vit_with_relative_proj_pos_bias", f"{VP}.simple_vit_with_relative_proj_pos_bias", "SimpleViT", VIT, IMG),
    ("simple_uvit", "vitp-simple_uvit", f"{VP}.simple_uvit", "SimpleUViT", dict(VIT, depth=2), IMG),
    ("vit_patch_merger", "vitp-vit_with_patch_merger", f"{VP}.vit_with_patch_merger", "ViT", dict(VIT, depth=2, patch_merge_layer=1, patch_merge_num_tokens=4), IMG),
    ("vit_small_dataset", "vitp-vit_for_small_dataset", f"{VP}.vit_for_small_dataset", "ViT", VIT, IMG),
    ("vit_nd", "vitp-vit_nd", f"{VP}.vit_nd", "ViTND", dict(ndim=2, input_shape=(32, 32), patch_size=8, num_classes=10, dim=32, depth=1, heads=2, mlp_dim=64, dim_head=16), IMG),
    ("vit_nd_rotary", "vitp-vit_nd_rotary", f"{VP}.vit_nd_rotary", "ViTND", dict(ndim=2, input_shape=(32, 32), patch_size=8, num_classes=10, dim=32, depth=1, heads=2, mlp_dim=64, dim_head=16), IMG),
    ("jet_vit", "vitp-jet_vit", f"{VP}.jet_vit", "JetViT", dict(VIT, window_size=2), IMG),
    ("vit_detpool", "vitp-vit_detpool", f"{VP}.vit_detpool", "ViTDetPool", VIT, IMG),
    ("mp3", "vitp-mp3", f"{VP}.mp3", "ViT", VIT, IMG),
    # ------------------------------------------------------------------ x-transformers
    ("xt_decoder", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw(), [_tok()], ["Decoder"]),
    ("xt_decoder_rotary", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Decoder", ", rotary_pos_emb=True, ff_glu=True, use_rmsnorm=True"), [_tok()], ["Decoder"]),
    ("xt_decoder_alibi", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Decoder", ", alibi_pos_bias=True, alibi_num_heads=1"), [_tok()], ["Decoder"]),
    ("xt_decoder_relpos", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Decoder", ", rel_pos_bias=True, residual_attn=True"), [_tok()], ["Decoder"]),
    ("xt_decoder_dynpos", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Decoder", ", dynamic_pos_bias=True, sandwich_norm=True"), [_tok()], ["Decoder"]),
    ("xt_decoder_memkv", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Decoder", ", attn_num_mem_kv=2, shift_tokens=1, macaron=True") + ", num_memory_tokens=2", [_tok()], ["Decoder"]),
    ("xt_decoder_qknorm", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Decoder", ", attn_qk_norm=True, attn_gate_values=True"), [_tok()], ["Decoder"]),
    ("xt_encoder_gqa", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Encoder", ", attn_kv_heads=1"), [_tok()], ["Encoder"]),
    ("xt_encoder_scalenorm", "xt-transformer_wrapper", XT, "TransformerWrapper", _tw("Encoder", ", use_scalenorm=True, ff_swish=True, attn_sparse_topk=4") + ", scaled_sinu_pos_emb=True", [_tok()], ["Encoder"]),
    ("xt_vit", "xt-vit_wrapper", XT, "ViTransformerWrapper", "image_size=32, patch_size=8, num_classes=10, attn_layers=Encoder(dim=32, depth=1, heads=2)", IMG, ["Encoder"]),
    ("xt_continuous", "xt-continuous", XT, "ContinuousTransformerWrapper", "dim_in=8, dim_out=8, max_seq_len=16, attn_layers=Decoder(dim=32, depth=1, heads=2)", [(f"x = torch.randn(2, 12, 8, {G})", BS)], ["Decoder"]),
    ("xt_encdec", "xt-xtransformer", XT, "XTransformer", dict(dim=32, enc_num_tokens=64, enc_depth=1, enc_heads=2, enc_max_seq_len=16, dec_num_tokens=64, dec_depth=1, dec_heads=2, dec_max_seq_len=16), [_tok(12, "src"), _tok(10, "tgt")]),
    ("xt_autoregressive", "xt-autoregressive_wrapper", XT, "AutoregressiveWrapper", f"TransformerWrapper({_tw()})", [_tok(13)], ["TransformerWrapper", "Decoder"]),
    # ------------------------------------------------------------------ segmentation-models-pytorch
    _smp("smp_unet", "Unet"),
    _smp("smp_unet_scse", "Unet", "mobilenet_v2", decoder_attention_type="scse"),
    _smp("smp_unetpp", "UnetPlusPlus", "resnet18", decoder_channels=(32, 16, 16, 8, 8)),
    _smp("smp_fpn", "FPN", "efficientnet-b0"),
    _smp("smp_pspnet", "PSPNet", "vgg11"),
    _smp("smp_deeplabv3", "DeepLabV3", "resnet18"),
    _smp("smp_deeplabv3plus", "DeepLabV3Plus", "resnet18"),
    _smp("smp_linknet", "Linknet", "timm-efficientnet-b0"),
    _smp("smp_manet", "MAnet", "resnet18", decoder_channels=(32, 16, 16, 8, 8)),
    _smp("smp_pan", "PAN", "resnet18", _x("2, 3, 128, 128"), decoder_channels=16),
    _smp("smp_upernet", "UPerNet", "resnet18"),
    _smp("smp_segformer", "Segformer", "mit_b0"),
    _smp("smp_unet_mobileone", "Unet", "mobileone_s0", decoder_channels=(32, 16, 16, 8, 8)),
    _smp("smp_fpn_dpn", "FPN", "dpn68"),
    _smp("smp_unet_aux", "Unet", "resnet18", aux_params={"classes": 3}),
    # ------------------------------------------------------------------ open_clip
    ("clip_vit", "oc-clip", OC, "CLIP", _clip(), OC_IN),
    ("clip_resnet", "oc-clip", OC, "CLIP", _clip().replace("layers=1, width=32, head_width=16, patch_size=8", "layers=(1, 1, 1, 1), width=16, head_width=16"), OC_IN),
    ("clip_siglip", "oc-clip", OC, "CLIP", _clip(", no_ln_pre=True, final_ln_after_pool=True, pool_type='avg'", ", pool_type='last', no_causal_mask=True", ", init_logit_bias=-10.0"), OC_IN),
    ("clip_attnpool", "oc-clip", OC, "CLIP", _clip(", attentional_pool=True, attn_pooler_queries=4, attn_pooler_heads=2", ", pool_type='argmax'"), OC_IN),
    ("clip_custom_text", "oc-custom_text_clip", OC, "CustomTextCLIP", _clip(), OC_IN),
]
# fmt: on
