"""Pass pipelines: parse ``"fold-bn,fuse-elementwise{max-ops=8},dce"``, run passes in order.

``PassPipeline.run`` times every pass, counts its actions, calls the instrumentation
callback and (``verify_each``) verifies the IR after each pass, so a broken pass is named
with the passes that ran before it.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence

from ..errors import CuvilError, PassError
from ..ir.core import Module
from ..ir.printer import print_module
from ..ir.verifier import verify
from .base import ModulePass, PassContext
from .instrument import Callback, PassInfo
from .registry import get_pass

__all__ = [
    "PassPipeline",
    "parse_pipeline",
    "format_pass",
    "default_pipeline",
    "DEFAULT_PIPELINES",
    "FUSION_PASSES",
]

DEFAULT_PIPELINES = {
    "O0": "",
    "O1": "dce,cse,fold-constants,dce",
    "O2": "dce,cse,fold-constants,fold-bn,fuse-elementwise,dce",
    "O3": "dce,cse,fold-constants,fold-bn,layout-nhwc,fuse-epilogue,fuse-elementwise,dce,memory-hints",
}
FUSION_PASSES = ("fuse-elementwise", "fuse-epilogue")

_ITEM = re.compile(r"\s*([A-Za-z0-9_-]+)\s*(?:\{([^}]*)\})?\s*$")


def default_pipeline(
    opt_level: str,
    enable_fusion: bool = True,
    extras: Sequence[tuple[str, str]] = (),
) -> str:
    """The documented pipeline of an opt level (docs/PASSES.md), fusion passes optional.

    `extras` are ``(anchor, item)`` pairs (``CompileHooks.passes``): each item runs right
    after the anchor pass's first occurrence, or at the end when the pipeline lacks it."""
    if opt_level not in DEFAULT_PIPELINES:
        raise PassError(
            f"unknown opt level {opt_level!r}",
            hint=f"use one of {', '.join(DEFAULT_PIPELINES)}",
        )
    names = [n for n in DEFAULT_PIPELINES[opt_level].split(",") if n]
    if not enable_fusion:
        names = [n for n in names if n not in FUSION_PASSES]
    if extras:
        names = _with_extras(names, extras)
    return ",".join(names)


def _with_extras(names: list[str], extras: Sequence[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for i, n in enumerate(names):
        out.append(n)
        if n not in names[:i]:
            out += [item for anchor, item in extras if anchor == n]
    return out + [item for anchor, item in extras if anchor not in names]


def _split(text: str) -> list[str]:
    """Split on commas outside braces."""
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    return [*items, cur] if cur.strip() or items else []


def _option_value(raw: str, field: dataclasses.Field, pass_name: str):
    kind = (
        field.type
        if isinstance(field.type, str)
        else getattr(field.type, "__name__", "")
    )
    raw = raw.strip()
    try:
        if "bool" in kind:
            if raw not in ("true", "false"):
                raise ValueError(raw)
            return raw == "true"
        if "int" in kind:
            return int(raw)
        if "float" in kind:
            return float(raw)
    except ValueError:
        raise PassError(
            f"option '{field.name.replace('_', '-')}' of pass '{pass_name}' "
            f"must be {kind}, got {raw!r}"
        ) from None
    return raw


def _build(name: str, options: str | None) -> ModulePass:
    cls = get_pass(name)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for item in filter(str.strip, (options or "").split(",")):
        key, _, raw = item.partition("=")
        attr = key.strip().replace("-", "_")
        if attr not in fields or not _:
            known = ", ".join(f.replace("_", "-") for f in fields) or "none"
            raise PassError(
                f"pass '{name}' has no option '{key.strip()}'",
                hint=f"options of {name}: {known}; write {name}{{key=value}}",
            )
        kwargs[attr] = _option_value(raw, fields[attr], name)
    return cls(**kwargs)


def parse_pipeline(text: str) -> list[ModulePass]:
    """Pass instances from a pipeline string (empty string: no passes)."""
    passes = []
    for item in _split(text):
        m = _ITEM.match(item)
        if m is None:
            raise PassError(
                f"cannot parse pipeline item {item.strip()!r}",
                hint="write 'name' or 'name{option=value,...}', comma separated",
            )
        passes.append(_build(m.group(1), m.group(2)))
    return passes


def format_pass(p: ModulePass) -> str:
    """``name`` or ``name{opt=value}`` for options that differ from their defaults."""
    opts = []
    for f in dataclasses.fields(p):
        value = getattr(p, f.name)
        if value != f.default:
            text = str(value).lower() if isinstance(value, bool) else str(value)
            opts.append(f"{f.name.replace('_', '-')}={text}")
    return f"{p.name}{{{','.join(opts)}}}" if opts else p.name


class PassPipeline:
    """Runs passes in order; ``callback(pass_, before_text, module_after, info)`` after each."""

    def __init__(
        self,
        passes: Sequence[ModulePass] | str,
        callback: Callback | None = None,
        verify_each: bool = False,
    ) -> None:
        self.passes = (
            parse_pipeline(passes) if isinstance(passes, str) else list(passes)
        )
        self.callback = callback
        self.verify_each = verify_each
        self.infos: list[PassInfo] = []

    def __str__(self) -> str:
        return ",".join(p.spec() for p in self.passes)

    def run(self, module: Module, ctx: PassContext | None = None) -> PassContext:
        """Rewrite `module` in place; returns the context (actions, last applied action)."""
        ctx = ctx or PassContext()
        for i, p in enumerate(self.passes):
            before = print_module(module) if self.callback or self.verify_each else ""
            ctx.current_pass = p.spec()
            start_action = len(ctx.actions)
            t0 = time.perf_counter()
            changed = bool(p.apply(module, ctx))
            info = PassInfo.of(
                p.spec(), changed, time.perf_counter() - t0, ctx.actions[start_action:]
            )
            self.infos.append(info)
            if self.verify_each:
                self._verify(module, i, before)
            if self.callback is not None:
                self.callback(p, before, module, info)
        return ctx

    def _verify(self, module: Module, index: int, before: str) -> None:
        try:
            verify(module)
        except CuvilError as e:
            p = self.passes[index]
            ran = ", ".join(q.spec() for q in self.passes[:index]) or "none"
            raise PassError(
                f"IR does not verify after pass '{p.spec()}': {e.message}",
                where=e.where,
                hint=f"passes before it: {ran}",
                note=_excerpt(print_module(module), e.message),
            ) from e


def _excerpt(text: str, message: str, context: int = 3) -> str:
    """The IR lines around the op the verifier complained about (or the start of the IR)."""
    lines = text.splitlines()
    m = re.match(r"'([a-z0-9_.]+)'", message)
    hit = next(
        (i for i, line in enumerate(lines) if m and f" {m.group(1)}(" in line), None
    )
    lo, hi = (
        (0, 2 * context + 1)
        if hit is None
        else (max(0, hit - context), hit + context + 1)
    )
    return "\n".join(f"{n + 1:5d} | {line}" for n, line in enumerate(lines[lo:hi], lo))
