"""Imports every built-in pass so the registry knows it (one pass per module)."""

from . import (  # noqa: F401
    cse,
    dce,
    fold_bn,
    fold_constants,
    fuse_elementwise,
    fuse_epilogue,
    layout,
    memory_hints,
)
