"""Runtime: memory planning, the JIT, and the callable compiled module."""
