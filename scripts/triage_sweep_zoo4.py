"""Sweep tiny-config torch-geometric, kornia, efficientnet-pytorch and pretrainedmodels
models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo4/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo4.py --out /tmp/zoo4_sweep            # all
    .venv/bin/python scripts/triage_sweep_zoo4.py --out /tmp/z --only gcn,k_disk --modes fx
    .venv/bin/python scripts/triage_sweep_zoo4.py --try-eager                      # recipes
    .venv/bin/python scripts/triage_sweep_zoo4.py --summary /tmp/zoo4_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo4.py --check samples/failures/zoo4     # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES: `Dim("batch", min=1, max=64)` on dim 0 of
every image batch; for graphs `Dim("nodes", min=2, max=64)` on the node dim of node
features, positions and batch vectors and `Dim("edges", min=2, max=256)` on the edge dim of
`edge_index` and edge features). Capturing, signatures (innermost library frame), the sweep loop, the
summary and the re-capture check are triage_sweep.py's; this file holds the rendering and
the worker, scripts/triage_sweep_zoo4_recipes.py the recipes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep as ts  # noqa: E402
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo4_recipes import RECIPES  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded
# a signature names the innermost such frame (timm: segmentation-models' timm encoders)
ts.LIB_PREFIXES = (
    "torch_geometric/",
    "kornia/",
    "efficientnet_pytorch/",
    "pretrainedmodels/",
)
ROOT = ts.ROOT
SHIM = ROOT / "samples" / "failures" / "zoo4" / "_shim.py"
MODES = ("fx", "export", "export-strict", "dynamic")
LIBRARY = {
    "torch_geometric": "torch-geometric",
    "kornia": "kornia",
    "efficientnet_pytorch": "efficientnet-pytorch",
    "pretrainedmodels": "pretrainedmodels",
}
DIMS = {  # a spec names these; each one used is defined in the file
    "BATCH": 'Dim("batch", min=1, max=64)',
    "SEQ": 'Dim("seq", min=2, max=16)',
    "NODES": 'Dim("nodes", min=2, max=64)',
    "EDGES": 'Dim("edges", min=2, max=256)',
}


def find(name: str):
    for r in RECIPES:
        if r[0] == name:
            return r
    raise KeyError(name)


def family(name: str) -> str:
    return find(name)[1]


# ---------------------------------------------------------------- model-file rendering
RENDERING = driver.Rendering(LIBRARY, DIMS, "scripts/triage_sweep_zoo4.py")


def render(name: str, mode: str) -> str:
    """The model file for one case: Model(), example_inputs() and, for `dynamic`,
    DYNAMIC_SHAPES (the batch Dim on dim 0 of each image batch, nodes / edges on graphs).
    A dotted class (`EfficientNet.from_name`) imports its first part."""
    return driver.render_recipe(RENDERING, find(name), mode)


if __name__ == "__main__":
    sys.exit(
        driver.main(
            driver.SweepSet(
                render,
                SHIM,
                family,
                [r[0] for r in RECIPES],
                MODES,
                Path("/tmp/zoo4_sweep"),
                Path(__file__).resolve(),
            ),
            __doc__,
        )
    )
