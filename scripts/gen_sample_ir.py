"""Writes samples/ir/<model>.cuvilir from samples/models/<model>.py (torch.fx frontend).

    python scripts/gen_sample_ir.py          # rewrite the files
    python scripts/gen_sample_ir.py --check  # exit 1 when a file differs (a replay test)

Run from the repository root: locations are written relative to the working directory.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from cuvil.frontend import lower
from cuvil.ir import print_module

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("mlp", "small_cnn", "resnet18", "transformer_block")


def render(name: str) -> str:
    path = ROOT / "samples" / "models" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"cuvil_sample_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    module = lower(mod.Model().eval(), mod.example_inputs(), "fx")
    header = f"// Cuvil IR of samples/models/{name}.py (torch.fx frontend)\n"
    header += "// regenerate: python scripts/gen_sample_ir.py\n"
    return header + print_module(module)


def main(check: bool) -> int:
    stale = []
    for name in MODELS:
        out = ROOT / "samples" / "ir" / f"{name}.cuvilir"
        text = render(name)
        if check:
            if not out.exists() or out.read_text() != text:
                stale.append(str(out))
        else:
            out.write_text(text)
    for path in stale:
        print(f"{path}: differs from what the frontend produces now", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv))
