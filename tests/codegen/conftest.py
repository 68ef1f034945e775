"""Makes the frontend tests' case tables importable: the compiled code is checked on them."""

import sys
from pathlib import Path

_FRONTEND = str(Path(__file__).resolve().parents[1] / "frontend")
if _FRONTEND not in sys.path:
    sys.path.insert(0, _FRONTEND)
