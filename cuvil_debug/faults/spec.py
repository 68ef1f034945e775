"""Fault specs (``STAGE:NODE[:EFFECT]``), what a fault did (`Injection`), and the record
of the faults each module got."""

from __future__ import annotations

import difflib
import math
import re
import weakref
from dataclasses import dataclass

from cuvil.errors import CuvilError
from cuvil.ir.core import Module, Operation
from cuvil.ir.types import TensorType

__all__ = [
    "EFFECTS",
    "PARAMS",
    "SUBTLE",
    "STAGES",
    "KERNEL_ONLY",
    "Fault",
    "Injection",
    "parse",
    "applied",
    "record",
]

EFFECTS: dict[str, str] = {
    "scale": "y * F (F = 1.0625; scale{F} for another factor, e.g. scale{1.0001})",
    "negative": "negative entries of y doubled (hidden by a following ReLU)",
    "shift": "y + 0.5 (hidden by a following softmax)",
    "overflow": "y + 1.0 only after LLVM's optimizer (a folded signed-overflow compare)",
    "twice": "y unchanged, but the kernel does its work twice (a slower kernel)",
    "ulp": "y rounded one ulp away from zero (y + y * 2**-p, p the dtype's "
    "significand bits)",
    "accumulate": "y summed after a large partial sum M = 2**B * max|y| and M taken "
    "off last, (y + M) - M: its low B bits lost (B = 8; accumulate{B})",
}
# the effects that take a parameter, EFFECT{VALUE}: its default
PARAMS: dict[str, float] = {"scale": 1.0625, "accumulate": 8.0}
# the effects below the normwise tolerance that the float64 judge finds (docs/FAULTS.md)
SUBTLE = ("scale{1.0001}", "ulp", "accumulate")
STAGES: dict[str, str] = {
    "lowering": "wrong frontend lowering",
    "pass": "wrong pass (inject-fault)",
    "kernel": "wrong kernel",
}
KERNEL_ONLY = frozenset({"overflow", "twice"})


def _choice(what: str, got: str, known) -> CuvilError:
    close = difflib.get_close_matches(got, list(known), n=1)
    did = f"did you mean '{close[0]}'? " if close else ""
    return CuvilError(
        f"unknown fault {what} '{got}'",
        hint=f"{did}{what}s: {', '.join(known)}; a fault is STAGE:NODE[:EFFECT], "
        "e.g. kernel:fc or pass:relu:negative (docs/FAULTS.md)",
    )


@dataclass(frozen=True)
class Fault:
    """A bug to inject: at `stage`, the value of FX node `node` becomes `effect`(value)."""

    stage: str  # "lowering" | "pass" | "kernel"
    node: str  # the FX node whose value becomes wrong, e.g. "layer1_0_relu", "fc"
    effect: str = "scale"
    param: float | None = None  # scale{F}, accumulate{B} (None: the default)

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise _choice("stage", str(self.stage), STAGES)
        if not isinstance(self.node, str) or not self.node.strip():
            raise CuvilError(
                f"fault {self.stage}:{self.node!r} names no FX node",
                hint="write STAGE:NODE[:EFFECT], e.g. kernel:fc",
            )
        if self.effect not in EFFECTS:
            raise _choice("effect", str(self.effect), EFFECTS)
        if self.effect in KERNEL_ONLY and self.stage != "kernel":
            raise CuvilError(
                f"effect '{self.effect}' is kernel-only (it lives in LLVM IR), "
                f"not for stage '{self.stage}'",
                hint=f"write kernel:{self.node}:{self.effect}",
            )
        if self.param is not None:
            _check_param(self.effect, self.param)

    @property
    def value(self) -> float | None:
        """The effect's parameter: the one given, else its default (None: none)."""
        return self.param if self.param is not None else PARAMS.get(self.effect)

    @property
    def effect_spec(self) -> str:
        """``EFFECT`` or ``EFFECT{VALUE}``."""
        if self.param is None:
            return self.effect
        v = self.param
        return f"{self.effect}{{{int(v) if v == int(v) else v!r}}}"

    @property
    def spec(self) -> str:
        """``STAGE:NODE:EFFECT[{VALUE}]``, the text `parse` reads back."""
        return f"{self.stage}:{self.node}:{self.effect_spec}"

    def describe(self) -> str:
        """e.g. ``wrong kernel for FX node 'fc' (scale: y * 1.0625)``."""
        what = EFFECTS[self.effect]
        if self.effect == "scale":
            what = f"y * {self.value!r}"
        elif self.effect == "accumulate":
            what = f"(y + M) - M with M = 2**{int(self.value)} * max|y|"
        return f"{STAGES[self.stage]} for FX node '{self.node}' ({self.effect}: {what})"

    def __str__(self) -> str:
        return self.spec


