"""Which instruction set the int8 / bf16 kernels use: CPU features read at compile time.

``resolve_isa(mode, requested)`` turns the quantize option's ``isa`` ("auto", "amx",
"avx512", "portable") into the one the kernels are generated for:

| isa      | int8 needs                      | bf16 needs                     |
|----------|---------------------------------|--------------------------------|
| amx      | amx-tile, amx-int8 + the OS     | amx-tile, amx-bf16 + the OS    |
| avx512   | avx512f, avx512bw, avx512vnni   | avx512f, avx512bw, avx512bf16  |
| portable | nothing (plain LLVM IR)         | nothing                        |

"auto" takes the first the CPU has in that order. The features are LLVM's view of the
host (``target.host_cpu``: what the JIT generates code for), so a machine without AMX
(AMD Zen 5: VNNI and AVX512-BF16) gets avx512, one without AVX-512 gets portable. AMX
also needs the kernel's permission (Linux: ``arch_prctl(ARCH_REQ_XCOMP_PERM,
XFEATURE_XTILEDATA)``, once per process, before any tile instruction): asked for here
when AMX is chosen; refused, AMX is not used ("auto") or is a CuvilError ("amx").
"""

from __future__ import annotations

import ctypes
import functools
import sys

from ..errors import CuvilError
from .target import host_cpu

__all__ = ["host_features", "resolve_isa", "request_amx", "NEEDS", "ISA_ORDER"]

ISA_ORDER = ("amx", "avx512", "portable")
NEEDS = {
    ("int8", "amx"): ("amx-tile", "amx-int8", "avx512f", "avx512bw"),
    ("int8", "avx512"): ("avx512f", "avx512bw", "avx512vnni"),
    ("bf16", "amx"): ("amx-tile", "amx-bf16", "avx512f", "avx512bw"),
    ("bf16", "avx512"): ("avx512f", "avx512bw", "avx512bf16"),
    ("int8", "portable"): (),
    ("bf16", "portable"): (),
}
_SYS_ARCH_PRCTL = 158  # x86-64
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18


def host_features() -> frozenset[str]:
    """The CPU features LLVM enables for this host (``avx512vnni``, ``amx-int8``...)."""
    _, text = host_cpu()
    return frozenset(f[1:] for f in text.split(",") if f.startswith("+"))


@functools.cache
def request_amx() -> bool:
    """Ask Linux for the AMX tile data state (a no-op when already granted); False on
    another OS or when the kernel refuses."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        rc = libc.syscall(_SYS_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA)
    except (OSError, AttributeError):
        return False
    return rc == 0


def _usable(mode: str, isa: str, features: frozenset[str]) -> str | None:
    """None when `isa` can run `mode` here, else why not."""
    missing = [f for f in NEEDS[(mode, isa)] if f not in features]
    if missing:
        return f"this CPU lacks {', '.join(missing)}"
    if isa == "amx" and not request_amx():
        return "the OS did not grant the AMX tile state (arch_prctl XCOMP_PERM)"
    return None


def resolve_isa(
    mode: str, requested: str = "auto", features: frozenset[str] | None = None
) -> str:
    """The instruction set `mode` ("int8" / "bf16") kernels are generated for."""
    have = host_features() if features is None else features
    if requested == "auto":
        return next(isa for isa in ISA_ORDER if _usable(mode, isa, have) is None)
    why = _usable(mode, requested, have)
    if why is not None:
        usable = [isa for isa in ISA_ORDER if _usable(mode, isa, have) is None]
        raise CuvilError(
            f"quantize isa={requested!r} cannot run {mode} here: {why}",
            hint=f"use isa='auto' or one of {', '.join(usable)} (docs/QUANT.md)",
        )
    return requested
