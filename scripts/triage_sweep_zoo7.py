"""Sweep tiny-config zuko, snntorch, demucs, pytorch-tcn and gpytorch models (random
weights) through the capture modes of scripts/triage_sweep.py and record every failure
with a normalised signature: the corpus behind samples/failures/zoo7/ (see its
README.md).

    .venv/bin/python scripts/triage_sweep_zoo7.py --out /tmp/zoo7_sweep            # all
    .venv/bin/python scripts/triage_sweep_zoo7.py --out /tmp/z --only tcn,snn_leaky --modes fx
    .venv/bin/python scripts/triage_sweep_zoo7.py --try-eager                      # recipes
    .venv/bin/python scripts/triage_sweep_zoo7.py --summary /tmp/zoo7_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo7.py --check samples/failures/zoo7     # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES: `Dim("batch", min=1, max=64)` on the batch dim
of every batched input: dim 1 of a time-major spike train, dim 0 elsewhere). Capturing,
signatures (innermost library frame), the sweep loop, the summary and the re-capture
check are triage_sweep.py's; the rendering, worker and command line are
scripts/triage_sweep_zoo_driver.py's (zoo4's); scripts/triage_sweep_zoo7_recipes.py
holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo7_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo7",
    RECIPES,
    prefixes=("zuko/", "snntorch/", "demucs/", "pytorch_tcn/", "gpytorch/"),
    library={
        "zuko": "zuko",
        "snntorch": "snntorch",
        "demucs": "demucs",
        "pytorch_tcn": "pytorch-tcn",
        "gpytorch": "gpytorch",
    },
    script=__file__,
    shim_note="offline hubs, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
