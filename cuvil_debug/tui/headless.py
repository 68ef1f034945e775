"""Running the app without a terminal: the tests, the benchmark and the README's
screenshot script drive it the same way (Textual's Pilot, a fixed screen size)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["run_headless"]


def run_headless(
    app, script: Callable[[Any, Any], Awaitable[Any]], size: tuple[int, int] = (80, 24)
) -> Any:
    """Run `app` headless at `size`, call ``await script(app, pilot)`` once it has
    drawn its first frame, and return what the script returns."""

    async def go():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await script(app, pilot)

    return asyncio.run(go())
