"""``repro.py`` + ``repro.pt``: a reduced graph written out as a standalone script.

The script imports only torch and cuvil, rebuilds the graph as an ``nn.Module`` from the
GraphModule's generated code (submodules, params and saved inputs come from ``repro.pt``),
compiles it with ``cuvil.compile`` under the same options and faults, and exits 1 when the
divergence (or compile error) reproduces, 0 when it does not, 2 on any other failure.
"""

from __future__ import annotations

import io
import re
import textwrap
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.fx

from cuvil.frontend.fx import trace
from cuvil.frontend.provenance import display_path, node_loc, user_frame
from cuvil.frontend.registry import target_name
from cuvil.userpaths import check_dir, write_file

from .reduce import ReduceResult
from .subgraph import CALLS

__all__ = ["write_repro", "REPRO_NAME", "DATA_NAME"]

REPRO_NAME, DATA_NAME = "repro.py", "repro.pt"


def write_repro(
    result: ReduceResult,
    path: Path | str,
    *,
    options: dict,
    faults: Sequence[str] = (),
    force: bool = False,
) -> list[Path]:
    """Write ``repro.py`` and ``repro.pt`` (saved inputs, submodules and params).

    `path` is a folder (created when missing) or the ``.py`` file to write, whose data
    file is then the same name with ``.pt``. Existing files are only replaced with
    `force`. `faults` (``kernel:NODE[:EFFECT]`` specs of ``cuvil_debug.faults``) are written
    with node names renamed to those ``cuvil.compile`` gives the repro's module.
    Returns the paths written.
    """
    path = Path(path)
    if path.suffix == ".py":
        py, pt = path, path.with_suffix(".pt")
    else:
        py, pt = path / REPRO_NAME, path / DATA_NAME
    check_dir(py.parent, [py.name, pt.name], force=force)
    py.parent.mkdir(parents=True, exist_ok=True)
    rename = _retraced_names(result.gm)
    faults = [_rename_fault(f, rename) for f in faults]
    attrs = _attrs(result.gm)
    data = io.BytesIO()  # each file is written whole, then renamed into place
    torch.save(
        {"inputs": tuple(t.detach().clone() for t in result.inputs), "attrs": attrs},
        data,
    )
    source = _repro_source(result, dict(options or {}), faults, rename, pt.name)
    write_file(pt, data.getvalue(), force=force)
    write_file(py, source, force=force)
    return [py, pt]


# ---- the repro ----------------------------------------------------------------------------


def _retraced_names(gm: torch.fx.GraphModule) -> dict[str, str]:
    """Reduced-graph node name -> the name ``cuvil.compile`` gives it (it retraces)."""
    try:
        again = trace(gm)
    except Exception:
        return {}
    mine = [n for n in gm.graph.nodes if n.op in CALLS]
    theirs = [n for n in again.graph.nodes if n.op in CALLS]
    if len(mine) != len(theirs) or any(
        (a.op, a.target) != (b.op, b.target) for a, b in zip(mine, theirs)
    ):
        return {}
    return {a.name: b.name for a, b in zip(mine, theirs)}


def _rename_fault(spec: str, rename: dict[str, str]) -> str:
    parts = spec.split(":")
    if len(parts) >= 2 and parts[1] in rename:
        parts[1] = rename[parts[1]]
    return ":".join(parts)


def _attrs(gm: torch.fx.GraphModule) -> dict[str, Any]:
    """The submodules and tensors the graph reads, by their dotted target."""
    out: dict[str, Any] = {}
    for n in gm.graph.nodes:
        if n.op in ("call_module", "get_attr"):
            obj: Any = gm
            for part in str(n.target).split("."):
                obj = getattr(obj, part)
            out[str(n.target)] = obj
    return out


def _describe_target(gm: torch.fx.GraphModule, n: torch.fx.Node) -> str:
    if n.op == "call_module":
        sub = gm.get_submodule(n.target)
        return f"{type(sub).__name__} (module {n.target})"
    if n.op == "call_method":
        return f"Tensor.{n.target}"
    return target_name(n.target)


def _source(n: torch.fx.Node) -> tuple[str, str]:
    frame = user_frame(n.meta.get("stack_trace"))
    if frame is None:
        loc = node_loc(n)
        return (loc.source() or "unknown source"), ""
    file, line, code = frame
    return f"{display_path(file)}:{line}", code.strip()


def _node_map(result: ReduceResult, rename: dict[str, str]) -> list[str]:
    gm = result.gm
    lines = ["Inputs (eager values of the cut edges, saved in the .pt file):"]
    i = 0
    for n in gm.graph.nodes:
        if n.op != "placeholder":
            continue
        t = result.inputs[i]
        src, code = _source(n)
        orig = n.meta.get("reduce_cut", n.name)
        lines.append(
            f"  {i}: {n.name}  {tuple(t.shape)} {str(t.dtype).removeprefix('torch.')}"
            f"  = value of {orig}  at {src}"
        )
        if code:
            lines.append(f"        {code}")
        i += 1
    lines.append("Nodes (repro name <- original FX node: target, model source):")
    for n in gm.graph.nodes:
        if n.op not in CALLS:
            continue
        src, code = _source(n)
        new = rename.get(n.name, n.name)
        head = new if new == n.name else f"{new} <- {n.name}"
        lines.append(f"  {head}: {_describe_target(gm, n)}  at {src}")
        if code:
            lines.append(f"        {code}")
    return lines


