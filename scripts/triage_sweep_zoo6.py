"""Sweep tiny-config neuraloperator, compressai, hiera-transformer, stable-baselines3 and
rtdl-revisiting-models models (random weights) through the capture modes of
scripts/triage_sweep.py and record every failure with a normalised signature: the corpus
behind samples/failures/zoo6/ (see its README.md).

    .venv/bin/python scripts/triage_sweep_zoo6.py --out /tmp/zoo6_sweep            # all
    .venv/bin/python scripts/triage_sweep_zoo6.py --out /tmp/z --only fno2d,ftt --modes fx
    .venv/bin/python scripts/triage_sweep_zoo6.py --try-eager                      # recipes
    .venv/bin/python scripts/triage_sweep_zoo6.py --summary /tmp/zoo6_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo6.py --check samples/failures/zoo6     # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES: `Dim("batch", min=1, max=64)` on the batch dim
of every batched input and `Dim("seq", min=2, max=16)` on the sequence dim where there is
one: the token dim of a tabular transformer's or Hiera block's input). Capturing, signatures (innermost library
frame), the sweep loop, the summary and the re-capture check are triage_sweep.py's; the
rendering, worker and command line are scripts/triage_sweep_zoo_driver.py's (zoo4's);
scripts/triage_sweep_zoo6_recipes.py holds the recipes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep as ts  # noqa: E402
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo6_recipes import RECIPES  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded
os.environ.setdefault("TORCH_HUB_OFFLINE", "1")
# a signature names the innermost such frame
ts.LIB_PREFIXES = (
    "neuralop/",
    "compressai/",
    "hiera/",
    "stable_baselines3/",
    "rtdl_revisiting_models.py",
)
ROOT = ts.ROOT
SHIM = ROOT / "samples" / "failures" / "zoo6" / "_shim.py"
MODES = ("fx", "export", "export-strict", "dynamic")
LIBRARY = {
    "neuralop": "neuraloperator",
    "compressai": "compressai",
    "hiera": "hiera-transformer",
    "stable_baselines3": "stable-baselines3",
    "rtdl_revisiting_models": "rtdl-revisiting-models",
}
DIMS = {  # a spec names these; each one used is defined in the file
    "BATCH": 'Dim("batch", min=1, max=64)',
    "SEQ": 'Dim("seq", min=2, max=16)',
}
RENDERING = driver.Rendering(
    LIBRARY,
    DIMS,
    "scripts/triage_sweep_zoo6.py",
    "offline hubs, torchvision C++ op schemas",
)


def find(name: str):
    for r in RECIPES:
        if r[0] == name:
            return r
    raise KeyError(name)


def family(name: str) -> str:
    return find(name)[1]


def render(name: str, mode: str) -> str:
    """The model file for one case: Model(), example_inputs() and, for `dynamic`,
    DYNAMIC_SHAPES (the batch Dim, and the seq Dim where the input has a sequence)."""
    return driver.render_recipe(RENDERING, find(name), mode)


if __name__ == "__main__":
    sys.exit(
        driver.main(
            driver.SweepSet(
                render,
                SHIM,
                family,
                [r[0] for r in RECIPES],
                MODES,
                Path("/tmp/zoo6_sweep"),
                Path(__file__).resolve(),
            ),
            __doc__,
        )
    )
