"""The failure categories: stable IDs (used in reports, baselines and SARIF rules),
a title, the scope a labeller decides by, and the fix hint each report shows.

The scope decides the boundaries by *what the failing Python was applied to*: the
tensor itself (iterating, `len()`, unpacking: proxy-iteration), its values (`if`,
`.item()`: data-dependent-*), its size (`x.shape`, `x.size()`, a data-dependent
output size: dynamic-shape), its metadata (`x.ndim`, `x.device`: capture-limitation),
a non-tensor forward() parameter under fx (non-tensor-argument) or a non-tensor value
at the boundary (unsupported-io-type). docs/TRIAGE.md gives an example of each."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATEGORIES", "Category"]


@dataclass(frozen=True)
class Category:
    id: str
    title: str
    hint: str
    scope: str = ""  # what belongs here and what does not (for labelling)


_ROWS = [
    (
        "data-dependent-control-flow",
        "Python control flow on a tensor's value",
        "replace `if`/`while` on tensor values with torch.where / torch.cond, or move the "
        "decision out of forward()",
        "Python `if`/`while`/`assert`/`and`/`or`/`bool()` that needs a tensor's "
        "values, in the model, a library or torch's own checks (torch.distributions' "
        "argument validation), also on a number `.item()` took out, or on a bool torch"
        " computes from the values (`if not torch.allclose(a, b):`, `assert "
        "torch.equal(...)`), where that branch is what fails. On a size: dynamic-shape; on rank/device/dtype: capture-"
        "limitation; on an unfed forward() parameter under fx: non-tensor-argument; on"
        " numpy values traced by dynamo: non-torch-call.",
    ),
    (
        "data-dependent-python-value",
        "a Python number taken out of a tensor",
        "keep the value a tensor (avoid .item(), int(t), .tolist()); compute sizes from "
        "shapes or configuration, not data",
        "a Python number taken out of a tensor's values (`.item()`, `int(t)`, "
        "`float(t)`, `.tolist()`, unpacking a tensor into an op's int arguments under "
        "export, `torch.equal(a, b)`'s bool) and used as a size, an index or an "
        "argument. When the number's only use is a branch that fails: "
        "data-dependent-control-flow.",
    ),
    (
        "proxy-iteration",
        "iterating, unpacking or len() of a traced tensor",
        "index explicitly (x[:, 0]), use torch.unbind with a known count, or loop over "
        "range(<constant>)",
        "fx: a Python protocol applied to a traced tensor *itself* (a tensor, "
        "parameter or buffer): `for v in t`, `a, b = t`, `f(*t)`, `zip(t, ...)`, "
        "`list(t)`, `len(t)`, also when `t` is an Optional state forward() builds "
        "with a torch op when unfed (`if h is None: h = torch.zeros(...)` then "
        "`len(h)`: it fails whatever is fed). The same applied to `t.shape` / `t.size()` or a value "
        "read from them is dynamic-shape.",
    ),
    (
        "dynamic-shape",
        "a data-dependent size, or Python logic on a symbolic size",
        "avoid ops whose output size depends on data (nonzero, boolean masks); express size "
        "logic with torch ops or widen the Dim range in dynamic_shapes",
        "an output size that depends on data (nonzero, boolean-mask indexing, "
        "masked_select, one-argument where, unique; also when Cuvil refuses such an "
        "op), or a symbolic size the capture cannot decide: under fx Python logic on "
        "`x.shape` / `x.size()` or a value read from them (a branch, `range()`, "
        "unpacking, `len(x.shape)`, `list(x.shape)`, numpy/math, `int()`/`float()`/"
        "`round()`/`divmod()` or `torch.broadcast_shapes` on it, handing "
        "`x.shape[:-1]` to code that walks it, or `x.shape[0]` to code that needs "
        "a Python int, e.g. `batch_size=x.shape[0]`); under export a"
        " guard that violates or specialises a Dim (Constraints violated), also inside"
        " a dependency. Also a data-dependent-size op inside a `torch.no_grad()` region"
        " strict export records, when Cuvil refuses the region. The rank (`x.dim()`,"
        " `x.ndim`) is no size: capture-limitation.",
    ),
    (
        "non-torch-call",
        "a numpy / math call on a tensor",
        "use the torch equivalent (torch.sqrt, torch.exp...) or compute constants in "
        "__init__",
        "numpy / math / random / scipy applied to a tensor's values, or numpy work "
        "inside forward() that strict export or dynamo traces as tensors (e.g. "
        "`np.any(space.low != 0)`), where the torch op or a value computed once in "
        "__init__ is the fix; also a numpy value handed to a torch op in forward() "
        "(an `np.int64` index or slice bound, an `np.array` built from configuration "
        "such as column ranges: fx cannot record it, dynamo traces it as a tensor and "
        "loses its value), where plain Python ints are the fix. numpy/math on a size "
        "read from `x.shape` under fx is dynamic-shape.",
    ),
    (
        "inplace-mutation",
        "in-place mutation of a traced tensor, an input, a view or module state",
        "use the out-of-place form (x = x + y), clone first, or register state as a "
        "buffer",
        "an in-place write the capture refuses or cannot record: an in-place op or "
        "item assignment on a traced tensor (`x[i] = v`, `x.add_(1)`, `out=`), on an "
        "input or a view, or module state changed inside forward() (`self.w.data = "
        "...`, `param.data *= mask`, `self.buf += x`, `self.cache = h`, and "
        "`self.sub.to(x.device)` / `.half()` on a submodule under export, which "
        "swaps its parameters: under fx that call is capture-limitation); also when "
        "the capture records the in-place op and Cuvil is what refuses it "
        "(`m.fill_diagonal_(v)` under strict export: not unsupported-op).",
    ),
    (
        "unsupported-python-construct",
        "a Python construct the tracer cannot follow",
        "remove formatting / printing of traced values from forward(), or guard it with "
        "`if not torch.fx._symbolic_trace.is_fx_tracing()`",
        "Python the tracer cannot follow whatever the values: formatting a traced "
        "value (f-string spec, `%`, str.format), a try/except around traced code, an "
        "isinstance / type() / is_tensor check that sees the tracer's Proxy or "
        "FakeTensor (also when it silently takes the non-tensor path and the error "
        "surfaces later, or picks the non-tensor arm of a conditional expression: "
        "`x.size(0) if isinstance(x, Tensor) else len(x)`; also a library looking its "
        "backend up by the tensor's type: einops' 'Tensor type unknown to einops'), a "
        "stdlib `random` draw from constants or configuration in "
        "forward() that dynamo / strict export would have to make an input (on a "
        "tensor's values it is non-torch-call).",
    ),
    (
        "dtype-mismatch",
        "tensors of incompatible dtypes",
        "cast where the value is created (dtype=..., .long(), .float()) so ops agree",
        "tensors of incompatible dtypes; the model fails eagerly too.",
    ),
    (
        "shape-mismatch",
        "tensors or layers of incompatible shapes",
        "fix the size set where the layer or tensor is created (often in __init__)",
        "tensors or layers of incompatible shapes; the model fails eagerly too (the "
        "root is usually where a size was set, often __init__).",
    ),
    (
        "undefined-name",
        "a name or attribute that does not exist",
        "define the name, fix the typo, or import it",
        "NameError, UnboundLocalError, a missing attribute, or a call that does not "
        "match the callee's signature; the model fails eagerly too.",
    ),
    (
        "unsupported-op",
        "an op Cuvil cannot lower yet",
        "rewrite with supported ops (docs/OPS.md) or add a lowering to cuvil.frontend",
        "an op whose output size is known that Cuvil has no lowering for (complex FFT,"
        " 3-d convolution, an einsum whose decomposition needs static shapes, zeros /"
        " ones of a symbolic size, a leaf module Cuvil does not list). An op whose "
        "output size depends on data is dynamic-shape; an in-place op Cuvil refuses "
        "is inplace-mutation.",
    ),
    (
        "non-tensor-argument",
        "a non-tensor forward() parameter (Optional, flag, container, **kwargs) that fx "
        "traces as one Proxy",
        "pass concrete_args for flags and None defaults, give tensors for Optional inputs, "
        "or take tensors as separate named parameters instead of a container / "
        "**kwargs",
        "fx only: a forward() parameter that is not a tensor (None / an Optional left "
        "unfed, a bool, number or string, a tuple, list or dict, *args / **kwargs), "
        "which torch.fx turns into a Proxy: the model's Python uses it as its real "
        "value (a branch, `in`, a splat, `isinstance(obs, dict)`), or Cuvil refuses it"
        " as an input. It decides when passing the real value (concrete_args, a tensor)"
        " would avoid the failure, e.g. an unfed `mask=None` whose `is not None` branch"
        " then reads `mask.shape`; a line that fails whatever arrives (a branch on the "
        "rank) keeps its own category. Under export and dynamo: unsupported-io-type.",
    ),
    (
        "unsupported-io-type",
        "a non-tensor value among the inputs (export, dynamo) or outputs",
        "pass and return only tensors (or tuples of tensors); unwrap cache objects and "
        "dataclasses at the model boundary",
        "a non-tensor value at the model boundary: under export or dynamo, a None / "
        "bool / int / float / str input (also one inside a tuple or dict); in any "
        "frontend, an object such as a cache or dataclass among the inputs; or a non-"
        "tensor output (cache objects, dataclasses, None, numbers).",
    ),
    (
        "capture-limitation",
        "valid model code the tracer/exporter cannot capture",
        "try the other frontend (--frontend export / fx), or wrap the call in a leaf "
        "module; the model line named is where capture broke",
        "valid code (the model runs eagerly) that the tracer or exporter cannot "
        "capture, and no category above says why: fx branching on or building lists "
        "from a tensor's rank or metadata, also through a name or helper (`is_batched"
        " = x.dim() == 3` then `if not is_batched:`, `range(1, x.ndimension())`, "
        "`[1] * x.dim()`; `x.ndim`, `x.device`, `x.is_nested`, "
        "`x.requires_grad`, `x.is_floating_point()`; also when a flag or Optional is "
        "tested after it; `self.sub.to(x.device)` in forward() under fx), a module "
        "built inside forward(), export lifting a tensor made from a `.data` read "
        "into its constants (no module state written), a dynamic_shapes spec whose "
        "structure does not match forward()'s signature (a flat spec for a `*args` "
        "forward: export refuses the capture's own argument), dynamo refusing a call "
        "under strict export (a function marked as skipped, a list method, a guard a "
        "library object refuses), torch refusing an op while tracing (flex_attention "
        "on CPU), the capture binding the inputs to forward()'s own signature when "
        "eager calls go through an overridden `__call__`.",
    ),
    (
        "compiler-internal-error",
        "a bug in Cuvil",
        "this is a Cuvil bug, not a model problem: please report it with this model",
        "a bug in Cuvil: torch captured the model (it runs eagerly) but Cuvil's "
        "lowering crashes or emits IR that does not verify (e.g. a symbolic dim Cuvil "
        "mishandles) on input it claims to support. A clear refusal of an op or "
        "module Cuvil does not claim is unsupported-op.",
    ),
    (
        "unknown",
        "no strong evidence for any category",
        "read the error and the failing line shown; the best guess and the evidence are "
        "listed; a new failure kind deserves a pattern (docs/TRIAGE.md)",
        "triage's own answer when no evidence is strong; never a label.",
    ),
]

CATEGORIES: dict[str, Category] = {r[0]: Category(*r) for r in _ROWS}
