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
from dataclasses import replace
from typing import Any

import torch

from cuvil.frontend import lower
from cuvil.ir import print_module
from cuvil.ir.core import Module
from cuvil.ir.interpreter import Interpreter
from cuvil.passes import PassContext, PassPipeline, default_pipeline, ir_diff
from cuvil.pipeline import Options, compile_module

from ..faults import hooks as fault_hooks
from .bisect_result import VERDICTS, BisectResult, compile_bound, format_result
from .checks import static_options
from .judge import Judge, resolve
from .oracle import Comparison, Oracle, one_line, tensors
from .status import BisectVerdict
from .truth import float64_outputs

__all__ = [
    "BisectResult",
    "bisect",
    "format_result",
    "compile_bound",
    "VERDICTS",
    "LLVM_PASS_LINE",
]

# LLVM's opt-bisect log line (in JitModule.bisect_log):
# "BISECT: running pass (12) instcombine on fn"
LLVM_PASS_LINE = re.compile(r"^BISECT: (NOT )?running pass \((\d+)\) (.*) on (.*)$")
_LLVM_NO_LIMIT = 2**31 - 1  # -opt-bisect-limit is an int: "run all, but list them"


def bisect(
    model: torch.nn.Module,
    inputs,
    options: dict[str, Any] | None = None,
    *,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    llvm: bool = True,
    log: Callable[[str], Any] | None = None,
    judge: Judge | str | None = "float64",
) -> BisectResult:
    """Find what makes ``cuvil.compile(model, options=options)`` diverge from eager.

    `options` are ``cuvil.compile``'s (``bisect_limit`` / ``llvm_bisect_limit`` are set
    by the search and ignored; ``dynamic`` / ``dynamic_shapes``: the build of
    `inputs`' shapes is checked, as a dynamic compile builds it); `log` is called with
    each check's line as it happens. `judge` (judge.py): "float64" (the default: an
    output fails when it is further from a float64 run of `model` than eager is,
    times the factor), "normwise" or None (`rtol`/`atol`), or a `Judge`.
    """
    opts = Options.parse(static_options(options)[0])
    opts = opts.with_debug(bisect_limit=None, llvm_bisect_limit=None)
    inputs = tuple(inputs)
    judge = resolve(judge)
    was_training = model.training
    model.eval()
    try:
        module = lower(model, list(inputs), opts.frontend, hooks=fault_hooks())
        with torch.no_grad():
            reference = tensors(model(*inputs))
        truths = float64_outputs(model, inputs, reference) if judge else None
    finally:
        model.train(was_training)
    oracle = Oracle.within(rtol, atol, judge)
    checker = _Bisector(module, inputs, reference, opts, oracle, llvm, log)
    checker.truths = truths
    return checker.run()


