"""Shared by the zoo29 samples (not a model: the name starts with `_`): keeps the
Hugging Face hub and torch.hub offline (nothing is downloaded), puts the worktree-local
`.zoo29-site/site-packages` on sys.path when it exists (where the sweep installed the
libraries; `make setup` installs them into the venv instead) and runs
samples/failures/library/_shim.py, which defines torchvision's C++ op schemas before
anything imports torchvision, as the earlier sets' shims do (kept as zoo28's: none of
antialiased-cnns, torchensemble, yet-another-retnet or s5-pytorch imports torchvision in
the swept modules, so here it is a no-op kept for uniformity)."""

import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TORCH_HUB_OFFLINE", "1")
_SITE = Path(__file__).resolve().parents[3] / ".zoo29-site" / "site-packages"
if _SITE.is_dir() and str(_SITE) not in sys.path:
    sys.path.append(str(_SITE))
_LIBRARY_SHIM = Path(__file__).resolve().parents[1] / "library" / "_shim.py"
exec(compile(_LIBRARY_SHIM.read_text(), str(_LIBRARY_SHIM), "exec"))
