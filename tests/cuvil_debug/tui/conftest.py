"""Shared TUI fixtures: resnet18 lowered and run through -O3 once per session, with the
pass history the TUI records (lowering it takes a few seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuvil_debug.cli import build_parser
from cuvil_debug.tui.command import load_with_history

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def resnet18_target():
    """(module, base, history) of `cuvil-debug tui samples/models/resnet18.py -O3`."""
    model = str(ROOT / "samples/models/resnet18.py")
    return load_with_history(build_parser().parse_args(["tui", model, "-O3"]))
