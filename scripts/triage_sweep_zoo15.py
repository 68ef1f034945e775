"""Sweep tiny-config facenet-pytorch, julius, unfoldNd, pytorch-nlp and
fft-conv-pytorch models (random weights) through the capture modes of scripts/triage_sweep.py and record every failure
with a normalised signature: the corpus behind samples/failures/zoo15/ (see its
README.md).

    .venv/bin/python scripts/triage_sweep_zoo15.py --out /tmp/zoo15_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo15.py --out /tmp/z --only ju_resample,un_fold2d --modes fx
    .venv/bin/python scripts/triage_sweep_zoo15.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo15.py --summary /tmp/zoo15_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo15.py --check samples/failures/zoo15   # re-capture

Modes: fx, export and export-strict as in triage_sweep.py (capture, then
cuvil.frontend.lower). `dynamic` is what a user of `cuvil.compile(model, inputs,
options={"dynamic_shapes": DYNAMIC_SHAPES})` meets: torch.export checks the spec
(`Dim("batch", min=1, max=64)` on the batch dim of every batched input, `Dim("seq",
min=2, max=16)` on a sequence / trajectory length), then the shape given is compiled as a
static model and run; its result is compared with eager's (float32: rtol 1e-4, atol
1e-5; a wrong result is a failure too), so a model that compiles and runs correctly is
not a failure. Signatures (innermost library frame), the sweep loop, the summary and the
re-capture check are triage_sweep.py's; the rendering, worker and command line are
scripts/triage_sweep_zoo_driver.py's (zoo4's); scripts/triage_sweep_zoo15_recipes.py
holds the recipes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep as ts  # noqa: E402
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo15_recipes import RECIPES  # noqa: E402

CORPUS = driver.ZooCorpus(
    "zoo15",
    RECIPES,
    prefixes=(
        "facenet_pytorch/",
        "julius/",
        "unfoldNd/",
        "torchnlp/",
        "fft_conv_pytorch/",
    ),
    library={
        "facenet_pytorch": "facenet-pytorch",
        "julius": "julius",
        "unfoldNd": "unfoldNd",
        "torchnlp": "pytorch-nlp",
        "fft_conv_pytorch": "fft-conv-pytorch",
    },
    script=__file__,
    shim_note="offline hubs, .zoo15-site, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
_LOWER_ONLY = ts.capture  # fx / export / export-strict: capture, then lower


def _tensors(value) -> list:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _same(got, want) -> None:
    import torch

    g, w = _tensors(got), _tensors(want)
    if len(g) != len(w):
        raise AssertionError(
            f"compiled model returned {len(g)} tensors, eager {len(w)}"
        )
    for i, (a, b) in enumerate(zip(g, w)):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise AssertionError(
                f"output {i}: compiled {a.dtype}{list(a.shape)} vs eager "
                f"{b.dtype}{list(b.shape)}"
            )
        if a.is_floating_point() or a.is_complex():
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
        elif not torch.equal(a, b):
            raise AssertionError(f"output {i}: compiled values differ from eager")


def capture(mod, mode: str) -> None:
    """`dynamic`: cuvil.compile with the file's DYNAMIC_SHAPES, run and compared with
    eager; the other modes: triage_sweep.capture's capture + lower."""
    if mode != "dynamic":
        return _LOWER_ONLY(mod, mode)
    import torch

    import cuvil

    model, inputs = mod.Model(), mod.example_inputs()
    compiled = cuvil.compile(
        model, list(inputs), options={"dynamic_shapes": mod.DYNAMIC_SHAPES}
    )
    got = compiled(*inputs)
    with torch.no_grad():
        want = mod.Model()(*mod.example_inputs())
    _same(got, want)
    return None


ts.capture = capture  # ts.run_case (the worker's and --check's) captures through it
driver.HOW["dynamic"] = (
    "cuvil.compile(model, inputs, options={'dynamic_shapes': DYNAMIC_SHAPES}), run "
    "and compared with eager"
)

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
