"""The recipes of scripts/triage_sweep_zoo13.py: tiny-config torch-hd, cliffordlayers,
pypose, hypll and e2cnn models (random weights, nothing downloaded) and the arguments a
user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo12_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
lines (imports, and the module-level objects a model and its inputs share: hypll's
manifold, e2cnn's field types, a pypose system a user writes as a class)."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as None / a flag / a Python number: no Dim
# ------------------------------------------------------------------ torch-hd
HD = "torchhd.embeddings"
HDC = "torchhd.classifiers"
HDM = "torchhd.models"
IDX = (f"input = torch.randint(0, 10, (2, 5), {G})", B)  # symbol indices
VAL = (f"input = torch.rand(2, 5, {G})", B)  # values in [0, 1)
FEAT = _x("2, 8", "input")  # feature vectors
SAMPLES = _x("2, 8", "samples")
HV = _x("2, 64", "input")  # hypervectors
# ------------------------------------------------------------------ cliffordlayers
CLN = "cliffordlayers.nn.modules"
CLM = "cliffordlayers.models"
X1 = _x("2, 2, 8, 2")  # (batch, channels, length, blades of Cl(1))
X2 = _x("2, 2, 8, 8, 4")  # (batch, channels, h, w, blades of Cl(2))
X2F = _x("2, 2, 8, 8, 3")  # a scalar and a vector field: CliffordNet2d's encoder
X3 = _x("1, 2, 4, 4, 4, 8")  # (batch, channels, d, h, w, blades of Cl(3))
GELU = "import torch.nn.functional as F"
# ------------------------------------------------------------------ pypose
PPM = "pypose.module"
SD, ID, OD = 3, 2, 3  # state, input and observation dims
SU = [_x(f"2, {SD}", "state"), _x(f"2, {ID}", "input")]
NLS_CLS = (
    "class Pendulum(NLS):\n"
    "    def state_transition(self, state, input, t=None):\n"
    "        return state.cos() + input\n\n"
    "    def observation(self, state, input, t=None):\n"
    "        return state.sin() + input"
)
PP_NLS = ["from pypose.module import NLS", NLS_CLS]
QR = "Q=torch.eye(3) * 0.01, R=torch.eye(3) * 0.01"
NLS_IN = [
    _x("3", "x", NONE),
    _x("3", "y", NONE),
    _x("3", "u", NONE),
    ("P = torch.eye(3) * 4.0", NONE),
]
T_HOR = 4
LQR_KW = (
    "LTI(torch.eye(3).repeat(2, 1, 1), torch.randn(2, 3, 2), torch.eye(3).repeat(2, 1, 1), "
    f"torch.zeros(2, 3, 2)), torch.eye(5).repeat(2, {T_HOR}, 1, 1), torch.randn(2, {T_HOR}, 5), {T_HOR}"
)
MPC_KW = (  # one system: MPC compares the batch's costs with `<` in a Python `if`
    "LTI(torch.eye(3), torch.randn(3, 2), torch.eye(3), torch.zeros(3, 2)), "
    f"torch.eye(5).repeat(1, {T_HOR}, 1, 1), torch.randn(1, {T_HOR}, 5), {T_HOR}"
)
IMU = [
    ("dt = torch.full((2, 5, 1), 0.01)", B),
    _x("2, 5, 3", "gyro"),
    _x("2, 5, 3", "acc"),
]
PTS3 = _x("2, 6, 3", "source")
# ------------------------------------------------------------------ hypll
HY = "hypll.nn"
MANI = [
    "from hypll.manifolds.poincare_ball import Curvature, PoincareBall",
    "MANIFOLD = PoincareBall(c=Curvature(1.0))",
]
MT = (
    f"x = MANIFOLD.expmap(TangentTensor(0.1 * torch.randn(2, 4, {G}), manifold=MANIFOLD))",
    B,
)
MT_IMG = (
    f"x = MANIFOLD.expmap(TangentTensor(0.1 * torch.randn(2, 2, 8, 8, {G}), manifold=MANIFOLD, man_dim=1))",
    B,
)
TT = "from hypll.tensors import TangentTensor"
# ------------------------------------------------------------------ e2cnn
E2 = "e2cnn.nn"
E2_TYPES = [
    "from e2cnn import gspaces",
    "from e2cnn.nn import FieldType, GeometricTensor",
    "R2 = gspaces.Rot2dOnR2(N=4)",
    "IN = FieldType(R2, 3 * [R2.trivial_repr])",
    "OUT = FieldType(R2, 2 * [R2.regular_repr])",
]
GT = (f"x = GeometricTensor(torch.randn(2, 3, 9, 9, {G}), IN)", B)
GT_OUT = (f"x = GeometricTensor(torch.randn(2, 8, 9, 9, {G}), OUT)", B)

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ torch-hd
    _r("hd_random", "hd-embeddings", HD, "Random", "10, 64", [IDX]),
    _r("hd_random_bsc", "hd-embeddings", HD, "Random", "10, 64, vsa='BSC'", [IDX]),
    _r("hd_random_fhrr", "hd-embeddings", HD, "Random", "10, 64, vsa='FHRR'", [IDX]),
    _r("hd_random_hrr", "hd-embeddings", HD, "Random", "10, 64, vsa='HRR'", [IDX]),
    _r("hd_level", "hd-embeddings", HD, "Level", "10, 64, low=0.0, high=1.0", [VAL]),
    _r("hd_level_bsc", "hd-embeddings", HD, "Level", "10, 64, vsa='BSC', low=0.0, high=1.0", [VAL]),
    _r("hd_thermometer", "hd-embeddings", HD, "Thermometer", "10, 64, low=0.0, high=1.0", [VAL]),
    _r("hd_circular", "hd-embeddings", HD, "Circular", "10, 64", [VAL]),
    _r("hd_projection", "hd-embeddings", HD, "Projection", "8, 64", [FEAT]),
    _r("hd_sinusoid", "hd-embeddings", HD, "Sinusoid", "8, 64", [FEAT]),
    _r("hd_density", "hd-embeddings", HD, "Density", "8, 64", [FEAT]),
    _r("hd_fracpow", "hd-embeddings", HD, "FractionalPower", "8, 64", [FEAT]),
    _r("hd_fracpow_sinc", "hd-embeddings", HD, "FractionalPower", "8, 64, distribution='sinc', bandwidth=2.0", [FEAT]),
    _r("hd_projection_int", "hd-embeddings", HD, "Projection", "8, 64", [(f"input = torch.randint(0, 5, (2, 8), {G})", B)]),
    _r("hd_centroid", "hd-centroid", HDM, "Centroid", "64, 3", [HV]),
    _r("hd_centroid_dot", "hd-centroid", HDM, "Centroid", "64, 3", [HV, ("dot = True", NONE)]),
    _r("hd_centroid_short", "hd-centroid", HDM, "Centroid", "64, 3", [_x("2, 32", "input")]),
    _r("hd_intrvfl", "hd-intrvfl", HDM, "IntRVFL", "8, 64, 3", [_x("2, 8", "x")]),
    _r("hd_intrvfl_kappa", "hd-intrvfl", HDM, "IntRVFL", "8, 64, 3, kappa=3", [_x("2, 8", "x")]),
    _r("hd_vanilla", "hd-classifier", HDC, "Vanilla", "8, 64, 3", [SAMPLES]),
    _r("hd_adapthd", "hd-classifier", HDC, "AdaptHD", "8, 64, 3", [SAMPLES]),
    _r("hd_onlinehd", "hd-classifier", HDC, "OnlineHD", "8, 64, 3", [SAMPLES]),
    _r("hd_neuralhd", "hd-classifier", HDC, "NeuralHD", "8, 64, 3", [SAMPLES]),
    _r("hd_disthd", "hd-classifier", HDC, "DistHD", "8, 64, 3", [SAMPLES]),
    _r("hd_lehdc", "hd-classifier", HDC, "LeHDC", "8, 64, 3", [SAMPLES]),
    _r("hd_comphd", "hd-classifier", HDC, "CompHD", "8, 64, 3, chunks=4", [SAMPLES]),
    _r("hd_sparsehd", "hd-classifier", HDC, "SparseHD", "8, 64, 3", [SAMPLES]),
    _r("hd_quanthd", "hd-classifier", HDC, "QuantHD", "8, 64, 3", [SAMPLES]),
    _r("hd_intrvfl_clf", "hd-classifier", HDC, "IntRVFL", "8, 64, 3", [SAMPLES]),
    # ------------------------------------------------------------------ cliffordlayers
    _r("cl_conv1d", "cl-conv", CLN + ".cliffordconv", "CliffordConv1d", "g=[1], in_channels=2, out_channels=4, kernel_size=3, padding=1", [X1]),
    _r("cl_conv2d", "cl-conv", CLN + ".cliffordconv", "CliffordConv2d", "g=[1, 1], in_channels=2, out_channels=4, kernel_size=3, padding=1", [X2]),
    _r("cl_conv2d_rot", "cl-conv", CLN + ".cliffordconv", "CliffordConv2d", "g=[-1, -1], in_channels=2, out_channels=4, kernel_size=3, padding=1, rotation=True", [X2]),
    _r("cl_conv3d", "cl-conv", CLN + ".cliffordconv", "CliffordConv3d", "g=[1, 1, 1], in_channels=2, out_channels=2, kernel_size=3, padding=1", [X3]),
    _r("cl_conv2d_blades", "cl-conv", CLN + ".cliffordconv", "CliffordConv2d", "g=[1, 1], in_channels=2, out_channels=4, kernel_size=3, padding=1", [_x("2, 2, 8, 8, 3")]),
    _r("cl_linear", "cl-linear", CLN + ".cliffordlinear", "CliffordLinear", "g=[1, 1], in_channels=3, out_channels=4", [_x("2, 3, 4")]),
    _r("cl_linear_3d", "cl-linear", CLN + ".cliffordlinear", "CliffordLinear", "g=[1, 1, 1], in_channels=3, out_channels=4", [_x("2, 3, 8")]),
    _r("cl_linear_f64", "cl-linear", CLN + ".cliffordlinear", "CliffordLinear", "g=[1, 1], in_channels=3, out_channels=4", [(f"x = torch.randn(2, 3, 4, {G}, dtype=torch.float64)", B)]),
    _r("cl_spectral2d", "cl-spectral", CLN + ".cliffordfourier", "CliffordSpectralConv2d", "g=[1, 1], in_channels=2, out_channels=4, modes1=2, modes2=2", [X2]),
    _r("cl_spectral3d", "cl-spectral", CLN + ".cliffordfourier", "CliffordSpectralConv3d", "g=[1, 1, 1], in_channels=2, out_channels=2, modes1=2, modes2=2, modes3=2", [X3]),
    _r("cl_spectral2d_dep", "cl-spectral", CLN + ".cliffordfourier_deprecated", "CliffordSpectralConv2d_deprecated", "in_channels=2, out_channels=2, modes1=2, modes2=2", [_x("2, 2, 8, 8", "vector"), _x("2, 2, 8, 8", "spinor")]),
    _r("cl_bn2d", "cl-norm", CLN + ".batchnorm", "CliffordBatchNorm2d", "g=[1, 1], channels=4", [_x("2, 4, 8, 8, 4")]),
    _r("cl_gn2d", "cl-norm", CLN + ".groupnorm", "CliffordGroupNorm2d", "g=[1, 1], num_groups=2, channels=4", [_x("2, 4, 8, 8, 4")]),
    _r("cl_bn1d", "cl-norm", CLN + ".batchnorm", "CliffordBatchNorm1d", "g=[1], channels=4", [_x("2, 4, 8, 2")]),
    _r("cl_complex_bn", "cl-norm", CLN + ".batchnorm", "ComplexBatchNorm1d", "channels=4", [(f"x = torch.randn(2, 4, 8, {G}, dtype=torch.complex64)", B)]),
    _r("cl_net2d", "cl-net2d", CLM + ".models_2d", "CliffordNet2d", "g=[1, 1], block=CliffordBasicBlock2d, num_blocks=[1], in_channels=2, out_channels=1, hidden_channels=4, activation=F.gelu, rotation=False", [X2F], [GELU, "CliffordBasicBlock2d"]),
    _r("cl_net2d_norm", "cl-net2d", CLM + ".models_2d", "CliffordNet2d", "g=[1, 1], block=CliffordBasicBlock2d, num_blocks=[1], in_channels=2, out_channels=1, hidden_channels=4, activation=F.gelu, rotation=False, norm=True", [X2F], [GELU, "CliffordBasicBlock2d"]),
    _r("cl_net2d_rot", "cl-net2d", CLM + ".models_2d", "CliffordNet2d", "g=[-1, -1], block=CliffordBasicBlock2d, num_blocks=[1], in_channels=2, out_channels=1, hidden_channels=4, activation=F.gelu, rotation=True", [X2F], [GELU, "CliffordBasicBlock2d"]),
    _r("cl_net2d_fourier", "cl-net2d", CLM + ".models_2d", "CliffordNet2d", "g=[1, 1], block=CliffordFourierBasicBlock2d, num_blocks=[1], in_channels=2, out_channels=1, hidden_channels=4, activation=F.gelu, rotation=False", [_x("1, 2, 24, 24, 3")], [GELU, "CliffordFourierBasicBlock2d"]),
    _r("cl_net2d_4d", "cl-net2d", CLM + ".models_2d", "CliffordNet2d", "g=[1, 1], block=CliffordBasicBlock2d, num_blocks=[1], in_channels=2, out_channels=1, hidden_channels=4, activation=F.gelu, rotation=False", [_x("2, 8, 8, 3")], [GELU, "CliffordBasicBlock2d"]),
    _r("cl_net3d", "cl-net3d", CLM + ".models_3d", "CliffordNet3d", "g=[1, 1, 1], block=CliffordFourierBasicBlock3d, num_blocks=[1], in_channels=2, out_channels=1, hidden_channels=2, activation=F.gelu", [_x("1, 2, 8, 8, 8, 6")], [GELU, "CliffordFourierBasicBlock3d"]),
    # ------------------------------------------------------------------ pypose
    _r("pp_lti", "pp-system", PPM, "LTI", "torch.eye(3), torch.randn(3, 2), torch.eye(3), torch.zeros(3, 2)", SU),
    _r("pp_lti_c", "pp-system", PPM, "LTI", "torch.eye(3), torch.randn(3, 2), torch.eye(3), torch.zeros(3, 2), c1=torch.randn(3), c2=torch.zeros(3)", SU),
    _r("pp_lti_batch", "pp-system", PPM, "LTI", "torch.eye(3).repeat(2, 1, 1), torch.randn(2, 3, 2), torch.eye(3).repeat(2, 1, 1), torch.zeros(2, 3, 2)", SU),
    _r("pp_lti_wrong_input", "pp-system", PPM, "LTI", "torch.eye(3), torch.randn(3, 2), torch.eye(3), torch.zeros(3, 2)", [_x(f"2, {SD}", "state"), _x("2, 3", "input")]),
    _r("pp_ekf", "pp-filter", PPM, "EKF", f"Pendulum(), {QR}", NLS_IN, PP_NLS),
    _r("pp_ekf_qr_input", "pp-filter", PPM, "EKF", "Pendulum()", [*NLS_IN, ("Q = torch.eye(3) * 0.01", NONE), ("R = torch.eye(3) * 0.01", NONE)], PP_NLS),
    _r("pp_ukf", "pp-filter", PPM, "UKF", f"Pendulum(), {QR}", NLS_IN, PP_NLS),
    _r("pp_pf", "pp-filter", PPM, "PF", f"Pendulum(), {QR}, particles=50", NLS_IN, PP_NLS),
    _r("pp_lqr", "pp-control", PPM, "LQR", LQR_KW, [_x("2, 3", "x_init")], ["LTI"]),
    _r("pp_lqr_dt", "pp-control", PPM, "LQR", LQR_KW, [_x("2, 3", "x_init"), ("dt = 0.1", NONE)], ["LTI"]),
    _r("pp_mpc", "pp-control", PPM, "MPC", MPC_KW, [("dt = 0.1", NONE), _x("1, 3", "x_init")], ["LTI"]),
    _r("pp_imu", "pp-imu", PPM, "IMUPreintegrator", {}, IMU),
    _r("pp_imu_unbatched", "pp-imu", PPM, "IMUPreintegrator", {}, [("dt = torch.full((5, 1), 0.01)", B), _x("5, 3", "gyro"), _x("5, 3", "acc")]),
    _r("pp_imu_rot", "pp-imu", PPM, "IMUPreintegrator", {}, [*IMU, ("rot = pp.identity_SO3(2, 5)", B)], ["import pypose as pp"]),
    _r("pp_imu_reset", "pp-imu", PPM, "IMUPreintegrator", "reset=True", IMU),
    _r("pp_imu_prop_cov", "pp-imu", PPM, "IMUPreintegrator", "prop_cov=False, reset=True", IMU),
    _r("pp_icp", "pp-geometry", PPM, "ICP", {}, [PTS3, _x("2, 6, 3", "target")]),
    _r("pp_epnp", "pp-geometry", PPM, "EPnP", "intrinsics=torch.tensor([[2.0, 0, 4.5], [0, 2.0, 4.5], [0, 0, 1]])", [("points = torch.randn(1, 8, 3) + torch.tensor([0.0, 0.0, 6.0])", B), (f"pixels = torch.rand(1, 8, 2, {G}) * 9", B)]),
    _r("pp_geodesic", "pp-loss", PPM, "GeodesicLoss", {}, [("input = pp.randn_SO3(2)", B), ("target = pp.randn_SO3(2)", B)], ["import pypose as pp"]),
    _r("pp_geodesic_tensor", "pp-loss", PPM, "GeodesicLoss", {}, [_x("2, 4", "input"), _x("2, 4", "target")]),
    # ------------------------------------------------------------------ hypll
    _r("hyp_linear", "hyp-linear", HY, "HLinear", "4, 3, manifold=MANIFOLD", [MT], [*MANI, TT]),
    _r("hyp_linear_tensor", "hyp-linear", HY, "HLinear", "4, 3, manifold=MANIFOLD", [_x("2, 4")], MANI),
    _r("hyp_embedding", "hyp-embedding", HY, "HEmbedding", "10, 4, manifold=MANIFOLD", [IDX], MANI),
    _r("hyp_embedding_float", "hyp-embedding", HY, "HEmbedding", "10, 4, manifold=MANIFOLD", [VAL], MANI),
    _r("hyp_conv", "hyp-conv", HY, "HConvolution2d", "2, 4, 3, manifold=MANIFOLD", [MT_IMG], [*MANI, TT]),
    _r("hyp_bn", "hyp-norm", HY, "HBatchNorm", "4, manifold=MANIFOLD", [MT], [*MANI, TT]),
    _r("hyp_bn2d", "hyp-norm", HY, "HBatchNorm2d", "2, manifold=MANIFOLD", [MT_IMG], [*MANI, TT]),
    _r("hyp_avgpool", "hyp-pool", HY, "HAvgPool2d", "2, manifold=MANIFOLD", [MT_IMG], [*MANI, TT]),
    _r("hyp_maxpool", "hyp-pool", HY, "HMaxPool2d", "2, manifold=MANIFOLD", [MT_IMG], [*MANI, TT]),
    _r("hyp_relu", "hyp-activation", HY, "HReLU", "manifold=MANIFOLD", [MT], [*MANI, TT]),
    _r("hyp_flatten", "hyp-activation", HY, "HFlatten", {}, [MT_IMG], [*MANI, TT]),
    _r("hyp_change", "hyp-activation", HY, "ChangeManifold", "Euclidean()", [MT], [*MANI, TT, "from hypll.manifolds.euclidean import Euclidean"]),
    # ------------------------------------------------------------------ e2cnn
    _r("e2_conv", "e2-conv", E2, "R2Conv", "IN, OUT, kernel_size=3", [GT], E2_TYPES),
    _r("e2_conv_exported", "e2-conv", E2, "R2Conv", "IN, OUT, kernel_size=3).eval().export(", [_x("2, 3, 9, 9")], E2_TYPES),
    _r("e2_conv_plain", "e2-conv", E2, "R2Conv", "IN, OUT, kernel_size=3", [_x("2, 3, 9, 9")], E2_TYPES),
    _r("e2_conv_d4", "e2-conv", E2, "R2Conv", "FieldType(F2, 3 * [F2.trivial_repr]), FieldType(F2, [F2.regular_repr]), kernel_size=3", [(f"x = GeometricTensor(torch.randn(2, 3, 9, 9, {G}), FieldType(F2, 3 * [F2.trivial_repr]))", B)], [*E2_TYPES, "F2 = gspaces.Rot2dOnR2(N=8)"]),
    _r("e2_relu", "e2-nonlin", E2, "ReLU", "OUT", [GT_OUT], E2_TYPES),
    _r("e2_elu", "e2-nonlin", E2, "ELU", "OUT", [GT_OUT], E2_TYPES),
    _r("e2_normnonlin", "e2-nonlin", E2, "NormNonLinearity", "FieldType(R2, 4 * [R2.irrep(1)])", [(f"x = GeometricTensor(torch.randn(2, 8, 9, 9, {G}), FieldType(R2, 4 * [R2.irrep(1)]))", B)], E2_TYPES),
    _r("e2_gpool", "e2-pool", E2, "GroupPooling", "OUT", [GT_OUT], E2_TYPES),
    _r("e2_maxpool", "e2-pool", E2, "PointwiseMaxPool", "OUT, 2", [GT_OUT], E2_TYPES),
    _r("e2_normpool", "e2-pool", E2, "NormPool", "OUT", [GT_OUT], E2_TYPES),
    _r("e2_bn", "e2-norm", E2, "InnerBatchNorm", "OUT", [GT_OUT], E2_TYPES),
    _r("e2_upsample", "e2-pool", E2, "R2Upsampling", "OUT, 2", [GT_OUT], E2_TYPES),
    _r("e2_seq", "e2-seq", E2, "SequentialModule", "R2Conv(IN, OUT, kernel_size=3), InnerBatchNorm(OUT), ReLU(OUT)", [GT], [*E2_TYPES, "R2Conv", "InnerBatchNorm", "ReLU"]),
    _r("e2_seq_exported", "e2-seq", E2, "SequentialModule", "R2Conv(IN, OUT, kernel_size=3), InnerBatchNorm(OUT), ReLU(OUT)).eval().export(", [_x("2, 3, 9, 9")], [*E2_TYPES, "R2Conv", "InnerBatchNorm", "ReLU"]),
]
# fmt: on
