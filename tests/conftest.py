"""Suite-wide setup: hypothesis draws reproducible examples (the ``ci`` profile).
torchvision's C++ ops do not load beside this torch build, and its import then fails
registering fakes for them; tests/zoo/models.py defines their schemas (the models never
call them), before any test imports torchvision."""

import os
import sys
from pathlib import Path

from hypothesis import settings

# CI draws the same examples on every run (a failure there reproduces here);
# HYPOTHESIS_PROFILE=explore draws new ones
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_ZOO = str(Path(__file__).resolve().parent / "zoo")
if _ZOO not in sys.path:
    sys.path.insert(0, _ZOO)

from models import shim_torchvision_ops  # noqa: E402

shim_torchvision_ops()
