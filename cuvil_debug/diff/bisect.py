"""``cuvil-debug bisect``: the first pass action that makes a compiled model diverge.

The model is lowered once; every check deep-copies that module, runs the pass pipeline
with ``bisect_limit=N`` and compares the result with PyTorch eager. D(N) = "the output
with the first N pass actions applied diverges" is monotone for a single bug, so a binary
search over N in [0, actions] finds the culprit action in ceil(log2(actions)) checks, plus
the full pipeline and N = 0::

    r = bisect(model, inputs, {"opt_level": "O3"})
    print(format_result(r))

How a check runs depends on where the divergence shows:

- the IR straight from the frontend already diverges under the reference interpreter:
  verdict ``frontend`` (no pass is needed to break it);
- the IR after the full pipeline diverges under the interpreter: the checks interpret the
  IR (no code generation, fast);
- only native code diverges: every check compiles (``compile_module``); if even N = 0
  diverges the passes are innocent and, with ``llvm=True``, LLVM's ``-opt-bisect-limit``
  is bisected the same way over LLVM's pass indices (verdict ``llvm``), else ``codegen``.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import torch
from torch.utils._pytree import tree_leaves

from cuvil.frontend import lower
from cuvil.ir import print_module
from cuvil.ir.core import Module
from cuvil.ir.interpreter import Interpreter
from cuvil.passes import Action, PassContext, PassPipeline, default_pipeline, ir_diff
from cuvil.pipeline import Options, compile_module

from ..faults import hooks as fault_hooks
from . import metrics
from .model import Tolerance

__all__ = [
    "BisectResult",
    "bisect",
    "format_result",
    "compile_bound",
    "VERDICTS",
    "LLVM_PASS_LINE",
]

VERDICTS = {
    "pass": "a Cuvil pass action makes the output diverge",
    "llvm": "an LLVM optimization pass makes the output diverge",
    "codegen": "the output diverges with every pass off: code generation (or a part "
    "of LLVM that -opt-bisect-limit cannot skip)",
    "frontend": "the IR straight from the frontend already diverges",
    "clean": "nothing diverges from eager",
}

# LLVM's opt-bisect log line (in JitModule.bisect_log):
# "BISECT: running pass (12) instcombine on fn"
LLVM_PASS_LINE = re.compile(r"^BISECT: (NOT )?running pass \((\d+)\) (.*) on (.*)$")
_LLVM_NO_LIMIT = 2**31 - 1  # -opt-bisect-limit is an int: "run all, but list them"


@dataclass
class BisectResult:
    """What `bisect` found; `format_result` renders it."""

    verdict: str  # a key of VERDICTS
    actions: int  # Cuvil pass actions of the full pipeline
    compiles: int  # pipeline runs checked for the Cuvil-pass search (see compile_bound)
    action: Action | None  # the culprit action (verdict "pass")
    pass_spec: str | None  # the pass that asked for it, as pipeline text
    ir_diff: str | None  # IR with limit N-1 vs limit N (the culprit action alone)
    llvm_limit: int | None  # verdict "llvm": first -opt-bisect-limit that diverges
    llvm_pass: str | None  # verdict "llvm": that LLVM pass's name
    detail: str  # one line: what diverges and by how much
    log: list[str] = field(default_factory=list)  # one line per check
    llvm_passes: int | None = None  # LLVM passes counted (the LLVM search's range)
    llvm_function: str | None = None  # what the culprit LLVM pass ran on
    llvm_compiles: int = 0  # compiles of the LLVM search (not in `compiles`)
    checker: str = ""  # "interpreter" or "native": how the Cuvil checks ran
    pipeline: str = ""  # the pass pipeline bisected


def compile_bound(actions: int) -> int:
    """The most checks the Cuvil-pass search needs: ceil(log2(actions)) + 2."""
    return math.ceil(math.log2(actions)) + 2 if actions > 1 else 2


@dataclass
class _Check:
    diverges: bool
    error: float  # max abs error (inf: a shape mismatch, NaN mismatch or a failure)
    what: str  # e.g. "output 0: max abs error 3.1e-01" or "failed: CodegenError: ..."


def bisect(
    model: torch.nn.Module,
    inputs,
    options: dict[str, Any] | None = None,
    *,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    llvm: bool = True,
    log: Callable[[str], Any] | None = None,
) -> BisectResult:
    """Find what makes ``cuvil.compile(model, options=options)`` diverge from eager.

    `options` are ``cuvil.compile``'s (``bisect_limit`` / ``llvm_bisect_limit`` are set
    by the search and ignored); `log` is called with each check's line as it happens.
    """
    opts = Options.parse(options)
    opts = replace(opts, bisect_limit=None, llvm_bisect_limit=None)
    inputs = tuple(inputs)
    was_training = model.training
    model.eval()
    try:
        module = lower(model, list(inputs), opts.frontend, hooks=fault_hooks())
        with torch.no_grad():
            reference = _tensors(model(*inputs))
    finally:
        model.train(was_training)
    return _Bisector(module, inputs, reference, opts, rtol, atol, llvm, log).run()


class _Bisector:
    def __init__(self, module, inputs, reference, opts, rtol, atol, llvm, log) -> None:
        self.module: Module = module
        self.inputs = inputs
        self.reference = reference
        self.opts: Options = opts
        self.rtol, self.atol = rtol, atol
        self.llvm = llvm
        self.sink = log
        self.log: list[str] = []
        self.compiles = 0
        self.llvm_compiles = 0
        self.texts: dict[int, str] = {}  # bisect limit -> IR after the passes
        self.contexts: dict[int, PassContext] = {}
        self.hooks = fault_hooks()  # an enclosing faults.inject block's, if any
        extras = self.hooks.passes if self.hooks is not None else ()
        self.pipeline = (
            opts.pipeline
            if opts.pipeline is not None
            else default_pipeline(opts.opt_level, opts.enable_fusion, extras)
        )
        self.checker = "interpreter"

    # ---- the search -----------------------------------------------------------------

    def run(self) -> BisectResult:
        front = self._compare(lambda: Interpreter(self._copy()).run(*self.inputs))
        self._note("frontend IR (interpreter)", front)
        if front.diverges:
            return self._result("frontend", 0, f"the IR before passes: {front.what}")

        full_module, full, failed = self._passes(None)
        actions = len(full.actions)  # up to the failure, if the pipeline raised
        self.contexts[actions] = full
        self.compiles += 1
        checked = failed or self._compare(
            lambda: Interpreter(full_module).run(*self.inputs)
        )
        self._note(f"limit {actions} (all actions, interpreter)", checked)
        if not checked.diverges:
            self.checker = "native"
            checked = self._compare(lambda: self._native(full_module)(*self.inputs))
            self._note(f"limit {actions} (all actions, native)", checked)
        if not checked.diverges:
            return self._result(
                "clean", actions, f"the compiled model matches eager ({checked.what})"
            )
        where = "in the IR" if self.checker == "interpreter" else "only in native code"
        full_what = f"with all {actions} actions {checked.what} ({where})"

        if actions == 0:
            zero = checked
        else:
            zero = self._check(0)
        if zero.diverges:
            if self.checker == "interpreter":  # not an action's doing
                return self._result(
                    "pass",
                    actions,
                    f"diverges with no action applied but not before the passes (a "
                    f"pass that fails, or rewrites without ctx.allow_action): "
                    f"{zero.what}",
                )
            return self._llvm_or_codegen(actions, zero)

        lo, hi = 0, actions  # D(lo) false, D(hi) true
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._check(mid).diverges:
                hi = mid
            else:
                lo = mid
        asked = self.contexts[hi].actions  # short if that run's passes raised
        action = (asked if len(asked) >= hi else full.actions)[hi - 1]
        before, after = self.texts.get(hi - 1), self.texts.get(hi)
        diff = (
            ir_diff(before, after, f"#{hi} {action.pass_name}")
            if before is not None and after is not None
            else None
        )
        detail = f"action #{hi} of {actions} makes it diverge; {full_what}"
        return self._result(
            "pass",
            actions,
            detail,
            action=action,
            pass_spec=action.pass_name,
            ir_diff=diff,
        )

    def _llvm_or_codegen(self, actions: int, zero: _Check) -> BisectResult:
        what = f"diverges with every Cuvil pass action off: {zero.what}"
        if not self.llvm:
            return self._result("codegen", actions, what)
        module, _, _ = self._passes(0)
        top_passes: list[tuple[int, str, str]] = []

        def check(limit: int | None) -> _Check:
            """D_llvm(limit): compile with LLVM's passes 1..limit (None: all)."""
            self.llvm_compiles += 1
            listed: list[tuple[int, str, str]] = []

            def run():
                compiled = self._native(
                    _deepcopy(module),
                    llvm_limit=_LLVM_NO_LIMIT if limit is None else limit,
                    passes=listed,
                )
                return compiled(*self.inputs)

            result = self._compare(run)
            if limit is None:
                top_passes.extend(listed)
            shown = "all" if limit is None else str(limit)
            self._note(f"llvm limit {shown}", result)
            return result

        # Passes 1..k run alike under every limit >= k, so the run without a limit
        # names them all.
        top = check(None)
        total = max((i for i, _, _ in top_passes), default=0)
        if not top.diverges or total == 0:
            return self._result(
                "codegen",
                actions,
                f"{what}; LLVM's opt-bisect found no pass ({total} passes listed, "
                f"diverges with all of them: {top.diverges})",
                llvm_passes=total,
            )
        low = check(0)
        if low.diverges:
            return self._result(
                "codegen",
                actions,
                f"{what}; also with LLVM's -opt-bisect-limit=0 ({low.what})",
                llvm_passes=total,
            )
        lo, hi = 0, total  # D(lo) false, D(hi) true
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if check(mid).diverges:
                hi = mid
            else:
                lo = mid
        name, function = next(((n, f) for i, n, f in top_passes if i == hi), ("?", "?"))
        return self._result(
            "llvm",
            actions,
            f"LLVM pass ({hi}) {name} on {function} makes it diverge "
            f"(-opt-bisect-limit={hi - 1} is right); {what}",
            llvm_limit=hi,
            llvm_pass=name,
            llvm_function=function,
            llvm_passes=total,
        )

    # ---- checks -----------------------------------------------------------------------

    def _check(self, limit: int) -> _Check:
        """D(limit): run the passes with the limit, then interpret or compile."""
        self.compiles += 1
        module, ctx, failed = self._passes(limit)
        self.contexts[limit] = ctx
        if failed is not None:  # a broken rewrite may break the passes after it
            result = failed
        elif self.checker == "interpreter":
            result = self._compare(lambda: Interpreter(module).run(*self.inputs))
        else:
            result = self._compare(lambda: self._native(module)(*self.inputs))
        self._note(f"limit {limit} ({self.checker})", result)
        return result

    def _passes(self, limit: int | None) -> tuple[Module, PassContext, _Check | None]:
        """A copy of the lowered module after the pipeline with bisect limit `limit`,
        the pass context (actions asked for) and, if the pipeline raised, that failure.

        The pipeline is what ``run_passes`` builds from the options, without its
        instrumentation (and without its bisect line on stderr)."""
        module = self._copy()
        pipeline = PassPipeline(
            self.pipeline, None, verify_each=self.opts.verify_each or self.opts.debug
        )
        ctx = PassContext(limit)
        failed = None
        try:
            pipeline.run(module, ctx)
        except Exception as e:
            failed = _Check(True, math.inf, f"failed: the passes raised {_one_line(e)}")
        module.passes = pipeline.infos
        key = len(ctx.actions) if limit is None else limit
        with contextlib.suppress(Exception):  # a broken module may not print
            self.texts[key] = print_module(module)
        return module, ctx, failed

    def _native(
        self,
        module: Module,
        llvm_limit: int | None = None,
        passes: list[tuple[int, str, str]] | None = None,
    ):
        """``compile_module`` of a module whose passes already ran.

        With `llvm_limit` LLVM compiles in a child process with a fresh pass counter;
        the passes it counted go to `passes` (not to stderr)."""
        opts = replace(
            self.opts, pipeline="", bisect_limit=None, llvm_bisect_limit=llvm_limit
        )
        table = module.passes
        compiled = compile_module(
            module, opts, echo_llvm_bisect=False, hooks=self.hooks
        )
        if passes is not None:
            passes.extend(_llvm_passes(compiled.jit.bisect_log))
        module.passes = table  # the real pass table, not the empty pipeline's
        return compiled

    def _copy(self) -> Module:
        return _deepcopy(self.module)

    def _compare(self, run: Callable[[], Any]) -> _Check:
        try:
            got = _tensors(run())
        except Exception as e:  # a failing stage diverges too
            return _Check(True, math.inf, f"failed: {_one_line(e)}")
        return compare(got, self.reference, self.rtol, self.atol)

    def _note(self, what: str, check: _Check) -> None:
        verdict = "diverges" if check.diverges else "matches"
        err = "inf" if math.isinf(check.error) else f"{check.error:.3g}"
        line = f"{what}: {verdict}, max abs error {err}"
        if check.diverges and "failed" in check.what:
            line += f" ({check.what})"
        self.log.append(line)
        if self.sink is not None:
            self.sink(line)

    def _result(self, verdict: str, actions: int, detail: str, **kw) -> BisectResult:
        kw.setdefault("action", None)
        kw.setdefault("pass_spec", None)
        kw.setdefault("ir_diff", None)
        kw.setdefault("llvm_limit", None)
        kw.setdefault("llvm_pass", None)
        return BisectResult(
            verdict=verdict,
            actions=actions,
            compiles=self.compiles,
            detail=detail,
            log=self.log,
            llvm_compiles=self.llvm_compiles,
            checker=self.checker,
            pipeline=self.pipeline,
            **kw,
        )


