"""Debuggee of the symbol-store tests: run a build once, then crash it into a core.

    python crash_store.py aot BUNDLE          cuvil.load(BUNDLE), run, crash
    python crash_store.py jit MODEL STORE     compile MODEL twice at O0 in release
                                              mode: plain at O2 (not registered) and
                                              with keep_symbols=STORE; crash the latter

The crash is the entry called with a NULL arena: the first kernel that writes an
intermediate faults. Core dumps are enabled first (RLIMIT_CORE). Prints ``cuvil-key:
KIND KEY`` per build and ``cuvil-crash`` just before the crash.

Release builds get line tables from code generation (issue 13); until then the JIT
build here is generated with DWARF but compiled as a release build (no debug
registration, its object stripped for MCJIT), which is what such a build is.
"""

import ctypes
import importlib.util
import resource
import sys

import torch

import cuvil


def _load(path: str):
    spec = importlib.util.spec_from_file_location("sample_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), mod.example_inputs()


def _crash(native, inputs) -> None:
    try:  # a kernel core (else the test has GDB write one)
        _, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    except (ValueError, OSError):
        pass
    ins = (ctypes.c_void_p * len(inputs))(*[x.data_ptr() for x in inputs])
    outs = (ctypes.c_void_p * len(native._outputs))()  # NULL outputs as well
    print("cuvil-crash", flush=True)
    native._entry(
        ctypes.addressof(ins),
        ctypes.addressof(outs),
        ctypes.addressof(native._param_ptrs),
        None,
    )


def _release_with_dwarf(model, inputs, store: str):
    from cuvil.codegen.generator import generate
    from cuvil.frontend import lower
    from cuvil.options import CompileOptions
    from cuvil.passes import run_passes
    from cuvil.runtime.compiled import CompiledModule
    from cuvil.runtime.jit import JitModule

    flat = {"opt_level": "O0", "keep_symbols": store}
    opts = CompileOptions.parse(flat)
    module = run_passes(lower(model, list(inputs)), opts)
    if "!llvm.dbg.cu" in generate(module).llvm_ir:  # release builds have line tables
        return cuvil.compile(model, inputs, options=flat)
    program = generate(module, debug=True)
    jit = JitModule(program, opts.opt, debug=False, options=opts)
    return CompiledModule(module, program, jit, opts)


def main(argv: list[str]) -> None:
    if argv[0] == "aot":
        loaded = cuvil.load(argv[1])
        inputs = [torch.randn(*i["shape"]) for i in loaded.metadata["inputs"]]
        loaded(*inputs)
        print(f"cuvil-key: aot {loaded.debug_key}", flush=True)
        _crash(loaded, inputs)
    model, inputs = _load(argv[1])
    plain = cuvil.compile(model, inputs, options={"opt_level": "O2"})
    kept = _release_with_dwarf(model, inputs, argv[2])
    plain(*inputs), kept(*inputs)
    print(f"cuvil-key: plain {plain.debug_key}", flush=True)
    print(f"cuvil-key: kept {kept.debug_key}", flush=True)
    _crash(kept, inputs)


if __name__ == "__main__":
    main(sys.argv[1:])