class _Bisector:
    def __init__(self, module, inputs, reference, opts, oracle, llvm, log) -> None:
        self.module: Module = module
        self.inputs = inputs
        self.reference = reference
        self.truths = None  # the outputs' float64 truths (judge.py), if judged so
        self.opts: Options = opts
        self.oracle: Oracle = oracle
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
            return self._result(
                BisectVerdict.FRONTEND, 0, f"the IR before passes: {front.what}"
            )
        full, checked = self._full()
        actions = len(full.actions)  # up to the failure, if the pipeline raised
        if not checked.diverges:
            return self._result(
                BisectVerdict.CLEAN,
                actions,
                f"the compiled model matches eager ({checked.what})",
            )
        zero = checked if actions == 0 else self._check(0)
        if not zero.diverges:
            return self._culprit_action(full, checked)
        if self.checker == "interpreter":  # not an action's doing
            return self._result(
                BisectVerdict.PASS,
                actions,
                f"diverges with no action applied but not before the passes (a "
                f"pass that fails, or rewrites without ctx.allow_action): "
                f"{zero.what}",
            )
        return self._llvm_or_codegen(actions, zero)

    def _full(self) -> tuple[PassContext, Comparison]:
        """D(actions): the full pipeline, interpreted; when its IR is right, compiled
        (and every later check compiles: only the machine code is wrong)."""
        full_module, full, failed = self._passes(None)
        actions = len(full.actions)
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
        return full, checked

    def _culprit_action(self, full: PassContext, checked: Comparison) -> BisectResult:
        """D(0) false, D(actions) true: the first action after which it diverges."""
        actions = len(full.actions)
        hi = _first_diverging(0, actions, lambda n: self._check(n).diverges)
        asked = self.contexts[hi].actions  # short if that run's passes raised
        action = (asked if len(asked) >= hi else full.actions)[hi - 1]
        before, after = self.texts.get(hi - 1), self.texts.get(hi)
        diff = (
            ir_diff(before, after, f"#{hi} {action.pass_name}")
            if before is not None and after is not None
            else None
        )
        where = "in the IR" if self.checker == "interpreter" else "only in native code"
        detail = (
            f"action #{hi} of {actions} makes it diverge; "
            f"with all {actions} actions {checked.what} ({where})"
        )
        return self._result(
            BisectVerdict.PASS,
            actions,
            detail,
            action=action,
            pass_spec=action.pass_name,
            ir_diff=diff,
        )

    def _llvm_or_codegen(self, actions: int, zero: Comparison) -> BisectResult:
        what = f"diverges with every Cuvil pass action off: {zero.what}"
        if not self.llvm:
            return self._result(BisectVerdict.CODEGEN, actions, what)
        module, _, _ = self._passes(0)
        # Passes 1..k run alike under every limit >= k, so the run without a limit
        # names them all.
        listed: list[tuple[int, str, str]] = []
        top = self._llvm_check(module, None, listed)
        total = max((i for i, _, _ in listed), default=0)
        if not top.diverges or total == 0:
            return self._result(
                BisectVerdict.CODEGEN,
                actions,
                f"{what}; LLVM's opt-bisect found no pass ({total} passes listed, "
                f"diverges with all of them: {top.diverges})",
                llvm_passes=total,
            )
        low = self._llvm_check(module, 0)
        if low.diverges:
            return self._result(
                BisectVerdict.CODEGEN,
                actions,
                f"{what}; also with LLVM's -opt-bisect-limit=0 ({low.what})",
                llvm_passes=total,
            )
        hi = _first_diverging(0, total, lambda n: self._llvm_check(module, n).diverges)
        name, function = next(((n, f) for i, n, f in listed if i == hi), ("?", "?"))
        return self._result(
            BisectVerdict.LLVM,
            actions,
            f"LLVM pass ({hi}) {name} on {function} makes it diverge "
            f"(-opt-bisect-limit={hi - 1} is right); {what}",
            llvm_limit=hi,
            llvm_pass=name,
            llvm_function=function,
            llvm_passes=total,
        )

    # ---- checks -----------------------------------------------------------------------

    def _check(self, limit: int) -> Comparison:
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

    def _llvm_check(
        self,
        module: Module,
        limit: int | None,
        listed: list[tuple[int, str, str]] | None = None,
    ) -> Comparison:
        """D_llvm(limit): compile with LLVM's passes 1..limit (None: all); the passes
        LLVM lists go to `listed`."""
        self.llvm_compiles += 1
        passes: list[tuple[int, str, str]] = []

        def run():
            compiled = self._native(
                _deepcopy(module),
                llvm_limit=_LLVM_NO_LIMIT if limit is None else limit,
                passes=passes,
            )
            return compiled(*self.inputs)

        result = self._compare(run)
        if listed is not None:
            listed.extend(passes)
        shown = "all" if limit is None else str(limit)
        self._note(f"llvm limit {shown}", result)
        return result

    def _passes(
        self, limit: int | None
    ) -> tuple[Module, PassContext, Comparison | None]:
        """A copy of the lowered module after the pipeline with bisect limit `limit`,
        the pass context (actions asked for) and, if the pipeline raised, that failure.

        The pipeline is what ``run_passes`` builds from the options, without its
        instrumentation (and without its bisect line on stderr)."""
        module = self._copy()
        verify_each = self.opts.debug_options.verify_each or self.opts.debug
        pipeline = PassPipeline(self.pipeline, None, verify_each=verify_each)
        ctx = PassContext(limit)
        failed = None
        try:
            pipeline.run(module, ctx)
        except Exception as e:
            failed = Comparison.failed(f"the passes raised {one_line(e)}")
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
        opts = replace(self.opts, pipeline="").with_debug(
            bisect_limit=None, llvm_bisect_limit=llvm_limit
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

    def _compare(self, run: Callable[[], Any]) -> Comparison:
        return self.oracle.run(
            run, self.reference, self.truths
        )  # a failing run diverges

    def _note(self, what: str, check: Comparison) -> None:
        verdict = "diverges" if check.diverges else "matches"
        err = "inf" if math.isinf(check.error) else f"{check.error:.3g}"
        line = f"{what}: {verdict}, max abs error {err}"
        if check.judged is not None:
            line += f", {check.judged}"
        if check.diverges and "failed" in check.what:
            line += f" ({check.what})"
        self.log.append(line)
        if self.sink is not None:
            self.sink(line)

    def _result(
        self, verdict: BisectVerdict, actions: int, detail: str, **kw
    ) -> BisectResult:
        unset = ("action", "pass_spec", "ir_diff", "llvm_limit", "llvm_pass")
        kw = dict.fromkeys(unset) | kw
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


def _first_diverging(lo: int, hi: int, diverges: Callable[[int], bool]) -> int:
    """The smallest N in (lo, hi] with diverges(N), given that D(lo) is false and
    D(hi) true: a binary search, one check per halving."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if diverges(mid):
            hi = mid
        else:
            lo = mid
    return hi


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
