"""Tokens of the `.cuvilir` text format, and the cursor the parser reads them with.

`Lexer` holds the text and the current token, turns positions into ``line:col`` and
builds `IRParseError`s that show the line with a caret; `Parser` (parser.py) adds the
grammar.
"""

from __future__ import annotations

import re

from ..errors import IRParseError

__all__ = ["Token", "Lexer", "unquote"]

_TOKEN = re.compile(
    r"""
    (?P<ws>(?:\s|//[^\n]*)+)
  | (?P<value>%[A-Za-z0-9_.$-]+)
  | (?P<symbol>@(?:"(?:[^"\\\n]|\\.)*"|[A-Za-z0-9_.$-]+))
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|inf\b))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<arrow>->)
  | (?P<punct>[(){}\[\]<>,:=?])
    """,
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def unquote(text: str) -> str:
    """The text of a quoted string token, escapes resolved."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text[1:-1])


class Token:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: int) -> None:
        self.kind, self.text, self.pos = kind, text, pos

    def __repr__(self) -> str:
        return "end of input" if self.kind == "eof" else f"'{self.text}'"


class Lexer:
    """The token cursor: ``tok`` is the current token; ``advance``/``accept``/``expect``
    move past it."""

    def __init__(self, text: str, file: str) -> None:
        self.text, self.file, self.pos = text, file, 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.tok = self._next()

    # ---- errors --------------------------------------------------------------------------
    def position(self, pos: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, pos - self.line_starts[lo] + 1

    def error(
        self, message: str, pos: int | None = None, hint: str | None = None
    ) -> IRParseError:
        pos = self.tok.pos if pos is None else pos
        line, col = self.position(pos)
        src = self.text.split("\n")[line - 1] if self.text else ""
        note = f"  {src}\n  {' ' * (col - 1)}^"
        return IRParseError(
            message, file=self.file, line=line, col=col, hint=hint, note=note
        )

    # ---- tokens --------------------------------------------------------------------------
    def _next(self) -> Token:
        while True:
            if self.pos >= len(self.text):
                return Token("eof", "", len(self.text))
            m = _TOKEN.match(self.text, self.pos)
            if m is None:
                ch = self.text[self.pos]
                what = (
                    f"character {ch!r}" if ch.isprintable() else f"byte {ord(ch):#04x}"
                )
                raise self.error(f"unexpected {what}", self.pos)
            self.pos = m.end()
            if m.lastgroup != "ws":
                return Token(m.lastgroup, m.group(), m.start())

    def advance(self) -> Token:
        tok, self.tok = self.tok, self._next()
        return tok

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in ("punct", "ident", "arrow")

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.advance()
            return True
        return False

    def expect(self, text: str, what: str | None = None) -> Token:
        if not self.at(text):
            raise self.error(
                f"expected '{text}'{f' {what}' if what else ''}, found {self.tok}"
            )
        return self.advance()

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.tok.kind != kind:
            raise self.error(f"expected {what}, found {self.tok}")
        return self.advance()

    def comma_list(self, close: str, item) -> list:
        items = []
        if not self.at(close):
            items.append(item())
            while self.accept(","):
                items.append(item())
        self.expect(close)
        return items
