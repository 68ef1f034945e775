"""Sweep tiny-config segment-anything, fair-esm, openai-whisper, pytorch-tabnet and e3nn
models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo5/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo5.py --out /tmp/zoo5_sweep            # all
    .venv/bin/python scripts/triage_sweep_zoo5.py --out /tmp/z --only esm2,tabnet --modes fx
    .venv/bin/python scripts/triage_sweep_zoo5.py --try-eager                      # recipes
    .venv/bin/python scripts/triage_sweep_zoo5.py --summary /tmp/zoo5_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo5.py --check samples/failures/zoo5     # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES: `Dim("batch", min=1, max=64)` on the batch dim
of every batched input and `Dim("seq", min=2, max=16)` on the sequence dim where there is
one: tokens, prompt points, a decoder's text). Capturing, signatures (innermost library
frame), the sweep loop, the summary and the re-capture check are triage_sweep.py's; the
rendering, worker and command line are scripts/triage_sweep_zoo_driver.py's (zoo4's);
scripts/triage_sweep_zoo5_recipes.py holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo5_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo5",
    RECIPES,
    prefixes=(
        "segment_anything/",
        "esm/",
        "whisper/",
        "pytorch_tabnet/",
        "e3nn/",
    ),
    library={
        "segment_anything": "segment-anything",
        "esm": "fair-esm",
        "whisper": "openai-whisper",
        "pytorch_tabnet": "pytorch-tabnet",
        "e3nn": "e3nn",
    },
    script=__file__,
    shim_note="offline hubs, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
