"""PyTorch's OpInfo samples through cuvil.compile, each (op, sample) judged against eager.

Every op of ``op_db`` with a float32 CPU meaning is wrapped in a tiny module whose inputs
are the sample's tensors (non-tensor arguments baked in), compiled, run and compared with
eager. An outcome is one of ``OUTCOMES``: ``pass``; ``unsupported`` (a clean CuvilError:
Cuvil refuses it, or torch cannot capture it); ``wrong`` (a result that differs from
eager); ``internal`` (any other exception, IR that does not verify, a failing pass or
run, or a FrontendError that reports a Cuvil bug).
Samples are chosen deterministically: the op's first `limit` samples under a seed made
from its name, so a run is reproducible and a shard is stable.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

import cuvil
from cuvil.errors import (
    CuvilError,
    CuvilRuntimeError,
    FrontendError,
    PassError,
    VerifyError,
)

__all__ = [
    "OUTCOMES",
    "Outcome",
    "model_ops",
    "samples",
    "run_sample",
    "sweep",
    "op_outcome",
]

OUTCOMES = ("pass", "unsupported", "wrong", "internal")
RTOL, ATOL = 1e-4, 1e-5
# ops whose result is random (no eager oracle) or that need what a tiny module has not
_SKIP_PREFIXES = ("linalg.", "fft.", "sparse.", "_refs", "special.", "signal.")
_SKIP = {
    "bernoulli",
    "multinomial",
    "normal",
    "uniform",
    "cauchy",
    "exponential",
    "geometric",
    "log_normal",
    "rand_like",
    "randn_like",
    "randint_like",
    "randint",
    "randn",
    "rand",
    "nn.functional.rrelu",
    "nn.functional.feature_alpha_dropout",
    "nn.functional.dropout",
    "nn.functional.dropout2d",
    "nn.functional.dropout3d",
    "nn.functional.alpha_dropout",
    "empty",
    "empty_like",
    "empty_strided",
    "empty_permuted",
    "new_empty",
    "new_empty_strided",
    "nonzero_static",
    "item",
    "resize_",
    "resize_as_",
    "normal_",
}


@dataclass(frozen=True)
class Outcome:
    """How one sample of one op fared; `detail` is the first line of the error."""

    op: str
    index: int
    frontend: str
    kind: str  # one of OUTCOMES
    detail: str = ""


def model_ops() -> list:
    """The OpInfos of op_db that a model can use: float32 on CPU, not random."""
    from torch.testing._internal.common_methods_invocations import op_db

    chosen = []
    for info in op_db:
        name = info.name
        if name in _SKIP or name.startswith(_SKIP_PREFIXES):
            continue
        if torch.float32 not in info.supported_dtypes("cpu"):
            continue
        chosen.append(info)
    return chosen


def op_id(info) -> str:
    return (
        f"{info.name}.{info.variant_test_name}" if info.variant_test_name else info.name
    )


def samples(info, limit: int) -> list:
    """The op's first `limit` float32 CPU samples, the same on every run."""
    torch.manual_seed(zlib.crc32(op_id(info).encode()))
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracked = info.sample_inputs("cpu", torch.float32, requires_grad=False)
        for s in tracked:
            out.append(s)
            if len(out) == limit:
                break
    # finish the generator now: the garbage collector would finish it later, inside
    # whatever tracer is running then, and torch.export prints the error it meets
    close = getattr(getattr(tracked, "child_iter", tracked), "close", None)
    if close is not None:
        close()
    return out


class _Wrapped(torch.nn.Module):
    """Calls `fn` with the sample's arguments; tensors come in as forward's inputs."""

    def __init__(self, fn, spec, leaves: list, slots: list[int]) -> None:
        super().__init__()
        self.fn, self.spec, self.leaves, self.slots = fn, spec, leaves, slots

    def call(self, inputs: tuple) -> Any:
        leaves = list(self.leaves)
        for slot, x in zip(self.slots, inputs):
            leaves[slot] = x
        args, kwargs = tree_unflatten(leaves, self.spec)
        return self.fn(*args, **kwargs)


def _module(info, sample) -> tuple[torch.nn.Module, list[torch.Tensor]]:
    """A module with one named input per tensor of the sample (FX cannot trace *args)."""
    leaves, spec = tree_flatten(((sample.input, *sample.args), sample.kwargs))
    slots = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    names = ", ".join(f"x{i}" for i in range(len(slots)))
    space: dict[str, Any] = {}
    exec(  # noqa: S102  (a fixed template; the arity is the only thing that varies)
        f"def forward(self, {names}):\n    return self.call(({names}{',' if slots else ''}))",
        space,
    )
    cls = type("OpModule", (_Wrapped,), {"forward": space["forward"]})
    inputs = [leaves[i].detach().clone() for i in slots]
    return cls(info.op, spec, leaves, slots), inputs


def _is_bug(e: CuvilError) -> bool:
    """A CuvilError that reports a Cuvil defect rather than refusing the input."""
    # IR the frontend built that does not verify, or a pass / a run that breaks, is a
    # bug; codegen refusing an element type it has not (bf16) is a clean refusal
    if isinstance(e, VerifyError | PassError | CuvilRuntimeError):
        return True
    # the frontend wraps an exception a rule raised, or a wrong result type, as a bug
    return isinstance(e, FrontendError) and "bug" in (e.hint or "")
    return False


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def _compare(got: Any, want: Any) -> str | None:
    """None when `got` matches eager's `want` (values, shapes, dtypes), else why not."""
    got_leaves, _ = tree_flatten(got)
    want_leaves, _ = tree_flatten(want)
    if len(got_leaves) != len(want_leaves):
        return f"{len(got_leaves)} outputs, eager has {len(want_leaves)}"
    for g, w in zip(got_leaves, want_leaves):
        if not isinstance(w, torch.Tensor):
            w = torch.tensor(w)
        try:
            torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
        except AssertionError as e:
            return " ".join(str(e).split())[:300]
    return None


def run_sample(info, sample, index: int, frontend: str, opt: str = "O0") -> Outcome:
    """Compile one sample of `info`, run it, and judge it against eager."""
    model, inputs = _module(info, sample)
    name = op_id(info)
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            want = model(*inputs)
    except Exception as e:  # eager itself refuses the sample: nothing to compare
        return Outcome(name, index, frontend, "unsupported", f"eager: {_first_line(e)}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = cuvil.compile(
                model, inputs, options={"opt_level": opt, "frontend": frontend}
            )
            got = compiled(*[x.clone() for x in inputs])
    except CuvilError as e:
        kind = "internal" if _is_bug(e) else "unsupported"
        return Outcome(name, index, frontend, kind, _first_line(e))
    except Exception as e:
        return Outcome(name, index, frontend, "internal", _first_line(e))
    why = _compare(got, want)
    return Outcome(name, index, frontend, "pass" if why is None else "wrong", why or "")


def sweep(
    infos: list, limit: int, frontends: tuple[str, ...], opt: str = "O0"
) -> Iterator[Outcome]:
    for info in infos:
        for i, sample in enumerate(samples(info, limit)):
            for frontend in frontends:
                yield run_sample(info, sample, i, frontend, opt)


def op_outcome(kinds: list[str]) -> str:
    """One op's verdict from its samples' outcomes: the worst one wins."""
    if "wrong" in kinds:
        return "wrong"
    if "internal" in kinds:
        return "internal"
    if kinds and all(k == "pass" for k in kinds):
        return "pass"
    return "partly" if "pass" in kinds else "unsupported"
