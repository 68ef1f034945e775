"""The before/after diff of one pass as rows for the pass timeline (no Textual): unified
(one column, ``-``/``+``) or side by side (two columns, changed lines paired).

Every row keeps the line indices it came from in the before and after snapshot, so the
view can mark the followed op's lines and tell which op a row shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import zip_longest

__all__ = ["DiffRow", "unified", "side_by_side", "context_rows"]


@dataclass(frozen=True)
class DiffRow:
    """`kind`: " " same, "-" only before, "+" only after, "~" changed (side by side:
    `left` before, `right` after), "@" a hunk header (its text in `left_text`)."""

    kind: str
    left: int | None  # line index in the before snapshot
    right: int | None  # line index in the after snapshot
    left_text: str = ""
    right_text: str = ""

    @property
    def text(self) -> str:
        """The unified form of the row."""
        if self.kind == "@":
            return self.left_text
        body = self.right_text if self.kind == "+" else self.left_text
        return f"{self.kind} {body}"


def _groups(before: Sequence[str], after: Sequence[str], context: int):
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    return matcher.get_grouped_opcodes(context)


def _header(group) -> DiffRow:
    i1, i2 = group[0][1], group[-1][2]
    j1, j2 = group[0][3], group[-1][4]
    return DiffRow("@", None, None, f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")


def _same(before: Sequence[str], i1: int, i2: int, j1: int) -> list[DiffRow]:
    return [
        DiffRow(" ", i, j1 + k, before[i], before[i])
        for k, i in enumerate(range(i1, i2))
    ]


def unified(
    before: Sequence[str], after: Sequence[str], context: int = 3
) -> list[DiffRow]:
    """A unified diff of two snapshots' lines ([] when they are equal)."""

    def change(i1: int, i2: int, j1: int, j2: int) -> list[DiffRow]:
        return [DiffRow("-", i, None, before[i]) for i in range(i1, i2)] + [
            DiffRow("+", None, j, "", after[j]) for j in range(j1, j2)
        ]

    return _hunks(before, after, context, change)


def side_by_side(
    before: Sequence[str], after: Sequence[str], context: int = 3
) -> list[DiffRow]:
    """The same hunks, a replaced line beside its replacement."""

    def change(i1: int, i2: int, j1: int, j2: int) -> list[DiffRow]:
        pairs = zip_longest(range(i1, i2), range(j1, j2))
        return [_pair(before, after, i, j) for i, j in pairs]

    return _hunks(before, after, context, change)


def _hunks(before, after, context: int, change) -> list[DiffRow]:
    """Each hunk's header, its context rows and `change(i1, i2, j1, j2)`'s rows."""
    rows: list[DiffRow] = []
    for group in _groups(before, after, context):
        rows.append(_header(group))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += _same(before, i1, i2, j1)
            else:
                rows += change(i1, i2, j1, j2)
    return rows


def _pair(before: Sequence[str], after: Sequence[str], i, j) -> DiffRow:
    if j is None:
        return DiffRow("-", i, None, before[i])
    if i is None:
        return DiffRow("+", None, j, "", after[j])
    return DiffRow("~", i, j, before[i], after[j])


def context_rows(
    lines: Sequence[str], marked: set[int], context: int = 3
) -> list[DiffRow]:
    """For a pass that changed nothing: the marked lines with `context` lines around."""
    keep = sorted(
        {k for m in marked for k in range(m - context, m + context + 1)}
        & set(range(len(lines)))
    )
    rows: list[DiffRow] = []
    for k in keep:
        if rows and rows[-1].left != k - 1:
            rows.append(DiffRow("@", None, None, "..."))
        rows.append(DiffRow(" ", k, k, lines[k], lines[k]))
    return rows
