"""Sweep tiny-config flowtorch, sb3-contrib, hippynn, allRank and lightly models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo22/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo22.py --out /tmp/zoo22_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo22.py --out /tmp/z --only ft_affine,ar_fc --modes fx
    .venv/bin/python scripts/triage_sweep_zoo22.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo22.py --summary /tmp/zoo22_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo22.py --check samples/failures/zoo22   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo22_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo22_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo22",
    RECIPES,
    prefixes=(
        "flowtorch/",
        "sb3_contrib/",
        "hippynn/",
        "allrank/",
        "lightly/",
    ),
    library={
        "flowtorch": "flowtorch",
        "sb3_contrib": "sb3-contrib",
        "hippynn": "hippynn",
        "allrank": "allRank",
        "lightly": "lightly",
    },
    script=__file__,
    shim_note="offline hubs, .zoo22-site, torchvision C++ op schemas (as zoo21's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
