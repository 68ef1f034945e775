"""The LLVM target: host CPU name and features, target machines per opt level, LLVM's pipeline."""

from __future__ import annotations

import functools

import llvmlite.binding as llvm

__all__ = [
    "init_llvm",
    "host_cpu",
    "target_machine",
    "target_triple",
    "optimize",
]


@functools.cache
def init_llvm() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


@functools.cache
def target_triple() -> str:
    init_llvm()
    return llvm.get_process_triple()


@functools.cache
def host_cpu() -> tuple[str, str]:
    """(cpu name, feature string) of this machine, e.g. ('znver5', '+avx512f,...')."""
    init_llvm()
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def target_machine(opt: int, jit: bool = True) -> llvm.TargetMachine:
    """A new TargetMachine for the host (not cached: an ExecutionEngine takes ownership of
    the one it is given and frees it with itself)."""
    init_llvm()
    cpu, features = host_cpu()
    target = llvm.Target.from_default_triple()
    reloc = "default" if jit else "pic"  # MCJIT ran out of memory on PIC code
    return target.create_target_machine(
        cpu=cpu,
        features=features,
        opt=opt,
        reloc=reloc,
        codemodel="jitdefault" if jit else "default",
        jit=jit,
    )


def optimize(
    mod: llvm.ModuleRef, opt: int, light: llvm.ModuleRef | None = None
) -> None:
    """Run LLVM's new-pass-manager pipeline for `opt` (0..3) on `mod` in place, then
    link `light` into it: the hand-vectorized kernels cut out of the module
    (codegen/lightsplit.py), which no IR pass runs over (code generation does)."""
    if opt > 0:
        tm = target_machine(opt)
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pto.loop_vectorization = opt >= 2
        pto.slp_vectorization = opt >= 2
        pto.loop_unrolling = opt >= 2
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(mod, pb)
    if light is not None:
        mod.link_in(light)
