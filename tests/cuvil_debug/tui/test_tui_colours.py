"""The TUI over SSH: 256 colours hold, and on a 16-colour terminal every meaning a
colour carries survives (each verdict keeps an ANSI colour of its own; the selection
and bookmarks do not depend on colour)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rich.color import ColorSystem

from cuvil_debug.diff.status import Verdict
from cuvil_debug.tui.diffpane import FIRST_STYLE, VERDICT_STYLES
from cuvil_debug.tui.irview import IRView

ROOT = Path(__file__).resolve().parents[3]
ANSI = {"red": 1, "green": 2, "yellow": 3, "magenta": 5}


def _standard(style) -> int:
    return style.bgcolor.downgrade(ColorSystem.STANDARD).number


def test_each_verdict_keeps_its_own_ansi_colour_in_16_colours():
    expected = {
        Verdict.INTRODUCED: ANSI["red"],
        Verdict.FAILED: ANSI["magenta"],
        Verdict.INHERITED: ANSI["yellow"],
        Verdict.OK: ANSI["green"],
    }
    assert {v: _standard(s) for v, s in VERDICT_STYLES.items()} == expected
    # the first divergence is red too, and told apart by bold + underline
    assert _standard(FIRST_STYLE) == ANSI["red"] and FIRST_STYLE.bold
    assert FIRST_STYLE.underline


def test_eight_bit_keeps_the_verdicts_apart():
    picks = {
        s.bgcolor.downgrade(ColorSystem.EIGHT_BIT).number
        for s in VERDICT_STYLES.values()
    }
    assert len(picks) == len(VERDICT_STYLES)


def test_selection_is_reverse_video_not_a_colour():
    assert IRView.HIGHLIGHT.reverse


SCRIPT = """
import asyncio
from cuvil.ir import parse_file
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView

async def go():
    app = CuvilTUI(ModuleView(parse_file("samples/ir/small_cnn.cuvilir")))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "b", "o", "question_mark", "escape")
        await pilot.pause()
        print(app.console.color_system, app.selected.label)

asyncio.run(go())
"""


def test_the_app_runs_with_16_colours():
    env = {**os.environ, "TEXTUAL_COLOR_SYSTEM": "standard"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.split() == ["standard", "%block1_conv", "=", "cuvil.conv2d"]
