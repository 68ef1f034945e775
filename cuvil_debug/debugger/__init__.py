"""What the GDB and LLDB scripts share: the debugger-neutral half of ``cuvil`` commands.

The scripts (gdb_scripts/cuvil.py, lldb_scripts/cuvil.py) run inside the debugger's own
Python, where neither torch nor numpy nor the rest of Cuvil is importable, so nothing in
this package imports anything but the standard library. Each script implements the small
`Adapter` protocol (memory, registers, symbols, breakpoints) on its debugger's API and
hands every ``cuvil ...`` command line to a `Session`.

    elf.py       a minimal ELF64 reader: sections, symbols, notes (JIT images, libraries)
    builds.py    the Cuvil builds in a process: JIT objects through the GDB JIT
                 interface's descriptor, loaded AOT libraries; their manifests; lookup of
                 a node, op, kernel or source line
    tensors.py   a tensor in memory to logical-order values, statistics, slices, text
    session.py   the commands: kernels, break, print, where, explain, bt, symbols
"""