# ---- comparing outputs ---------------------------------------------------------------


def _tensors(value: Any) -> list[torch.Tensor]:
    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def compare(
    got: list[torch.Tensor], want: list[torch.Tensor], rtol: float, atol: float
) -> _Check:
    """Diverges when any output fails the diff's criterion (`metrics.compare`:
    normwise against the output's scale, NaN equals NaN, integers exact)."""
    if len(got) != len(want):
        return _Check(True, math.inf, f"{len(got)} outputs, eager has {len(want)}")
    worst = _Check(False, 0.0, "max abs error 0")
    for i, (g, w) in enumerate(zip(got, want)):
        name = f"output {i}" if len(want) > 1 else "output"
        if tuple(g.shape) != tuple(w.shape):
            return _Check(
                True,
                math.inf,
                f"{name} has shape {tuple(g.shape)}, eager {tuple(w.shape)}",
            )
        m = metrics.compare(g.detach(), w.detach(), Tolerance(rtol, atol))
        err = m.max_abs
        if not m.ok and (not worst.diverges or err > worst.error):
            worst = _Check(
                True,
                err,
                f"{name}: {m.mismatched} of {m.numel} elements differ, "
                f"max abs error {err:.3g}",
            )
        elif not worst.diverges and err >= worst.error:
            worst = _Check(False, err, f"max abs error {err:.3g}")
    return worst


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


