"""Plans of the direct (implicit-GEMM) channels-last convolution (conv.py).

A ``ConvPlan`` fixes how one 2-D NHWC convolution (groups 1) is tiled: ``mr`` output
positions x ``nr`` output channels in registers, over the whole reduction (kh*kw*C), so
the accumulators never leave registers; ``mc`` positions per work item (the rows whose
input patches stay in L1/L2 while every column panel passes over them) and the order of
work items. ``padded``: the input is first copied into a zero-bordered scratch image, so
each kernel row (ki) is one contiguous run of kw*C floats (the stem: C=3, runs of 21);
otherwise every tap (ki, kj) is a run of C floats read in place, and a tap that falls in
the padding reads a zero row instead (no bounds checks in the inner loop).

``pack_conv_weight`` lays the weight out as the kernel reads it: [ceil(O/nr), kh, kw, C,
nr], zero padded, at compile time.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import torch

from . import tuned
from .host import HostInfo, host_info
from .im2col import ConvShape

__all__ = [
    "ConvPlan",
    "conv_supported",
    "pack_conv_weight",
    "default_conv_plan",
    "model_conv_plan",
    "conv_candidates",
    "conv_key",
    "conv_params",
    "plan_conv",
]


@dataclass(frozen=True)
class ConvPlan:
    cs: ConvShape
    mr: int  # output positions per register tile
    nr: int  # output channels per register tile (a multiple of vw)
    mc: int  # positions per work item (a multiple of mr, or all of them)
    padded: bool  # copy the input into a zero-bordered scratch image first
    order: str = "m"  # "m": items walk column panels innermost; "n": row blocks
    unroll: int = 4
    prefetch: int = 0  # bytes ahead in the weight stream (0: none)
    kc: int = 0  # reduction elements per k-block (0: all); see k_split
    ahead: bool = False  # in place: also the next panel's weights, over these tiles
    vw: int = 16  # float lanes per vector

    def __post_init__(self) -> None:
        if self.vw not in (4, 8, 16) or self.nr % self.vw or self.nr < self.vw:
            raise ValueError(
                f"bad conv tile width {self.nr} (a multiple of vw={self.vw})"
            )
        if self.mr < 1 or self.unroll < 1 or self.prefetch < 0:
            raise ValueError(f"bad conv tile {self.mr}x{self.nr}")
        if not self.padded and self.mc < self.positions and self.mc % self.mr:
            raise ValueError(f"mc={self.mc} must be a multiple of mr={self.mr}")
        ow = self.cs.outs[-1]
        if self.padded and self.mc < self.positions and self.mc % ow:
            raise ValueError(
                f"bordered: mc={self.mc} must be whole output rows of {ow}"
            )
        if self.padded and self.mr > ow and self.mr % ow:
            raise ValueError(
                f"bordered: mr={self.mr} must fit a row of {ow} or span rows"
            )
        if self.order not in ("m", "n"):
            raise ValueError(f"order must be 'm' or 'n', got {self.order!r}")

    @property
    def k_split(self) -> tuple[int, int, int]:
        """(taps per k-block, channels per tap in a block, k-blocks). A block is whole
        taps (kc a multiple of C that divides the taps) or one tap's channel chunk
        (kc dividing C); anything else, and the padded form, is one block."""
        cs = self.cs
        taps, c = cs.kernel[0] * cs.kernel[1], cs.cg
        kc = self.kc
        if self.padded or kc <= 0 or kc >= taps * c:
            return taps, c, 1
        if kc >= c and kc % c == 0 and taps % (kc // c) == 0:
            return kc // c, c, taps // (kc // c)
        if kc < c and c % kc == 0:
            return 1, kc, taps * (c // kc)
        return taps, c, 1

    @property
    def positions(self) -> int:
        """Output positions per image (the implicit GEMM's m)."""
        return self.cs.spatial_out

    @property
    def block(self) -> int:
        return min(self.mc, self.positions)

    @property
    def m_blocks(self) -> int:
        return math.ceil(self.positions / self.block)

    @property
    def panels(self) -> int:
        return math.ceil(self.cs.og / self.nr)

    @property
    def items(self) -> int:
        """Work items (image, row block, column panel): the unit threads share."""
        return self.cs.n * self.m_blocks * self.panels

    @property
    def padded_dims(self) -> tuple[int, int]:
        """(H, W) of the zero-bordered scratch image."""
        (h, w), (ph, pw) = self.cs.ins, self.cs.padding
        return h + 2 * ph, w + 2 * pw

    @property
    def copies_input(self) -> bool:
        """The bordered form with a border to add (without padding x is read as is)."""
        return self.padded and any(self.cs.padding)

    @property
    def scratch_bytes(self) -> int:
        if not self.copies_input:
            return 0
        hp, wp = self.padded_dims
        return self.cs.n * hp * wp * self.cs.cg * 4

    @property
    def flops(self) -> int:
        cs = self.cs
        return 2 * cs.n * cs.spatial_out * cs.og * cs.k


def conv_supported(cs: ConvShape) -> bool:
    """2-D, one group: what the direct kernel computes."""
    return len(cs.kernel) == 2 and cs.groups == 1 and cs.spatial_out > 0


def tile_rows(nvec: int, registers: int) -> int:
    """Rows of a tile with `nvec` accumulator vectors per row: accumulators, the weight
    vectors and one broadcast fit the vector registers (32 zmm: 6 x 4, 14 x 2)."""
    return max(1, min(24 if nvec == 1 else 14, (registers - nvec - 1) // nvec))


def model_conv_plan(cs: ConvShape, host: HostInfo | None = None) -> ConvPlan:
    """The plan from the shape and the host's caches (runtime/tune.py measures the
    alternatives; docs/CONV.md has the measurements behind each rule):

    - the panel width that pads the fewest output channels (the widest on ties) and
      the tallest tile the registers hold (6 x 64);
    - weights larger than half of L2 stream from L3 on every call at batch 1
      (ResNet's layer3/4): half as wide, twice as tall tiles (each weight vector serves
      twice the rows) and the weight stream prefetched 2/3 of an L1 ahead; with
      at most 32 tiles per panel (ResNet-18's layer4: 4, layer3: 14) also the next
      panel, spread over this one's tiles (``ahead``: else the first tile of each
      panel waits on L3 while the others run from L2; with more tiles that burst is
      a small share and the extra prefetch per step is not worth it), in both
      input forms (bordered: ResNet-50's 7x7 1x1 layers, docs/CONV.md);
    - the bordered form (one pointer per tile, runs of kw*C) for inputs with fewer
      channels than a vector (the stem: runs of 21 instead of 3), for convolutions
      without padding (no copy then: x is read as it is), and for streamed weights
      when its row-aligned tiles are fewer per panel than the in-place ones (each
      tile reads the whole panel: ResNet's 14x14 layer3, 14 tiles of one output row
      against 16 x 12 + 4); else in place."""
    host = host or host_info()
    vw, regs = host.vector_floats, host.vector_registers
    o, m = cs.og, cs.spatial_out
    nvec = min((4, 3, 2, 1), key=lambda v: (-(-o // (vw * v)) * vw * v - o, -v))
    prefetch = 0
    if cs.k * o * 4 > host.l2 // 2:
        nvec, prefetch = min(nvec, 2), host.l1 * 2 // 3 // 1024 * 1024
    small_c = cs.cg < vw and cs.kernel[1] > 1
    padded = cs.dilation[1] == 1 and (small_c or not any(cs.padding))
    tall = tile_rows(nvec, regs)
    if padded:
        mr = row_aligned(tall, cs.outs[1])
    else:
        mr = inplace_rows(tall, m)
        if prefetch and cs.dilation[1] == 1:  # fewer passes over each weight panel
            mr_b = row_aligned(tall, cs.outs[1])
            if panel_tiles(cs, mr_b, True) < panel_tiles(cs, mr, False):
                padded, mr = True, mr_b
    ahead = bool(prefetch) and panel_tiles(cs, mr, padded) <= 32
    return ConvPlan(cs, mr, vw * nvec, m, padded, prefetch=prefetch, ahead=ahead, vw=vw)


def panel_tiles(cs: ConvShape, mr: int, padded: bool) -> int:
    """Register tiles per column panel of one image: in place ceil(m / mr); bordered
    tiles stay inside an output row (per row ceil(ow / mr)) or span whole rows."""
    if not padded:
        return -(-cs.spatial_out // mr)
    oh, ow = cs.outs
    return oh * -(-ow // mr) if mr <= ow else -(-oh // (mr // ow))


def inplace_rows(tall: int, m: int) -> int:
    """The in-place tile height for `m` positions: a general register per row, so 12
    rows at most (x86 has 16; taller tiles spill a row pointer per broadcast), unless
    that leaves an edge tile of 1-2 rows: it streams the whole weight panel again for
    them (ResNet-18's layer4, 49 positions: 4 x 12 + 1). Then the height up to `tall`
    (14 at most) with the longest edge (49: 3 x 13 + 10; docs/CONV.md)."""
    mr = min(tall, 12, m)
    if 0 < m % mr <= 2 and tall > mr:
        return max(range(min(tall, 14, m), mr, -1), key=lambda h: (m % h or h, h))
    return mr


def row_aligned(tall: int, ow: int) -> int:
    """The tile height for the bordered form: at most `tall`, inside a row of `ow`
    (of the tallest three, the one whose row edge costs least) or whole rows."""
    if ow < tall:
        return ow * (tall // ow)

    def share(mr: int) -> float:  # useful rows x weight-load amortization
        return ow / (-(-ow // mr) * mr) * mr / (mr + 2)

    return max(range(tall, max(tall - 3, 0), -1), key=share)


def default_conv_plan(cs: ConvShape) -> ConvPlan:
    """The measured plan of this host for `cs` (tuned.py), else the model's."""
    params = tuned.lookup("conv", conv_key(cs))
    if params is not None:
        try:
            return ConvPlan(cs, mc=cs.spatial_out, **params)
        except (TypeError, ValueError):
            pass  # a table from another version: the model decides
    return model_conv_plan(cs)


def conv_candidates(cs: ConvShape, host: HostInfo | None = None) -> list[ConvPlan]:
    """The plans the tuner measures: the model's first, then other widths and heights
    in both input forms, with and without the weight prefetch."""
    host = host or host_info()
    base = model_conv_plan(cs, host)
    vw, regs = base.vw, host.vector_registers
    out = [base]
    pf = host.l1 * 2 // 3 // 1024 * 1024
    # no width whose last vector would hold no output channel at all
    widths = {v for v in {base.nr // vw, 4, 2} if (v - 1) * vw < cs.og}
    for nvec in sorted(widths, reverse=True):
        tall = tile_rows(nvec, regs)
        for mr in dict.fromkeys((tall, max(1, tall - 2 if nvec > 1 else tall // 2))):
            for prefetch in (0, pf):
                kw = {"nr": nvec * vw, "prefetch": prefetch}
                for ahead in (False, True) if prefetch else (False,):
                    out.append(
                        dataclasses.replace(
                            base,
                            mr=min(mr, cs.spatial_out),
                            padded=False,
                            ahead=ahead,
                            **kw,
                        )
                    )
                if cs.dilation[1] == 1:
                    mr_b = row_aligned(mr, cs.outs[1])
                    for ahead in (False, True) if prefetch else (False,):
                        out.append(
                            dataclasses.replace(
                                base, mr=mr_b, padded=True, ahead=ahead, **kw
                            )
                        )
    return list(dict.fromkeys(out))


def conv_key(cs: ConvShape) -> str:
    """The shape as a key of the measured-plan table."""
    dims = [cs.ins, cs.kernel, cs.stride, cs.padding, cs.dilation]
    h, k, s, p, d = ("x".join(map(str, t)) for t in dims)
    return f"n{cs.n}-{h}x{cs.cg}-o{cs.og}-k{k}-s{s}-p{p}-d{d}"


def conv_params(plan: ConvPlan) -> dict:
    """The fields a measured plan records (the shape and the thread split aside)."""
    fields = ("mr", "nr", "padded", "order", "unroll", "prefetch", "kc", "ahead", "vw")
    return {f: getattr(plan, f) for f in fields}


def plan_conv(cs: ConvShape, threads: int = 1) -> ConvPlan:
    """The plan for `cs` on `threads` threads: enough work items to share (a few per
    thread) by cutting the positions into blocks of whole tiles."""
    plan = default_conv_plan(cs)
    if threads <= 1:
        return plan
    want = -(-4 * threads // (cs.n * plan.panels))
    if want <= 1:
        return plan
    per = -(-cs.spatial_out // want)
    unit = max(plan.mr, cs.outs[-1]) if plan.padded else plan.mr  # whole tiles / rows
    mc = max(unit, -(-per // unit) * unit)
    return dataclasses.replace(plan, mc=mc) if mc < cs.spatial_out else plan


def pack_conv_weight(weight: torch.Tensor, plan: ConvPlan) -> torch.Tensor:
    """[O, C, kh, kw] -> [ceil(O/nr), kh, kw, C, nr] contiguous, zero padded."""
    o, c, kh, kw = weight.shape
    panels = plan.panels
    padded = torch.zeros(panels * plan.nr, c, kh, kw, dtype=torch.float32)
    padded[:o] = weight.float()
    blocked = padded.reshape(panels, plan.nr, c, kh, kw)
    return blocked.permute(0, 3, 4, 2, 1).contiguous()
