"""The recipes of scripts/triage_sweep_zoo23.py: tiny-config torchsynth,
pytorch-msssim and spandrel models (random weights, nothing downloaded: every model is built from its
classes) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo22_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); `extra` adds names imported from the module, or whole lines. torchsynth's modules a (batch,) control value or (batch, samples) signals (its Signal tensor subclass where
the module reads `.num_samples`), for a
SynthConfig of batch 2 (80 audio samples, 8 control samples); pytorch-msssim's losses two
(batch, channels, H, W) images in [0, 1]; spandrel's image-restoration networks (its
`architectures.*.__arch` classes, as spandrel's loaders build them) one such image."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ torchsynth
TM = "torchsynth.module"
SC = "SynthConfig(batch_size=2, sample_rate=800, buffer_size_seconds=0.1, control_rate=80, reproducible=False)"
SCI = ["from torchsynth.config import SynthConfig"]
F0 = (f"midi_f0 = torch.rand(2, {G}) * 60 + 30", B)
DUR = (f"note_on_duration = torch.rand(2, {G}) * 0.05", B)
AUD = lambda n: (f"{n} = torch.rand(2, 80, {G}) * 2 - 1", B)  # noqa: E731
CTL = lambda n: (f"{n} = torch.rand(2, 8, {G})", B)  # noqa: E731
SAUD = lambda n: (f"{n} = (torch.rand(2, 80, {G}) * 2 - 1).as_subclass(Signal)", B)  # noqa: E731
SCTL = lambda n: (f"{n} = torch.rand(2, 8, {G}).as_subclass(Signal)", B)  # noqa: E731
SIG = SCI + ["from torchsynth.signal import Signal"]
# ------------------------------------------------------------------ pytorch-msssim
PM = "pytorch_msssim"
IX = (f"X = torch.rand(2, 3, 16, 16, {G})", B)
IY = (f"Y = torch.rand(2, 3, 16, 16, {G})", B)
MX = (f"X = torch.rand(2, 3, 48, 48, {G})", B)
MY = (f"Y = torch.rand(2, 3, 48, 48, {G})", B)
SS = "data_range=1.0, win_size=3, channel=3"
# ------------------------------------------------------------------ spandrel
SA = "spandrel.architectures"
IM = _x("2, 3, 16, 16")
IM1 = _x("2, 1, 16, 16")
IM32 = _x("1, 3, 32, 32")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ torchsynth
    _r("ts_adsr", "ts-envelope", TM, "ADSR", SC, [DUR], SCI),
    _r("ts_sine", "ts-vco", TM, "SineVCO", SC, [F0], SCI),
    _r("ts_sine_mod", "ts-vco", TM, "SineVCO", SC, [F0, AUD("mod_signal")], SCI),
    _r("ts_fm", "ts-vco", TM, "FmVCO", SC, [F0, AUD("mod_signal")], SCI),
    _r("ts_sqsaw", "ts-vco", TM, "SquareSawVCO", SC, [F0], SCI),
    _r("ts_vca", "ts-amp", TM, "VCA", SC, [SAUD("audio_in"), SAUD("control_in")], SIG),
    _r("ts_crvca", "ts-amp", TM, "ControlRateVCA", SC, [SCTL("audio_in"), SCTL("control_in")], SIG),
    _r("ts_noise", "ts-source", TM, "Noise", f"{SC}, seed=3", [], SCI),
    _r("ts_lfo", "ts-lfo", TM, "LFO", SC, [], SCI),
    _r("ts_lfo_mod", "ts-lfo", TM, "LFO", SC, [CTL("mod_signal")], SCI),
    _r("ts_modmix", "ts-mixer", TM, "ModulationMixer", f"{SC}, n_input=2, n_output=2", [CTL("s1"), CTL("s2")], SCI),
    _r("ts_audiomix", "ts-mixer", TM, "AudioMixer", f"{SC}, n_input=2", [SAUD("s1"), SAUD("s2")], SIG),
    _r("ts_upsample", "ts-mixer", TM, "ControlRateUpsample", SC, [SCTL("signal")], SIG),
    _r("ts_keyboard", "ts-controller", TM, "MonophonicKeyboard", SC, [], SCI),
    _r("ts_softmode", "ts-controller", TM, "SoftModeSelector", f"{SC}, n_modes=3", [], SCI),
    _r("ts_hardmode", "ts-controller", TM, "HardModeSelector", f"{SC}, n_modes=3", [], SCI),
    _r("ts_vca_plain", "ts-amp", TM, "VCA", SC, [AUD("audio_in"), AUD("control_in")], SCI),
    _r("ts_fm_sig", "ts-vco", TM, "FmVCO", SC, [F0, SAUD("mod_signal")], SIG),
    _r("ts_sqsaw_mod", "ts-vco", TM, "SquareSawVCO", SC, [F0, AUD("mod_signal")], SCI),
    _r("ts_modmix3", "ts-mixer", TM, "ModulationMixer", f"{SC}, n_input=3, n_output=1", [CTL("s1"), CTL("s2"), CTL("s3")], SCI),
    _r("ts_audiomix3", "ts-mixer", TM, "AudioMixer", f"{SC}, n_input=3, curves=[1.0, 0.5, 0.25]", [SAUD("s1"), SAUD("s2"), SAUD("s3")], SIG),
    _r("ts_sine_f0_2d", "ts-vco", TM, "SineVCO", SC, [(f"midi_f0 = torch.rand(2, 1, {G}) * 60 + 30", B)], SCI),
    _r("ts_adsr_wrong", "ts-envelope", TM, "ADSR", SC, [(f"note_on_duration = torch.rand(3, {G}) * 0.05", B)], SCI),
    # ------------------------------------------------------------------ pytorch-msssim
    _r("pm_ssim", "pm-ssim", PM, "SSIM", SS, [IX, IY]),
    _r("pm_ssim_noavg", "pm-ssim", PM, "SSIM", f"{SS}, size_average=False", [IX, IY]),
    _r("pm_ssim_nonneg", "pm-ssim", PM, "SSIM", f"{SS}, nonnegative_ssim=True", [IX, IY]),
    _r("pm_ssim_default", "pm-ssim", PM, "SSIM", "data_range=1.0", [IX, IY]),
    _r("pm_ssim_3d", "pm-ssim", PM, "SSIM", "data_range=1.0, win_size=3, channel=1, spatial_dims=3", [(f"X = torch.rand(2, 1, 8, 8, 8, {G})", B), (f"Y = torch.rand(2, 1, 8, 8, 8, {G})", B)]),
    _r("pm_msssim", "pm-msssim", PM, "MS_SSIM", SS, [MX, MY]),
    _r("pm_msssim_w", "pm-msssim", PM, "MS_SSIM", f"{SS}, weights=[0.5, 0.3, 0.1, 0.05, 0.05]", [MX, MY]),
    _r("pm_msssim_3d", "pm-msssim", PM, "MS_SSIM", "data_range=1.0, win_size=3, channel=1, spatial_dims=3", [(f"X = torch.rand(1, 1, 36, 36, 36, {G})", B), (f"Y = torch.rand(1, 1, 36, 36, 36, {G})", B)]),
    _r("pm_ssim_1ch", "pm-ssim", PM, "SSIM", "data_range=255, win_size=5, channel=1, K=[0.01, 0.4]", [(f"X = torch.rand(2, 1, 16, 16, {G}) * 255", B), (f"Y = torch.rand(2, 1, 16, 16, {G}) * 255", B)]),
    _r("pm_ssim_small", "pm-ssim", PM, "SSIM", "data_range=1.0, channel=3", [(f"X = torch.rand(2, 3, 8, 8, {G})", B), (f"Y = torch.rand(2, 3, 8, 8, {G})", B)]),
    _r("pm_ssim_half", "pm-ssim", PM, "SSIM", SS, [(f"X = torch.rand(2, 3, 16, 16, {G}).half()", B), (f"Y = torch.rand(2, 3, 16, 16, {G}).half()", B)]),
    _r("pm_msssim_wrong_size", "pm-msssim", PM, "MS_SSIM", SS, [IX, IY]),
    _r("pm_msssim_noavg", "pm-msssim", PM, "MS_SSIM", f"{SS}, size_average=False", [MX, MY]),
    _r("pm_ssim_wrong_rank", "pm-ssim", PM, "SSIM", SS, [(f"X = torch.rand(3, 16, 16, {G})", B), (f"Y = torch.rand(3, 16, 16, {G})", B)]),
    _r("pm_ssim_wrong_pair", "pm-ssim", PM, "SSIM", SS, [IX, (f"Y = torch.rand(2, 3, 16, 12, {G})", B)]),
    # ------------------------------------------------------------------ spandrel
    _r("sp_compact", "sp-cnn-sr", f"{SA}.Compact.__arch.SRVGG", "SRVGGNetCompact", "num_feat=8, num_conv=2, upscale=2", [IM]),
    _r("sp_dncnn", "sp-denoise", f"{SA}.DnCNN.__arch.network_dncnn", "DnCNN", "in_nc=1, out_nc=1, nc=8, nb=3", [IM1]),
    _r("sp_fdncnn", "sp-denoise", f"{SA}.DnCNN.__arch.network_dncnn", "DnCNN", "in_nc=2, out_nc=1, nc=8, nb=3, mode='FDnCNN'", [_x("2, 2, 16, 16")]),
    _r("sp_drunet", "sp-denoise", f"{SA}.DRUNet.__arch.network_unet", "DRUNet", "in_nc=1, out_nc=1, nc=[8, 16, 32, 64], nb=1", [IM1]),
    _r("sp_esrgan", "sp-cnn-sr", f"{SA}.ESRGAN.__arch.RRDB", "RRDBNet", "num_filters=8, num_blocks=1, scale=2", [IM]),
    _r("sp_esrgan_shuffle", "sp-cnn-sr", f"{SA}.ESRGAN.__arch.RRDB", "RRDBNet", "in_nc=12, num_filters=8, num_blocks=1, scale=1, shuffle_factor=2", [IM]),
    _r("sp_fbcnn", "sp-jpeg", f"{SA}.FBCNN.__arch.FBCNN", "FBCNN", "nb=1", [IM]),
    _r("sp_fbcnn_qf", "sp-jpeg", f"{SA}.FBCNN.__arch.FBCNN", "FBCNN", "nb=1", [IM, (f"qf_input = torch.rand(2, 1, {G})", B)]),
    _r("sp_nafnet", "sp-restore", f"{SA}.NAFNet.__arch.NAFNet_arch", "NAFNet", "width=8, middle_blk_num=1, enc_blk_nums=[1], dec_blk_nums=[1]", [_x("2, 3, 15, 15")]),
    _r("sp_kbnet", "sp-restore", f"{SA}.KBNet.__arch.kbnet_s", "KBNet_s", "width=8, middle_blk_num=1, enc_blk_nums=[1], dec_blk_nums=[1]", [IM]),
    _r("sp_span", "sp-cnn-sr", f"{SA}.SPAN.__arch.span", "SPAN", "num_in_ch=3, num_out_ch=3, feature_channels=8, upscale=2", [IM]),
    _r("sp_safmn", "sp-cnn-sr", f"{SA}.SAFMN.__arch.safmn", "SAFMN", "dim=8, n_blocks=1, upscaling_factor=2", [IM]),
    _r("sp_omnisr", "sp-attn-sr", f"{SA}.OmniSR.__arch.OmniSR", "OmniSR", "num_feat=8, window_size=4, up_scale=2", [_x("2, 3, 14, 14")]),
    _r("sp_plksr", "sp-cnn-sr", f"{SA}.PLKSR.__arch.PLKSR", "PLKSR", "dim=8, n_blocks=1, upscaling_factor=2, kernel_size=7", [IM]),
    _r("sp_plksr_sparse", "sp-cnn-sr", f"{SA}.PLKSR.__arch.PLKSR", "PLKSR", "dim=8, n_blocks=1, upscaling_factor=2, kernel_size=7, lk_type='SparsePLK', ccm_type='DCCM'", [IM]),
    _r("sp_rcan", "sp-cnn-sr", f"{SA}.RCAN.__arch.rcan_arch", "RCAN", "scale=2, n_resgroups=1, n_resblocks=1, n_feats=16, reduction=4", [IM]),
    _r("sp_realcugan", "sp-unet-sr", f"{SA}.RealCUGAN.__arch.upcunet_v3", "UpCunet2x", "", [_x("1, 3, 40, 40")]),
    _r("sp_swinir", "sp-swin-sr", f"{SA}.SwinIR.__arch.SwinIR", "SwinIR", "img_size=16, embed_dim=12, depths=[1], num_heads=[2], window_size=4, mlp_ratio=2.0, upscale=2, upsampler='pixelshuffledirect'", [_x("2, 3, 14, 14")]),
    _r("sp_swinir_plain", "sp-swin-sr", f"{SA}.SwinIR.__arch.SwinIR", "SwinIR", "img_size=16, embed_dim=12, depths=[1], num_heads=[2], window_size=4, mlp_ratio=2.0", [IM]),
    _r("sp_swin2sr", "sp-swin-sr", f"{SA}.Swin2SR.__arch.Swin2SR", "Swin2SR", "img_size=16, embed_dim=12, depths=[1], num_heads=[2], window_size=4, mlp_ratio=2.0, upscale=2, upsampler='pixelshuffledirect'", [IM]),
    _r("sp_hat", "sp-swin-sr", f"{SA}.HAT.__arch.HAT", "HAT", "img_size=16, embed_dim=12, depths=(1,), num_heads=(2,), window_size=4, compress_ratio=3, squeeze_factor=4, mlp_ratio=2.0, upscale=2, upsampler='pixelshuffle'", [IM]),
    _r("sp_dat", "sp-swin-sr", f"{SA}.DAT.__arch.DAT", "DAT", "img_size=16, embed_dim=32, split_size=[2, 4], depth=[1], num_heads=[2], expansion_factor=2.0, upscale=2, upsampler='pixelshuffledirect'", [IM]),
    _r("sp_atd", "sp-swin-sr", f"{SA}.ATD.__arch.atd_arch", "ATD", "img_size=16, embed_dim=12, depths=(1,), num_heads=(2,), window_size=4, category_size=16, num_tokens=8, upscale=2, upsampler='pixelshuffledirect'", [IM]),
    _r("sp_craft", "sp-swin-sr", f"{SA}.CRAFT.__arch.CRAFT", "CRAFT", "window_size=8, embed_dim=12, depths=[1], num_heads=[2], split_size_0=4, split_size_1=8, upscale=2", [IM]),
    _r("sp_lama", "sp-inpaint", f"{SA}.LaMa.__arch.LaMa", "LaMa", "in_nc=4, out_nc=3", [IM32, ("mask = (torch.rand(1, 1, 32, 32, generator=g) > 0.7).float()", B)]),
    _r("sp_uformer", "sp-restore", f"{SA}.Uformer.__arch.Uformer", "Uformer", "img_size=16, embed_dim=8, depths=[1, 1, 1, 1, 1, 1, 1, 1, 1], win_size=4", [IM]),
    _r("sp_retinexformer", "sp-lowlight", f"{SA}.RetinexFormer.__arch.retinexformer_arch", "RetinexFormer", "n_feat=8, stage=1, num_blocks=[1, 1, 1]", [IM]),
    _r("sp_cidnet", "sp-lowlight", f"{SA}.HVICIDNet.__arch.cidnet", "CIDNet", "channels=[8, 8, 16, 32], heads=[1, 2, 4, 8]", [IM]),
    _r("sp_mixdehaze", "sp-dehaze", f"{SA}.MixDehazeNet.__arch.MixDehazeNet", "MixDehazeNet", "embed_dims=[8, 16, 32, 16, 8], depths=[1, 1, 1, 1, 1]", [_x("1, 3, 64, 64")]),
    _r("sp_ditn", "sp-attn-sr", f"{SA}.DITN.__arch.DITN_Real", "DITN_Real", "dim=12, ITL_blocks=1, SAL_blocks=1, UFONE_blocks=1, patch_size=8, upscale=2", [IM]),
    _r("sp_swiftsrgan", "sp-cnn-sr", f"{SA}.SwiftSRGAN.__arch.SwiftSRGAN", "Generator", "num_channels=8, num_blocks=1, upscale_factor=2", [IM]),
    _r("sp_mosr", "sp-cnn-sr", f"{SA}.MoSR.__arch.mosr_arch", "MoSR", "upscale=2, n_block=1, dim=8", [IM]),
    _r("sp_moesr", "sp-cnn-sr", f"{SA}.MoESR.__arch.MoESR", "MoESR", "scale=2, dim=8, n_blocks=1, n_block=1, upsample_dim=8", [IM]),
    _r("sp_fdat", "sp-attn-sr", f"{SA}.FDAT.__arch.fdat", "FDAT", "scale=2, embed_dim=16, num_groups=1, depth_per_group=1, num_heads=2, window_size=4, mid_dim=8", [IM]),
    _r("sp_fftformer", "sp-deblur", f"{SA}.FFTformer.__arch.fftformer_arch", "FFTformer", "dim=8, num_blocks=[1, 1, 1], num_refinement_blocks=1", [IM32]),
    _r("sp_span_wrong", "sp-cnn-sr", f"{SA}.SPAN.__arch.span", "SPAN", "num_in_ch=3, num_out_ch=3, feature_channels=8, upscale=2", [_x("2, 4, 16, 16")]),
    _r("sp_nafnet_wrong", "sp-restore", f"{SA}.NAFNet.__arch.NAFNet_arch", "NAFNet", "width=8, middle_blk_num=1, enc_blk_nums=[1], dec_blk_nums=[1]", [(f"x = torch.randint(0, 256, (2, 3, 16, 16), {G}, dtype=torch.uint8)", B)]),
]
# fmt: on