@dataclass(frozen=True)
class Injection:
    """Where a fault was applied: the op (or kernel symbol) and the value made wrong."""

    fault: Fault
    at: str  # e.g. "cuvil.linear", "kernel cuvil_k3_fc"
    value: str  # the name of the IR value (kernel output) that is now wrong


_EFFECT = re.compile(r"^([\w-]+)(?:\{([^{}]*)\})?$")


def _check_param(effect: str, value: float) -> None:
    if effect not in PARAMS:
        raise CuvilError(
            f"effect '{effect}' takes no parameter",
            hint=f"effects with one: {', '.join(f'{e}{{VALUE}}' for e in PARAMS)}",
        )
    if effect == "scale" and not (math.isfinite(value) and value != 0):
        raise CuvilError(
            f"scale{{{value!r}}}: the factor must be a finite non-zero number"
        )
    if effect == "accumulate" and not (value == int(value) and 1 <= value <= 24):
        raise CuvilError(
            f"accumulate{{{value!r}}}: B must be a whole number of bits from 1 to 24",
            hint="accumulate{8} (the default) loses 8 bits, accumulate{13} keeps "
            "float16's 11",
        )


def parse(spec: str) -> Fault:
    """A Fault from ``STAGE:NODE[:EFFECT[{VALUE}]]`` (e.g. ``kernel:fc``,
    ``pass:relu:negative``, ``kernel:fc:scale{1.0001}``)."""
    if not isinstance(spec, str):
        raise CuvilError(f"a fault spec is a string, got {type(spec).__name__}")
    parts = [p.strip() for p in spec.strip().split(":")]
    m = _EFFECT.match(parts[2]) if len(parts) == 3 else None
    if len(parts) not in (2, 3) or not all(parts) or (len(parts) == 3 and not m):
        raise CuvilError(
            f"cannot parse fault spec {spec!r}",
            hint="write STAGE:NODE[:EFFECT[{VALUE}]] with STAGE one of "
            f"{', '.join(STAGES)} and EFFECT one of {', '.join(EFFECTS)} "
            "(default scale), e.g. kernel:fc, pass:layer1_0_relu:negative or "
            "kernel:fc:scale{1.0001}",
        )
    if m is None:
        return Fault(*parts)
    param = None
    if m.group(2) is not None:
        try:
            param = float(m.group(2))
        except ValueError:
            raise CuvilError(
                f"fault spec {spec!r}: {m.group(2)!r} is not a number",
                hint="e.g. scale{1.0001} or accumulate{8}",
            ) from None
    return Fault(parts[0], parts[1], m.group(1), param)


# What each module got, kept here rather than on the module: the IR knows no faults.
_APPLIED: weakref.WeakKeyDictionary[Module, list[Injection]] = (
    weakref.WeakKeyDictionary()
)


def applied(module: Module) -> list[Injection]:
    """The faults applied to `module` (lowering, pass and kernel stages), in order."""
    return list(_APPLIED.get(module, ()))


def record(module: Module, fault: Fault, at: str, value: str) -> None:
    _APPLIED.setdefault(module, []).append(Injection(fault, at, value))


# ---- shared by the stages: refusals with the names that would have worked ---------------
def listing(names: list[str], limit: int = 16) -> str:
    """At most `limit` names, comma separated (ResNet-18 has hundreds of FX nodes)."""
    if not names:
        return "none"
    more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def did_you_mean(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f"did you mean '{close[0]}'? " if close else ""


def known_nodes(ops_: list[Operation]) -> list[str]:
    """The FX nodes the ops' locations name, in order, once each."""
    seen: dict[str, None] = {}
    for op in ops_:
        for n in op.loc.nodes:
            seen.setdefault(n, None)
    return list(seen)


def float_or_fail(t: TensorType, fault: Fault, error=CuvilError) -> None:
    if not t.dtype.is_float:
        raise error(
            f"cannot inject fault {fault.spec}: FX node '{fault.node}' produces {t}; "
            "the effects need a float tensor",
            hint="fault a node with a float result",
        )
