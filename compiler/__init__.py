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

__version__ = "0.1.0"

from .hooks import CompileHooks  # noqa: E402
from .pipeline import Options, compile  # noqa: E402  (needs __version__ for debug info)
from .runtime.aot import load, save  # noqa: E402

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
    "CompileHooks",
    "Options",
    "save",
    "load",
]
