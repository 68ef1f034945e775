"""`DiffOptions`: what ``run_diff`` compiles and how it judges (engine.py)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from cuvil.errors import CuvilError
from cuvil.options import CompileOptions

from .judge import JUDGES, Judge
from .metrics import DEFAULT_TOLERANCES
from .model import STAGES, Tolerance
from .native import MEMBERS

__all__ = ["DiffOptions"]


@dataclass(frozen=True, init=False)
class DiffOptions:
    """What to compile (`compile`: cuvil.compile's CompileOptions) and how to compare.

    ``DiffOptions(opt_level="O2", members="none")``: CompileOptions' own keywords
    (opt_level, enable_fusion, frontend, pipeline, num_threads, ...) change `compile`
    (default: ``CompileOptions()``); the others are the diff's: `judge` ("float64" or
    "normwise"), `factor` (the float64 judge's multiple of eager's error, all dtypes;
    None: judge.FACTORS, MAX_FACTORS), `members` (native.MEMBERS: "auto", "all", "none"; True is
    "all", False "none"), `normwise` (False: --elementwise)."""

    compile: CompileOptions
    stages: tuple[str, ...] = STAGES
    tolerances: dict[str, Tolerance] = field(
        default_factory=lambda: dict(DEFAULT_TOLERANCES)
    )
    members: str = "auto"  # fused members measured natively (native.MEMBERS)
    normwise: bool = True  # tolerance against the tensor's scale (False: elementwise)
    attribute_pass: bool = True  # find the pass behind an opt-stage divergence
    judge: str = "float64"  # judge.JUDGES
    factor: float | None = None  # the float64 judge's multiple (None: by dtype)

    def __init__(
        self,
        compile: CompileOptions | None = None,
        *,
        stages: tuple[str, ...] = STAGES,
        tolerances: dict[str, Tolerance] | None = None,
        members: str | bool = "auto",
        normwise: bool = True,
        attribute_pass: bool = True,
        judge: str = "float64",
        factor: float | None = None,
        **compile_fields,
    ) -> None:
        if isinstance(members, bool):
            members = "all" if members else "none"
        if members not in MEMBERS or judge not in JUDGES:
            raise CuvilError(
                f"members={members!r} / judge={judge!r}: expected one of "
                f"{', '.join(MEMBERS)} / {', '.join(JUDGES)}"
            )
        own = {
            "compile": replace(compile or CompileOptions(), **compile_fields),
            "stages": stages,
            "tolerances": dict(DEFAULT_TOLERANCES)
            if tolerances is None
            else tolerances,
            "members": members,
            "normwise": normwise,
            "attribute_pass": attribute_pass,
            "judge": judge,
            "factor": factor,
        }
        for name, value in own.items():
            object.__setattr__(self, name, value)

    def compile_options(self) -> CompileOptions:
        return self.compile

    def float64_judge(self) -> Judge | None:
        """The float64 rule (None: ``judge="normwise"``, the tolerances alone)."""
        if self.judge != "float64":
            return None
        return Judge.with_factor(self.factor, elementwise=not self.normwise)

    # read-only views of `compile` for the stages
    opt_level = property(lambda self: self.compile.opt_level)
    enable_fusion = property(lambda self: self.compile.enable_fusion)
    frontend = property(lambda self: self.compile.frontend)
    pipeline = property(lambda self: self.compile.pipeline)
    num_threads = property(lambda self: self.compile.num_threads)
