"""Cuvil: a small, real ML compiler for PyTorch models, built to be debugged."""

from . import ir
from .errors import (
    CodegenError,
    CuvilError,
    CuvilRuntimeError,
    FrontendError,
    IRParseError,
    PassError,
    UnsupportedOpError,
    VerifyError,
)
from .pipeline import Options, compile
from .runtime.aot import load, save
from .version import __version__

__all__ = [
    "ir",
    "CodegenError",
    "CuvilError",
    "CuvilRuntimeError",
    "FrontendError",
    "IRParseError",
    "PassError",
    "UnsupportedOpError",
    "VerifyError",
    "__version__",
    "compile",
    "Options",
    "save",
    "load",
]
