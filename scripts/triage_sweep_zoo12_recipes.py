"""The recipes of scripts/triage_sweep_zoo12.py: tiny-config torch-kmeans, diffsort, mpc,
torchkbnufft and torchsr models (random weights, nothing downloaded) and the arguments a
user passes them.

A recipe is zoo4's `(case, family, module, class, constructor kwargs, inputs[, extra])`
(scripts/triage_sweep_zoo_driver.render_recipe), as in triage_sweep_zoo11_recipes.py:
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec (`True`: dim 0 is the batch, a string for another spec, `False` for
none); constructor kwargs written as a string are source (they may name the extra
imported classes and `torch`); `extra` adds names imported from the module, or whole
import lines."""

from __future__ import annotations

from triage_sweep_zoo9_recipes import _r, _x

G = "generator=g"
B = True  # dim 0 is the batch
NONE = False  # an input passed as None / a flag / a Python number: no Dim
# ------------------------------------------------------------------ torch-kmeans
TK = "torch_kmeans"
QUIET = "num_init=2, max_iter=10, verbose=False, seed=0"
PTS = _x("2, 12, 4")  # (batch, points, features)
COS = "from torch_kmeans import CosineSimilarity"
DOT = "from torch_kmeans import DotProductSimilarity"
# ------------------------------------------------------------------ diffsort
DS = "diffsort"
VEC4 = _x("3, 4", "vectors")
VEC8 = _x("3, 8", "vectors")
# ------------------------------------------------------------------ mpc
DYN = "mpc.dynamics"
MP = "mpc.mpc"
XU_P = [_x("2, 3", "x"), _x("2, 1", "u")]  # state, control
T, NB, NS, NC = 4, 2, 3, 1  # horizon, batch, state, control
TB = "{1: BATCH}"  # (T, batch, ...)
QC = "from mpc.mpc import QuadCost"
LD = "from mpc.mpc import LinDx"
NND = "from mpc.dynamics import NNDynamics"
NNDX = ("dx = NNDynamics(3, 1, hidden_sizes=[8])", NONE)
X_INIT = _x(f"{NB}, {NS}", "x_init")
COST = (
    f"cost = QuadCost(torch.eye({NS + NC}).repeat({T}, {NB}, 1, 1), "
    f"torch.randn({T}, {NB}, {NS + NC}, {G}))",
    f"({TB}, {TB})",
)
LIN = (
    f"dx = LinDx(0.3 * torch.randn({T - 1}, {NB}, {NS}, {NS + NC}, {G}), "
    f"torch.zeros({T - 1}, {NB}, {NS}))",
    f"({TB}, {TB})",
)
MPC_KW = (
    f"n_state={NS}, n_ctrl={NC}, T={T}, lqr_iter=3, verbose=-1, exit_unconverged=False"
)
# ------------------------------------------------------------------ torchkbnufft
KB = "torchkbnufft"
IM = "im_size=(8, 8)"
CIMG = (f"image = torch.randn(2, 1, 8, 8, {G}, dtype=torch.complex64)", B)
RIMG = (f"image = torch.randn(2, 1, 8, 8, 2, {G})", B)
OMEGA = (f"omega = (torch.rand(2, 12, {G}) - 0.5) * 6.28", NONE)
OMEGA_B = (f"omega = (torch.rand(2, 2, 12, {G}) - 0.5) * 6.28", B)
KDATA = (f"data = torch.randn(2, 1, 12, {G}, dtype=torch.complex64)", B)
GRID = (f"image = torch.randn(2, 1, 16, 16, {G}, dtype=torch.complex64)", B)
SMAPS = (f"smaps = torch.randn(2, 1, 8, 8, {G}, dtype=torch.complex64)", B)
TOEP = "from torchkbnufft import calc_toeplitz_kernel"
KERNEL = (
    f"kernel = calc_toeplitz_kernel((torch.rand(2, 12, {G}) - 0.5) * 6.28, [8, 8])",
    NONE,
)
SPMAT = "from torchkbnufft import calc_tensor_spmatrix"
INTERP = (
    f"interp_mats = calc_tensor_spmatrix((torch.rand(2, 12, {G}) - 0.5) * 6.28, im_size=(8, 8))",
    "(None, None)",
)
INTERP16 = (
    f"interp_mats = calc_tensor_spmatrix((torch.rand(2, 12, {G}) - 0.5) * 6.28, im_size=(8, 8), grid_size=(16, 16))",
    "(None, None)",
)
# ------------------------------------------------------------------ torchsr
SR = "torchsr.models"
LR = _x("1, 3, 8, 8")  # a low-resolution image
LR2 = _x("2, 3, 8, 8")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ torch-kmeans
    _r("tk_kmeans", "tk-kmeans", TK, "KMeans", f"n_clusters=3, {QUIET}", [PTS]),
    _r("tk_kmeans_pp", "tk-kmeans", TK, "KMeans", f"init_method='k-means++', n_clusters=3, {QUIET}", [PTS]),
    _r("tk_kmeans_mean", "tk-kmeans", TK, "KMeans", f"normalize='mean', n_clusters=3, {QUIET}", [PTS]),
    _r("tk_kmeans_minmax", "tk-kmeans", TK, "KMeans", f"normalize='minmax', n_clusters=3, {QUIET}", [PTS]),
    _r("tk_kmeans_unit", "tk-kmeans", TK, "KMeans", f"normalize='unit', n_clusters=3, {QUIET}", [PTS]),
    _r("tk_kmeans_cos", "tk-kmeans", TK, "KMeans", f"distance=CosineSimilarity, n_clusters=3, {QUIET}", [PTS], [COS]),
    _r("tk_kmeans_k", "tk-kmeans", TK, "KMeans", QUIET, [PTS, ("k = torch.tensor([2, 3])", B)]),
    _r("tk_kmeans_centers", "tk-kmeans", TK, "KMeans", f"n_clusters=3, {QUIET}", [PTS, ("k = None", NONE), _x("2, 3, 4", "centers")]),
    _r("tk_kmeans_4d", "tk-kmeans", TK, "KMeans", f"n_clusters=3, {QUIET}", [_x("2, 12, 4, 1")]),
    _r("tk_kmeans_int_x", "tk-kmeans", TK, "KMeans", f"n_clusters=3, {QUIET}", [(f"x = torch.randint(0, 9, (2, 12, 4), {G})", B)]),
    _r("tk_soft", "tk-soft", TK, "SoftKMeans", f"n_clusters=3, {QUIET}", [PTS]),
    _r("tk_soft_lp", "tk-soft", TK, "SoftKMeans", f"normalize=None, distance=DotProductSimilarity, n_clusters=3, {QUIET}", [PTS], [DOT]),
    _r("tk_knn", "tk-knn", "torch_kmeans.clustering", "KNN", "k=3", [PTS]),
    _r("tk_knn_other", "tk-knn", "torch_kmeans.clustering", "KNN", "k=3", [PTS, ("k = 2", NONE), ("same_source = False", NONE)]),
    _r("tk_lp", "tk-distance", TK, "LpDistance", {}, [_x("2, 5, 4", "query_emb"), _x("2, 3, 4", "ref_emb")]),
    _r("tk_cos_sim", "tk-distance", TK, "CosineSimilarity", {}, [_x("2, 5, 4", "query_emb")]),
    _r("tk_kmeans_int_k", "tk-kmeans", TK, "KMeans", QUIET, [PTS, ("k = 3", NONE)]),
    _r("tk_kmeans_p1", "tk-kmeans", TK, "KMeans", f"p_norm=1, n_clusters=3, {QUIET}", [PTS]),
    _r("tk_knn_cos", "tk-knn", "torch_kmeans.clustering", "KNN", "k=3, distance=CosineSimilarity, normalize='unit'", [PTS], [COS]),
    _r("tk_lp_self", "tk-distance", TK, "LpDistance", {}, [_x("2, 5, 4", "query_emb")]),
    _r("tk_dot", "tk-distance", TK, "DotProductSimilarity", {}, [_x("2, 5, 4", "query_emb"), _x("2, 3, 4", "ref_emb")]),
    # ------------------------------------------------------------------ diffsort
    _r("ds_odd_even", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4", [VEC4]),
    _r("ds_odd_even_logistic", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4, distribution='logistic'", [VEC4]),
    _r("ds_odd_even_phi", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4, distribution='logistic_phi'", [VEC4]),
    _r("ds_odd_even_gauss", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4, distribution='gaussian'", [VEC4]),
    _r("ds_odd_even_recip", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4, distribution='reciprocal'", [VEC4]),
    _r("ds_odd_even_optimal", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4, distribution='optimal'", [VEC4]),
    _r("ds_odd_even_5", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 5, steepness=5.0", [_x("3, 5", "vectors")]),
    _r("ds_odd_even_3d", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4", [_x("2, 3, 4", "vectors")]),
    _r("ds_odd_even_int", "ds-odd-even", DS, "DiffSortNet", "'odd_even', 4", [(f"vectors = torch.randint(0, 9, (3, 4), {G})", B)]),
    _r("ds_bitonic", "ds-bitonic", DS, "DiffSortNet", "'bitonic', 8", [VEC8]),
    _r("ds_bitonic_phi", "ds-bitonic", DS, "DiffSortNet", "'bitonic', 8, steepness=20.0, distribution='logistic_phi'", [VEC8]),
    # ------------------------------------------------------------------ mpc
    _r("mpc_nn_dyn", "mpc-dynamics", DYN, "NNDynamics", "3, 1, hidden_sizes=[8]", XU_P),
    _r("mpc_nn_dyn_relu", "mpc-dynamics", DYN, "NNDynamics", "3, 1, hidden_sizes=[8, 8], activation='relu', passthrough=False", XU_P),
    _r("mpc_nn_dyn_f64", "mpc-dynamics", DYN, "NNDynamics", "3, 1, hidden_sizes=[8]", [(f"x = torch.randn(2, 3, {G}, dtype=torch.float64)", B), _x("2, 1", "u")]),
    _r("mpc_affine", "mpc-dynamics", DYN, "AffineDynamics", "torch.eye(3), torch.ones(3, 1), torch.zeros(3)", XU_P),
    _r("mpc_passthrough", "mpc-dynamics", DYN, "CtrlPassthroughDynamics", "NNDynamics(3, 1, hidden_sizes=[8])", [_x("2, 4", "tilde_x"), _x("2, 1", "u")], ["NNDynamics"]),
    _r("mpc_lqr", "mpc-solver", MP, "MPC", MPC_KW, [X_INIT, COST, LIN], [QC, LD]),
    _r("mpc_lqr_boxed", "mpc-solver", MP, "MPC", f"{MPC_KW}, u_lower=-1.0, u_upper=1.0", [X_INIT, COST, LIN], [QC, LD]),
    _r("mpc_lqr_batch", "mpc-solver", MP, "MPC", f"{MPC_KW}, n_batch={NB}", [X_INIT, COST, LIN], [QC, LD]),
    _r("mpc_lqr_1iter", "mpc-solver", MP, "MPC", MPC_KW.replace("lqr_iter=3", "lqr_iter=1"), [X_INIT, COST, LIN], [QC, LD]),
    _r("mpc_lqr_shared_cost", "mpc-solver", MP, "MPC", f"{MPC_KW}, n_batch={NB}", [X_INIT, (f"cost = QuadCost(torch.eye({NS + NC}), torch.randn({NS + NC}, {G}))", "(None, None)"), LIN], [QC, LD]),
    _r("mpc_lqr_u_init", "mpc-solver", MP, "MPC", f"{MPC_KW}, u_init=torch.zeros({T}, {NB}, {NC})", [X_INIT, COST, LIN], [QC, LD]),
    _r("mpc_lqr_no_detach", "mpc-solver", MP, "MPC", f"{MPC_KW}, detach_unconverged=False", [X_INIT, COST, LIN], [QC, LD]),
    _r("mpc_nn", "mpc-solver", MP, "MPC", f"{MPC_KW}, u_lower=-2.0, u_upper=2.0", [X_INIT, COST, ("dx = NNDynamics(3, 1, hidden_sizes=[8])", NONE)], [QC, NND]),
    _r("mpc_nn_nobox", "mpc-solver", MP, "MPC", MPC_KW, [X_INIT, COST, NNDX], [QC, NND]),
    _r("mpc_nn_fd", "mpc-solver", MP, "MPC", f"{MPC_KW}, grad_method=GradMethods.FINITE_DIFF", [X_INIT, COST, NNDX], [QC, NND, "GradMethods"]),
    _r("mpc_affine_solver", "mpc-solver", MP, "MPC", MPC_KW, [X_INIT, COST, ("dx = AffineDynamics(torch.eye(3), torch.ones(3, 1))", NONE)], [QC, "from mpc.dynamics import AffineDynamics"]),
    _r("mpc_lqr_verbose", "mpc-solver", MP, "MPC", MPC_KW.replace("verbose=-1", "verbose=1"), [X_INIT, COST, LIN], [QC, LD]),
    # ------------------------------------------------------------------ torchkbnufft
    _r("kb_nufft", "kb-nufft", KB, "KbNufft", IM, [CIMG, OMEGA]),
    _r("kb_nufft_real", "kb-nufft", KB, "KbNufft", IM, [RIMG, OMEGA]),
    _r("kb_nufft_batch_omega", "kb-nufft", KB, "KbNufft", IM, [CIMG, OMEGA_B]),
    _r("kb_nufft_smaps", "kb-nufft", KB, "KbNufft", IM, [CIMG, OMEGA, ("interp_mats = None", NONE), SMAPS]),
    _r("kb_nufft_ortho", "kb-nufft", KB, "KbNufft", IM, [CIMG, OMEGA, ("interp_mats = None", NONE), ("smaps = None", NONE), ("norm = 'ortho'", NONE)]),
    _r("kb_nufft_c128", "kb-nufft", KB, "KbNufft", IM, [(f"image = torch.randn(2, 1, 8, 8, {G}, dtype=torch.complex128)", B), OMEGA]),
    _r("kb_nufft_spmat", "kb-nufft", KB, "KbNufft", IM, [CIMG, OMEGA, INTERP], [SPMAT]),
    _r("kb_nufft_1d", "kb-nufft", KB, "KbNufft", "im_size=(8,)", [(f"image = torch.randn(2, 1, 8, {G}, dtype=torch.complex64)", B), (f"omega = (torch.rand(1, 12, {G}) - 0.5) * 6.28", NONE)]),
    _r("kb_adjoint", "kb-adjoint", KB, "KbNufftAdjoint", IM, [KDATA, OMEGA]),
    _r("kb_adjoint_ortho", "kb-adjoint", KB, "KbNufftAdjoint", IM, [KDATA, OMEGA, ("interp_mats = None", NONE), ("smaps = None", NONE), ("norm = 'ortho'", NONE)]),
    _r("kb_adjoint_smaps", "kb-adjoint", KB, "KbNufftAdjoint", IM, [KDATA, OMEGA, ("interp_mats = None", NONE), SMAPS]),
    _r("kb_adjoint_batch_omega", "kb-adjoint", KB, "KbNufftAdjoint", IM, [KDATA, OMEGA_B]),
    _r("kb_adjoint_spmat", "kb-adjoint", KB, "KbNufftAdjoint", IM, [KDATA, OMEGA, INTERP], [SPMAT]),
    _r("kb_nufft_f64", "kb-nufft", KB, "KbNufft", f"{IM}, numpoints=4, dtype=torch.float64", [(f"image = torch.randn(2, 1, 8, 8, {G}, dtype=torch.complex128)", B), OMEGA]),
    _r("kb_interp", "kb-interp", KB, "KbInterp", f"{IM}, grid_size=(16, 16)", [GRID, OMEGA]),
    _r("kb_interp_adj", "kb-interp", KB, "KbInterpAdjoint", f"{IM}, grid_size=(16, 16)", [KDATA, OMEGA]),
    _r("kb_toep_smaps", "kb-toep", KB, "ToepNufft", {}, [CIMG, KERNEL, SMAPS], [TOEP]),
    _r("kb_interp_spmat", "kb-interp", KB, "KbInterp", f"{IM}, grid_size=(16, 16)", [GRID, OMEGA, INTERP16], [SPMAT]),
    _r("kb_interp_spmat_real", "kb-interp", KB, "KbInterp", f"{IM}, grid_size=(16, 16)", [(f"image = torch.randn(2, 1, 16, 16, 2, {G})", B), OMEGA, INTERP16], [SPMAT]),
    _r("kb_toep", "kb-toep", KB, "ToepNufft", {}, [CIMG, KERNEL], [TOEP]),
    # ------------------------------------------------------------------ torchsr
    _r("sr_edsr", "sr-edsr", SR + ".edsr", "EDSR", "n_resblocks=1, n_feats=8, scale=2, res_scale=0.1", [LR]),
    _r("sr_edsr_x3", "sr-edsr", SR + ".edsr", "EDSR", "n_resblocks=1, n_feats=8, scale=3, res_scale=0.1", [LR2]),
    _r("sr_edsr_scale", "sr-edsr", SR + ".edsr", "EDSR", "n_resblocks=1, n_feats=8, scale=4, res_scale=0.1", [LR, ("scale = 4", NONE)]),
    _r("sr_edsr_gray", "sr-edsr", SR + ".edsr", "EDSR", "n_resblocks=1, n_feats=8, scale=2, res_scale=0.1", [_x("1, 1, 8, 8")]),
    _r("sr_edsr_half", "sr-edsr", SR + ".edsr", "EDSR", "n_resblocks=1, n_feats=8, scale=2, res_scale=0.1", [(f"x = torch.randn(1, 3, 8, 8, {G}).half()", B)]),
    _r("sr_ninasr", "sr-ninasr", SR + ".ninasr", "NinaSR", "n_resblocks=2, n_feats=8, scale=2", [LR2]),
    _r("sr_rcan", "sr-rcan", SR + ".rcan", "RCAN", "n_resgroups=1, n_resblocks=1, n_feats=8, reduction=4, scale=2", [LR2]),
    _r("sr_rdn", "sr-rdn", SR + ".rdn", "RDN", "scale=2, G0=8, D=2, C=2, G=4", [LR2]),
    _r("sr_vdsr", "sr-vdsr", SR + ".vdsr", "VDSR", "n_resblocks=2, n_feats=8, scale=2, pretrained=False", [LR2]),
    _r("sr_edsr_x4", "sr-edsr", SR + ".edsr", "EDSR", "n_resblocks=1, n_feats=8, scale=4, res_scale=0.1", [LR2]),
    _r("sr_rdn_x4", "sr-rdn", SR + ".rdn", "RDN", "scale=4, G0=8, D=1, C=2, G=4", [LR2]),
    _r("sr_carn", "sr-carn", SR + ".carn", "CARN", "scale=2", [LR]),
    _r("sr_carn_m", "sr-carn", SR + ".carn", "CARNM", "scale=3", [LR]),
]
# fmt: on
