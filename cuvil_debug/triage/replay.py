"""Where the model's eager run calls the op a Cuvil error names.

torch.export keeps only the forward() frame in a node's stack trace, so Cuvil's
error for an op it refuses (`aten.fft_rfftn` inside a library's helper) points at the
call in forward(), not at the helper's line that makes the op. Running the model once
more with a torch function mode and a dispatch mode watching for that op gives the
full Python stack of its first call, read like a traceback's frames."""

from __future__ import annotations

import re
import traceback

from .frames import _frame

__all__ = ["op_origin", "refused_target"]


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


def op_origin(model, inputs: tuple, name: str, grad_mode) -> list[dict]:
    """The frames (outermost first) of the eager call that first reaches op `name`,
    as a torch function (`torch.fft.rfftn`) or as an ATen op (`aten.fft_rfftn`);
    [] when the run never calls it or fails."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: list = []

    def note(func) -> None:
        if not seen and _named(func, name):
            seen.append(traceback.extract_stack()[:-2])

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
    frames = [_frame(f.filename, f.lineno, f.name) for f in (seen[0] if seen else [])]
    return [f for f in frames if not f["cuvil"] and f["file"] != __file__]


def _named(func, name: str) -> bool:
    packet = getattr(func, "overloadpacket", None)
    return getattr(packet or func, "__name__", None) == name