def _globals_source(gm: torch.fx.GraphModule, code: str) -> list[str]:
    """Definitions of the names the generated forward() reads besides torch."""
    pc = gm.graph.python_code(root_module="self")
    words = set(re.findall(r"\b[A-Za-z_]\w*\b", code))
    out = []
    for name, obj in sorted(pc.globals.items()):
        if name not in words or name in ("torch", "self"):
            continue
        if isinstance(obj, types.ModuleType):
            if obj.__name__ == name:
                out.append(f"import {name}")
            else:
                out.append(f"import {obj.__name__} as {name}")
        elif isinstance(obj, float):
            out.append(f'{name} = float("{obj}")')
        elif isinstance(obj, str | int | bool | type(None)):
            out.append(f"{name} = {obj!r}")
        elif hasattr(obj, "__module__") and hasattr(obj, "__qualname__"):
            mod, qual = obj.__module__, obj.__qualname__
            if mod == "builtins" and qual == name:
                continue
            head, _, rest = qual.partition(".")
            alias = name if not rest else f"_{name}_owner"
            out.append(f"from {mod} import {head} as {alias}")
            if rest:
                out.append(f"{name} = {alias}.{rest}")
        else:
            out.append(f"{name} = None  # could not write {type(obj).__name__} {obj!r}")
    return out


def _repro_source(
    result: ReduceResult,
    options: dict,
    faults: list[str],
    rename: dict[str, str],
    data_name: str,
) -> str:
    code = result.gm.code.strip()
    forward = textwrap.indent(code, "    ")
    header = "\n".join(
        [
            f"Cuvil repro: {result.kind}: {result.detail}",
            "",
            f"Reduced by cuvil-debug reduce from {result.original_nodes} to "
            f"{result.nodes} compute nodes ({result.checks} candidate subgraphs "
            "compiled).",
            "Standalone: needs torch and cuvil, and the .pt file next to it"
            + (" (and cuvil_debug, for FAULTS)." if faults else "."),
            "",
            "    python repro.py    exit 1: reproduces; 0: does not; "
            "2: something else failed",
            "",
            *_node_map(result, rename),
        ]
    )
    globals_src = "\n".join(_globals_source(result.gm, code))
    return _TEMPLATE.format(
        header=header.replace("\\", "\\\\").replace('"""', '\\"\\"\\"'),
        options=repr(options),
        faults=repr(list(faults)),
        kind=repr(str(result.kind)),
        detail=repr(result.detail),
        rtol=repr(result.rtol),
        atol=repr(result.atol),
        judge=repr(result.judge),
        dynamic=_dynamic_note(result),
        data=repr(data_name),
        globals=globals_src + "\n\n" if globals_src else "",
        forward=forward,
        hooks=_HOOKS if faults else _NO_HOOKS,
    )


def _dynamic_note(result: ReduceResult) -> str:
    if not result.dynamic:
        return ""
    return (
        f"# The model was compiled with {result.dynamic!r}: a dynamic compile builds\n"
        "# each input shape as a static model (docs/DYNAMIC.md); this repro is the\n"
        "# build of the shapes of its saved inputs.\n"
    )


# the repro's hooks() for cuvil.compile: only a repro with faults needs the toolkit
_HOOKS = '''def hooks():
    """cuvil.compile's hooks that re-apply FAULTS (cuvil_debug.faults)."""
    from cuvil_debug import faults

    return faults.hooks(FAULTS)
'''
_NO_HOOKS = '''def hooks():
    """cuvil.compile's hooks: none (no FAULTS)."""
    return None
'''


