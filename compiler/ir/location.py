"""Source locations carried by every IR op: FX node, nn.Module path, Python file:line:col.

Text forms (inside ``loc(...)``)::

    unknown
    "conv1" in "layer1.0.conv1" at "samples/resnet18.py":40:16
    "samples/resnet18.py":40:16
    fused["add_1" at "m.py":3:5, "relu" at "m.py":4:9]
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Loc", "FusedLoc", "UNKNOWN", "fuse", "quote"]


def quote(s: str) -> str:
    """A string literal as the text format writes it (JSON-style escapes)."""
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    out = out.replace("\t", "\\t").replace("\r", "\\r")
    return f'"{out}"'


@dataclass(frozen=True)
class Loc:
    """Where an op came from. Every field is optional; an all-None Loc is ``unknown``."""

    node: str | None = None  # FX node name
    module: str | None = None  # nn.Module path, e.g. "layer1.0.conv1"
    file: str | None = None
    line: int | None = None
    col: int | None = None

    @property
    def is_unknown(self) -> bool:
        # a line or column without a file says nothing, and the text form cannot hold it
        return self.node is None and self.module is None and self.file is None

    @property
    def nodes(self) -> tuple[str, ...]:
        return (self.node,) if self.node else ()

    @property
    def parts(self) -> tuple[Loc, ...]:
        return () if self.is_unknown else (self,)

    def source(self) -> str | None:
        """``file:line:col`` (or ``file:line``), None when no file is known."""
        if self.file is None:
            return None
        text = self.file
        if self.line is not None:
            text += f":{self.line}"
            if self.col is not None:
                text += f":{self.col}"
        return text

    def describe(self) -> str:
        """Human form for error messages: ``model.py:12:8 (FX node 'conv1', module 'c1')``."""
        bits = []
        if self.node:
            bits.append(f"FX node '{self.node}'")
        if self.module:
            bits.append(f"module '{self.module}'")
        src = self.source()
        if src and bits:
            return f"{src} ({', '.join(bits)})"
        return src or ", ".join(bits) or "unknown location"

    def text(self) -> str:
        if self.is_unknown:
            return "unknown"
        parts = []
        if self.node is not None:
            parts.append(quote(self.node))
        if self.module is not None:
            parts.append(f"in {quote(self.module)}")
        if self.file is not None:
            src = quote(self.file)
            if self.line is not None:
                src += f":{self.line}:{self.col if self.col is not None else 0}"
            # a bare string is read back as an FX node name: only file:line:col may go bare
            parts.append(f"at {src}" if parts or self.line is None else src)
        return " ".join(parts)

    def __str__(self) -> str:
        return f"loc({self.text()})"


UNKNOWN = Loc()


@dataclass(frozen=True)
class FusedLoc:
    """The location of an op made from several (fusion, folding): like MLIR's FusedLoc."""

    locs: tuple[Loc, ...] = field(default_factory=tuple)

    @property
    def is_unknown(self) -> bool:
        return not self.locs

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(n for loc in self.locs for n in loc.nodes)

    @property
    def parts(self) -> tuple[Loc, ...]:
        return self.locs

    def source(self) -> str | None:
        return next((s for loc in self.locs if (s := loc.source())), None)

    def describe(self) -> str:
        return "fused[" + "; ".join(loc.describe() for loc in self.locs) + "]"

    def text(self) -> str:
        return "fused[" + ", ".join(loc.text() for loc in self.locs) + "]"

    def __str__(self) -> str:
        return f"loc({self.text()})"


AnyLoc = Loc | FusedLoc


def fuse(*locs: AnyLoc) -> AnyLoc:
    """Merge locations, flattening fused ones and dropping unknowns and duplicates
    (first occurrence kept; linear in the number of parts: a dict, not a list scan)."""
    parts = list(dict.fromkeys(p for loc in locs for p in loc.parts))
    if not parts:
        return UNKNOWN
    return parts[0] if len(parts) == 1 else FusedLoc(tuple(parts))
