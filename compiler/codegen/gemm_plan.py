"""GEMM plans: the tile of one shape (``plan_gemm``) and the packed operand layouts.

A ``GemmPlan`` fixes the register tile (mr x nr), the k-block length and the A row
block; ``pack_a``/``pack_b`` lay compile-time operands out in its panels (zero padded),
so a packed weight belongs to one plan. gemm.py emits the kernel for a plan.

Tile choice (plan_gemm) -- measured on this project's machine (1 thread,
Xeon "emeraldrapids", AVX-512, 2 FMA ports): see docs/GEMM.md for the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

__all__ = ["GemmPlan", "pack_a", "pack_b", "plan_gemm"]


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

    def __post_init__(self) -> None:
        if min(self.m, self.n, self.k, self.mr, self.kc, self.unroll) < 1:
            raise ValueError(f"GemmPlan needs positive sizes, got {self}")
        if self.nr < 1 or self.nr % self.vector_width:
            raise ValueError(f"nr={self.nr} must be a multiple of {self.vector_width}")
        if self.mc <= 0 or self.mc > self.m:
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


def plan_gemm(
    m: int,
    n: int,
    k: int,
    vector_width: int = 16,
    *,
    b_packed: bool = True,
) -> GemmPlan:
    """Pick the tile for one shape (rationale and measurements: docs/GEMM.md).

    ``b_packed=False`` says B is a runtime matrix (conv's im2col, attention).
    """
    vw = vector_width
    nv = math.ceil(n / vw)  # vectors needed to cover a row of C
    kc = k if k <= 384 else 256
    if m == 1:  # GEMV: bound by B's bandwidth; 8 accumulators hide FMA latency
        return GemmPlan(m, n, k, 1, min(8, nv) * vw, k, vw, unroll=2)
    if m <= 8:  # one row tile: no reuse of B across tiles, so no k blocking
        mr, nvec = m, min(nv, 4 if m <= 5 else 2)
        return GemmPlan(m, n, k, mr, nvec * vw, min(k, 1024), vw)
    if nv <= 3:  # narrow C: more rows keep >= 24 accumulators busy
        mr, nvec = (12 if nv <= 2 else 8), nv
    elif not b_packed and (n < 64 or n >= 512 or n % 64 == 0):
        mr, nvec = 6, 4  # conv-as-GEMM / attention: wide runtime B
    elif not b_packed:
        mr, nvec = 12, 2  # e.g. 256x196x2304: 12x32 132 vs 6x64 24 GFLOP/s
    else:
        mr, nvec = 8, 2
    copy_b = not b_packed and n * 4 >= 4096 and m >= 2 * mr
    return GemmPlan(m, n, k, mr, nvec * vw, kc, vw, copy_b=copy_b)


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
