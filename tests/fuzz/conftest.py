"""The fuzz targets reuse the IR strategies of tests/ir (importable under
--import-mode=importlib)."""

import sys
from pathlib import Path

_IR = str(Path(__file__).resolve().parents[1] / "ir")
if _IR not in sys.path:
    sys.path.insert(0, _IR)
