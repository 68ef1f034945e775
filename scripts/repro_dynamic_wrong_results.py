"""Reproduce the zoo18 sweep's dynamic-mode wrong results (pytorchcv 0.0.74 models,
random weights): cuvil.compile with a dynamic batch dim vs eager float32, static
compile, and eager float64 as the reference. Run with pytorchcv importable (the zoo18
worktree's .zoo18-site/site-packages) and the zoo18 shim on sys.path, e.g.

  PYTHONPATH=<dir holding a `cuvil` link to this tree's compiler/>:<zoo18>/samples/failures/zoo18 \
      python scripts/repro_dynamic_wrong_results.py [case...]

(`compiler/` itself on PYTHONPATH does not shadow an editable install: the package is
named cuvil.)
"""

import copy
import sys

import _shim  # noqa: F401 -- offline hub, torchvision op schemas, pytorchcv on sys.path
import torch
from torch.export import Dim

import cuvil

CASES = {
    "lwopenpose": (
        "lwopenpose_cmupan",
        "lwopenpose2d_mobilenet_cmupan_coco",
        {"in_size": (64, 64)},
        [(1, 3, 64, 64)],
    ),
    "lwopenpose3d": (
        "lwopenpose_cmupan",
        "lwopenpose3d_mobilenet_cmupan_coco",
        {"in_size": (64, 64)},
        [(1, 3, 64, 64)],
    ),
    "nvpattexp": ("nvpattexp", "nvpattexp116bazel76", {}, [(2, 8, 16, 29), "pid"]),
    "lffd": ("lffd", "lffd20x5s320v2_widerface", {}, [(1, 3, 160, 160)]),
    "fastscnn": (
        "fastscnn",
        "fastscnn_cityscapes",
        {"in_size": (64, 64)},
        [(1, 3, 64, 64)],
    ),
}


def build(case):
    mod, fn, kw, specs = CASES[case]
    m = __import__(f"pytorchcv.models.{mod}", fromlist=[fn])
    torch.manual_seed(0)
    model = getattr(m, fn)(**kw).eval()
    if case == "nvpattexp":
        # SelectableDense allocates its weight with torch.Tensor(...) and never
        # initialises it: fill it from a seed so the decoder computes something
        w = torch.Generator().manual_seed(3)
        with torch.no_grad():
            model.decoder.weight.copy_(
                torch.randn(model.decoder.weight.shape, generator=w)
            )
    g = torch.Generator().manual_seed(1)
    inputs = []
    for s in specs:
        if s == "pid":
            inputs.append(torch.tensor([3, 1]))
        else:
            inputs.append(torch.randn(*s, generator=g))
    return model, inputs


def batch(inputs, n):
    """The same inputs with batch n (rows repeated / fresh random rows)."""
    g = torch.Generator().manual_seed(2)
    out = []
    for t in inputs:
        if t.is_floating_point():
            out.append(torch.randn(n, *t.shape[1:], generator=g))
        else:
            out.append(torch.arange(n) % 4)
    return out


def flat(v):
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in flat(x)]
    return []


def err(got, want):
    rows = []
    for a, b in zip(flat(got), flat(want)):
        a, b = a.double(), b.double()
        d = (a - b).abs()
        rel = d / b.abs().clamp_min(1e-6)
        close = torch.allclose(a, b, rtol=1e-4, atol=1e-5)
        rows.append((d.max().item(), rel.max().item(), b.abs().max().item(), close))
    return rows


def fmt(rows):
    return "; ".join(
        f"abs {a:.3g} rel {r:.3g} (|ref|max {m:.3g}){'' if c else ' NOT CLOSE'}"
        for a, r, m, c in rows
    )


def run(case):
    model, inputs = build(case)
    dims = tuple(
        {0: Dim("batch", min=1, max=64)} if t.is_floating_point() or t.dim() else None
        for t in inputs
    )
    dyn = cuvil.compile(model, list(inputs), options={"dynamic_shapes": dims})
    stat = cuvil.compile(model, list(inputs))
    m64 = copy.deepcopy(model).double()
    # the sweep's harness compares against a second Model(): is a rebuild the same?
    mod, fn, kw, _ = CASES[case]
    m = __import__(f"pytorchcv.models.{mod}", fromlist=[fn])
    raw = []
    for _ in range(2):
        torch.manual_seed(0)
        raw.append(getattr(m, fn)(**kw).eval())
    with torch.no_grad():
        print(
            f"[{case}] Model() vs a second Model(), eager:",
            fmt(err(raw[0](*inputs), raw[1](*inputs))),
        )
    # the same graph in float64: a real miscompile survives it, float32 rounding does not
    in64 = [t.double() if t.is_floating_point() else t for t in inputs]
    dyn64 = cuvil.compile(m64, in64, options={"dynamic_shapes": dims})
    for n in sorted({inputs[0].shape[0], 3}):
        xs = inputs if n == inputs[0].shape[0] else batch(inputs, n)
        with torch.no_grad():
            want = model(*xs)
            ref = m64(*[t.double() if t.is_floating_point() else t for t in xs])
        print(f"[{case}] batch {n}")
        print("  eager32 vs f64 :", fmt(err(want, ref)))
        print("  dynamic vs eager:", fmt(err(dyn(*xs), want)))
        print("  dynamic vs f64  :", fmt(err(dyn(*xs), ref)))
        x64 = [t.double() if t.is_floating_point() else t for t in xs]
        print("  dynamic f64 vs eager f64:", fmt(err(dyn64(*x64), ref)))
        if n == inputs[0].shape[0]:
            print("  static vs eager :", fmt(err(stat(*xs), want)))
            print("  static vs f64   :", fmt(err(stat(*xs), ref)))
        sys.stdout.flush()


if __name__ == "__main__":
    for c in sys.argv[1:] or list(CASES):
        run(c)
