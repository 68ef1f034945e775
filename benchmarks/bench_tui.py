"""What `cuvil-debug tui` costs on a big module: open time and selection-move latency.

    python benchmarks/bench_tui.py [--ops 10000] [--moves 200]

Generates a module of N elementwise ops (a chain of cuvil.add / cuvil.relu as `.cuvilir`
text, ten ops per fake source line), parses it, then opens the app headless (Textual's
Pilot at 120x40) and times: parse, ModuleView indexing, app open (mount to first
selection), and moving the selection down one op (key press to the panes updated),
median and max over --moves. A Pilot key press has a floor of its own (its waits for
idle: run with --ops 20 to see it), so a jump is also timed directly: `select` plus a
synchronous relayout of the screen. Issue 14's targets: interactive within 1 s of the IR being
loaded, no selection move over 50 ms. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from cuvil.ir import parse_module
from cuvil_debug.tui.app import CuvilTUI
from cuvil_debug.tui.data import ModuleView

T = "tensor<4x8xf32>"


def chain(n: int) -> str:
    lines = [f'func @forward(%x: {T} loc("x")) -> ({T}) {{']
    prev = "%x"
    for i in range(n):
        loc = f'loc("n{i}" at "model.py":{10 + i // 10}:5)'
        if i % 2:
            lines.append(f"  %v{i} = cuvil.relu({prev}) : ({T}) -> {T} {loc}")
        else:
            lines.append(f"  %v{i} = cuvil.add({prev}, %x) : ({T}, {T}) -> {T} {loc}")
        prev = f"%v{i}"
    lines += [f"  return {prev}", "}"]
    return "\n".join(lines) + "\n"


async def drive(view: ModuleView, moves: int) -> tuple[float, list[float]]:
    t0 = time.perf_counter()
    app = CuvilTUI(view)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        opened = time.perf_counter() - t0
        lat = []
        for _ in range(moves):
            before = app.selected
            t = time.perf_counter()
            await pilot.press("down")
            await pilot.pause()
            assert app.selected is not before
            lat.append(time.perf_counter() - t)
        direct = []
        for k in range(moves):  # the same moves without the Pilot's own waits
            t = time.perf_counter()
            app.select(view.ops[(k * 7919) % len(view.ops)])  # jumps, as g, u, / do
            app.screen._refresh_layout()  # private: a synchronous relayout
            direct.append(time.perf_counter() - t)
    print(
        f"select + relayout median (no Pilot): {statistics.median(direct) * 1e3:8.1f} ms"
    )
    print(f"select + relayout max (no Pilot):    {max(direct) * 1e3:8.1f} ms")
    return opened, lat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=10_000)
    ap.add_argument("--moves", type=int, default=200)
    a = ap.parse_args()
    text = chain(a.ops)
    t = time.perf_counter()
    module = parse_module(text, "chain.cuvilir")
    parsed = time.perf_counter() - t
    t = time.perf_counter()
    view = ModuleView(module)
    indexed = time.perf_counter() - t
    opened, lat = asyncio.run(drive(view, a.moves))
    print(f"ops:                    {len(view.ops):8d}")
    print(f"parse:                  {parsed * 1e3:8.1f} ms")
    print(f"index (ModuleView):     {indexed * 1e3:8.1f} ms")
    print(f"open (app, headless):   {opened * 1e3:8.1f} ms")
    print(f"key down (Pilot) median:  {statistics.median(lat) * 1e3:8.1f} ms")
    print(f"key down (Pilot) max:        {max(lat) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
