"""A value's use list: O(1) to add or remove a use (core.Value.uses)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import Operation

__all__ = ["Uses"]


class Uses:
    """A value's uses, ``(op, operand index)`` pairs in the order they were added: a
    list to read (iterate, ``len``, ``in``) over a dict keyed by the op's identity, so
    adding or removing one use is O(1), not O(uses) (a constant shared by thousands of
    ops in a long chain would make every erase a scan). Iterating sees a snapshot."""

    __slots__ = ("_by_key",)

    def __init__(self) -> None:
        self._by_key: dict[tuple[int, int], tuple[Operation, int]] = {}

    def append(self, use: tuple[Operation, int]) -> None:
        self._by_key[(id(use[0]), use[1])] = use

    def remove(self, use: tuple[Operation, int]) -> None:
        if self._by_key.pop((id(use[0]), use[1]), None) is None:
            raise ValueError(f"{use!r} is not a use")

    def __contains__(self, use: object) -> bool:
        if not isinstance(use, tuple) or len(use) != 2:
            return False
        found = self._by_key.get((id(use[0]), use[1]))
        return found is not None and found[0] is use[0]

    def __iter__(self) -> Iterator[tuple[Operation, int]]:
        return iter(tuple(self._by_key.values()))

    def __len__(self) -> int:
        return len(self._by_key)

    def __repr__(self) -> str:
        return f"Uses({list(self._by_key.values())!r})"
