"""The recipes of scripts/triage_sweep_zoo4.py: tiny-config torch-geometric, kornia,
efficientnet-pytorch and pretrainedmodels models (random weights, nothing downloaded) and
the arguments a user passes them.

A recipe is `(case, family, module, class, constructor kwargs, inputs[, extra names])`;
`inputs` are the lines of example_inputs() (`g` is a seeded torch.Generator), each with
its `dynamic` spec: `True` when dim 0 is the batch (`{0: BATCH}`), a string for another
spec (`{0: NODES}`, `{1: EDGES}`), `False` for none. Constructor kwargs written as a string
are source (they may name the extra imported classes and `torch`)."""

from __future__ import annotations

G = "generator=g"
B = True  # dim 0 is the batch
N_ = "{0: NODES}"  # node dim
E_ = "{1: EDGES}"  # edge dim of edge_index


def _x(shape: str = "2, 3, 32, 32", name: str = "img") -> list:
    return [(f"{name} = torch.randn({shape}, {G})", B)]


X = (f"x = torch.randn(10, 8, {G})", N_)
EI = (f"edge_index = torch.randint(0, 10, (2, 40), {G})", E_)
EA = (f"edge_attr = torch.randn(40, 4, {G})", "{0: EDGES}")
BV = ("batch = torch.tensor([0] * 5 + [1] * 5)", N_)
Z = (f"z = torch.randint(1, 10, (10,), {G})", N_)
POS = (f"pos = torch.randn(10, 3, {G})", N_)
GRAPH = [X, EI]
MOL = [Z, POS, BV]
IMG = _x()
IMG64 = _x("2, 3, 64, 64")
GRAY = _x("2, 1, 64, 64")
PATCH = _x("2, 1, 32, 32", "patches")
IMG224 = _x("2, 3, 224, 224")
PYG = "torch_geometric.nn"
PYM = "torch_geometric.nn.models"
KF = "kornia.feature"
KC = "kornia.contrib"
EFF = "efficientnet_pytorch"
PM = "pretrainedmodels.models"
MLP816 = "torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16))"
DEG = "torch.tensor([0, 2, 4, 3, 1])"
PNA_KW = f"aggregators=['mean', 'min', 'max', 'std'], scalers=['identity', 'amplification'], deg={DEG}"


# the torch_geometric module each class lives in (a family is the module)
MOD = dict(
    GCNConv="gcn_conv",
    GATConv="gat_conv",
    GATv2Conv="gatv2_conv",
    SAGEConv="sage_conv",
    GINConv="gin_conv",
    GINEConv="gin_conv",
    GraphConv="graph_conv",
    ChebConv="cheb_conv",
    TransformerConv="transformer_conv",
    EdgeConv="edge_conv",
    GENConv="gen_conv",
    ResGatedGraphConv="res_gated_graph_conv",
    ARMAConv="arma_conv",
    TAGConv="tag_conv",
    GatedGraphConv="gated_graph_conv",
    PNAConv="pna_conv",
    NNConv="nn_conv",
    CGConv="cg_conv",
    PointTransformerConv="point_transformer_conv",
    TopKPooling="topk_pool",
    SAGPooling="sag_pool",
    GPSConv="gps_conv",
    SetTransformerAggregation="set_transformer",
    LSTMAggregation="lstm",
    AttentiveFP="attentive_fp",
    GraphUNet="graph_unet",
    LINKX="linkx",
    PMLP="pmlp",
    MLP="mlp",
)


def _conv(case: str, cls: str, kw, inputs=GRAPH, extra=None) -> tuple:
    r = (case, f"pyg-{MOD[cls]}", PYG, cls, kw, inputs)
    return r + ((extra,) if extra else ())


def _gnn(case: str, cls: str, kw, inputs=GRAPH) -> tuple:
    return (
        case,
        f"pyg-{'basic_gnn' if cls in BASIC else MOD[cls]}",
        PYM,
        cls,
        kw,
        inputs,
    )


def _eff(case: str, kw: str) -> tuple:
    return (case, "effnet-model", EFF, "EfficientNet.from_name", kw, IMG)


def _pm(case: str, fn: str, fam: str, img=IMG224) -> tuple:
    return (case, f"pm-{fam}", PM, fn, dict(num_classes=1000, pretrained=None), img)


