"""The recipes of scripts/triage_sweep_zoo.py: tiny-config diffusers and MONAI models
(random weights, nothing downloaded) and the arguments a user passes them.

A recipe is `(case, family, library, class, constructor kwargs, inputs)`; `inputs` are
the lines of example_inputs() (`g` is a seeded torch.Generator), each with `True` when
its dim 0 is the batch (the `dynamic` mode puts `Dim("batch")` there)."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch


def _x(shape: str, name: str = "x") -> list:
    return [(f"{name} = torch.randn({shape}, {G})", B)]


def _t(name: str = "timestep", n: int = 2) -> tuple:
    """A batch of integer timesteps, as a training loop draws them."""
    return (f"{name} = torch.randint(0, 1000, ({n},), {G})", B)


def _ehs(shape: str = "2, 8, 32", name: str = "encoder_hidden_states") -> tuple:
    return (f"{name} = torch.randn({shape}, {G})", B)


# a pipeline passes the 0-d `t` it takes from scheduler.timesteps
T0 = ("timestep = torch.tensor(999)", False)
UP = dict(layers_per_block=1, block_out_channels=(16, 32), norm_num_groups=8)
VAE = dict(
    UP,
    down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
    up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
    latent_channels=4,
    sample_size=32,
)
COND = dict(
    UP,
    sample_size=16,
    in_channels=4,
    out_channels=4,
    cross_attention_dim=32,
    attention_head_dim=8,
)
SD = dict(
    COND,
    down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
    up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
)
MMDIT = dict(
    sample_size=8,
    patch_size=2,
    in_channels=4,
    num_layers=1,
    attention_head_dim=8,
    num_attention_heads=2,
    joint_attention_dim=32,
    caption_projection_dim=16,
    pooled_projection_dim=16,
    out_channels=4,
    pos_embed_max_size=16,
)
FLUX = dict(
    patch_size=1,
    in_channels=16,
    num_layers=1,
    num_single_layers=1,
    attention_head_dim=8,
    num_attention_heads=2,
    joint_attention_dim=32,
    axes_dims_rope=(2, 2, 4),
)
FLUX_IN = [
    ("hidden_states = torch.randn(2, 16, 16, generator=g)", B),
    _ehs(),
    ("pooled_projections = torch.randn(2, 16, generator=g)", B),
    ("timestep = torch.rand(2, generator=g)", B),
    ("img_ids = torch.zeros(16, 3)", False),
    ("txt_ids = torch.zeros(8, 3)", False),
]
LAT = _x("2, 4, 16, 16", "sample")
LAT8 = _x("2, 4, 8, 8", "hidden_states")
DIFFUSION_BASE = dict(
    spatial_dims=2,
    in_channels=1,
    channels=(8, 16),
    attention_levels=(False, True),
    num_res_blocks=1,
    num_head_channels=8,
    norm_num_groups=8,
)
DIFFUSION_UNET = dict(DIFFUSION_BASE, out_channels=1)
IMG = _x("2, 1, 32, 32")
IMG3 = _x("2, 3, 32, 32")

D = "diffusers"
M = "monai"
# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ diffusers UNets
    ("unet2d", "unet_2d", D, "UNet2DModel", dict(UP, sample_size=16, down_block_types=("DownBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "UpBlock2D"), attention_head_dim=8), _x("2, 3, 16, 16", "sample") + [_t()]),
    ("unet2d_fourier", "unet_2d", D, "UNet2DModel", dict(UP, block_out_channels=(32, 64), sample_size=16, time_embedding_type="fourier", down_block_types=("SkipDownBlock2D", "AttnSkipDownBlock2D"), up_block_types=("AttnSkipUpBlock2D", "SkipUpBlock2D"), attention_head_dim=8), _x("2, 3, 16, 16", "sample") + [("timestep = torch.rand(2, generator=g) * 50", B)]),
    ("unet2d_class", "unet_2d", D, "UNet2DModel", dict(UP, sample_size=16, num_class_embeds=10, resnet_time_scale_shift="scale_shift", downsample_type="resnet", upsample_type="resnet", down_block_types=("ResnetDownsampleBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "ResnetUpsampleBlock2D"), attention_head_dim=8), _x("2, 3, 16, 16", "sample") + [_t(), ("class_labels = torch.tensor([1, 7])", B)]),
    ("unet2d_cond", "unet_2d_condition", D, "UNet2DConditionModel", SD, LAT + [_t(), _ehs()]),
    ("unet2d_cond_sd2", "unet_2d_condition", D, "UNet2DConditionModel", dict(SD, attention_head_dim=(2, 4), use_linear_projection=True, upcast_attention=True), LAT + [T0, _ehs()]),
    ("unet2d_cond_unclip", "unet_2d_condition", D, "UNet2DConditionModel", dict(COND, down_block_types=("ResnetDownsampleBlock2D", "SimpleCrossAttnDownBlock2D"), mid_block_type="UNetMidBlock2DSimpleCrossAttn", up_block_types=("SimpleCrossAttnUpBlock2D", "ResnetUpsampleBlock2D"), resnet_time_scale_shift="scale_shift"), LAT + [_t(), _ehs()]),
    ("unet2d_cond_if", "unet_2d_condition", D, "UNet2DConditionModel", dict(SD, encoder_hid_dim=48, encoder_hid_dim_type="text_proj", addition_embed_type="text", addition_embed_type_num_heads=2), LAT + [_t(), _ehs("2, 8, 48")]),
    ("unet2d_cond_upscale", "unet_2d_condition", D, "UNet2DConditionModel", dict(SD, in_channels=7, num_class_embeds=1000), _x("2, 7, 16, 16", "sample") + [_t(), _ehs(), ("class_labels = torch.tensor([20, 20])", B)]),
    ("unet1d", "unet_1d", D, "UNet1DModel", dict(sample_size=64, in_channels=2, out_channels=2, extra_in_channels=16, time_embedding_type="fourier", flip_sin_to_cos=True, use_timestep_embedding=False, time_embedding_dim=16), _x("2, 2, 64", "sample") + [("timestep = torch.rand(2, generator=g)", B)]),
    ("unet1d_rl", "unet_1d", D, "UNet1DModel", dict(sample_size=16, in_channels=14, out_channels=14, down_block_types=("DownResnetBlock1D", "DownResnetBlock1D"), up_block_types=("UpResnetBlock1D",), mid_block_type="MidResTemporalBlock1D", out_block_type="OutConv1DBlock", block_out_channels=(16, 32), layers_per_block=1, act_fn="mish", norm_num_groups=8, time_embedding_type="positional", use_timestep_embedding=True, flip_sin_to_cos=False, freq_shift=1, downsample_each_block=False), _x("2, 14, 16", "sample") + [_t()]),
    ("unet3d_cond", "unet_3d_condition", D, "UNet3DConditionModel", dict(UP, sample_size=8, in_channels=4, out_channels=4, down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"), up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"), cross_attention_dim=32, attention_head_dim=8), _x("2, 4, 2, 8, 8", "sample") + [_t(), _ehs()]),
    ("unet_svd", "unet_spatio_temporal", D, "UNetSpatioTemporalConditionModel", dict(sample_size=8, in_channels=8, out_channels=4, down_block_types=("CrossAttnDownBlockSpatioTemporal", "DownBlockSpatioTemporal"), up_block_types=("UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal"), block_out_channels=(32, 64), addition_time_embed_dim=8, projection_class_embeddings_input_dim=24, layers_per_block=1, cross_attention_dim=32, num_attention_heads=(2, 4), num_frames=2), _x("2, 2, 8, 8, 8", "sample") + [_t(), _ehs("2, 1, 32"), ("added_time_ids = torch.tensor([[6.0, 127.0, 0.02]] * 2)", B)]),
    ("controlnet", "controlnet", D, "ControlNetModel", dict(UP, in_channels=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), cross_attention_dim=32, attention_head_dim=8, conditioning_embedding_out_channels=(8, 16)), LAT + [_t(), _ehs(), ("controlnet_cond = torch.rand(2, 3, 32, 32, generator=g)", B)]),
    # ------------------------------------------------------------ diffusers autoencoders
    ("vae_kl", "autoencoder_kl", D, "AutoencoderKL", VAE, IMG3),
    ("vqmodel", "vq_model", D, "VQModel", dict(VAE, num_vq_embeddings=32, vq_embed_dim=4), IMG3),
    ("vae_tiny", "autoencoder_tiny", D, "AutoencoderTiny", dict(encoder_block_out_channels=(8, 8, 8, 8), decoder_block_out_channels=(8, 8, 8, 8), num_encoder_blocks=(1, 1, 1, 1), num_decoder_blocks=(1, 1, 1, 1), latent_channels=4), IMG3),
    ("vae_asym", "autoencoder_asym_kl", D, "AsymmetricAutoencoderKL", dict(down_block_out_channels=(16, 32), up_block_out_channels=(16, 32), down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"), up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), layers_per_down_block=1, layers_per_up_block=1, norm_num_groups=8, latent_channels=4, sample_size=32), IMG3 + [("mask = (torch.rand(2, 1, 32, 32, generator=g) > 0.5).float()", B)]),
    ("vae_dc", "autoencoder_dc", D, "AutoencoderDC", dict(in_channels=3, latent_channels=4, attention_head_dim=8, encoder_block_types=("ResBlock", "EfficientViTBlock"), decoder_block_types=("ResBlock", "EfficientViTBlock"), encoder_block_out_channels=(16, 32), decoder_block_out_channels=(16, 32), encoder_layers_per_block=(1, 1), decoder_layers_per_block=(1, 1), encoder_qkv_multiscales=((), (5,)), decoder_qkv_multiscales=((), (5,)), upsample_block_type="interpolate", downsample_block_type="Conv", decoder_norm_types="rms_norm", decoder_act_fns="silu"), IMG3),
    ("vae_oobleck", "autoencoder_oobleck", D, "AutoencoderOobleck", dict(encoder_hidden_size=8, downsampling_ratios=[2, 4], channel_multiples=[1, 2], decoder_channels=8, decoder_input_channels=4, audio_channels=2), _x("2, 2, 256", "sample")),
    ("vae_temporal", "autoencoder_kl_temporal_decoder", D, "AutoencoderKLTemporalDecoder", dict(block_out_channels=(32, 64), down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"), latent_channels=4, layers_per_block=1), _x("2, 3, 16, 16", "sample")),
    ("vae_cogvideox", "autoencoder_kl_cogvideox", D, "AutoencoderKLCogVideoX", dict(block_out_channels=(8, 16), down_block_types=("CogVideoXDownBlock3D", "CogVideoXDownBlock3D"), up_block_types=("CogVideoXUpBlock3D", "CogVideoXUpBlock3D"), latent_channels=4, layers_per_block=1, norm_num_groups=4, temporal_compression_ratio=2), _x("2, 3, 3, 16, 16", "sample")),
    ("vae_wan", "autoencoder_kl_wan", D, "AutoencoderKLWan", dict(base_dim=8, z_dim=4, dim_mult=[1, 2], num_res_blocks=1, temperal_downsample=[False]), _x("2, 3, 1, 16, 16", "sample")),
    ("vae_ltx", "autoencoder_kl_ltx", D, "AutoencoderKLLTXVideo", dict(in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(8, 16), decoder_block_out_channels=(8, 16), layers_per_block=(1, 1, 1), decoder_layers_per_block=(1, 1, 1), spatio_temporal_scaling=(True, False), decoder_spatio_temporal_scaling=(True, False), decoder_inject_noise=(False, False, False), upsample_residual=(False, False), upsample_factor=(1, 1), patch_size=1, patch_size_t=1, encoder_causal=True, decoder_causal=False), _x("2, 3, 9, 16, 16", "sample")),
    # ---------------------------------------------------------- diffusers transformers
    ("transformer2d", "transformer_2d", D, "Transformer2DModel", dict(num_attention_heads=2, attention_head_dim=8, in_channels=16, norm_num_groups=4, cross_attention_dim=32, num_layers=1), _x("2, 16, 8, 8", "hidden_states") + [_ehs()]),
    ("transformer2d_vq", "transformer_2d", D, "Transformer2DModel", dict(num_attention_heads=2, attention_head_dim=8, num_vector_embeds=33, sample_size=8, num_embeds_ada_norm=100, norm_type="ada_norm", cross_attention_dim=32, num_layers=1), [("latents = torch.randint(0, 32, (2, 64), generator=g)", B), _ehs(), ("timestep = torch.tensor(50)", False)]),
    ("dit", "dit_transformer_2d", D, "DiTTransformer2DModel", dict(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=1, sample_size=8, patch_size=2, num_embeds_ada_norm=1000), LAT8 + [_t(), ("class_labels = torch.tensor([3, 207])", B)]),
    ("pixart", "pixart_transformer_2d", D, "PixArtTransformer2DModel", dict(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=1, sample_size=8, patch_size=2, cross_attention_dim=16, caption_channels=32), LAT8 + [_ehs(), _t()]),
    ("sd3", "transformer_sd3", D, "SD3Transformer2DModel", MMDIT, LAT8 + [_ehs(), ("pooled_projections = torch.randn(2, 16, generator=g)", B), _t()]),
    ("sd35", "transformer_sd3", D, "SD3Transformer2DModel", dict(MMDIT, num_layers=2, qk_norm="rms_norm", dual_attention_layers=(0,)), LAT8 + [_ehs(), ("pooled_projections = torch.randn(2, 16, generator=g)", B), _t()]),
    ("sd3_controlnet", "controlnet_sd3", D, "SD3ControlNetModel", MMDIT, LAT8 + [("controlnet_cond = torch.randn(2, 4, 8, 8, generator=g)", B), ("conditioning_scale = 1.0", False), _ehs(), ("pooled_projections = torch.randn(2, 16, generator=g)", B), _t()]),
    ("flux", "transformer_flux", D, "FluxTransformer2DModel", dict(FLUX, pooled_projection_dim=16), FLUX_IN),
    ("flux_controlnet", "controlnet_flux", D, "FluxControlNetModel", dict(FLUX, pooled_projection_dim=16), FLUX_IN[:1] + [("controlnet_cond = torch.randn(2, 16, 16, generator=g)", B), ("controlnet_mode = None", False), ("conditioning_scale = 1.0", False)] + FLUX_IN[1:]),
    ("chroma", "transformer_chroma", D, "ChromaTransformer2DModel", dict(FLUX, approximator_num_channels=8, approximator_hidden_dim=16, approximator_layers=1), [FLUX_IN[0], FLUX_IN[1], FLUX_IN[3], FLUX_IN[4], FLUX_IN[5]]),
    ("auraflow", "transformer_auraflow", D, "AuraFlowTransformer2DModel", dict(sample_size=8, patch_size=2, in_channels=4, num_mmdit_layers=1, num_single_dit_layers=1, attention_head_dim=8, num_attention_heads=2, joint_attention_dim=32, caption_projection_dim=16, out_channels=4, pos_embed_max_size=64), LAT8 + [_ehs(), _t()]),
    ("sana", "transformer_sana", D, "SanaTransformer2DModel", dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8, num_layers=1, num_cross_attention_heads=2, cross_attention_head_dim=8, cross_attention_dim=16, caption_channels=32, sample_size=8, patch_size=1), LAT8 + [_ehs(), _t()]),
    ("lumina2", "transformer_lumina2", D, "Lumina2Transformer2DModel", dict(sample_size=8, patch_size=2, in_channels=4, hidden_size=32, num_layers=1, num_refiner_layers=1, num_attention_heads=2, num_kv_heads=2, multiple_of=16, cap_feat_dim=32, axes_dim_rope=(8, 4, 4), axes_lens=(32, 32, 32)), LAT8 + [("timestep = torch.rand(2, generator=g)", B), _ehs(), ("encoder_attention_mask = torch.ones(2, 8, dtype=torch.bool)", B)]),
    ("cogview3", "transformer_cogview3plus", D, "CogView3PlusTransformer2DModel", dict(patch_size=2, in_channels=4, num_layers=1, attention_head_dim=8, num_attention_heads=2, out_channels=4, text_embed_dim=32, time_embed_dim=16, condition_dim=8, pos_embed_max_size=16, sample_size=8), LAT8 + [_ehs(), _t(), ("original_size = torch.tensor([[64.0, 64.0]] * 2)", B), ("target_size = torch.tensor([[64.0, 64.0]] * 2)", B), ("crop_coords = torch.zeros(2, 2)", B)]),
    ("cogview4", "transformer_cogview4", D, "CogView4Transformer2DModel", dict(patch_size=2, in_channels=4, num_layers=1, attention_head_dim=8, num_attention_heads=2, out_channels=4, text_embed_dim=32, time_embed_dim=16, condition_dim=8, rope_axes_dim=(4, 4)), LAT8 + [_ehs(), _t(), ("original_size = torch.tensor([[64.0, 64.0]] * 2)", B), ("target_size = torch.tensor([[64.0, 64.0]] * 2)", B), ("crop_coords = torch.zeros(2, 2)", B)]),
    ("prior", "prior_transformer", D, "PriorTransformer", dict(num_attention_heads=2, attention_head_dim=8, num_layers=1, embedding_dim=16, num_embeddings=4, additional_embeddings=4), [("hidden_states = torch.randn(2, 16, generator=g)", B), _t(), ("proj_embedding = torch.randn(2, 16, generator=g)", B), _ehs("2, 4, 16")]),
    ("uvit2d", "uvit_2d", D, "UVit2DModel", dict(hidden_size=32, cond_embed_dim=16, micro_cond_encode_dim=2, micro_cond_embed_dim=10, encoder_hidden_size=16, vocab_size=33, codebook_size=32, in_channels=16, block_out_channels=16, num_res_blocks=1, block_num_heads=2, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, sample_size=8), [("input_ids = torch.randint(0, 32, (2, 8, 8), generator=g)", B), _ehs("2, 8, 16"), ("pooled_text_emb = torch.randn(2, 16, generator=g)", B), ("micro_conds = torch.tensor([[256.0, 256.0, 0.0, 0.0, 6.0]] * 2)", B)]),
    ("cogvideox", "transformer_cogvideox", D, "CogVideoXTransformer3DModel", dict(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, time_embed_dim=8, text_embed_dim=32, num_layers=1, sample_width=8, sample_height=8, sample_frames=9, patch_size=2, temporal_compression_ratio=4, max_text_seq_length=8), _x("2, 3, 4, 8, 8", "hidden_states") + [_ehs(), _t()]),
    ("wan", "transformer_wan", D, "WanTransformer3DModel", dict(patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, text_dim=32, freq_dim=16, ffn_dim=32, num_layers=1, rope_max_seq_len=32), _x("2, 4, 2, 8, 8", "hidden_states") + [_t(), _ehs()]),
    ("mochi", "transformer_mochi", D, "MochiTransformer3DModel", dict(patch_size=2, num_attention_heads=2, attention_head_dim=8, num_layers=1, pooled_projection_dim=16, in_channels=4, text_embed_dim=32, time_embed_dim=4, max_sequence_length=8), _x("2, 4, 2, 8, 8", "hidden_states") + [_ehs(), _t(), ("encoder_attention_mask = torch.ones(2, 8, dtype=torch.bool)", B)]),
    ("latte", "latte_transformer_3d", D, "LatteTransformer3DModel", dict(num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=1, sample_size=8, patch_size=2, cross_attention_dim=16, caption_channels=32, video_length=2, norm_type="ada_norm_single"), _x("2, 4, 2, 8, 8", "hidden_states") + [_t(), _ehs()]),
    ("t2i_adapter", "adapter", D, "T2IAdapter", dict(in_channels=3, channels=[16, 32], num_res_blocks=1, downscale_factor=4, adapter_type="full_adapter"), IMG3),
    # ------------------------------------------------------------------ monai networks
    ("unet", "unet", M, "UNet", dict(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2), num_res_units=1), IMG),
    ("basicunet", "basic_unet", M, "BasicUNet", dict(spatial_dims=2, in_channels=1, out_channels=2, features=(4, 4, 8, 16, 32, 4)), IMG),
    ("basicunetplusplus", "basic_unetplusplus", M, "BasicUNetPlusPlus", dict(spatial_dims=2, in_channels=1, out_channels=2, features=(4, 4, 8, 16, 32, 4)), IMG),
    ("dynunet", "dynunet", M, "DynUNet", dict(spatial_dims=2, in_channels=1, out_channels=2, kernel_size=[3, 3, 3], strides=[1, 2, 2], upsample_kernel_size=[2, 2], filters=[8, 16, 32], res_block=True), IMG),
    ("segresnet", "segresnet", M, "SegResNet", dict(spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 2), blocks_up=(1, 1)), IMG),
    ("segresnetvae", "segresnet", M, "SegResNetVAE", dict(input_image_size=(32, 32), spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 2), blocks_up=(1, 1), vae_nz=16), IMG),
    ("segresnetds", "segresnet_ds", M, "SegResNetDS", dict(spatial_dims=2, init_filters=4, in_channels=1, out_channels=2, blocks_down=(1, 1, 1)), IMG),
    ("unetr", "unetr", M, "UNETR", dict(in_channels=1, out_channels=2, img_size=(32, 32), feature_size=4, hidden_size=32, mlp_dim=64, num_heads=2, spatial_dims=2), IMG),
    ("swinunetr", "swin_unetr", M, "SwinUNETR", dict(in_channels=1, out_channels=2, feature_size=12, depths=(1, 1, 1, 1), num_heads=(1, 1, 2, 2), window_size=4, spatial_dims=2), _x("2, 1, 64, 64")),
    ("swinunetr_v2", "swin_unetr", M, "SwinUNETR", dict(in_channels=1, out_channels=2, feature_size=12, depths=(1, 1, 1, 1), num_heads=(1, 1, 2, 2), window_size=4, spatial_dims=2, use_v2=True), _x("2, 1, 64, 64")),
    ("attentionunet", "attentionunet", M, "AttentionUnet", dict(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2)), IMG),
    ("vnet", "vnet", M, "VNet", dict(spatial_dims=2, in_channels=1, out_channels=2), IMG),
    ("densenet", "densenet", M, "DenseNet", dict(spatial_dims=2, in_channels=1, out_channels=3, init_features=8, growth_rate=4, block_config=(1, 1, 1, 1)), IMG),
    ("resnet", "resnet", M, "ResNet", dict(block="basic", layers=(1, 1, 1, 1), block_inplanes=(8, 16, 32, 64), spatial_dims=2, n_input_channels=1, num_classes=3), IMG),
    ("efficientnet", "efficientnet", M, "EfficientNetBN", dict(model_name="efficientnet-b0", pretrained=False, spatial_dims=2, in_channels=1, num_classes=3), IMG),
    ("flexibleunet", "efficientnet", M, "FlexibleUNet", dict(in_channels=1, out_channels=2, backbone="efficientnet-b0", pretrained=False, decoder_channels=(32, 16, 16, 8, 8), spatial_dims=2), IMG),
    ("highresnet", "highresnet", M, "HighResNet", dict(spatial_dims=2, in_channels=1, out_channels=2), _x("2, 1, 16, 16")),
    ("autoencoder", "autoencoder", M, "AutoEncoder", dict(spatial_dims=2, in_channels=1, out_channels=1, channels=(4, 8, 16), strides=(2, 2, 2)), IMG),
    ("varautoencoder", "autoencoder", M, "VarAutoEncoder", dict(spatial_dims=2, in_shape=(1, 32, 32), out_channels=1, latent_size=8, channels=(4, 8, 16), strides=(2, 2, 2)), IMG),
    ("vit", "vit", M, "ViT", dict(in_channels=1, img_size=(32, 32), patch_size=(8, 8), hidden_size=32, mlp_dim=64, num_layers=1, num_heads=2, spatial_dims=2, classification=True, num_classes=3), IMG),
    ("vitautoenc", "vit", M, "ViTAutoEnc", dict(in_channels=1, img_size=(32, 32), patch_size=(4, 4), hidden_size=32, mlp_dim=64, num_layers=1, num_heads=2, spatial_dims=2, deconv_chns=8), IMG),
    ("mae_vit", "vit", M, "MaskedAutoEncoderViT", dict(in_channels=1, img_size=32, patch_size=8, hidden_size=32, mlp_dim=64, num_layers=1, num_heads=2, decoder_hidden_size=16, decoder_mlp_dim=32, decoder_num_layers=1, decoder_num_heads=2, spatial_dims=2), IMG),
    ("generator", "gan", M, "Generator", dict(latent_shape=(16,), start_shape=(8, 4, 4), channels=(8, 4), strides=(2, 2)), _x("2, 16")),
    ("discriminator", "gan", M, "Discriminator", dict(in_shape=(1, 32, 32), channels=(4, 8), strides=(2, 2)), IMG),
    ("regressor", "regressor", M, "Regressor", dict(in_shape=(1, 32, 32), out_shape=(3,), channels=(4, 8), strides=(2, 2)), IMG),
    ("varfc", "fullyconnectednet", M, "VarFullyConnectedNet", dict(in_channels=16, out_channels=16, latent_size=4, encode_channels=(32,), decode_channels=(32,)), _x("2, 16")),
    ("regunet", "regunet", M, "RegUNet", dict(spatial_dims=2, in_channels=2, num_channel_initial=4, depth=2, out_channels=2), _x("2, 2, 32, 32")),
    ("localnet", "regunet", M, "LocalNet", dict(spatial_dims=2, in_channels=2, num_channel_initial=4, extract_levels=(0, 1, 2), out_channels=2), _x("2, 2, 32, 32")),
    ("globalnet", "regunet", M, "GlobalNet", dict(image_size=[32, 32], spatial_dims=2, in_channels=2, num_channel_initial=4, depth=2), _x("2, 2, 32, 32")),
    ("ahnet", "ahnet", M, "AHNet", dict(layers=(1, 1, 1, 1), spatial_dims=2, in_channels=1, out_channels=2, psp_block_num=0), _x("2, 1, 64, 64")),
    ("seresnet", "senet", M, "SEResNet50", dict(layers=(1, 1, 1, 1), inplanes=16, spatial_dims=2, in_channels=1, num_classes=3), IMG),
    ("mednext", "mednext", M, "MedNeXt", dict(spatial_dims=2, init_filters=4, in_channels=1, out_channels=2, kernel_size=3, blocks_down=(1, 1, 1, 1), blocks_bottleneck=1, blocks_up=(1, 1, 1, 1), global_resp_norm=True), IMG),
    ("quicknat", "quicknat", M, "Quicknat", dict(num_classes=2, num_channels=1, num_filters=8), IMG),
    ("diffusion_unet", "diffusion_model_unet", M, "DiffusionModelUNet", DIFFUSION_UNET, _x("2, 1, 16, 16") + [_t("timesteps")]),
    ("diffusion_unet_cond", "diffusion_model_unet", M, "DiffusionModelUNet", dict(DIFFUSION_UNET, with_conditioning=True, cross_attention_dim=16, num_class_embeds=4), _x("2, 1, 16, 16") + [_t("timesteps"), _ehs("2, 4, 16", "context"), ("class_labels = torch.tensor([0, 3])", B)]),
    ("monai_controlnet", "controlnet", M, "ControlNet", dict(DIFFUSION_BASE, conditioning_embedding_num_channels=(8,)), _x("2, 1, 16, 16") + [_t("timesteps"), ("controlnet_cond = torch.rand(2, 1, 16, 16, generator=g)", B)]),
    ("voxelmorph", "voxelmorph", M, "VoxelMorph", "backbone=VoxelMorphUNet(spatial_dims=2, in_channels=2, unet_out_channels=8, channels=(8, 8, 8, 8), final_conv_channels=(8,)), integration_steps=2, spatial_dims=2", _x("2, 1, 32, 32", "moving") + _x("2, 1, 32, 32", "fixed"), ["VoxelMorphUNet"]),
    ("spade_diffusion_unet", "spade_diffusion_model_unet", M, "SPADEDiffusionModelUNet", dict(DIFFUSION_UNET, label_nc=3), _x("2, 1, 16, 16") + [_t("timesteps"), ("seg = torch.nn.functional.one_hot(torch.randint(0, 3, (2, 16, 16), generator=g), 3).permute(0, 3, 1, 2).float()", B)]),
    ("monai_autoencoderkl", "autoencoderkl", M, "AutoencoderKL", dict(spatial_dims=2, in_channels=1, out_channels=1, channels=(8, 16), latent_channels=4, num_res_blocks=1, attention_levels=(False, True), norm_num_groups=8), _x("2, 1, 16, 16")),
    ("vqvae", "vqvae", M, "VQVAE", dict(spatial_dims=2, in_channels=1, out_channels=1, channels=(8, 16), num_res_channels=(8, 16), num_res_layers=1, downsample_parameters=((2, 4, 1, 1), (2, 4, 1, 1)), upsample_parameters=((2, 4, 1, 1, 0), (2, 4, 1, 1, 0)), num_embeddings=16, embedding_dim=8), _x("2, 1, 16, 16")),
    ("patchdiscriminator", "patchgan_discriminator", M, "PatchDiscriminator", dict(spatial_dims=2, num_layers_d=2, channels=8, in_channels=1), IMG),
    ("multiscale_patchdisc", "patchgan_discriminator", M, "MultiScalePatchDiscriminator", dict(num_d=2, num_layers_d=2, spatial_dims=2, channels=8, in_channels=1, minimum_size_im=32), IMG),
    ("decoder_transformer", "transformer", M, "DecoderOnlyTransformer", dict(num_tokens=16, max_seq_len=8, attn_layers_dim=16, attn_layers_depth=1, attn_layers_heads=2), [("x = torch.randint(0, 16, (2, 8), generator=g)", B)]),
    ("milmodel", "milmodel", M, "MILModel", dict(num_classes=3, mil_mode="att_trans", pretrained=False, trans_blocks=1), [("x = torch.randn(2, 4, 3, 32, 32, generator=g)", B)]),
    ("tv_fc", "netadapter", M, "TorchVisionFCModel", dict(model_name="resnet18", num_classes=3, pretrained=False, pool=None), IMG3),
]
# fmt: on
