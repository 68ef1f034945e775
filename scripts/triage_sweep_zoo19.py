"""Sweep tiny-config pythae, fastmri, xlstm, pyod and diffwave
models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo19/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo19.py --out /tmp/zoo19_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo19.py --out /tmp/z --only py_vae,fm_unet --modes fx
    .venv/bin/python scripts/triage_sweep_zoo19.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo19.py --summary /tmp/zoo19_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo19.py --check samples/failures/zoo19   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo19_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo19_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo19",
    RECIPES,
    prefixes=(
        "pythae/",
        "fastmri/",
        "xlstm/",
        "pyod/",
        "diffwave/",
    ),
    library={
        "pythae": "pythae",
        "fastmri": "fastmri",
        "xlstm": "xlstm",
        "pyod": "pyod",
        "diffwave": "diffwave",
    },
    script=__file__,
    shim_note="offline hubs, .zoo19-site, torchvision C++ op schemas (as zoo18's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
