"""Shared fixtures: the failure corpus is captured once per session, in two worker
processes (one torch import each), and reused by every corpus test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # triage_cases.py, under --import-mode=importlib
    sys.path.insert(0, _HERE)

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "samples" / "failures"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def all_records() -> dict:
    """Records of the corpus and the held-out set, collected by one worker pool."""
    from cuvil_debug.triage.corpus import collect_corpora

    return collect_corpora(
        [CORPUS, CORPUS / "heldout", CORPUS / "written"], workers=2, timeout=300
    )


@pytest.fixture(scope="session")
def corpus_records(all_records) -> dict:
    return all_records[CORPUS]


@pytest.fixture(scope="session")
def heldout_records(all_records) -> dict:
    return all_records[CORPUS / "heldout"]


@pytest.fixture(scope="session")
def written_records(all_records) -> dict:
    return all_records[CORPUS / "written"]


@pytest.fixture(scope="session")
def corpus_labels() -> dict:
    from cuvil_debug.triage.corpus import load_labels

    return load_labels(CORPUS)


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def write_model(tmp_path):
    """write_model(name, forward_body, inputs=..., init=...) -> path of a model file."""

    def write(
        name: str,
        forward: str,
        inputs: str = "torch.randn(2, 4)",
        init: str = "self.fc = nn.Linear(4, 4)",
    ) -> Path:
        body = "\n".join("        " + line for line in forward.strip().splitlines())
        path = tmp_path / name
        path.write_text(
            "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
            f"    def __init__(self):\n        super().__init__()\n        {init}\n\n"
            f"    def forward(self, x):\n{body}\n\n\n"
            f"def example_inputs():\n    return ({inputs},)\n"
        )
        return path

    return write
