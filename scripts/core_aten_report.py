"""How much of the Core ATen opset (ATen overloads tagged ``torch.Tag.core``) Cuvil lowers.

    python scripts/core_aten_report.py          # counts, then the missing overloads

Each overload is one of: ``rule`` (a Cuvil lowering rule), ``decomposed`` (PyTorch's
decomposition table has it; the fallback lowers the result), ``factory`` (no tensor
operand: evaluated at compile time), ``no-cpu-meaning`` (backward, random, uninitialized,
symbolic-size and data-dependent-shape ops: nothing deterministic to compare against
eager), or ``missing``. It counts coverage, not correctness: the OpInfo tier
(tests/opinfo) checks values.
"""

from __future__ import annotations

from collections import Counter

import torch

from cuvil.frontend import graph  # noqa: F401  (registers the rules)
from cuvil.frontend.decompose import decomposition_table
from cuvil.frontend.lower_factory import FACTORIES
from cuvil.frontend.registry import lookup

aten = torch.ops.aten
_NO_MEANING = (
    "backward",
    "rand",
    "empty",
    "sym_",
    "_local_scalar_dense",
    "nonzero",
    "_fft_",
    "bernoulli",
    "native_dropout",
    "normal",
    "uniform",
    "resize",
)


def core_overloads() -> list:
    out = []
    for name in dir(aten):
        packet = getattr(aten, name, None)
        if isinstance(packet, torch._ops.OpOverloadPacket):
            out += [
                getattr(packet, o)
                for o in packet.overloads()
                if torch.Tag.core in getattr(packet, o).tags
            ]
    return out


def verdict(op, decomposed: dict) -> str:
    if lookup(op) is not None:
        return "rule"
    if op in decomposed:
        return "decomposed"
    if any(key in str(op) for key in _NO_MEANING):
        return "no-cpu-meaning"
    tensors = [a for a in op._schema.arguments if "Tensor" in str(a.type)]
    if op.overloadpacket in FACTORIES or not tensors:
        return "factory"
    return "missing"


def main() -> None:
    decomposed = decomposition_table()
    by_op = {str(op): verdict(op, decomposed) for op in core_overloads()}
    counts = Counter(by_op.values())
    meaningful = len(by_op) - counts["no-cpu-meaning"]
    covered = meaningful - counts["missing"]
    print(
        f"Core ATen overloads: {len(by_op)}; with a CPU meaning: {meaningful}; "
        f"covered: {covered} ({covered / meaningful:.1%})"
    )
    for kind, n in sorted(counts.items()):
        print(f"  {kind:15} {n}")
    print("missing:", " ".join(sorted(k for k, v in by_op.items() if v == "missing")))


if __name__ == "__main__":
    main()
