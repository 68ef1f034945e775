"""Sweep tiny-config fightingcv-attention, auto-esn and akita-torch models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo26/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo26.py --out /tmp/zoo26_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo26.py --out /tmp/z --only fa_se,ae_cell --modes fx
    .venv/bin/python scripts/triage_sweep_zoo26.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo26.py --summary /tmp/zoo26_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo26.py --check samples/failures/zoo26   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo26_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo26_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo26",
    RECIPES,
    prefixes=(
        "fightingcv_attention/",
        "auto_esn/",
        "akita_torch/",
    ),
    library={
        "fightingcv_attention": "fightingcv-attention",
        "auto_esn": "auto-esn",
        "akita_torch": "akita-torch",
    },
    script=__file__,
    shim_note="offline hubs, .zoo26-site, torchvision C++ op schemas (as zoo25's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
