"""The recipes of scripts/triage_sweep_zoo15.py: tiny-config facenet-pytorch, julius,
unfoldNd, pytorch-nlp and fft-conv-pytorch models (random weights, nothing downloaded;
facenet-pytorch's P/R/O-Nets are built with `pretrained=False` but one, which loads the
weights its wheel ships: no download) and the arguments a user passes them. MTCNN is not
swept: its detection calls torchvision.ops.batched_nms, whose C++ kernel this
torchvision cannot load, so it fails eagerly whatever the input.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo14_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ facenet-pytorch
FN = "facenet_pytorch"
IR = "facenet_pytorch.models.inception_resnet_v1"
FACE = _x("2, 3, 80, 80", "x")  # (batch, 3, h, w)
# ------------------------------------------------------------------ julius
JU = "julius"
WAV = _x("2, 64", "x")  # (batch, time)
WAV3 = _x("2, 2, 64", "x")  # (batch, channels, time)
# ------------------------------------------------------------------ unfoldNd
UN = "unfoldNd"
# ------------------------------------------------------------------ pytorch-nlp
TN = "torchnlp.nn"
QRY = _x("2, 3, 4", "query")  # (batch, output length, dimensions)
CTX = _x("2, 5, 4", "context")  # (batch, query length, dimensions)
TOK = _x("2, 6, 4", "tokens")  # (batch, num_tokens, embedding_dim)
# ------------------------------------------------------------------ fft-conv-pytorch
FC = "fft_conv_pytorch"

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ facenet-pytorch
    _r("fn_irv1", "fn-irv1", FN, "InceptionResnetV1", "", [FACE]),
    _r("fn_irv1_classify", "fn-irv1", FN, "InceptionResnetV1", "classify=True, num_classes=5", [FACE]),
    _r("fn_irv1_1", "fn-irv1", FN, "InceptionResnetV1", "dropout_prob=0.0", [_x("1, 3, 80, 80", "x")]),
    _r("fn_irv1_gray", "fn-irv1", FN, "InceptionResnetV1", "", [_x("2, 1, 80, 80", "x")]),
    _r("fn_irv1_uint8", "fn-irv1", FN, "InceptionResnetV1", "", [(f"x = torch.randint(0, 256, (2, 3, 80, 80), {G}, dtype=torch.uint8)", B)]),
    _r("fn_block35", "fn-blocks", IR, "Block35", "scale=0.17", [_x("2, 256, 5, 5", "x")]),
    _r("fn_block17", "fn-blocks", IR, "Block17", "scale=0.1", [_x("2, 896, 3, 3", "x")]),
    _r("fn_block8", "fn-blocks", IR, "Block8", "noReLU=True", [_x("2, 1792, 2, 2", "x")]),
    _r("fn_mixed6a", "fn-blocks", IR, "Mixed_6a", "", [_x("2, 256, 9, 9", "x")]),
    _r("fn_pnet", "fn-pnet", FN, "PNet", "pretrained=False", [_x("2, 3, 12, 12", "x")]),
    _r("fn_pnet_big", "fn-pnet", FN, "PNet", "pretrained=False", [_x("2, 3, 24, 20", "x")]),
    _r("fn_pnet_shipped", "fn-pnet", FN, "PNet", "", [_x("2, 3, 12, 12", "x")]),
    _r("fn_rnet", "fn-rnet", FN, "RNet", "pretrained=False", [_x("2, 3, 24, 24", "x")]),
    _r("fn_rnet_wrong", "fn-rnet", FN, "RNet", "pretrained=False", [_x("2, 3, 12, 12", "x")]),
    _r("fn_onet", "fn-onet", FN, "ONet", "pretrained=False", [_x("2, 3, 48, 48", "x")]),
    _r("fn_onet_f64", "fn-onet", FN, "ONet", "pretrained=False", [(f"x = torch.randn(2, 3, 48, 48, {G}, dtype=torch.float64)", B)]),
    # ------------------------------------------------------------------ julius
    _r("ju_resample", "ju-resample", JU, "ResampleFrac", "4, 5", [WAV]),
    _r("ju_resample_3d", "ju-resample", JU, "ResampleFrac", "4, 5", [WAV3]),
    _r("ju_resample_down", "ju-resample", JU, "ResampleFrac", "5, 3, zeros=8", [WAV]),
    _r("ju_resample_len", "ju-resample", JU, "ResampleFrac", "4, 5", [WAV, ("output_length = 70", NONE)]),
    _r("ju_resample_full", "ju-resample", JU, "ResampleFrac", "4, 5", [WAV, ("output_length = None", NONE), ("full = True", NONE)]),
    _r("ju_resample_int", "ju-resample", JU, "ResampleFrac", "4, 5", [(f"x = torch.randint(-100, 100, (2, 64), {G})", B)]),
    _r("ju_lowpass", "ju-lowpass", JU, "LowPassFilter", "0.1", [WAV]),
    _r("ju_lowpass_fft", "ju-lowpass", JU, "LowPassFilter", "0.1, fft=True", [WAV]),
    _r("ju_lowpass_stride", "ju-lowpass", JU, "LowPassFilter", "0.1, stride=2, pad=False", [_x("2, 2, 128", "x")]),
    _r("ju_lowpass_f64", "ju-lowpass", JU, "LowPassFilter", "0.1", [(f"x = torch.randn(2, 64, {G}, dtype=torch.float64)", B)]),
    _r("ju_lowpasses", "ju-lowpasses", JU, "LowPassFilters", "[0.1, 0.2]", [WAV]),
    _r("ju_lowpasses_fft", "ju-lowpasses", JU, "LowPassFilters", "[0.05, 0.2], fft=True", [WAV3]),
    _r("ju_highpass", "ju-highpass", JU, "HighPassFilter", "0.2", [WAV]),
    _r("ju_highpasses", "ju-highpass", JU, "HighPassFilters", "[0.1, 0.3], stride=2", [WAV3]),
    _r("ju_bandpass", "ju-bandpass", JU, "BandPassFilter", "0.1, 0.3", [WAV]),
    _r("ju_bandpass_fft", "ju-bandpass", JU, "BandPassFilter", "0.05, 0.3, fft=True", [WAV]),
    _r("ju_bands", "ju-bands", JU, "SplitBands", "16000, n_bands=3", [WAV]),
    _r("ju_bands_cutoffs", "ju-bands", JU, "SplitBands", "16000, cutoffs=[1000, 4000]", [WAV3]),
    _r("ju_bands_one", "ju-bands", JU, "SplitBands", "16000, n_bands=1", [WAV]),
    _r("ju_fftconv", "ju-fftconv", JU, "FFTConv1d", "2, 3, 5", [WAV3]),
    _r("ju_fftconv_stride", "ju-fftconv", JU, "FFTConv1d", "2, 3, 5, stride=2, padding=2", [WAV3]),
    _r("ju_fftconv_wrong", "ju-fftconv", JU, "FFTConv1d", "2, 3, 5", [_x("2, 3, 64", "x")]),
    # ------------------------------------------------------------------ unfoldNd
    _r("un_unfold1d", "un-unfold", UN, "UnfoldNd", "3", [_x("2, 2, 10")]),
    _r("un_unfold2d", "un-unfold", UN, "UnfoldNd", "2, stride=2", [_x("2, 2, 6, 6")]),
    _r("un_unfold3d", "un-unfold", UN, "UnfoldNd", "2", [_x("1, 2, 4, 4, 4")]),
    _r("un_unfold_dil", "un-unfold", UN, "UnfoldNd", "3, dilation=2, padding=1", [_x("2, 2, 7, 7")]),
    _r("un_unfold_int", "un-unfold", UN, "UnfoldNd", "2", [(f"x = torch.randint(0, 9, (2, 2, 6, 6), {G})", B)]),
    _r("un_unfold_rank", "un-unfold", UN, "UnfoldNd", "2", [_x("6, 6")]),
    _r("un_fold1d", "un-fold", UN, "FoldNd", "(10,), 3", [_x("2, 6, 8")]),
    _r("un_fold2d", "un-fold", UN, "FoldNd", "(4, 4), 2, stride=2", [_x("2, 8, 4")]),
    _r("un_fold3d", "un-fold", UN, "FoldNd", "(4, 4, 4), 2, stride=2", [_x("1, 16, 8")]),
    _r("un_fold_wrong", "un-fold", UN, "FoldNd", "(4, 4), 2, stride=2", [_x("2, 7, 4")]),
    _r("un_utrans2d", "un-utrans", UN, "UnfoldTransposeNd", "2, stride=2", [_x("2, 2, 3, 3")]),
    _r("un_utrans1d", "un-utrans", UN, "UnfoldTransposeNd", "3, stride=2, padding=1", [_x("2, 2, 5")]),
    _r("un_utrans_size", "un-utrans", UN, "UnfoldTransposeNd", "2, stride=2", [_x("2, 2, 3, 3"), ("output_size = [7, 7]", NONE)]),
    _r("un_utrans3d", "un-utrans", UN, "UnfoldTransposeNd", "2, stride=2", [_x("1, 1, 2, 2, 2")]),
    # ------------------------------------------------------------------ pytorch-nlp
    _r("tn_attn", "tn-attention", TN, "Attention", "4", [QRY, CTX]),
    _r("tn_attn_dot", "tn-attention", TN, "Attention", "4, attention_type='dot'", [QRY, CTX]),
    _r("tn_attn_wrong", "tn-attention", TN, "Attention", "4", [QRY, _x("2, 5, 6", "context")]),
    _r("tn_attn_2d", "tn-attention", TN, "Attention", "4", [_x("2, 4", "query"), CTX]),
    _r("tn_cnn", "tn-cnn", TN, "CNNEncoder", "4, 3, ngram_filter_sizes=(2, 3)", [TOK]),
    _r("tn_cnn_mask", "tn-cnn", TN, "CNNEncoder", "4, 3, ngram_filter_sizes=(2, 3)", [TOK, (f"mask = (torch.rand(2, 6, {G}) > 0.3).float()", B)]),
    _r("tn_cnn_boolmask", "tn-cnn", TN, "CNNEncoder", "4, 3, ngram_filter_sizes=(2, 3)", [TOK, (f"mask = torch.rand(2, 6, {G}) > 0.3", B)]),
    _r("tn_cnn_proj", "tn-cnn", TN, "CNNEncoder", "4, 3, ngram_filter_sizes=(2, 3), output_dim=5", [TOK]),
    _r("tn_cnn_one", "tn-cnn", TN, "CNNEncoder", "4, 3, ngram_filter_sizes=(2,)", [TOK]),
    _r("tn_cnn_short", "tn-cnn", TN, "CNNEncoder", "4, 3", [_x("2, 3, 4", "tokens")]),
    _r("tn_locked", "tn-locked", TN, "LockedDropout", "0.5", [_x("3, 2, 4")]),
    _r("tn_wd_linear", "tn-weight-drop", TN, "WeightDropLinear", "4, 3, weight_dropout=0.1", [_x("2, 4")]),
    _r("tn_wd_lstm", "tn-weight-drop", TN, "WeightDropLSTM", "4, 5, weight_dropout=0.1", [_x("3, 2, 4", "x", "{1: BATCH}")]),
    _r("tn_wd_gru", "tn-weight-drop", TN, "WeightDropGRU", "4, 5, batch_first=True, weight_dropout=0.1", [_x("2, 3, 4")]),
    _r("tn_wd_cell", "tn-weight-drop", TN, "WeightDrop", "torch.nn.GRUCell(2, 2), ['weight_hh'], dropout=0.5", [_x("3, 2", "input_"), _x("3, 2", "hidden")]),
    _r("tn_wd_module", "tn-weight-drop", TN, "WeightDrop", "torch.nn.Linear(4, 3), ['weight'], dropout=0.2", [_x("2, 4")]),
    # ------------------------------------------------------------------ fft-conv-pytorch
    _r("fc_1d", "fc-conv1d", FC, "FFTConv1d", "2, 3, 5", [_x("2, 2, 32")]),
    _r("fc_1d_pad", "fc-conv1d", FC, "FFTConv1d", "2, 3, 5, padding=2, stride=2", [_x("2, 2, 32")]),
    _r("fc_1d_same", "fc-conv1d", FC, "FFTConv1d", "2, 3, 4, padding='same'", [_x("2, 2, 32")]),
    _r("fc_1d_nobias", "fc-conv1d", FC, "FFTConv1d", "2, 3, 5, bias=False", [_x("2, 2, 32")]),
    _r("fc_1d_f64", "fc-conv1d", FC, "FFTConv1d", "2, 3, 5", [(f"x = torch.randn(2, 2, 32, {G}, dtype=torch.float64)", B)]),
    _r("fc_2d", "fc-conv2d", FC, "FFTConv2d", "2, 3, 3", [_x("2, 2, 8, 8")]),
    _r("fc_2d_groups", "fc-conv2d", FC, "FFTConv2d", "4, 4, 3, groups=2", [_x("2, 4, 8, 8")]),
    _r("fc_2d_dilation", "fc-conv2d", FC, "FFTConv2d", "2, 3, 3, dilation=2", [_x("2, 2, 8, 8")]),
    _r("fc_2d_reflect", "fc-conv2d", FC, "FFTConv2d", "2, 3, 3, padding=1, padding_mode='reflect'", [_x("2, 2, 8, 8")]),
    _r("fc_2d_wrong", "fc-conv2d", FC, "FFTConv2d", "2, 3, 3", [_x("2, 3, 8, 8")]),
    _r("fc_3d", "fc-conv3d", FC, "FFTConv3d", "1, 2, 3", [_x("1, 1, 6, 6, 6")]),
]
# fmt: on
