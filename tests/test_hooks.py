"""Compile hooks (cuvil.hooks): the three seams are per compile call, not process state.

Two compiles running at the same time on two threads with different hooks each get
exactly their own (checked while both are inside code generation); a ``faults.inject``
block covers its own thread only; the seams' public views carry what tools need.
"""

from __future__ import annotations

import importlib.util
import re
import threading
import tomllib
from pathlib import Path

import pytest
import torch

import cuvil
from cuvil.errors import CuvilError
from cuvil.frontend import lower
from cuvil.frontend.fx import trace
from cuvil.hooks import CompileHooks, KernelEmitted, NodeLowered
from cuvil.passes import default_pipeline
from cuvil.pipeline import Options, compile_module
from cuvil_debug import faults

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "models"
TOL = {"rtol": 1e-4, "atol": 1e-5}


@pytest.fixture(scope="module")
def mlp():
    spec = importlib.util.spec_from_file_location("sample_mlp", SAMPLES / "mlp.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model, xs = mod.Model().eval(), tuple(mod.example_inputs())
    with torch.no_grad():
        return model, xs, model(*xs)


def _meeting(hooks: CompileHooks | None, barriers) -> CompileHooks:
    """`hooks`, waiting on `barriers` at the first FX node and the first kernel: both
    threads are in the frontend at once, then in code generation at once."""
    inner_node = hooks.after_node if hooks is not None else None
    inner_kernel = hooks.after_kernel if hooks is not None else None
    met: set[str] = set()

    def meet(stage: str, barrier: threading.Barrier) -> None:
        if stage not in met:
            met.add(stage)
            barrier.wait(timeout=120)

    def after_node(seen: NodeLowered) -> None:
        meet("frontend", barriers[0])
        if inner_node is not None:
            inner_node(seen)

    def after_kernel(seen: KernelEmitted) -> None:
        meet("codegen", barriers[1])
        if inner_kernel is not None:
            inner_kernel(seen)

    passes = hooks.passes if hooks is not None else ()
    return CompileHooks(after_node, passes, after_kernel)


def _in_threads(mlp, *hooks_per_thread):
    """Compile the model on one thread per hooks, at the same time. The graphs are traced
    first, here: torch.fx's tracer patches nn.Module.__call__ for the whole process, so
    tracing is not thread-safe (lowering, passes and codegen are)."""
    model, xs, _ = mlp
    n = len(hooks_per_thread)
    barriers = (threading.Barrier(n), threading.Barrier(n))
    graphs = [trace(model) for _ in range(n)]
    results: dict[int, object] = {}

    def work(i: int, hooks) -> None:
        try:
            hooks = _meeting(hooks, barriers)
            module = lower(model, xs, "fx", gm=graphs[i], hooks=hooks)
            compiled = compile_module(module, Options(), hooks=hooks)
            results[i] = (compiled, compiled(*xs))
        except BaseException as e:  # reported by the main thread
            for barrier in barriers:
                barrier.abort()
            results[i] = e

    threads = [
        threading.Thread(target=work, args=(i, h))
        for i, h in enumerate(hooks_per_thread)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    for i in range(n):
        if isinstance(results.get(i), BaseException):
            raise results[i]
    return [results[i] for i in range(n)]


def test_two_threads_with_different_faults_get_exactly_their_own(mlp):
    _, _, want = mlp
    scale = faults.hooks(["kernel:fc3"])  # y * 1.0625 in fc3's kernel
    shift = faults.hooks(["pass:fc3:shift", "lowering:fc1:negative"])
    (a, got_a), (b, got_b), (c, got_c) = _in_threads(mlp, scale, shift, None)
    torch.testing.assert_close(got_a, want * 1.0625, **TOL)
    # fc1:negative is damped by the ReLU after fc1: only the shift reaches the output
    torch.testing.assert_close(got_b, want + 0.5, **TOL)
    torch.testing.assert_close(got_c, want, **TOL)
    assert [i.fault.spec for i in faults.applied(a.module)] == ["kernel:fc3:scale"]
    assert sorted(i.fault.spec for i in faults.applied(b.module)) == [
        "lowering:fc1:negative",
        "pass:fc3:shift",
    ]
    assert faults.applied(c.module) == []
    assert [p.name for p in a.module.passes] == [p.name for p in c.module.passes]
    assert "inject-fault{node=fc3,effect=shift}" in [p.name for p in b.module.passes]


def test_inject_covers_its_own_thread_only(mlp):
    model, xs, want = mlp
    inside, outside = threading.Event(), threading.Event()
    seen: dict[str, object] = {}
    gm = trace(model)  # traced here: see _in_threads

    def injecting() -> None:
        with faults.inject("kernel:fc3:shift"):
            inside.set()
            outside.wait(timeout=60)
            seen["inside"] = faults.active()
            module = lower(model, xs, "fx", gm=gm, hooks=faults.hooks())
            compiled = compile_module(module, Options(), hooks=faults.hooks())
            seen["wrong"] = compiled(*xs)

    t = threading.Thread(target=injecting)
    t.start()
    assert inside.wait(timeout=60)
    seen["other"] = faults.active()  # this thread, while the block is open there
    assert faults.hooks() is None
    outside.set()
    t.join(timeout=600)
    assert seen["other"] == () and seen["inside"] == (faults.parse("kernel:fc3:shift"),)
    torch.testing.assert_close(seen["wrong"], want + 0.5, **TOL)


def test_the_seams_show_every_node_every_kernel_and_add_default_passes(mlp):
    model, xs, want = mlp
    nodes: list[str] = []
    kernels: list[tuple[str, int]] = []

    def after_node(seen: NodeLowered) -> None:
        assert seen.graph is not None and seen.cx.module is not None
        nodes.append(seen.node.name)

    def after_kernel(seen: KernelEmitted) -> None:
        assert seen.op in seen.kernel_ops and seen.module.main.ops
        kernels.append((seen.kernel.fn.name, len(seen.kernel_ops)))

    hooks = CompileHooks(after_node, (("cse", "dce"),), after_kernel)
    compiled = cuvil.compile(
        model, xs, options={"opt_level": "O1", "frontend": "fx"}, hooks=hooks
    )
    torch.testing.assert_close(compiled(*xs), want, **TOL)
    assert nodes[0] == "x" and nodes[-1] == "output" and "fc3" in nodes
    assert [k for k, _ in kernels] == [k.symbol for k in compiled.program.kernels]
    assert {n for _, n in kernels} == {len(kernels)}
    assert [p.name for p in compiled.module.passes] == default_pipeline(
        "O1", extras=hooks.passes
    ).split(",")
    assert default_pipeline("O1", extras=hooks.passes).startswith("dce,cse,dce,")


def test_hooks_are_checked():
    with pytest.raises(TypeError):
        CompileHooks(passes=("fold-constants",))


def test_the_compiler_knows_no_faults():
    """Fault injection is the toolkit's (cuvil_debug/faults/): compiler/ only offers seams."""
    root = Path(__file__).resolve().parents[1] / "compiler"
    word = re.compile(r"(?<!de)fault", re.IGNORECASE)  # not "default"
    hits = [
        f"{p.relative_to(root)}:{n}"
        for p in sorted(root.rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if word.search(line)
    ]
    assert hits == []


def test_inject_fault_is_registered_through_the_cuvil_passes_entry_point(monkeypatch):
    """pyproject's entry point loads the toolkit's pass, and the registry finds it there
    (an installed toolkit needs no import of cuvil_debug.faults first)."""
    from importlib.metadata import EntryPoint

    from cuvil.passes import get_pass, registry

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    points = tomllib.loads(pyproject.read_text())["project"]["entry-points"]
    (name, value), *_ = points[registry.ENTRY_POINT_GROUP].items()
    ep = EntryPoint(name, value, registry.ENTRY_POINT_GROUP)
    assert name == "inject-fault" and ep.load() is faults.InjectFaultPass

    monkeypatch.delitem(registry._PASSES, name)
    monkeypatch.setattr(registry, "_ENTRY_LOADERS", {})
    monkeypatch.setattr(registry, "_loaded_entry_points", False)
    monkeypatch.setattr(
        registry, "entry_points", lambda group: [ep] if group == ep.group else []
    )
    assert get_pass(name) is faults.InjectFaultPass


def test_hooks_of_the_wrong_type_are_a_clear_error():
    model = torch.nn.Linear(4, 4)
    with pytest.raises(CuvilError, match="hooks must be a cuvil.CompileHooks"):
        cuvil.compile(model, [torch.randn(1, 4)], hooks={"after_node": print})
