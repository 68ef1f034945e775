"""The debugger tests' debuggee is the shipped one: samples/debug/run.py."""

import runpy
from pathlib import Path

if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    runpy.run_path(str(root / "samples" / "debug" / "run.py"), run_name="__main__")
