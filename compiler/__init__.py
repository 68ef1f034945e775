"""Cuvil: a small, real ML compiler for PyTorch models, built to be debugged."""

from . import backend, ir, metrics  # backend: torch.compile(backend="cuvil"), report()
from . import torch as torch  # cuvil.torch.compile: the seed's spelling (docs/QUANT.md)
from .debuglevel import debug_level
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
from .hooks import CompileHooks
from .options import CompileOptions, DebugOptions, Options
from .pipeline import compile
from .runtime.aot import load, save
from .runtime.objcache import reset_stats as reset_cache_stats
from .runtime.objcache import stats as cache_stats
from .version import __version__

__all__ = [
    "backend",
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
    "CompileOptions",
    "DebugOptions",
    "CompileHooks",
    "Options",
    "save",
    "load",
    "cache_stats",
    "reset_cache_stats",
    "debug_level",
    "metrics",
    "torch",
]

try:
    metrics.serve_from_env()  # $CUVIL_METRICS_PORT: serve from the start
except CuvilError as _e:  # a setting of the user's: one message, exit 2, no traceback
    import sys as _sys

    print(f"cuvil: error: {_e}", file=_sys.stderr)
    raise SystemExit(2) from None
