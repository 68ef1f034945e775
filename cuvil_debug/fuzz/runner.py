"""One graph through every configuration, each judged: ok / refused / crash / wrong.

A configuration is ``FRONTEND:OPT`` (``fx:O0``, ``export:O3``) for ``cuvil.compile``, or
``backend:O3`` for ``torch.compile(model, backend="cuvil")``. The model compiled is the
rendered file (render.py) loaded afresh for each configuration, with fresh inputs and
parameters (a node may write in place). Outcomes:

* ``ok``: the outputs pass the judge (judge.py);
* ``refused``: a clean ``CuvilError`` while compiling (an unsupported op, a form Cuvil
  does not implement), counted by its ``key`` (the op);
* ``crash``: an internal error: any other exception, invalid IR from legal input
  (``VerifyError``, ``PassError``), a frontend rule failing with a Python error or
  disagreeing with torch's types ("this is a bug in Cuvil's frontend"), a runtime error
  on a call eager accepts (``CuvilRuntimeError``) — or a dead worker (pool.py);
* ``wrong``: the outputs fail the judge;
* ``torch``: torch itself failed to capture a model it runs eagerly (dynamo or a fake
  tensor's meta function raised before Cuvil saw the graph): not Cuvil's, counted apart.
"""

from __future__ import annotations

import re
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

import torch

from .exact import DefinitionalNorms
from .graph import Graph, build_state, evaluate
from .judge import judge, perturb, snap
from .render import load, materialize, render
from .values import make

__all__ = ["CONFIGS", "run_graph", "classify", "Prepared"]

CONFIGS = ("fx:O0", "fx:O3", "export:O0", "export:O3", "backend:O3")


def _fresh(graph: Graph, gen: torch.Generator | None = None, how: str = "") -> tuple:
    state, inputs = materialize(graph)
    if gen is not None:
        state = {k: perturb(v, gen, how) for k, v in state.items()}
        inputs = [perturb(x, gen, how) for x in inputs]
    return state, inputs


def _flat(out: Any) -> list[Any]:
    return list(out) if isinstance(out, tuple | list) else [out]


class Prepared:
    """A graph written to disk with its eager answers (reference, perturbed runs)."""

    def __init__(self, graph: Graph, workdir: Path) -> None:
        self.graph = graph
        self.path = workdir / f"fuzz_graph_{graph.seed}_{len(graph.nodes)}.py"
        self.path.write_text(render(graph))
        self.eager = self.run_source(_fresh(graph))
        gen = torch.Generator().manual_seed(graph.seed)
        hows = ("random", "random", "up", "down")
        wiggled = [_fresh(graph, gen, h) for h in hows]
        self.perturbed = [self._quiet(data) for data in wiggled]
        self.ref = self._reference(_fresh(graph))
        # the references also wiggle every value a node computes: a float32 program
        # rounds each, and how much that moves an output is the graph's conditioning
        # there (fuzz 7001128: a subtraction rounding rows near -1e4 to a 1e-3 grid,
        # which no wiggle of the inputs shows)
        gen = torch.Generator().manual_seed(graph.seed + 1)
        self.perturbed_ref = [
            self._reference(data, lambda t, h=h: perturb(t, gen, h)) or []
            for data, h in zip(wiggled, hows, strict=True)
        ]
        self.ref16 = self._reference_16(graph)
        # a third class truth: rounding residuals of exact zeros taken as the zeros
        # (snap: every node; DefinitionalNorms: inside layer_norm and group_norm)
        with DefinitionalNorms():
            self.snapped = self._reference(_fresh(graph), snap)
        self.captured: dict[str, Any] = {}

    def _reference_16(self, graph: Graph) -> list[Any] | None:
        """The reference with each node eager computes in a 16-bit float rounded to
        it (None when there is none): what an exact 16-bit program gives. Where eager's
        own 16-bit kernel is the inaccurate one (fuzz 7051698: its bfloat16
        adaptive_avg_pool3d of a cancelling window was 8 ulps from exact), Cuvil at
        this reference is right although it is far from eager and from the
        all-float64 reference, which skips the rounding the program asks for."""
        try:
            state, inputs = _fresh(graph)
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                values = evaluate(
                    graph,
                    inputs,
                    torch.float32,
                    build_state(graph, torch.float32, state),
                )
        except Exception:
            return None
        half = (torch.float16, torch.bfloat16)
        round_to = [
            v.dtype if isinstance(v, torch.Tensor) and v.dtype in half else None
            for v in values
        ]
        if not any(round_to):
            return None
        return self._reference(_fresh(graph), round_to=round_to)

    def run_source(self, data: tuple) -> list[Any]:
        module = load(self.path, data)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            return _flat(module.Model()(*data[1]))

    def _quiet(self, data: tuple) -> list[Any]:
        try:
            return self.run_source(data)
        except Exception:
            return []

    def _reference(self, data: tuple, wiggle=None, round_to=None) -> list[Any] | None:
        """The outputs in float64 (every float promoted: judge.py), each node's
        result passed through `wiggle` where given. torch's default dtype is float64
        meanwhile: a float an op makes from integers (lgamma of an int64 tensor) is
        promoted too (fuzz 7021057: it met a float64 parameter and the reference
        failed)."""
        g = self.graph
        state, inputs = data
        default = torch.get_default_dtype()
        try:
            torch.set_default_dtype(torch.float64)
            with warnings.catch_warnings(), torch.no_grad():
                warnings.simplefilter("ignore")
                st = build_state(g, torch.float64, state)
                values = evaluate(g, inputs, torch.float64, st, wiggle, round_to)
        except Exception:
            return None
        finally:
            torch.set_default_dtype(default)
        return [values[j] for j in g.outputs]

    def capture(self, frontend: str):
        """The graph's Cuvil IR from `frontend`, captured once for every opt level
        (what cuvil.compile does before its passes; the capture does not depend on
        the opt level). A failed capture raises again for each opt level."""
        if frontend not in self.captured:
            from cuvil.frontend import capture

            model, inputs = self.model()
            model.eval()
            try:
                self.captured[frontend] = capture(model, inputs, frontend).module
            except Exception as e:
                self.captured[frontend] = e
        got = self.captured[frontend]
        if isinstance(got, Exception):
            raise got
        return got

    def model(self) -> tuple[torch.nn.Module, list[torch.Tensor]]:
        state, inputs = _fresh(self.graph)
        return load(self.path, (state, inputs)).Model(), inputs


