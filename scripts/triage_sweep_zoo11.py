"""Sweep tiny-config loralib, piq, geomloss, blitz-bayesian-pytorch and torchkge models (random
weights) through the capture modes of scripts/triage_sweep.py and record every failure
with a normalised signature: the corpus behind samples/failures/zoo11/ (see its
README.md).

    .venv/bin/python scripts/triage_sweep_zoo11.py --out /tmp/zoo11_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo11.py --out /tmp/z --only lora_linear,piq_ssim --modes fx
    .venv/bin/python scripts/triage_sweep_zoo11.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo11.py --summary /tmp/zoo11_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo11.py --check samples/failures/zoo11   # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES: `Dim("batch", min=1, max=64)` on the batch dim
of every batched input, and `Dim("seq", min=2, max=16)` on the sequence dim of the
recurrent inputs). Capturing, signatures (innermost library frame), the
sweep loop, the summary and the re-capture check are triage_sweep.py's; the rendering,
worker and command line are scripts/triage_sweep_zoo_driver.py's (zoo4's);
scripts/triage_sweep_zoo11_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo11_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo11",
    RECIPES,
    prefixes=("loralib/", "piq/", "geomloss/", "blitz/", "torchkge/"),
    library={
        "loralib": "loralib",
        "piq": "piq",
        "geomloss": "geomloss",
        "blitz": "blitz-bayesian-pytorch",
        "torchkge": "torchkge",
        "torch": "torch",  # loralib's layers are built inside torch.nn.Sequential
    },
    script=__file__,
    shim_note="offline hubs, .zoo11-site, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
