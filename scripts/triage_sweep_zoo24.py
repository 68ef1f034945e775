"""Sweep tiny-config dall-e, pygod, microsoft-aurora, rl-games and wavenet_vocoder models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo24/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo24.py --out /tmp/zoo24_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo24.py --out /tmp/z --only de_enc,pg_dominant --modes fx
    .venv/bin/python scripts/triage_sweep_zoo24.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo24.py --summary /tmp/zoo24_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo24.py --check samples/failures/zoo24   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo24_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo24_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo24",
    RECIPES,
    prefixes=(
        "dall_e/",
        "pygod/",
        "aurora/",
        "rl_games/",
        "wavenet_vocoder/",
    ),
    library={
        "dall_e": "dall-e",
        "pygod": "pygod",
        "aurora": "microsoft-aurora",
        "rl_games": "rl-games",
        "wavenet_vocoder": "wavenet_vocoder",
    },
    script=__file__,
    shim_note="offline hubs, .zoo24-site, torchvision C++ op schemas (as zoo23's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
