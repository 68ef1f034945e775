"""Sweep tiny-config nnts, dynamic-network-architectures, skrl, torchgan and pytorchcv
models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo18/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo18.py --out /tmp/zoo18_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo18.py --out /tmp/z --only nt_tsmixer,dn_plain2d --modes fx
    .venv/bin/python scripts/triage_sweep_zoo18.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo18.py --summary /tmp/zoo18_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo18.py --check samples/failures/zoo18   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo18_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo18_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo18",
    RECIPES,
    prefixes=(
        "nnts/",
        "dynamic_network_architectures/",
        "skrl/",
        "torchgan/",
        "pytorchcv/",
    ),
    library={
        "nnts": "nnts",
        "dynamic_network_architectures": "dynamic-network-architectures",
        "skrl": "skrl",
        "torchgan": "torchgan",
        "pytorchcv": "pytorchcv",
    },
    script=__file__,
    shim_note="offline hubs, .zoo18-site, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
