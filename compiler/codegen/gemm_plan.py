"""GEMM plans: the tile of one shape (``plan_gemm``) and the packed operand layouts.

A ``GemmPlan`` fixes the register tile (mr x nr), the k-block length and the A row
block; ``pack_a``/``pack_b`` lay compile-time operands out in its panels (zero padded),
so a packed weight belongs to one plan. gemm.py emits the kernel for a plan.

Tile choice: ``plan_gemm`` takes this host's measured plan (the autotuner,
runtime/tune.py, fills codegen/tuned.py's table), else ``model_gemm_plan``'s rules,
whose k-blocks follow the host's L1 (host.py); measurements in docs/GEMM.md.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import torch

from . import tuned
from .host import HostInfo, host_info

__all__ = [
    "GemmPlan",
    "pack_a",
    "pack_b",
    "plan_gemm",
    "model_gemm_plan",
    "gemm_candidates",
    "gemm_key",
    "gemm_params",
]


@dataclass(frozen=True)
class GemmPlan:
    """Tiling of one C[m x n] = A[m x k] @ B[k x n]; packed layouts depend on it.

    ``mr`` x ``nr`` is the register tile (``nr`` a multiple of ``vector_width``),
    ``kc`` the k-block length (blocks are rebalanced to equal length, see
    ``k_blocks``), ``unroll`` the k-loop unroll of the micro-kernel.
    """

    m: int
    n: int
    k: int
    mr: int
    nr: int
    kc: int
    vector_width: int = 16
    unroll: int = 4
    mc: int = 0  # rows per A block (0: all of m); a multiple of mr
    copy_a: bool = False  # copy unpacked A blocks to a padded stack buffer
    copy_b: bool = False  # copy plain B panels to a contiguous stack buffer
    prefetch: int = 0  # bytes ahead in the B stream to prefetch into L2 (0: none)

    def __post_init__(self) -> None:
        if min(self.m, self.n, self.k, self.mr, self.kc, self.unroll) < 1:
            raise ValueError(f"GemmPlan needs positive sizes, got {self}")
        if self.nr < 1 or self.nr % self.vector_width:
            raise ValueError(f"nr={self.nr} must be a multiple of {self.vector_width}")
        if self.mc <= 0 or self.mc >= self.m:
            object.__setattr__(self, "mc", self.m)
        elif self.mc % self.mr:
            raise ValueError(f"mc={self.mc} must be a multiple of mr={self.mr}")

    @property
    def nvec(self) -> int:
        return self.nr // self.vector_width

    @property
    def k_blocks(self) -> tuple[int, int, int]:
        """(count, length of all but the last, length of the last)."""
        count = math.ceil(self.k / self.kc)
        length = math.ceil(self.k / count)
        return count, length, self.k - (count - 1) * length


LAYOUTS = ("packed-b", "plain-b", "trans-b", "packed-a")


def _kc_cap(host: HostInfo) -> int:
    """k-block length whose 32-column B panel fills 2/3 of L1 (256 for 48 KiB)."""
    return max(64, host.l1 * 2 // 3 // (4 * 32) // 16 * 16)


def model_gemm_plan(
    m: int, n: int, k: int, vector_width: int = 16, *, b_packed: bool = True
) -> GemmPlan:
    """Pick the tile for one shape from the cache model (measurements: docs/GEMM.md).

    ``b_packed=False`` says B is a runtime matrix (conv's im2col, attention).
    """
    vw = vector_width
    nv = math.ceil(n / vw)  # vectors needed to cover a row of C
    host = host_info()
    cap = _kc_cap(host)
    kc = k if k <= cap * 3 // 2 else cap
    # packed B beyond a quarter of L2 streams from L3/DRAM every call: skinny products
    # prefetch their one B stream a third of L1 ahead (1x1280x1000: 320 -> 243 us cold),
    # wider ones the next column panel's rows (BERT's 128x3072x768: 118 -> 138 GFLOP/s)
    streamed = b_packed and 4 * k * n > host.l2 // 4
    ahead = host.l1 // 3 // 1024 * 1024 if streamed else 0
    if m == 1:  # GEMV: bound by B's bandwidth; 8 accumulators hide FMA latency
        return GemmPlan(m, n, k, 1, min(8, nv) * vw, k, vw, unroll=2, prefetch=ahead)
    if m <= 8:  # one row tile: no reuse of B across tiles, so no k blocking
        mr, nvec = m, min(nv, 4 if m <= 5 else 2)
        return GemmPlan(m, n, k, mr, nvec * vw, min(k, 4 * cap), vw, prefetch=ahead)
    if nv <= 3:  # narrow C: more rows keep >= 24 accumulators busy
        mr, nvec = (12 if nv <= 2 else 8), nv
    elif not b_packed and (n < 64 or n >= 512 or n % 64 == 0):
        mr, nvec = 6, 4  # conv-as-GEMM / attention: wide runtime B
    elif not b_packed:
        mr, nvec = 12, 2  # e.g. 256x196x2304: 12x32 132 vs 6x64 24 GFLOP/s
    else:
        mr, nvec = 8, 2
    copy_b = not b_packed and n * 4 >= 4096 and m >= 2 * mr
    prefetch = 4 * k * nvec * vw if streamed else 0
    return GemmPlan(m, n, k, mr, nvec * vw, kc, vw, copy_b=copy_b, prefetch=prefetch)


def plan_gemm(
    m: int,
    n: int,
    k: int,
    vector_width: int = 16,
    *,
    b_packed: bool = True,
    layout: str | None = None,
) -> GemmPlan:
    """This host's measured plan for the shape (tuned.py), else the model's.

    `layout` ("packed-b", "plain-b", "trans-b", "packed-a") names the operands for the
    measured-plan table; by default "packed-b" or "plain-b" from ``b_packed``."""
    layout = layout or ("packed-b" if b_packed else "plain-b")
    params = tuned.lookup("gemm", gemm_key(m, n, k, layout))
    if params is not None and params.get("vector_width", vector_width) == vector_width:
        try:
            return GemmPlan(m, n, k, **params)
        except (TypeError, ValueError):
            pass  # a table from another version: the model decides
    return model_gemm_plan(m, n, k, vector_width, b_packed=b_packed)


def gemm_key(m: int, n: int, k: int, layout: str) -> str:
    return f"{m}x{n}x{k}-{layout}"


def gemm_params(plan: GemmPlan) -> dict:
    fields = (
        "mr",
        "nr",
        "kc",
        "vector_width",
        "unroll",
        "mc",
        "copy_a",
        "copy_b",
        "prefetch",
    )
    params = {f: getattr(plan, f) for f in fields}
    params["mc"] = 0 if plan.mc >= plan.m else plan.mc
    return params


def gemm_candidates(m: int, n: int, k: int, layout: str) -> list[GemmPlan]:
    """The plans the tuner measures: the model's first, then other register tiles
    (as tall as 32 registers allow), k-blocks of half and twice the length, and for a
    runtime B the copied panel on and off."""
    vw = 16
    base = model_gemm_plan(m, n, k, vw, b_packed=layout == "packed-b")
    if m == 1:
        tiles = [(1, v * vw) for v in (4, 8, 16) if (v - 1) * vw < n]
    elif m <= 8:
        tiles = [(m, v * vw) for v in (1, 2, 3, 4) if m * v <= 28 and (v - 1) * vw < n]
    else:
        tiles = [
            (mr, v * vw) for mr, v in ((8, 2), (6, 4), (12, 2), (14, 2), (4, 4), (8, 3))
        ]
        tiles = [(min(mr, m), nr) for mr, nr in tiles if nr - vw < n]
    out = [base]
    for mr, nr in tiles:
        out.append(dataclasses.replace(base, mr=mr, nr=nr, mc=0))
    for kc in (base.kc // 2, base.kc * 2):
        if 16 <= kc <= k:
            out.append(dataclasses.replace(base, kc=kc, mc=0))
    if layout == "packed-b" and m > 8:  # the same k rows of the next column panel
        for p in list(out[: len(tiles) + 1]):
            out.append(dataclasses.replace(p, prefetch=4 * k * p.nr))
    elif layout == "packed-b":  # skinny: one stream, some distance ahead
        for ahead in (0, 8192, 16384, 32768):
            out.append(dataclasses.replace(base, prefetch=ahead))
    if layout in ("plain-b", "packed-a"):
        out.append(dataclasses.replace(base, copy_b=not base.copy_b))
    return list(dict.fromkeys(p for p in out if p.mr <= m))


def pack_b(b: torch.Tensor, plan: GemmPlan) -> torch.Tensor:
    """B (k x n, float32, any strides) -> [ceil(n/nr), k, nr] contiguous, zero padded."""
    k, n = b.shape
    assert (k, n) == (plan.k, plan.n), f"B is {k}x{n}, plan wants {plan.k}x{plan.n}"
    panels = math.ceil(n / plan.nr)
    padded = torch.zeros(k, panels * plan.nr, dtype=torch.float32)
    padded[:, :n] = b
    return padded.reshape(k, panels, plan.nr).permute(1, 0, 2).contiguous()


def pack_a(a: torch.Tensor, plan: GemmPlan) -> torch.Tensor:
    """A (m x k, float32, any strides) -> [ceil(m/mr), k, mr] contiguous, zero padded."""
    m, k = a.shape
    assert (m, k) == (plan.m, plan.k), f"A is {m}x{k}, plan wants {plan.m}x{plan.k}"
    tiles = math.ceil(m / plan.mr)
    padded = torch.zeros(tiles * plan.mr, k, dtype=torch.float32)
    padded[:m] = a
    return padded.reshape(tiles, plan.mr, k).permute(0, 2, 1).contiguous()
