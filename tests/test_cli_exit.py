"""A command run through ``cuvil.args.run_main`` freezes the live objects at exit, so
that Python's finalization does not run the cycle collector over all of torch (~0.4 s
of CPU after every command; compiler/args.py)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import argparse, atexit, gc, sys
# registered first, so it runs last (exit handlers run in reverse order)
atexit.register(lambda: sys.stdout.write(f"frozen {gc.get_freeze_count()}\\n"))
from cuvil.args import run_main
code = run_main("prog", argparse.Namespace(run=lambda a: 0, traceback=False))
print("code", code)
"""


def test_run_main_freezes_the_heap_at_exit():
    out = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[:2] == ["code", "0"]
    assert out[2] == "frozen" and int(out[3]) > 10_000  # torch's objects among them