def _compile(prep: Prepared, config: str) -> list[Any]:
    frontend, opt = config.split(":")
    call_inputs = [make(s) for s in prep.graph.inputs]
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        if frontend == "backend":
            from torch import _dynamo

            _dynamo.reset()
            model, _ = prep.model()
            fn = torch.compile(model, backend="cuvil", options={"opt_level": opt})
            return _flat(fn(*call_inputs))
        from cuvil.options import CompileOptions
        from cuvil.pipeline import compile_module

        module = prep.capture(frontend).clone()  # passes rewrite in place
        options = CompileOptions.parse({"opt_level": opt, "frontend": frontend})
        return _flat(compile_module(module, options)(*call_inputs))


def _cuvil_cause(e: BaseException) -> BaseException:
    """The CuvilError inside dynamo's BackendCompilerFailed, if any."""
    from cuvil.errors import CuvilError

    seen = e
    while seen is not None and not isinstance(seen, CuvilError):
        inner = getattr(seen, "inner_exception", None)  # dynamo's BackendCompilerFailed
        context = seen.__context__ if not seen.__suppress_context__ else None
        seen = inner or seen.__cause__ or context
    return seen if seen is not None else e


def _key(e: BaseException) -> str:
    """What a refusal is about, for counting: the op, or the message without numbers."""
    target = getattr(e, "target", None)
    if target:
        return re.sub(r" \(.*", "", str(target))
    message = getattr(e, "message", str(e)).splitlines()[0]
    while True:  # locations: (file.py:3:4 (FX node 'v3')), innermost first
        shorter = re.sub(r" ?\([^()]*(/|\.py:|FX node|module )[^()]*\)", "", message)
        if shorter == message:
            break
        message = shorter
    message = re.sub(r"FX node '[^']*'", "FX node", message)
    message = re.sub(r"^\S+:\d+:\d+: error: ", "", message)
    return type(e).__name__ + ": " + re.sub(r"\d+", "N", message).strip()[:100]


def classify(e: BaseException) -> tuple[str, str, str]:
    """(outcome, key, detail) of an exception raised while compiling or calling."""
    from cuvil.errors import CuvilError, CuvilRuntimeError, PassError, VerifyError

    inner = _cuvil_cause(e)
    detail = "".join(traceback.format_exception(inner))[-4000:]
    if not isinstance(inner, CuvilError):
        first = str(inner).splitlines()[0][:120] if str(inner) else ""
        torch_side = type(inner).__module__.startswith("torch._dynamo")
        return (
            ("torch" if torch_side else "crash"),
            f"{type(inner).__name__}: {first}",
            detail,
        )
    internal = isinstance(inner, VerifyError | PassError | CuvilRuntimeError)
    internal |= "bug" in (inner.hint or "")  # "this is a Cuvil ... bug"
    internal |= inner.message.startswith("generated LLVM IR is invalid")
    if "could not export" in inner.message:
        return "torch", _key(inner), detail
    return ("crash" if internal else "refused"), _key(inner), detail


def run_config(prep: Prepared, config: str) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        outs = _compile(prep, config)
    except Exception as e:  # every failure is an outcome
        outcome, key, detail = classify(e)
        return {
            "outcome": outcome,
            "key": key,
            "detail": detail,
            "seconds": time.perf_counter() - start,
        }
    verdict = judge(
        outs,
        prep.eager,
        prep.ref,
        prep.perturbed,
        prep.perturbed_ref,
        prep.ref16,
        prep.snapped,
    )
    result = {
        "outcome": "ok" if verdict.ok else "wrong",
        "seconds": time.perf_counter() - start,
    }
    if not verdict.ok:
        result.update(key=f"wrong: {verdict.why.split(':')[0]}", detail=verdict.why)
    result["ratio"] = verdict.max_ratio
    return result


def run_graph(
    graph: Graph, configs: tuple[str, ...], workdir: Path, on_compile=None
) -> dict[str, Any]:
    """Every configuration's outcome for `graph` (a JSON-able dict)."""
    record: dict[str, Any] = {
        "seed": graph.seed,
        "families": graph.families(),
        "nodes": len(graph.nodes),
    }
    try:
        prep = Prepared(graph, workdir)
    except Exception as e:  # the rendered model does not run eagerly: a fuzzer bug
        record["invalid"] = "".join(traceback.format_exception(e))[-3000:]
        return record
    if on_compile is not None:  # eager is done: what dies from here on is Cuvil's
        on_compile()
    record["results"] = {c: run_config(prep, c) for c in configs}
    prep.path.unlink(missing_ok=True)
    return record
