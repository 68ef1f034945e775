"""Write docs/images/tui-diff.svg, the README's picture of `cuvil-debug tui`: the TUI
on a real diff of samples/models/small_cnn.py with a pass fault at block2_relu, the
first divergence selected (`n`), 140x40. The SVG is Textual's own screenshot.

    python scripts/tui_screenshot.py [-o FILE]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from cuvil_debug.cli import build_parser
from cuvil_debug.cli import main as cli_main
from cuvil_debug.tui import difftarget
from cuvil_debug.tui.command import load_target
from cuvil_debug.tui.headless import run_headless

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=str(ROOT / "docs/images/tui-diff.svg"))
    out = Path(ap.parse_args().output).resolve()
    os.chdir(ROOT)  # the report's relative source paths
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "diff.json"
        argv = ["diff", "samples/models/small_cnn.py", "--inject", "pass:block2_relu"]
        cli_main([*argv, "--stages", "ir,opt", "--format", "json", "-o", str(report)])
        args = build_parser().parse_args(["tui", str(report)])
        app = difftarget.build_app(*load_target(args), difftarget.load_report(args))

        async def shoot(app, pilot) -> None:
            await pilot.press("n")
            await pilot.pause()
            app.save_screenshot(filename=out.name, path=str(out.parent))

        run_headless(app, shoot, (140, 40))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
