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
summary and the re-capture check are triage_sweep.py's; the rendering, worker and command
line are scripts/triage_sweep_zoo_driver.py's; scripts/triage_sweep_zoo4_recipes.py holds
the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo4_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo4",
    RECIPES,
    prefixes=(
        "torch_geometric/",
        "kornia/",
        "efficientnet_pytorch/",
        "pretrainedmodels/",
    ),
    library={
        "torch_geometric": "torch-geometric",
        "kornia": "kornia",
        "efficientnet_pytorch": "efficientnet-pytorch",
        "pretrainedmodels": "pretrainedmodels",
    },
    script=__file__,
    dims={
        "NODES": 'Dim("nodes", min=2, max=64)',
        "EDGES": 'Dim("edges", min=2, max=256)',
    },
)

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
