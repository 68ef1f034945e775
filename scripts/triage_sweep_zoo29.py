"""Sweep tiny-config antialiased-cnns, torchensemble, yet-another-retnet and s5-pytorch models (random weights) through the capture modes of scripts/triage_sweep.py and record
every failure with a normalised signature: the corpus behind samples/failures/zoo29/ (see
its README.md).

    .venv/bin/python scripts/triage_sweep_zoo29.py --out /tmp/zoo29_sweep           # all
    .venv/bin/python scripts/triage_sweep_zoo29.py --out /tmp/z --only aa_blurpool,s5_s5 --modes fx
    .venv/bin/python scripts/triage_sweep_zoo29.py --try-eager                     # recipes
    .venv/bin/python scripts/triage_sweep_zoo29.py --summary /tmp/zoo29_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_zoo29.py --check samples/failures/zoo29   # re-capture

Modes, signatures and the `dynamic` check: scripts/triage_sweep_zoo_driver.py's
docstring; scripts/triage_sweep_zoo29_recipes.py holds the recipes. torchensemble's
ensembles get their estimators as `fit()` makes them (`_Corpus.render` below).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep_zoo_driver as driver  # noqa: E402
from triage_sweep_zoo29_recipes import RECIPES  # noqa: E402


class _Corpus(driver.ZooCorpus):
    def render(self, name: str, mode: str) -> str:
        """zoo28's rendering; a torchensemble model is built, then given its estimators
        as `fit()` gives them (the soft-tree forests also their input / output sizes)."""
        text = super().render(name, mode)
        recipe = self.find(name)
        if recipe[2] != "torchensemble":
            return text
        ctor = f"{recipe[3]}({recipe[4]})"
        forest = "NeuralForest" in recipe[3]
        lines = [f"    model = {ctor}"]
        if forest:
            lines.append(
                "    model.n_inputs, model.n_outputs = 8, 3  # what fit() reads"
            )
        lines.append(
            "    model.estimators_.extend("
            "model._make_estimator() for _ in range(model.n_estimators))  # as fit()"
        )
        lines.append("    return model.eval()")
        return text.replace(f"    return {ctor}.eval()", "\n".join(lines))


CORPUS = _Corpus(
    "zoo29",
    RECIPES,
    prefixes=(
        "antialiased_cnns/",
        "torchensemble/",
        "yet_another_retnet/",
        "s5/",
    ),
    library={
        "antialiased_cnns": "antialiased-cnns",
        "torchensemble": "torchensemble",
        "yet_another_retnet": "yet-another-retnet",
        "s5": "s5-pytorch",
    },
    script=__file__,
    shim_note="offline hubs, .zoo29-site, torchvision C++ op schemas (as zoo28's)",
    offline=("HF_HUB_OFFLINE", "TORCH_HUB_OFFLINE"),
)
driver.compile_dynamic_mode()  # `dynamic`: cuvil.compile, run, compared

if __name__ == "__main__":
    sys.exit(driver.run_corpus(CORPUS, __doc__))
