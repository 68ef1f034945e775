"""Suite-wide setup: torchvision's C++ ops do not load beside this torch build, and its
import then fails registering fakes for them; tests/zoo/models.py defines their schemas
(the models never call them), before any test imports torchvision."""

import sys
from pathlib import Path

_ZOO = str(Path(__file__).resolve().parent / "zoo")
if _ZOO not in sys.path:
    sys.path.insert(0, _ZOO)

from models import shim_torchvision_ops  # noqa: E402

shim_torchvision_ops()
