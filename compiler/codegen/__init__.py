"""Code generation: Cuvil IR to LLVM IR kernels."""

from llvmlite import ir as _ir

# llvmlite fills its string-escape table lazily on first use, unguarded: two threads
# emitting their first metadata string at once read a half-filled table (KeyError,
# seen in tests/test_hooks.py's two-thread compile). Fill it once, here, at import.
str(_ir.MetaDataString(_ir.Module(), "cuvil"))
