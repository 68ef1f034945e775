"""Shared by the zoo samples (not a model: the name starts with `_`): runs
samples/failures/library/_shim.py, which defines torchvision's C++ op schemas before
diffusers or MONAI is imported (diffusers imports transformers, which imports
torchvision; the compiled ops do not load beside this torch)."""

from pathlib import Path

_LIBRARY_SHIM = Path(__file__).resolve().parents[1] / "library" / "_shim.py"
exec(compile(_LIBRARY_SHIM.read_text(), str(_LIBRARY_SHIM), "exec"))
