"""Sweep tiny-config geffnet, a-unet, pytorch-pretrained-vit, torchbnn and alias-free-torch models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo21/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo21.py --out /tmp/zoo21_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo21.py --out /tmp/z --only ge_se,au_grn --modes fx
    .venv/bin/python scripts/triage_sweep_zoo21.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo21.py --summary /tmp/zoo21_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo21.py --check samples/failures/zoo21   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo21_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo21_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo21",
    RECIPES,
    prefixes=(
        "geffnet/",
        "a_unet/",
        "pytorch_pretrained_vit/",
        "torchbnn/",
        "alias_free_torch/",
    ),
    library={
        "geffnet": "geffnet",
        "a_unet": "a-unet",
        "pytorch_pretrained_vit": "pytorch-pretrained-vit",
        "torchbnn": "torchbnn",
        "alias_free_torch": "alias-free-torch",
    },
    script=__file__,
    shim_note="offline hubs, .zoo21-site, torchvision C++ op schemas (as zoo20's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
