"""Sweep tiny-config dnc, ttach, torchdistill and torchlayers models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo27/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo27.py --out /tmp/zoo27_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo27.py --out /tmp/z --only dn_dnc,tt_seg --modes fx
    .venv/bin/python scripts/triage_sweep_zoo27.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo27.py --summary /tmp/zoo27_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo27.py --check samples/failures/zoo27   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo27_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo27_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo27",
    RECIPES,
    prefixes=(
        "dnc/",
        "ttach/",
        "torchdistill/",
        "torchlayers/",
    ),
    library={
        "dnc": "dnc",
        "ttach": "ttach",
        "torchdistill": "torchdistill",
        "torchlayers": "torchlayers-nightly",
    },
    script=__file__,
    shim_note="offline hubs, .zoo27-site, torchvision C++ op schemas (as zoo26's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