BASIC = ("GCN", "GAT", "GraphSAGE", "GIN", "PNA", "EdgeCNN")

# fmt: off
RECIPES = [
    # ------------------------------------------------------------------ torch-geometric
    _conv("gcn_conv", "GCNConv", dict(in_channels=8, out_channels=16)),
    _conv("gat_conv", "GATConv", dict(in_channels=8, out_channels=8, heads=2)),
    _conv("gatv2_conv", "GATv2Conv", dict(in_channels=8, out_channels=8, heads=2)),
    _conv("sage_conv", "SAGEConv", dict(in_channels=8, out_channels=16)),
    _conv("gin_conv", "GINConv", f"nn={MLP816}"),
    _conv("graph_conv", "GraphConv", dict(in_channels=8, out_channels=16)),
    _conv("cheb_conv", "ChebConv", dict(in_channels=8, out_channels=16, K=2)),
    _conv("transformer_conv", "TransformerConv", dict(in_channels=8, out_channels=8, heads=2)),
    _conv("edge_conv", "EdgeConv", "nn=torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())"),
    _conv("gen_conv", "GENConv", dict(in_channels=8, out_channels=16)),
    _conv("res_gated_conv", "ResGatedGraphConv", dict(in_channels=8, out_channels=16)),
    _conv("arma_conv", "ARMAConv", dict(in_channels=8, out_channels=16, num_stacks=2, num_layers=2)),
    _conv("tag_conv", "TAGConv", dict(in_channels=8, out_channels=16, K=2)),
    _conv("gated_graph_conv", "GatedGraphConv", dict(out_channels=16, num_layers=2)),
    _conv("pna_conv", "PNAConv", f"in_channels=8, out_channels=16, {PNA_KW}"),
    _conv("gine_conv", "GINEConv", f"nn={MLP816}, edge_dim=4", GRAPH + [EA]),
    _conv("nn_conv", "NNConv", "in_channels=8, out_channels=4, nn=torch.nn.Linear(4, 32)", GRAPH + [EA]),
    _conv("cg_conv", "CGConv", dict(channels=8, dim=4), GRAPH + [EA]),
    _conv("point_transformer_conv", "PointTransformerConv", dict(in_channels=8, out_channels=16), [X, POS, EI]),
    _conv("topk_pool", "TopKPooling", dict(in_channels=8, ratio=0.5)),
    _conv("sag_pool", "SAGPooling", dict(in_channels=8, ratio=0.5)),
    _conv("gps_conv", "GPSConv", "channels=8, conv=GINConv(torch.nn.Linear(8, 8)), heads=2", GRAPH, ["GINConv"]),
    _conv("set_transformer_aggr", "SetTransformerAggregation", dict(channels=8, heads=2), [X, BV]),
    _conv("lstm_aggr", "LSTMAggregation", dict(in_channels=8, out_channels=16), [X, BV]),
    _gnn("gcn", "GCN", dict(in_channels=8, hidden_channels=16, num_layers=2)),
    _gnn("gat", "GAT", dict(in_channels=8, hidden_channels=16, num_layers=2, heads=2)),
    _gnn("graphsage", "GraphSAGE", dict(in_channels=8, hidden_channels=16, num_layers=2, jk="cat")),
    _gnn("gin", "GIN", dict(in_channels=8, hidden_channels=16, num_layers=2, norm="batch_norm")),
    _gnn("pna", "PNA", f"in_channels=8, hidden_channels=16, num_layers=2, {PNA_KW}"),
    _gnn("edge_cnn", "EdgeCNN", dict(in_channels=8, hidden_channels=16, num_layers=2, jk="max")),
    _gnn("attentive_fp", "AttentiveFP", dict(in_channels=8, hidden_channels=16, out_channels=1, edge_dim=4, num_layers=2, num_timesteps=2), GRAPH + [EA, BV]),
    _gnn("graph_unet", "GraphUNet", dict(in_channels=8, hidden_channels=16, out_channels=4, depth=2)),
    _gnn("linkx", "LINKX", dict(num_nodes=10, in_channels=8, hidden_channels=16, out_channels=4, num_layers=2)),
    _gnn("pmlp", "PMLP", dict(in_channels=8, hidden_channels=16, out_channels=4, num_layers=2)),
    _gnn("mlp", "MLP", dict(channel_list=[8, 16, 4]), [X]),
    # ------------------------------------------------------------------ kornia
    ("k_disk", "kornia-disk", KF, "DISK", dict(desc_dim=16), IMG64),
    ("k_loftr", "kornia-loftr", KF, "LoFTR", "pretrained=None", [(f"data = {{'image0': torch.rand(1, 1, 64, 64, {G}), 'image1': torch.rand(1, 1, 64, 64, {G})}}", "{'image0': {0: BATCH}, 'image1': {0: BATCH}}")]),
    ("k_keynet", "kornia-keynet", KF, "KeyNet", "pretrained=False", GRAY),
    ("k_keynet_detector", "kornia-keynet", KF, "KeyNetDetector", "pretrained=False, num_features=16", _x("1, 1, 64, 64")),
    ("k_hardnet", "kornia-hardnet", KF, "HardNet", "pretrained=False", PATCH),
    ("k_hardnet8", "kornia-hardnet", KF, "HardNet8", "pretrained=False", PATCH),
    ("k_sosnet", "kornia-sosnet", KF, "SOSNet", "pretrained=False", PATCH),
    ("k_tfeat", "kornia-tfeat", KF, "TFeat", "pretrained=False", PATCH),
    ("k_hynet", "kornia-hynet", KF, "HyNet", "pretrained=False", PATCH),
    ("k_sift", "kornia-siftdesc", KF, "SIFTDescriptor", "patch_size=32", PATCH),
    ("k_dense_sift", "kornia-siftdesc", KF, "DenseSIFTDescriptor", "", GRAY),
    ("k_orinet", "kornia-orientation", KF, "OriNet", "pretrained=False", PATCH),
    ("k_affnet", "kornia-affine_shape", KF, "PatchAffineShapeEstimator", "patch_size=32", PATCH),
    ("k_harris", "kornia-responses", KF, "CornerHarris", "k=0.04", GRAY),
    ("k_blob_dog", "kornia-responses", KF, "BlobDoG", "", _x("2, 1, 3, 64, 64", "pyramid")),
    ("k_scale_space", "kornia-scale_space_detector", KF, "ScaleSpaceDetector", "num_features=16", GRAY),
    ("k_xfeat", "kornia-xfeat", KF, "XFeatModel", "", GRAY),
    ("k_aliked", "kornia-aliked", KF, "ALIKED", "model_name='aliked-t16'", IMG64),
    ("k_defmo", "kornia-defmo", KF, "DeFMO", "pretrained=False", _x("2, 6, 64, 64", "frames")),
    ("k_tiny_vit", "kornia-tiny_vit", KC, "TinyViT", "img_size=64, num_classes=10, embed_dims=[16, 32, 32, 32], depths=[1, 1, 1, 1], num_heads=[1, 2, 2, 2], window_sizes=[4, 4, 4, 2]", IMG64),
    ("k_extract_patches", "kornia-extract_patches", KC, "ExtractTensorPatches", "window_size=8, stride=8", IMG),
    ("k_distance_transform", "kornia-distance_transform", KC, "DistanceTransform", "", GRAY),
    # ------------------------------------------------------------------ efficientnet-pytorch
    _eff("effnet_b0", "'efficientnet-b0', image_size=32, num_classes=10, width_coefficient=0.25, depth_coefficient=0.25"),
    _eff("effnet_b3", "'efficientnet-b3', image_size=32, num_classes=10, width_coefficient=0.25, depth_coefficient=0.25, dropout_rate=0.0"),
    _eff("effnet_dynpad", "'efficientnet-b0', num_classes=10, width_coefficient=0.25, depth_coefficient=0.25"),
    _eff("effnet_notop", "'efficientnet-b0', image_size=32, include_top=False, width_coefficient=0.25, depth_coefficient=0.25"),
    # ------------------------------------------------------------------ pretrainedmodels
    _pm("pm_nasnetamobile", "nasnetamobile", "nasnet_mobile"),
    _pm("pm_bninception", "bninception", "bninception"),
    _pm("pm_dpn68", "dpn68", "dpn"),
    _pm("pm_xception", "xception", "xception", _x("2, 3, 299, 299")),
    _pm("pm_se_resnet50", "se_resnet50", "senet"),
    _pm("pm_inceptionv4", "inceptionv4", "inceptionv4", _x("2, 3, 299, 299")),
]
# fmt: on
