"""The one exception hierarchy of Cuvil: every error says what failed, where, and how to fix it."""

from __future__ import annotations

__all__ = [
    "CuvilError",
    "FrontendError",
    "UnsupportedOpError",
    "IRParseError",
    "VerifyError",
    "PassError",
    "CodegenError",
    "CuvilRuntimeError",
]


class CuvilError(Exception):
    """Base of all Cuvil errors.

    `where` is a location string (``file:line:col`` or a model location), `hint` a fix
    suggestion and `note` extra context (an IR excerpt, the passes run so far...).
    ``str(err)`` is the one-line form the CLIs print: ``where: error: message``.
    """

    def __init__(
        self,
        message: str,
        *,
        where: str | None = None,
        hint: str | None = None,
        note: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint
        self.note = note

    def __str__(self) -> str:
        head = f"{self.where}: error: {self.message}" if self.where else self.message
        if self.hint:
            head += f"\n  hint: {self.hint}"
        return head

    def full(self) -> str:
        """The message with its note (e.g. the source line and a caret, or an IR dump)."""
        return f"{self}\n{self.note}" if self.note else str(self)


class FrontendError(CuvilError):
    """A model could not be captured or lowered to Cuvil IR."""


class UnsupportedOpError(FrontendError):
    """A torch op (or module) has no lowering to Cuvil IR."""

    def __init__(self, target: str, *, node: str | None = None, **kw) -> None:
        where_node = f" (FX node '{node}')" if node else ""
        super().__init__(f"unsupported op '{target}'{where_node}", **kw)
        self.target = target
        self.node = node


class IRParseError(CuvilError):
    """A `.cuvilir` text could not be parsed; `where` is ``file:line:col``."""

    def __init__(self, message: str, *, file: str, line: int, col: int, **kw) -> None:
        super().__init__(message, where=f"{file}:{line}:{col}", **kw)
        self.file, self.line, self.col = file, line, col


class VerifyError(CuvilError):
    """The IR breaks a rule: SSA, types, shapes or attributes. Names the op and the rule."""


class PassError(CuvilError):
    """A pass failed, or left IR that does not verify."""


class CodegenError(CuvilError):
    """Cuvil IR could not be turned into LLVM IR or native code."""


class CuvilRuntimeError(CuvilError):
    """A compiled module was called wrongly or failed while running."""
