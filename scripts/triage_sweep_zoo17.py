"""Sweep tiny-config geotorch, torchnmf, torch-cubic-spline-grids, FrEIA and unet models
(random weights) through the capture modes of scripts/triage_sweep.py and record every
failure with a normalised signature: the corpus behind samples/failures/zoo17/ (see its
README.md).

    .venv/bin/python scripts/triage_sweep_zoo17.py --out /tmp/zoo17_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo17.py --out /tmp/z --only gt_orth,un_2d --modes fx
    .venv/bin/python scripts/triage_sweep_zoo17.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo17.py --summary /tmp/zoo17_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo17.py --check samples/failures/zoo17   # re-capture

Modes: fx, export and export-strict as in triage_sweep.py (capture, then
cuvil.frontend.lower). `dynamic` is what a user of `cuvil.compile(model, inputs,
options={"dynamic_shapes": DYNAMIC_SHAPES})` meets: torch.export checks the spec
(`Dim("batch", min=1, max=64)` on the batch dim of every batched input), then the shape
given is compiled as a static model and run; its result is compared with eager's
(float32: rtol 1e-4, atol 1e-5; a wrong result is a failure too), so a model that
compiles and runs correctly is not a failure. Signatures (innermost library frame), the
sweep loop, the summary and the re-capture check are triage_sweep.py's; the rendering,
worker and command line are scripts/triage_sweep_zoo_driver.py's (zoo4's), with one
addition made here (zoo16's easyfsl support-set call, generalised): a case's Model()
also runs the lines `POST` gives it on the built model (scripts/triage_sweep_zoo17_recipes.py,
which holds the recipes): a geotorch constraint put on a torch layer, or the `append`
calls that build a FrEIA SequenceINN, as a user does before calling the model.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo17_recipes import POST, RECIPES  # noqa: E402


class _Corpus(driver.ZooCorpus):
    """zoo4's rendering, plus the case's POST lines in Model()."""

    def render(self, name: str, mode: str) -> str:
        text = super().render(name, mode)
        if name not in POST:
            return text
        head = "def Model():\n    torch.manual_seed(0)\n    return "
        start = text.index(head) + len(head)
        end = text.index(".eval()\n", start)
        return (
            text[: start - len("return ")]
            + f"model = {text[start:end]}.eval()\n"
            + "".join(f"    {line}\n" for line in POST[name])
            + "    return model\n"
            + text[end + len(".eval()\n") :]
        )


CORPUS = _Corpus(
    "zoo17",
    RECIPES,
    prefixes=(
        "geotorch/",
        "torchnmf/",
        "torch_cubic_spline_grids/",
        "FrEIA/",
        "unet/",
    ),
    library={
        "torch": "geotorch",  # a torch layer constrained with geotorch
        "torchnmf": "torchnmf",
        "torch_cubic_spline_grids": "torch-cubic-spline-grids",
        "FrEIA": "FrEIA",
        "unet": "unet",
    },
    script=__file__,
    shim_note="offline hubs, .zoo17-site, torchvision C++ op schemas",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
