"""Sweep tiny-config deepod, torchfm, cached_conv and torch-dct models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo25/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo25.py --out /tmp/zoo25_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo25.py --out /tmp/z --only dp_mlp,tf_fm --modes fx
    .venv/bin/python scripts/triage_sweep_zoo25.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo25.py --summary /tmp/zoo25_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo25.py --check samples/failures/zoo25   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo25_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo25_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo25",
    RECIPES,
    prefixes=(
        "deepod/",
        "torchfm/",
        "cached_conv/",
        "torch_dct/",
    ),
    library={
        "deepod": "deepod",
        "torchfm": "torchfm",
        "cached_conv": "cached_conv",
        "torch_dct": "torch-dct",
    },
    script=__file__,
    shim_note="offline hubs, .zoo25-site, torchvision C++ op schemas (as zoo24's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
