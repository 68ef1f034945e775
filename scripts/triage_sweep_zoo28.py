"""Sweep tiny-config deel-torchlip, torch-activation, elegantrl, mup and pytorch-revgrad models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo28/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo28.py --out /tmp/zoo28_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo28.py --out /tmp/z --only dl_speclin,ta_arelu --modes fx
    .venv/bin/python scripts/triage_sweep_zoo28.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo28.py --summary /tmp/zoo28_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo28.py --check samples/failures/zoo28   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo28_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo28_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo28",
    RECIPES,
    prefixes=(
        "deel/torchlip/",
        "torch_activation/",
        "elegantrl/",
        "mup/",
        "pytorch_revgrad/",
    ),
    library={
        "deel": "deel-torchlip",
        "torch_activation": "torch-activation",
        "elegantrl": "elegantrl",
        "mup": "mup",
        "pytorch_revgrad": "pytorch-revgrad",
    },
    script=__file__,
    shim_note="offline hubs, .zoo28-site, torchvision C++ op schemas (as zoo27's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
