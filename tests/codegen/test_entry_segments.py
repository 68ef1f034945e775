"""A long release entry calls its kernels through bounded segments (codegen/entry.py).

Release builds inline every kernel into its caller, and LLVM's time on one function
grows faster than its size (issue 19: 9 -> 13 ms per kernel from 50 to 200 kernels, in
one ``cuvil_main``). With more than SEGMENT_CALLS calls the entry calls internal,
never-inlined ``cuvil_seg_<j>`` of at most SEGMENT_CALLS calls each, in order; the
result, the per-kernel profile and the debug build's entry are unchanged.
"""

from __future__ import annotations

import re

import torch

import cuvil
from cuvil.codegen.entry import SEGMENT_CALLS, SEGMENT_PREFIX


class Chain(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i in range(self.n):
            x = torch.sin(x) if i % 2 else torch.cos(x) * 0.9
        return x


def _calls(text: str, fn: str) -> list[str]:
    body = re.search(rf'define [^@]*@"?{fn}"?\(.*?\n}}\n', text, re.S).group(0)
    return re.findall(r'call [^@]*@"?([\w.]+)"?\(', body)


def test_a_long_release_entry_calls_bounded_segments_in_order():
    n = 2 * SEGMENT_CALLS + 3
    x = torch.randn(4, 8)
    opts = {"enable_fusion": False, "profile": True}
    built = cuvil.compile(Chain(n), [x], options=opts)
    torch.testing.assert_close(built(x), Chain(n)(x), rtol=1e-4, atol=1e-5)
    text = built.llvm_ir()
    segments = _calls(text, "cuvil_main")
    assert segments == [f"{SEGMENT_PREFIX}{j}" for j in range(len(segments))]
    kernels = [k for s in segments for k in _calls(text, s) if k.startswith("cuvil_k")]
    assert kernels == [k.symbol for k in built.kernels]
    assert all(len(_calls(text, s)) <= 3 * SEGMENT_CALLS for s in segments)
    assert len(segments) == -(-len(built.kernels) // SEGMENT_CALLS)
    counted = [row for row in built.profile() if row[2] > 0]
    assert len(counted) == len(built.kernels)  # every kernel's cycles, through segments


def test_short_and_debug_entries_call_their_kernels_directly():
    x = torch.randn(4, 8)
    short = cuvil.compile(Chain(4), [x], options={"enable_fusion": False})
    assert SEGMENT_PREFIX not in short.llvm_ir()
    n = SEGMENT_CALLS + 5
    debug = cuvil.compile(
        Chain(n), [x], options={"enable_fusion": False, "debug": True}
    )
    assert SEGMENT_PREFIX not in debug.llvm_ir()  # kernels are not inlined there
    torch.testing.assert_close(debug(x), Chain(n)(x), rtol=1e-4, atol=1e-5)
