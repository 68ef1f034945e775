"""Makes the shared helpers beside these tests importable under --import-mode=importlib."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import pytest  # noqa: E402

from cuvil.frontend.registry import LOWERINGS  # noqa: E402


@pytest.fixture
def registry():
    """Rules a test registers or removes are put back as they were afterwards."""
    saved = dict(LOWERINGS)
    yield
    LOWERINGS.clear()
    LOWERINGS.update(saved)
