"""Code generation: Cuvil IR to LLVM IR kernels."""
