"""Sweep tiny-config torchsynth, pytorch-msssim and spandrel models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo23/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo23.py --out /tmp/zoo23_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo23.py --out /tmp/z --only ts_adsr,pm_ssim --modes fx
    .venv/bin/python scripts/triage_sweep_zoo23.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo23.py --summary /tmp/zoo23_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo23.py --check samples/failures/zoo23   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo23_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo23_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo23",
    RECIPES,
    prefixes=(
        "torchsynth/",
        "pytorch_msssim/",
        "spandrel/",
    ),
    library={
        "torchsynth": "torchsynth",
        "pytorch_msssim": "pytorch-msssim",
        "spandrel": "spandrel",
    },
    script=__file__,
    shim_note="offline hubs, .zoo23-site, torchvision C++ op schemas (as zoo22's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
