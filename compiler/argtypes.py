"""argparse ``type=`` functions: an option's value is checked when the command line is
parsed, so a bad one is argparse's one error line and exit 2, before any work.

Numbers are finite (no ``nan``/``inf``) and named by what they must be: ``count``
(an integer >= 0), ``positive_int`` (>= 1), ``positive_float`` (> 0),
``non_negative_float`` (>= 0), ``finite_float``; ``byte_size`` takes ``4096``, ``64K``, ``256M``, ``1G``.
Paths: ``existing_file`` must be a readable file (``input_file``: or ``-``, stdin),
``folder_path`` must not be an
existing file (a folder to create or reuse).
"""

from __future__ import annotations

import argparse
import math
import os
import re

__all__ = [
    "count",
    "positive_int",
    "positive_float",
    "non_negative_float",
    "finite_float",
    "byte_size",
    "existing_file",
    "input_file",
    "folder_path",
]

_SIZE = re.compile(r"(\d+)\s*([KMG]?)i?B?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def _int(text: str, least: int, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = least - 1
    if n < least:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return n


def count(text: str) -> int:
    """An integer >= 0."""
    return _int(text, 0, "a count >= 0")


def positive_int(text: str) -> int:
    """An integer >= 1."""
    return _int(text, 1, "an integer >= 1")


def _float(text: str, ok, what: str) -> float:
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and ok(x)):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return x


def positive_float(text: str) -> float:
    """A finite number > 0."""
    return _float(text, lambda x: x > 0, "a number > 0")


def non_negative_float(text: str) -> float:
    """A finite number >= 0."""
    return _float(text, lambda x: x >= 0, "a number >= 0")


def finite_float(text: str) -> float:
    """Any finite number (a threshold in dB may be negative)."""
    return _float(text, lambda x: True, "a finite number")


def byte_size(text: str) -> int:
    """A size in bytes >= 1: digits with an optional K, M or G (powers of 1024)."""
    m = _SIZE.fullmatch(text.strip())
    n = int(m.group(1)) * _UNITS[m.group(2).lower()] if m else 0
    if n < 1:
        raise argparse.ArgumentTypeError(
            f"expected a size in bytes >= 1 (e.g. 4096, 64K, 256M, 1G), got {text!r}"
        )
    return n


def existing_file(text: str) -> str:
    """The path of a file that exists and can be read."""
    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"'{text}' does not exist")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"'{text}' is a directory, not a file")
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(f"'{text}' cannot be read")
    return text


def input_file(text: str) -> str:
    """`existing_file`, or ``-`` for stdin."""
    return text if text == "-" else existing_file(text)


def folder_path(text: str) -> str:
    """A folder to write into: missing (it is created) or a directory, not a file."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder path, got ''")
    if os.path.lexists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"'{text}' is a file, not a folder")
    return text


def existing_folder(text: str) -> str:
    """A folder that exists (a repository's root, a tree to read)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder path, got ''")
    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"'{text}' does not exist")
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"'{text}' is a file, not a folder")
    return text
