"""Sweep tiny-config neuraloperator, compressai, hiera-transformer, stable-baselines3 and
rtdl-revisiting-models models (random weights) through the capture modes of
scripts/triage_sweep.py and record every failure with a normalised signature: the corpus
behind samples/failures/zoo6/ (see its README.md).

    .venv/bin/python scripts/triage_sweep_zoo6.py --out /tmp/zoo6_sweep            # all
    .venv/bin/python scripts/triage_sweep_zoo6.py --out /tmp/z --only fno2d,ftt --modes fx
    .venv/bin/python scripts/triage_sweep_zoo6.py --try-eager                      # recipes
    .venv/bin/python scripts/triage_sweep_zoo6.py --summary /tmp/zoo6_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo6.py --check samples/failures/zoo6     # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES: `Dim("batch", min=1, max=64)` on the batch dim
of every batched input and `Dim("seq", min=2, max=16)` on the sequence dim where there is
one: the token dim of a tabular transformer's or Hiera block's input). Capturing, signatures (innermost library
frame), the sweep loop, the summary and the re-capture check are triage_sweep.py's; the
rendering, worker and command line are scripts/triage_sweep_zoo_driver.py's (zoo4's);
scripts/triage_sweep_zoo6_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo6_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo6",
    RECIPES,
    prefixes=(
        "neuralop/",
        "compressai/",
        "hiera/",
        "stable_baselines3/",
        "rtdl_revisiting_models.py",
    ),
    library={
        "neuralop": "neuraloperator",
        "compressai": "compressai",
        "hiera": "hiera-transformer",
        "stable_baselines3": "stable-baselines3",
        "rtdl_revisiting_models": "rtdl-revisiting-models",
    },
    script=__file__,
    shim_note="offline hubs, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