_TEMPLATE = '''\
#!/usr/bin/env python3
"""{header}
"""

import copy
import sys
from pathlib import Path

import torch

import cuvil

OPTIONS = {options}
FAULTS = {faults}
KIND = {kind}  # "diverges" | "compile-error"
EXPECTED = {detail}
RTOL, ATOL = {rtol}, {atol}
# the diff's float64 judge (None: RTOL/ATOL): an output fails when its error against a
# float64 run of Repro exceeds factors[dtype] x eager-float32's + floor_ulps ulp
JUDGE = {judge}
{dynamic}DATA = Path(__file__).with_name({data})

{globals}
class Repro(torch.nn.Module):
    """The reduced graph; forward() is the code torch.fx generated for it."""

    def __init__(self, attrs):
        super().__init__()
        for target, obj in attrs.items():
            *path, leaf = target.split(".")
            owner = self
            for part in path:
                if not hasattr(owner, part):
                    owner.add_module(part, torch.nn.Module())
                owner = getattr(owner, part)
            if isinstance(obj, torch.nn.Parameter):
                owner.register_parameter(leaf, obj)
            elif isinstance(obj, torch.nn.Module):
                owner.add_module(leaf, obj)
            elif isinstance(obj, torch.Tensor):
                owner.register_buffer(leaf, obj)
            else:
                setattr(owner, leaf, obj)

{forward}


def flat(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flat(v)]
    return []


def clone(tensors):
    return tuple(t.clone() for t in tensors)


{hooks}


def double_copy(module):
    """`module` with float64 parameters, buffers and tensor attributes."""
    twin = copy.deepcopy(module).to(torch.float64)
    for sub in twin.modules():
        for name, value in list(vars(sub).items()):
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                setattr(sub, name, value.detach().to(torch.float64))
    return twin


def float64_run(model, inputs):
    """The float64 twin's outputs (tensors created in forward are float64 too)."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        up = [t.double() if t.is_floating_point() else t.clone() for t in inputs]
        with torch.no_grad():
            return flat(double_copy(model)(*up))
    finally:
        torch.set_default_dtype(saved)


BITS = {{torch.float32: ("f32", 24), torch.float16: ("f16", 11), torch.bfloat16: ("bf16", 8)}}


def judged(got, want, truth):
    """None when `got` is no further from the float64 `truth` than eager's `want`
    allows (JUDGE), else a description; the tolerance rule where there is no truth."""
    if JUDGE is None or want.dtype not in BITS or truth is None:
        return differs(got, want)
    if got.shape != want.shape or (got.isnan() & ~want.isnan()).any():
        return differs(got, want) or "differs"
    name, bits = BITS[want.dtype]
    w = want.double()
    finite = torch.isfinite(w) & torch.isfinite(truth)
    zero = torch.zeros_like(w)
    mine, eager = (torch.where(finite, x.double() - truth, zero) for x in (got, w))
    scale = torch.where(finite, w, zero)
    if JUDGE["measure"] == "rmse":
        size = max(w.numel(), 1) ** 0.5
        measure = lambda t: float(t.norm()) / size  # noqa: E731
    else:
        measure = lambda t: float(t.abs().max())  # noqa: E731
    factor = JUDGE["factors"].get(name, 8.0)
    bound = factor * measure(eager) + JUDGE["floor_ulps"] * 2.0 ** (1 - bits) * measure(scale)
    if measure(mine) <= bound:
        return None
    return (
        f"{{JUDGE['measure']}} vs float64 {{measure(mine):.3g}} > bound {{bound:.3g}} "
        f"(eager-float32 {{measure(eager):.3g}}; max abs error "
        f"{{float(mine.abs().max()):.3g}})"
    )


def differs(got, want):
    """None when equal within RTOL/ATOL (NaN == NaN), else a description."""
    if got.shape != want.shape:
        return f"shape {{tuple(got.shape)}} vs eager {{tuple(want.shape)}}"
    if not want.is_floating_point():
        bad = int((got.to(want.dtype) != want).sum())
        return f"{{bad}} elements differ" if bad else None
    got, want = got.double(), want.double()
    if (got.isnan() != want.isnan()).any():
        return f"{{int((got.isnan() & ~want.isnan()).sum())}} NaN where eager has none"
    if torch.allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True):
        return None
    err = (got - want).abs().nan_to_num(0.0)
    return f"max abs {{float(err.max()):.3g}}"


def main():
    data = torch.load(DATA, weights_only=False)
    inputs = data["inputs"]
    model = Repro(data["attrs"]).eval()
    print(f"expected: {{KIND}}: {{EXPECTED}}")
    with torch.no_grad():
        want = flat(model(*clone(inputs)))
    try:
        compiled = cuvil.compile(model, clone(inputs), options=OPTIONS, hooks=hooks())
        got = flat(compiled(*clone(inputs)))
    except cuvil.CuvilError as e:
        print(f"cuvil failed: {{type(e).__name__}}: {{e}}")
        if KIND == "compile-error" and EXPECTED.startswith(type(e).__name__ + ":"):
            print("REPRODUCED: compilation still fails")
            return 1
        print("failed differently than expected")
        return 2
    if KIND == "compile-error":
        print("not reproduced: compilation succeeded")
        return 0
    truths = float64_run(model, clone(inputs)) if JUDGE is not None else []
    truths = truths if len(truths) == len(want) else [None] * len(want)
    failed = 0
    for i, (g, w, t) in enumerate(zip(got, want, truths)):
        problem = judged(g, w, t)
        failed += problem is not None
        print(f"output {{i}} {{tuple(w.shape)}}: {{problem or 'ok'}}")
    if len(got) != len(want):
        print(f"cuvil returned {{len(got)}} outputs, eager {{len(want)}}")
        failed += 1
    if failed:
        print(f"REPRODUCED: {{failed}} of {{len(want)}} outputs differ from eager")
        return 1
    print("not reproduced: every output matches eager")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''
