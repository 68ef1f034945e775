"""The recipes of scripts/triage_sweep_zoo17.py: tiny-config geotorch, torchnmf,
torch-cubic-spline-grids, FrEIA and unet models (random weights, nothing downloaded: none
of the five libraries fetches weights or data) and the arguments a user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo16_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines. `POST` gives a case the lines a user runs on the built model before calling it
(`model` names it): geotorch's constraints are put on a torch layer
(`geotorch.orthogonal(model, "weight")`), FrEIA's SequenceINN is built by `append`;
scripts/triage_sweep_zoo17.py renders them into Model()."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as a Python value: no Dim
# ------------------------------------------------------------------ geotorch
NN = "torch.nn"  # geotorch constrains a torch layer's parameter
GT = ["import geotorch"]
XL = _x("4, 6")  # (batch, features)
# ------------------------------------------------------------------ torchnmf
TN = "torchnmf.nmf"
TP = "torchnmf.plca"
# ------------------------------------------------------------------ torch-cubic-spline-grids
CS = "torch_cubic_spline_grids"
# ------------------------------------------------------------------ FrEIA
FM = "FrEIA.modules"
FF = "FrEIA.framework"
SUB = "subnet_constructor=lambda i, o: torch.nn.Sequential(torch.nn.Linear(i, 8), torch.nn.ReLU(), torch.nn.Linear(8, o))"
SUBC = "subnet_constructor=lambda i, o: torch.nn.Conv2d(i, o, 3, padding=1)"
# FrEIA modules take a list of tensors
XV = ("x = [torch.randn(4, 6, generator=g)]", "[{0: BATCH}]")
XI = ("x = [torch.randn(2, 4, 8, 8, generator=g)]", "[{0: BATCH}]")  # (batch, c, h, w)
D6 = "[(6,)]"
D4 = "[(4, 8, 8)]"
# ------------------------------------------------------------------ unet
UN = "unet"
UT = "in_channels=1, out_classes=2, num_encoding_blocks=2, out_channels_first_layer=4, padding=1"
IMG = _x("2, 1, 16, 16")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ geotorch
    _r("gt_orth", "gt-orthogonal", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_orth_rect", "gt-orthogonal", NN, "Linear", "6, 4", [XL], GT),
    _r("gt_orth_cayley", "gt-orthogonal", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_orth_conv", "gt-orthogonal", NN, "Conv2d", "3, 3, 3", [_x("2, 3, 8, 8")], GT),
    _r("gt_orth_f64", "gt-orthogonal", NN, "Linear", "6, 6", [(f"x = torch.randn(4, 6, {G}, dtype=torch.float64)", B)], GT),
    _r("gt_almost", "gt-orthogonal", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_grass", "gt-grassmannian", NN, "Linear", "6, 3", [XL], GT),
    _r("gt_sphere", "gt-sphere", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_sphere_emb", "gt-sphere", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_symmetric", "gt-symmetric", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_skew", "gt-symmetric", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_lowrank", "gt-rank", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_fixedrank", "gt-rank", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_invertible", "gt-glp", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_sln", "gt-glp", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_pd", "gt-psd", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_psd", "gt-psd", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_psd_lowrank", "gt-psd", NN, "Linear", "6, 6", [XL], GT),
    _r("gt_alpha", "gt-hurwitz", NN, "Linear", "6, 6", [XL], GT),
    # ------------------------------------------------------------------ torchnmf
    _r("tn_nmf", "tn-nmf", TN, "NMF", "(8, 6), rank=3", [("H = torch.rand(8, 3, generator=g)", B)]),
    _r("tn_nmf_w", "tn-nmf", TN, "NMF", "W=(6, 3)", [("H = torch.rand(5, 3, generator=g)", B)]),
    _r("tn_nmf_hw", "tn-nmf", TN, "NMF", "rank=3", [("H = torch.rand(8, 3, generator=g)", B), ("W = torch.rand(6, 3, generator=g)", NONE)]),
    _r("tn_nmf_f64", "tn-nmf", TN, "NMF", "(8, 6), rank=3", [("H = torch.rand(8, 3, generator=g, dtype=torch.float64)", B)]),
    _r("tn_nmf_rank", "tn-nmf", TN, "NMF", "(8, 6), rank=3", [("H = torch.rand(8, 4, generator=g)", B)]),
    _r("tn_nmfd", "tn-nmfd", TN, "NMFD", "(2, 6, 10), rank=3, T=3", [("H = torch.rand(2, 3, 8, generator=g)", B)]),
    _r("tn_nmf2d", "tn-nmf2d", TN, "NMF2D", "(2, 4, 6, 8), rank=3, kernel_size=(2, 2)", [("H = torch.rand(2, 3, 5, 7, generator=g)", B)]),
    _r("tn_nmf3d", "tn-nmf3d", TN, "NMF3D", "(1, 2, 4, 6, 8), rank=2, kernel_size=(2, 2, 2)", [("H = torch.rand(1, 2, 3, 5, 7, generator=g)", B)]),
    _r("tn_plca", "tn-plca", TP, "PLCA", "(8, 6), rank=3", [("H = torch.rand(8, 3, generator=g)", B)]),
    _r("tn_plca_z", "tn-plca", TP, "PLCA", "(8, 6), rank=3", [("H = torch.rand(8, 3, generator=g)", B), ("W = torch.rand(6, 3, generator=g)", NONE), ("Z = torch.rand(3, generator=g)", NONE)]),
    _r("tn_siplca", "tn-siplca", TP, "SIPLCA", "(2, 6, 10), rank=2, T=3", [("H = torch.rand(2, 2, 8, generator=g)", B)]),
    _r("tn_siplca2", "tn-siplca", TP, "SIPLCA2", "(2, 4, 6, 8), rank=2, kernel_size=(2, 2)", [("H = torch.rand(2, 2, 5, 7, generator=g)", B)]),
    _r("tn_siplca3", "tn-siplca", TP, "SIPLCA3", "(1, 2, 4, 6, 8), rank=2, kernel_size=(2, 2, 2)", [("H = torch.rand(1, 2, 3, 5, 7, generator=g)", B)]),
    # ------------------------------------------------------------------ torch-cubic-spline-grids
    _r("cs_b1d", "cs-bspline", CS, "CubicBSplineGrid1d", "resolution=(5,)", [("u = torch.rand(6, generator=g)", B)]),
    _r("cs_b1d_ch", "cs-bspline", CS, "CubicBSplineGrid1d", "resolution=(5,), n_channels=3", [("u = torch.rand(6, 1, generator=g)", B)]),
    _r("cs_b1d_mini", "cs-bspline", CS, "CubicBSplineGrid1d", "resolution=(5,), minibatch_size=4", [("u = torch.rand(10, generator=g)", B)]),
    _r("cs_b1d_mono", "cs-bspline", CS, "CubicBSplineGrid1d", "resolution=(5,), monotonicity='increasing'", [("u = torch.rand(6, generator=g)", B)]),
    _r("cs_b2d", "cs-bspline", CS, "CubicBSplineGrid2d", "resolution=(4, 5), n_channels=2", [("u = torch.rand(6, 2, generator=g)", B)]),
    _r("cs_b3d", "cs-bspline", CS, "CubicBSplineGrid3d", "resolution=(3, 4, 5)", [("u = torch.rand(6, 3, generator=g)", B)]),
    _r("cs_b4d", "cs-bspline", CS, "CubicBSplineGrid4d", "resolution=(3, 3, 4, 4)", [("u = torch.rand(6, 4, generator=g)", B)]),
    _r("cs_b2d_img", "cs-bspline", CS, "CubicBSplineGrid2d", "resolution=(4, 5)", [("u = torch.rand(3, 4, 2, generator=g)", B)]),
    _r("cs_b2d_wrong", "cs-bspline", CS, "CubicBSplineGrid2d", "resolution=(4, 5)", [("u = torch.rand(6, 3, generator=g)", B)]),
    _r("cs_cr1d", "cs-catmull", CS, "CubicCatmullRomGrid1d", "resolution=(5,)", [("u = torch.rand(6, generator=g)", B)]),
    _r("cs_cr2d", "cs-catmull", CS, "CubicCatmullRomGrid2d", "resolution=(4, 5), n_channels=2", [("u = torch.rand(6, 2, generator=g)", B)]),
    _r("cs_cr3d", "cs-catmull", CS, "CubicCatmullRomGrid3d", "resolution=(3, 4, 5)", [("u = torch.rand(6, 3, generator=g)", B)]),
    _r("cs_cr1d_int", "cs-catmull", CS, "CubicCatmullRomGrid1d", "resolution=(5,)", [("u = torch.randint(0, 2, (6,), generator=g)", B)]),
    # ------------------------------------------------------------------ FrEIA
    _r("fr_allinone", "fr-allinone", FM, "AllInOneBlock", f"{D6}, {SUB}", [XV]),
    _r("fr_allinone_perm", "fr-allinone", FM, "AllInOneBlock", f"{D6}, {SUB}, permute_soft=True, learned_householder_permutation=2", [XV]),
    _r("fr_allinone_conv", "fr-allinone", FM, "AllInOneBlock", f"{D4}, {SUBC}", [XI]),
    _r("fr_allinone_wrong", "fr-allinone", FM, "AllInOneBlock", f"{D6}, {SUB}", [("x = [torch.randn(4, 5, generator=g)]", "[{0: BATCH}]")]),
    _r("fr_nice", "fr-coupling", FM, "NICECouplingBlock", f"{D6}, {SUB}", [XV]),
    _r("fr_rnvp", "fr-coupling", FM, "RNVPCouplingBlock", f"{D6}, {SUB}", [XV]),
    _r("fr_glow", "fr-coupling", FM, "GLOWCouplingBlock", f"{D6}, {SUB}", [XV]),
    _r("fr_gin", "fr-coupling", FM, "GINCouplingBlock", f"{D6}, {SUB}", [XV]),
    _r("fr_affine1s", "fr-coupling", FM, "AffineCouplingOneSided", f"{D6}, {SUB}", [XV]),
    _r("fr_cond", "fr-coupling", FM, "ConditionalAffineTransform", f"{D6}, dims_c=[(3,)], {SUB}", [XV, ("c = [torch.randn(4, 3, generator=g)]", "[{0: BATCH}]")]),
    _r("fr_glow_rev", "fr-coupling", FM, "GLOWCouplingBlock", f"{D6}, {SUB}", [XV, ("c = []", NONE), ("rev = True", NONE)]),
    _r("fr_actnorm", "fr-transforms", FM, "ActNorm", D6, [XV]),
    _r("fr_permute", "fr-fixed", FM, "PermuteRandom", f"{D6}, seed=0", [XV]),
    _r("fr_fixedlinear", "fr-fixed", FM, "FixedLinearTransform", f"{D6}, M=torch.eye(6) * 2", [XV]),
    _r("fr_sigmoid", "fr-fixed", FM, "InvertibleSigmoid", D6, [("x = [torch.rand(4, 6, generator=g)]", "[{0: BATCH}]")]),
    _r("fr_orthogonal", "fr-transforms", FM, "OrthogonalTransform", D6, [XV]),
    _r("fr_householder", "fr-transforms", FM, "HouseholderPerm", f"{D6}, n_reflections=2", [XV]),
    _r("fr_scaling", "fr-transforms", FM, "LearnedElementwiseScaling", D6, [XV]),
    _r("fr_invautofc", "fr-transforms", FM, "InvAutoFC", D6, [XV]),
    _r("fr_invautoconv", "fr-transforms", FM, "InvAutoConv2D", D4, [XI]),
    _r("fr_haar", "fr-reshape", FM, "HaarDownsampling", D4, [XI]),
    _r("fr_irevdown", "fr-reshape", FM, "IRevNetDownsampling", D4, [XI]),
    _r("fr_flatten", "fr-reshape", FM, "Flatten", D4, [XI]),
    _r("fr_reshape", "fr-reshape", FM, "Reshape", f"{D4}, output_dims=(16, 4, 4)", [XI]),
    _r("fr_seq", "fr-sequence", FF, "SequenceINN", "6", [_x("4, 6")], ["from FrEIA.modules import AllInOneBlock"]),
    _r("fr_seq_mix", "fr-sequence", FF, "SequenceINN", "6", [_x("4, 6")], ["from FrEIA.modules import ActNorm, GLOWCouplingBlock, PermuteRandom"]),
    _r("fr_seq_rev", "fr-sequence", FF, "SequenceINN", "6", [_x("4, 6"), ("c = None", NONE), ("rev = True", NONE)], ["from FrEIA.modules import AllInOneBlock"]),
    _r("fr_seq_f64", "fr-sequence", FF, "SequenceINN", "6", [(f"x = torch.randn(4, 6, {G}, dtype=torch.float64)", B)], ["from FrEIA.modules import AllInOneBlock"]),
    # ------------------------------------------------------------------ unet
    _r("un_2d", "un-unet", UN, "UNet", UT, [IMG]),
    _r("un_1d", "un-unet", UN, "UNet1D", UT, [_x("2, 1, 16")]),
    _r("un_3d", "un-unet", UN, "UNet3D", UT, [_x("1, 1, 8, 8, 8")]),
    _r("un_bn", "un-unet", UN, "UNet2D", UT + ", normalization='batch'", [IMG]),
    _r("un_in", "un-unet", UN, "UNet2D", UT + ", normalization='instance'", [IMG]),
    _r("un_avg", "un-unet", UN, "UNet2D", UT + ", pooling_type='avg'", [IMG]),
    _r("un_linear", "un-unet", UN, "UNet2D", UT + ", upsampling_type='linear'", [IMG]),
    _r("un_preact", "un-unet", UN, "UNet2D", UT + ", preactivation=True, normalization='batch'", [IMG]),
    _r("un_residual", "un-unet", UN, "UNet2D", UT + ", residual=True", [IMG]),
    _r("un_valid", "un-unet", UN, "UNet2D", UT.replace("padding=1", "padding=0"), [_x("2, 1, 20, 20")]),
    _r("un_reflect", "un-unet", UN, "UNet2D", UT + ", padding_mode='reflect'", [IMG]),
    _r("un_dilation", "un-unet", UN, "UNet2D", UT + ", initial_dilation=2, activation='PReLU'", [IMG]),
    _r("un_odd", "un-unet", UN, "UNet2D", UT, [_x("2, 1, 15, 15")]),
    _r("un_rgb", "un-unet", UN, "UNet2D", UT, [_x("2, 3, 16, 16")]),
]
# fmt: on

# the lines a user runs on the built model before calling it (see the module doc)
POST = {
    "gt_orth": ['geotorch.orthogonal(model, "weight")'],
    "gt_orth_rect": ['geotorch.orthogonal(model, "weight")'],
    "gt_orth_cayley": ['geotorch.orthogonal(model, "weight", triv="cayley")'],
    "gt_orth_conv": ['geotorch.orthogonal(model, "weight")'],
    "gt_orth_f64": ['geotorch.orthogonal(model, "weight")'],
    "gt_almost": ['geotorch.almost_orthogonal(model, "weight", lam=0.5)'],
    "gt_grass": ['geotorch.grassmannian(model, "weight")'],
    "gt_sphere": ['geotorch.sphere(model, "weight")'],
    "gt_sphere_emb": ['geotorch.sphere(model, "weight", embedded=True)'],
    "gt_symmetric": ['geotorch.symmetric(model, "weight")'],
    "gt_skew": ['geotorch.skew(model, "weight")'],
    "gt_lowrank": ['geotorch.low_rank(model, "weight", 2)'],
    "gt_fixedrank": ['geotorch.fixed_rank(model, "weight", 2)'],
    "gt_invertible": ['geotorch.invertible(model, "weight")'],
    "gt_sln": ['geotorch.sln(model, "weight")'],
    "gt_pd": ['geotorch.positive_definite(model, "weight")'],
    "gt_psd": ['geotorch.positive_semidefinite(model, "weight")'],
    "gt_psd_lowrank": ['geotorch.positive_semidefinite_low_rank(model, "weight", 2)'],
    "gt_alpha": ['geotorch.alpha_stable(model, "weight")'],
}
_ALL_IN_ONE = f"model.append(AllInOneBlock, {SUB})"
for _case in ("fr_seq", "fr_seq_rev", "fr_seq_f64"):
    POST[_case] = [_ALL_IN_ONE, _ALL_IN_ONE]
POST["fr_seq_mix"] = [
    "model.append(ActNorm)",
    f"model.append(GLOWCouplingBlock, {SUB})",
    "model.append(PermuteRandom, seed=0)",
]
