"""The failure categories: stable IDs (used in reports, baselines and SARIF rules),
a title and the fix hint each report shows."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATEGORIES", "Category"]


@dataclass(frozen=True)
class Category:
    id: str
    title: str
    hint: str


_ROWS = [
    (
        "data-dependent-control-flow",
        "Python control flow on a tensor's value",
        "replace `if`/`while` on tensor values with torch.where / torch.cond, or move the "
        "decision out of forward()",
    ),
    (
        "data-dependent-python-value",
        "a Python number taken out of a tensor",
        "keep the value a tensor (avoid .item(), int(t), .tolist()); compute sizes from "
        "shapes or configuration, not data",
    ),
    (
        "proxy-iteration",
        "iterating or unpacking a traced tensor",
        "index explicitly (x[:, 0]), use torch.unbind with a known count, or loop over "
        "range(<constant>)",
    ),
    (
        "dynamic-shape",
        "a data-dependent size, or Python logic on a symbolic size",
        "avoid ops whose output size depends on data (nonzero, boolean masks); express size "
        "logic with torch ops or widen the Dim range in dynamic_shapes",
    ),
    (
        "non-torch-call",
        "a numpy / math call on a tensor",
        "use the torch equivalent (torch.sqrt, torch.exp...) or compute constants in "
        "__init__",
    ),
    (
        "inplace-mutation",
        "in-place mutation of an input, view or module state",
        "use the out-of-place form (x = x + y), clone first, or register state as a buffer",
    ),
    (
        "unsupported-python-construct",
        "a Python construct the tracer cannot follow",
        "remove formatting / printing of traced values from forward(), or guard it with "
        "`if not torch.fx._symbolic_trace.is_fx_tracing()`",
    ),
    (
        "dtype-mismatch",
        "tensors of incompatible dtypes",
        "cast where the value is created (dtype=..., .long(), .float()) so ops agree",
    ),
    (
        "shape-mismatch",
        "tensors or layers of incompatible shapes",
        "fix the size set where the layer or tensor is created (often in __init__)",
    ),
    (
        "undefined-name",
        "a name or attribute that does not exist",
        "define the name, fix the typo, or import it",
    ),
    (
        "unsupported-op",
        "an op Cuvil cannot lower yet",
        "rewrite with supported ops (docs/OPS.md) or add a lowering to cuvil.frontend",
    ),
    (
        "non-tensor-argument",
        "an Optional / flag / container / **kwargs parameter traced as one Proxy",
        "pass concrete_args for flags and None defaults, give tensors for Optional inputs, "
        "or take tensors as separate named parameters instead of a container / **kwargs",
    ),
    (
        "unsupported-io-type",
        "a non-tensor object among the inputs or outputs",
        "pass and return only tensors (or tuples of tensors); unwrap cache objects and "
        "dataclasses at the model boundary",
    ),
    (
        "capture-limitation",
        "valid model code the tracer/exporter cannot capture",
        "try the other frontend (--frontend export / fx), or wrap the call in a leaf "
        "module; the model line named is where capture broke",
    ),
    (
        "compiler-internal-error",
        "a bug in Cuvil",
        "this is a Cuvil bug, not a model problem: please report it with this model",
    ),
    (
        "unknown",
        "no strong evidence for any category",
        "read the error and the failing line shown; the best guess and the evidence are "
        "listed; a new failure kind deserves a pattern (docs/TRIAGE.md)",
    ),
]

CATEGORIES: dict[str, Category] = {r[0]: Category(*r) for r in _ROWS}
