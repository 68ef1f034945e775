"""Shared by the zoo6 samples (not a model: the name starts with `_`): keeps the
Hugging Face hub and torch.hub offline (nothing is downloaded) and runs
samples/failures/library/_shim.py, which defines torchvision's C++ op schemas before
hiera, compressai (or anything else) import torchvision (the compiled ops do not load
beside this torch)."""

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TORCH_HUB_OFFLINE", "1")
_LIBRARY_SHIM = Path(__file__).resolve().parents[1] / "library" / "_shim.py"
exec(compile(_LIBRARY_SHIM.read_text(), str(_LIBRARY_SHIM), "exec"))
