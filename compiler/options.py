"""The options of a compile, typed: what to build, and how to watch and bisect it.

``cuvil.compile(..., options={...})`` takes one flat dict; ``CompileOptions.parse``
splits it into the two groups and checks every value::

    CompileOptions    what to build: opt level, fusion, DWARF, frontend, threads,
                      pipeline
      .debug_options  DebugOptions: profile, pass / LLVM bisect limits, print-after-all
                      / -change, snapshots, verify-each (they watch, count or cut the
                      compile; they are not the product)

``to_dict()`` is the flat form again, with every key (saved models keep it as their
metadata's ``options``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import CuvilError

__all__ = [
    "CompileOptions",
    "DebugOptions",
    "Options",
    "KEYS",
    "OPT_LEVELS",
    "FRONTENDS",
    "DYNAMIC_KEYS",
    "QuantOptions",
    "QUANT_ISAS",
]

# The domains of two options, here so that every floor reads them from one low module.
OPT_LEVELS = {"O0": 0, "O1": 1, "O2": 2, "O3": 3}  # name -> LLVM's level
# auto: torch.export, and torch.fx when export fails | torch.fx tracing | torch.export
FRONTENDS = ("auto", "fx", "export")


# the instruction sets quantized kernels may use (docs/QUANT.md): auto = the best the
# compiling CPU has; avx512 = VNNI (int8) / AVX512-BF16 (bf16); portable = plain LLVM IR
QUANT_ISAS = ("auto", "amx", "avx512", "portable")
_QUANT_MODES = ("int8", "bf16")


@dataclass(frozen=True)
class QuantOptions:
    """``quantize="int8"`` / ``"bf16"`` / ``{"int8": True, "skip": [...], ...}``
    (docs/QUANT.md): what is quantized, how it is calibrated, which kernels run it."""

    mode: str = "int8"  # int8 | bf16
    dynamic: bool = False  # int8: activations quantized at run time (no calibration)
    activations: str = "affine"  # affine (u8 with a zero point) | symmetric (i8, zp 0)
    calibration: str = "minmax"  # minmax | percentile
    percentile: float = 99.99  # calibration="percentile": the |x| percentile kept
    skip: tuple[str, ...] = ()  # FX node names or module paths left in float32
    isa: str = "auto"  # QUANT_ISAS; cuvil.compile records the one it resolved

    @staticmethod
    def parse(value: Any) -> QuantOptions | None:
        """None, "int8", "bf16", a dict ``{"int8": True, ...}`` / ``{"mode": ...}``, or
        a QuantOptions; anything else is a CuvilError saying what is allowed."""
        if value is None or isinstance(value, QuantOptions):
            return value
        if isinstance(value, str):
            value = {"mode": value}
        if not isinstance(value, Mapping):
            raise CuvilError(
                f"option quantize={value!r} must be None, 'int8', 'bf16' or a dict",
                hint='e.g. quantize="int8" or quantize={"int8": True, "skip": ["fc"]}',
            )
        flat = dict(value)
        modes = [m for m in _QUANT_MODES if flat.pop(m, False) is True]
        if len(modes) == 1 and "mode" not in flat:
            flat["mode"] = modes[0]
        if len(modes) > 1 or "mode" not in flat:
            raise CuvilError(
                f"option quantize={value!r} must name one mode: int8 or bf16",
                hint='e.g. quantize={"int8": True, "skip": ["fc"]}',
            )
        known = {f.name for f in dataclasses.fields(QuantOptions)}
        unknown = sorted(set(flat) - known)
        if unknown:
            raise CuvilError(
                f"unknown quantize key '{unknown[0]}'",
                hint=f"known keys: int8, bf16, {', '.join(sorted(known))}",
            )
        if isinstance(flat.get("skip"), (list, tuple)):
            flat["skip"] = tuple(flat["skip"])
        opts = QuantOptions(**flat)
        opts._check()
        return opts

    def _check(self) -> None:
        choices = {
            "mode": _QUANT_MODES,
            "activations": ("affine", "symmetric"),
            "calibration": ("minmax", "percentile"),
            "isa": QUANT_ISAS,
        }
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise CuvilError(
                    f"quantize {key}={getattr(self, key)!r} is not one of {allowed}"
                )
        if not isinstance(self.dynamic, bool) or (self.dynamic and self.mode != "int8"):
            raise CuvilError(
                f"quantize dynamic={self.dynamic!r}: True is for int8 only"
            )
        if not all(isinstance(n, str) and n for n in self.skip):
            raise CuvilError(f"quantize skip={self.skip!r} must be a list of names")
        if not isinstance(self.percentile, (int, float)) or not (
            50 < self.percentile <= 100
        ):
            raise CuvilError(
                f"quantize percentile={self.percentile!r} must be in (50, 100]"
            )

    def to_dict(self) -> dict[str, Any]:
        flat = dataclasses.asdict(self)
        flat["skip"] = list(self.skip)
        return flat


@dataclass(frozen=True)
class DebugOptions:
    """How a compile is watched, measured and bisected (cuvil.compile's debug keys)."""

    profile: bool = False  # count cycles per kernel: CompiledModule.profile()
    bisect_limit: int | None = None  # apply only the first N pass actions
    llvm_bisect_limit: int | None = None  # LLVM's -opt-bisect-limit for its pipeline
    print_after_all: bool = False  # IR after every pass, on stderr
    print_after_change: bool = False  # unified diff of the IR after each changing pass
    snapshot_dir: str | None = None  # write DIR/0001-<pass>.cuvilir after each pass
    verify_each: bool = False  # verify after every pass (always on with debug)
    # write each JIT object to this symbol store (docs/DEBUGGING.md; env CUVIL_SYMBOL_STORE)
    keep_symbols: str | None = None
    # kernels named to perf in /tmp/perf-PID.map (env CUVIL_PERF=1; docs/PROFILING.md)
    perf: bool = False


@dataclass(frozen=True)
class CompileOptions:
    """What to build; `debug_options` says how to watch it (module docstring)."""

    opt_level: str = "O3"  # O0..O3: LLVM's pipeline (and, with passes, Cuvil's)
    enable_fusion: bool = True  # fuse elementwise chains and epilogues (pass pipeline)
    debug: bool = False  # DWARF + GDB JIT registration, non-inlined kernels
    # "auto" (torch.export, then torch.fx when export fails; what Hugging Face models
    # need), "fx" (torch.fx.symbolic_trace) or "export"; export's nodes carry fx's names
    # (frontend/export_names.py, docs/DYNAMIC.md "The frontend choice")
    frontend: str = "auto"
    # lower an op with no Cuvil rule through PyTorch's decomposition (docs/OPS.md)
    decompose: bool = True
    num_threads: int = 1
    # pass pipeline (docs/PASSES.md): None = the opt level's default pipeline
    pipeline: str | None = None
    # FX node names (or op names) whose kernels start with a debugger trap (docs/DEBUGGING.md)
    break_on: tuple[str, ...] = ()
    # int8 / bf16 (docs/QUANT.md): None, or the QuantOptions of quantize="int8" ...
    quantize: QuantOptions | None = None
    debug_options: DebugOptions = DebugOptions()

    @staticmethod
    def parse(
        options: Mapping[str, Any] | None = None, /, **keys: Any
    ) -> CompileOptions:
        """The flat keys of ``cuvil.compile(options=...)`` (a dict and/or keywords),
        checked: an unknown key or a bad value is a CuvilError saying what's allowed."""
        flat = {**(options or {}), **keys}
        for key in flat:
            if key in DYNAMIC_KEYS:
                raise CuvilError(
                    f"option '{key}' is taken by cuvil.compile, not by CompileOptions",
                    hint="pass it in cuvil.compile(..., options={...}) (docs/DYNAMIC.md)",
                )
            if key not in KEYS:
                raise CuvilError(
                    f"unknown option '{key}'",
                    hint=f"known options: {', '.join(KEYS + DYNAMIC_KEYS)}",
                )
        if isinstance(flat.get("break_on"), (list, tuple)):
            flat["break_on"] = tuple(flat["break_on"])
        if "quantize" in flat:
            flat["quantize"] = QuantOptions.parse(flat["quantize"])
        if flat.get("keep_symbols") is not None and hasattr(
            flat["keep_symbols"], "__fspath__"
        ):
            flat["keep_symbols"] = str(flat["keep_symbols"])
        debug = {k: v for k, v in flat.items() if k in _DEBUG_FIELDS}
        build = {k: v for k, v in flat.items() if k not in _DEBUG_FIELDS}
        opts = CompileOptions(**build, debug_options=DebugOptions(**debug))
        opts._check()
        return opts

    def to_dict(self) -> dict[str, Any]:
        """The flat form: every key of ``cuvil.compile``'s options, in their order."""
        flat = {key: self._get(key) for key in KEYS}
        flat["break_on"] = list(flat["break_on"])
        if self.quantize is not None:
            flat["quantize"] = self.quantize.to_dict()
        return flat

    def with_debug(self, **changes: Any) -> CompileOptions:
        """A copy whose debug options have `changes` (``bisect_limit=None``, ...)."""
        debug = dataclasses.replace(self.debug_options, **changes)
        return dataclasses.replace(self, debug_options=debug)

    @property
    def opt(self) -> int:
        return OPT_LEVELS[self.opt_level]

    def _get(self, key: str) -> Any:
        return getattr(self.debug_options if key in _DEBUG_FIELDS else self, key)

    def _check(self) -> None:
        get = self._get
        if self.opt_level not in OPT_LEVELS:
            raise CuvilError(
                f"option opt_level={self.opt_level!r} is not one of "
                f"{', '.join(OPT_LEVELS)}"
            )
        for key in _BOOLS:
            if not isinstance(get(key), bool):
                raise CuvilError(f"option {key}={get(key)!r} must be True or False")
        if self.frontend not in FRONTENDS:
            raise CuvilError(
                f"option frontend={self.frontend!r} is not one of {FRONTENDS}"
            )
        if not isinstance(self.num_threads, int) or self.num_threads < 1:
            raise CuvilError(
                f"option num_threads={self.num_threads!r} must be an int >= 1"
            )
        for key in ("bisect_limit", "llvm_bisect_limit"):
            value = get(key)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise CuvilError(f"option {key}={value!r} must be None or an int >= 0")
        if not isinstance(self.break_on, tuple) or not all(
            isinstance(n, str) and n for n in self.break_on
        ):
            raise CuvilError(
                f"option break_on={self.break_on!r} must be a list of FX node names",
                hint='e.g. options={"break_on": ["layer2_0_relu"]}',
            )
        for key in ("pipeline", "snapshot_dir", "keep_symbols"):
            if get(key) is not None and not isinstance(get(key), str):
                raise CuvilError(f"option {key}={get(key)!r} must be a string")


# the flat keys in the order users have always seen them (error hints, saved metadata)
KEYS = (
    "opt_level",
    "enable_fusion",
    "debug",
    "frontend",
    "num_threads",
    "profile",
    "pipeline",
    "bisect_limit",
    "llvm_bisect_limit",
    "print_after_all",
    "print_after_change",
    "snapshot_dir",
    "verify_each",
    "break_on",
    "keep_symbols",
    "decompose",
    "perf",
    "quantize",
)
# cuvil.compile's keys for dynamic shapes (docs/DYNAMIC.md): they choose what is compiled
# per input shape (runtime/dynamic.py), each specialization is built with the keys above
DYNAMIC_KEYS = ("dynamic", "dynamic_shapes")
_DEBUG_FIELDS = frozenset(f.name for f in dataclasses.fields(DebugOptions))
_BOOLS = (
    "enable_fusion",
    "decompose",
    "debug",
    "profile",
    "print_after_all",
    "print_after_change",
    "verify_each",
    "perf",
)

# The name before the split into two groups (``cuvil.Options``).
Options = CompileOptions
