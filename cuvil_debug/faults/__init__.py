"""Documented fault injection: deliberately wrong lowerings, passes and kernels.

``cuvil-debug diff`` names the FX node, the stage and the pass that broke a value. To test
it (and to see it work on a real model), inject a known bug at one stage::

    from cuvil_debug import faults

    with faults.inject("kernel:fc", faults.Fault("pass", "relu", "shift")):
        report = run_diff(model, inputs)  # the toolkit passes faults.hooks() itself
    compiled = cuvil.compile(model, inputs, options={"frontend": "fx"},
                             hooks=faults.hooks(["kernel:fc"]))  # fx node names

Stages (docs/FAULTS.md), each on one of the compiler's seams (``cuvil.hooks``):

- ``lowering``: after the frontend lowered the FX node, its value goes through the
  effect, built from IR ops located at the node (the IR *before* passes is wrong).
- ``pass``: the registered pass ``inject-fault{node=N,effect=E}`` inserts the effect after
  the op computing node N (one action, so ``bisect_limit`` finds it); the hooks add it to
  the default pipelines right after ``fold-constants``.
- ``kernel``: after code generation emitted the kernel computing the node, an in-place
  loop applies the effect to its output buffer (the IR is right, the native code is not).

``inject`` makes faults active for its thread only (a ContextVar); ``hooks()`` turns the
active faults into ``CompileHooks``. What was applied to a module is ``applied(module)``
(a list of ``Injection``). The compiler itself knows nothing of faults.
"""

from .inject_pass import InjectFaultPass, find_op
from .scope import active, hooks, inject
from .spec import EFFECTS, STAGES, Fault, Injection, applied, parse

__all__ = [
    "EFFECTS",
    "STAGES",
    "Fault",
    "Injection",
    "InjectFaultPass",
    "find_op",
    "parse",
    "inject",
    "active",
    "applied",
    "hooks",
]
