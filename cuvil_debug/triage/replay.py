"""Where the model's eager run calls the op a Cuvil error names.

torch.export keeps only the forward() frame in a node's stack trace, so Cuvil's
error for an op it refuses (`aten.fft_rfftn` inside a library's helper) points at the
call in forward(), not at the helper's line that makes the op. Running the model once
more with a torch function mode and a dispatch mode watching for that op gives the
full Python stack of its first call, read like a traceback's frames."""

from __future__ import annotations

import re
import sys
import traceback

from .frames import _frame

__all__ = ["VALUE_READ", "nearest_stack", "op_origins", "replay_target"]

# a number or list taken out of a tensor, as the model's Python wrote it: `.item()`,
# `.tolist()`, `int(t)`. Matched as torch functions only: at the dispatch level
# `if t:` reaches `aten._local_scalar_dense` too, and that is control flow.
VALUE_READ = "item"
_VALUE_READS = frozenset({"item", "tolist", "__int__", "__float__", "__index__"})


def replay_target(error: dict) -> str | None:
    """What to find the model's eager call of: the op a Cuvil error refused, or
    VALUE_READ when export could not guard on an unbacked symbol (`u0`), which a
    value read made (torch names the symbol, not the line that read it)."""
    target = refused_target(error)
    if target in ("_local_scalar_dense", "item"):
        return VALUE_READ
    if target:
        return target
    for exc in error.get("chain", []):
        if _UNBACKED.search(exc.get("message", "")):
            return VALUE_READ
    return None


# a symbol no size-like op made (torch lists those: nonzero's, bincount's): a read
_UNBACKED = re.compile(
    r"Could not guard on data-dependent expression .*\bu\d+\b.*Size-like symbols: none",
    re.S,
)


def refused_target(error: dict) -> str | None:
    """The ATen op (`fft_rfftn`) a Cuvil error in the chain names, else the op its
    FX node is named after (`conv2d_1` -> `conv2d`), if any."""
    for exc in error.get("chain", []):
        parts = (exc.get("target") or "").split(".")
        if len(parts) >= 2 and parts[0] == "aten":
            return parts[1]
    for exc in error.get("chain", []):
        node = _NODE.search(exc.get("message", ""))
        if exc.get("module", "").startswith("cuvil") and node:
            return node.group(1)
    return None


_NODE = re.compile(r"\(FX node '([a-z][a-z0-9_]*?)(?:_\d+)?'\)")


def op_origins(model, inputs: tuple, name: str, grad_mode, limit: int = 1) -> list:
    """The stacks (frames outermost first) of the model's first `limit` eager calls
    of op `name`, as a torch function (`torch.fft.rfftn`) or an ATen op
    (`aten.fft_rfftn`); [] when the run never calls it or fails."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: dict = {}  # one stack per calling line: a loop's reads count once

    def note(func) -> None:
        if len(seen) < limit and _named(func, name):
            caller = sys._getframe(2)  # the line calling the op (past the mode's hook)
            site = (caller.f_code.co_filename, caller.f_lineno)
            if site not in seen:  # a loop's reads: the stack is extracted once
                seen[site] = traceback.extract_stack(caller)

    class _Functions(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            note(func)
            return func(*args, **(kwargs or {}))

    class _Ops(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            note(func)
            return func(*args, **(kwargs or {}))

    try:
        with grad_mode, torch._dynamo.config.patch(disable=True):
            with _Functions(), _Ops():
                model(*inputs)
    except Exception:  # noqa: BLE001 - a replay that fails says nothing
        pass
    stacks = [[_frame(f.filename, f.lineno, f.name) for f in s] for s in seen.values()]
    return [[f for f in s if not f["cuvil"]] for s in stacks]


def nearest_stack(stacks: list, goal: list, is_code) -> list[dict]:
    """Of the replayed stacks, the one whose code frames follow the failing code
    stack `goal` furthest (a read in the failing function beats an earlier read
    elsewhere); the first on a tie, [] when there is none."""

    def shared(stack) -> float:
        code = [(f["file"], f["line"]) for f in stack if is_code(f)]
        n = 0
        while n < min(len(code), len(goal)) and code[n] == goal[n]:
            n += 1
        same_file = n < min(len(code), len(goal)) and code[n][0] == goal[n][0]
        return n + 0.5 * same_file

    return max(stacks, key=shared, default=[])


def _named(func, name: str) -> bool:
    if name == VALUE_READ:
        return getattr(func, "__name__", None) in _VALUE_READS
    packet = getattr(func, "overloadpacket", None)
    return getattr(packet or func, "__name__", None) == name
