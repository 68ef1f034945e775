"""Sweep tiny-config pytorch-frame, tabm and rtdl_num_embeddings models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo20/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo20.py --out /tmp/zoo20_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo20.py --out /tmp/z --only tm_mlp,tf_mlp --modes fx
    .venv/bin/python scripts/triage_sweep_zoo20.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo20.py --summary /tmp/zoo20_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo20.py --check samples/failures/zoo20   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo20_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo20_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo20",
    RECIPES,
    prefixes=(
        "torch_frame/",
        "tabm.py",
        "rtdl_num_embeddings.py",
    ),
    library={
        "torch_frame": "pytorch-frame",
        "tabm": "tabm",
        "rtdl_num_embeddings": "rtdl_num_embeddings",
    },
    script=__file__,
    shim_note="offline hubs, .zoo20-site, torchvision C++ op schemas (as zoo19's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
