"""The status word of a native module: how a kernel reports an out-of-range index.

Kernels that load indices check each one (codegen/indexing.py); the first violation of
a call is recorded in ``i64 cuvil_status[5]`` (flag, kernel number, index, dim, size)
and the kernel returns. After each call the caller checks the flag; when set, it is
cleared and a CuvilRuntimeError names the op, its FX node, the model line, the value and
the valid range.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

from ..codegen.indexing import STATUS_SYMBOL, STATUS_WORDS, WRAP_FLAG
from ..errors import CuvilRuntimeError

__all__ = ["StatusWord", "STATUS_SYMBOL"]


class StatusWord:
    """The status array at `addr`; `kernels` are (symbol, op name, nodes, source) rows."""

    def __init__(self, addr: int, kernels: Sequence[tuple[str, str, Sequence, object]]):
        self.words = (ctypes.c_int64 * STATUS_WORDS).from_address(addr)
        self.flag = ctypes.c_int64.from_address(addr)
        self.kernels = list(kernels)
        self.reset()

    def reset(self) -> None:
        self.flag.value = 0

    def check(self) -> None:
        """Raise if the last call recorded a violation, clearing it first (so no reset
        is needed before the next call: the check is one load on the fast path)."""
        if self.flag.value:
            self._raise()

    def _raise(self) -> None:
        _, number, index, dim_word, size = list(self.words)
        self.reset()
        dim, wrap = dim_word & (WRAP_FLAG - 1), bool(dim_word & WRAP_FLAG)
        valid = f"[{-size if wrap else 0}, {size - 1}]" if size > 0 else "none"
        prefix = f"cuvil_k{number}_"
        row = next((r for r in self.kernels if r[0].startswith(prefix)), None)
        what = f"kernel {number}"
        where = None
        if row is not None:
            _, op_name, nodes, source = row
            node = f" (FX node '{nodes[0]}')" if nodes else ""
            what, where = f"{op_name}{node}", source or None
        raise CuvilRuntimeError(
            f"index {index} is out of range for dim {dim} of size {size} in {what} "
            f"(valid: {valid})",
            where=where,
            hint="torch raises for this index too; check the index tensor's values",
        )
