"""What the host CPU offers the kernels: vector width, FMA, AMX, and its cache sizes.

Plans (gemm_plan.py, conv_plan.py) size their blocks from these numbers instead of one
machine's constants: the project runs on AMD Zen 5 and on Intel Xeons (with AMX), with
L1d 32-48 KiB, L2 1-2 MiB per core. Features come from LLVM's host detection (the same
ones the code is compiled for); cache sizes from Linux sysfs, else glibc's sysconf, else
conservative defaults. ``signature`` names the host for caches of measured plans.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from .target import host_cpu

__all__ = ["HostInfo", "host_info"]

SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")
DEFAULTS = {1: 32 * 1024, 2: 1024 * 1024, 3: 8 * 1024 * 1024}
SYSCONF = {
    1: "SC_LEVEL1_DCACHE_SIZE",
    2: "SC_LEVEL2_CACHE_SIZE",
    3: "SC_LEVEL3_CACHE_SIZE",
}


@dataclass(frozen=True)
class HostInfo:
    cpu: str
    features: frozenset[str]
    l1: int  # bytes of L1 data cache per core
    l2: int  # bytes of L2 per core
    l3: int  # bytes of L3 (shared)

    @property
    def vector_floats(self) -> int:
        """float32 lanes of the widest vector the kernels should use."""
        return 16 if "avx512f" in self.features else 8

    @property
    def vector_registers(self) -> int:
        return 32 if "avx512f" in self.features else 16

    @property
    def amx(self) -> bool:
        """AMX tiles (bf16/int8 only: float32 kernels do not use them)."""
        return "amx-tile" in self.features

    @property
    def signature(self) -> str:
        """A short name for this host's kind: cpu, features, cache sizes."""
        text = f"{self.cpu}|{','.join(sorted(self.features))}|{self.l1}|{self.l2}|{self.l3}"
        return f"{self.cpu}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * scale


def cache_sizes(sysfs: Path = SYSFS) -> dict[int, int]:
    """{level: bytes} of the data/unified caches of CPU 0."""
    sizes: dict[int, int] = {}
    for index in sorted(sysfs.glob("index*")) if sysfs.is_dir() else ():
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            size = _parse_size((index / "size").read_text())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size > 0:
            sizes[level] = size
    for level, name in SYSCONF.items():
        if level not in sizes and name in os.sysconf_names:
            value = os.sysconf(name)
            if value and value > 0:
                sizes[level] = value
    return {level: sizes.get(level, DEFAULTS[level]) for level in DEFAULTS}


@functools.cache
def host_info() -> HostInfo:
    cpu, feature_text = host_cpu()
    features = frozenset(f[1:] for f in feature_text.split(",") if f.startswith("+"))
    sizes = cache_sizes()
    return HostInfo(cpu, features, sizes[1], sizes[2], sizes[3])
