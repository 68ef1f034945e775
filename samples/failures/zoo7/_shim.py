"""Shared by the zoo7 samples (not a model: the name starts with `_`): keeps the
Hugging Face hub and torch.hub offline (nothing is downloaded) and runs
samples/failures/library/_shim.py, which defines torchvision's C++ op schemas before
anything imports torchvision (the compiled ops do not load beside this torch). None of
the zoo7 libraries imports torchvision; the shim is run so the files load as the earlier
sets' do."""

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TORCH_HUB_OFFLINE", "1")
_LIBRARY_SHIM = Path(__file__).resolve().parents[1] / "library" / "_shim.py"
exec(compile(_LIBRARY_SHIM.read_text(), str(_LIBRARY_SHIM), "exec"))