# ---- LLVM's opt-bisect log -----------------------------------------------------------


def _llvm_passes(lines: list[str]) -> list[tuple[int, str, str]]:
    """LLVM's opt-bisect lines as (index, pass name, what it ran on)."""
    passes = []
    for line in lines:
        m = LLVM_PASS_LINE.match(line.strip())
        if m:
            passes.append((int(m.group(2)), m.group(3), m.group(4)))
    return passes


def _deepcopy(module: Module) -> Module:
    """Passes rewrite in place, so every check starts from its own copy."""
    return module.clone()


# ---- the report ------------------------------------------------------------------------


def format_result(r: BisectResult) -> str:
    """What ``cuvil-debug bisect`` prints."""
    lines = [f"verdict: {r.verdict} ({VERDICTS.get(r.verdict, '?')})"]
    lines.append(f"detail: {r.detail}")
    if r.pipeline:
        lines.append(f"pipeline: {r.pipeline}")
    if r.action is not None:
        lines.append(f"pass: {r.pass_spec}")
        lines.append(
            f"action: #{r.action.index} of {r.actions}: {r.action.description}"
        )
    if r.llvm_pass is not None:
        on = f" on {r.llvm_function}" if r.llvm_function else ""
        lines.append(
            f"llvm pass: ({r.llvm_limit}) {r.llvm_pass}{on} "
            f"(of {r.llvm_passes}; -opt-bisect-limit={r.llvm_limit - 1} is right)"
        )
    if r.verdict != "frontend":
        lines.append(
            f"compiles: {r.compiles} for {r.actions} actions "
            f"(bound ceil(log2(actions))+2 = {compile_bound(r.actions)}; "
            f"checks by {r.checker or 'interpreter'})"
        )
    if r.llvm_compiles:
        lines.append(
            f"llvm compiles: {r.llvm_compiles} for {r.llvm_passes} LLVM passes "
            f"(bound {compile_bound(r.llvm_passes or 0)})"
        )
    lines.append("checks:")
    lines.extend(f"  {line}" for line in r.log)
    if r.ir_diff:
        lines.append(f"IR diff of action #{r.action.index}:")
        lines.append(r.ir_diff.rstrip("\n"))
    return "\n".join(lines) + "\n"
