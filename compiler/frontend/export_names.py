"""torch.fx's node names for a torch.export graph, so that a node has one name whichever
frontend captured it.

A user names a node to the debugger (``cuvil break block1_relu``), to ``--inject`` and to
``break_on``. torch.fx calls a leaf module's node by its module path (``block1_relu``,
``fc1``); torch.export calls the same value by its ATen op (``relu__1``, ``linear``). Here
the node that computes the value of each user-level call takes fx's name for that call:
a leaf module's path (a ``torch.nn`` module other than the containers), as fx names its
one ``call_module`` node, else the torch function or method called (``flatten``, even
where export decomposed it to ``view``). That node is the call's last one, or the
multi-result op it selects from (batch norm). Other nodes keep their op's name, without
an in-place ``_`` (``add_`` -> ``add``, as fx names ``out += x``). Suffixes (``_1``,
``_2``) count in graph order, like fx's namespace. Placeholders, attributes and the
output keep their names. (fx's ``truediv`` for ``/`` stays export's ``div``.)
"""

from __future__ import annotations

import builtins
import contextlib
import keyword
import operator
import re
from collections.abc import Iterator

import torch.fx
from torch.export import ExportedProgram

__all__ = ["fx_style_names", "rename_like_fx", "renamed_like_fx"]

_CONTAINERS = (
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
)
_SUFFIX = re.compile(r"_\d+$")
_BUILTINS = set(dir(builtins))


def _is_leaf(module_type) -> bool:
    """fx's default leaf test, on nn_module_stack's type (a class or its dotted name)."""
    name = (
        f"{module_type.__module__}.{module_type.__qualname__}"
        if isinstance(module_type, type)
        else str(module_type)
    )
    if not name.startswith(("torch.nn.", "torch.ao.nn.")):
        return False
    return name.rsplit(".", 1)[-1] not in _CONTAINERS


def _call(node: torch.fx.Node) -> tuple[str, str] | None:
    """(call key, fx's name) of the user-level call that computed `node`: the leaf
    module call (its path), else the torch function or method (``torch_fn``: export's
    record of it, kept through decompositions, so ``flatten`` stays ``flatten`` when it
    became ``aten.view``)."""
    stack = node.meta.get("nn_module_stack")
    if stack:
        key, (path, module_type) = list(stack.items())[-1]
        if path and _is_leaf(module_type):
            return f"module:{key}", _identifier(path)
    fn = node.meta.get("torch_fn")
    if fn and fn[0]:
        return f"fn:{fn[0]}", _op_name(str(fn[0]))
    return None


def _identifier(text: str) -> str:
    name = re.sub(r"\W", "_", text)
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = f"_{name}"
    return name


def _op_name(name: str) -> str:
    base = _SUFFIX.sub("", name)
    if base.endswith("_") and not base.endswith("__") and len(base) > 1:
        base = base[:-1]  # an in-place op's name (relu_, add_)
    return base


def _producer(node: torch.fx.Node, key: str) -> torch.fx.Node:
    """The node that computes `node`'s value: through ``getitem`` of a multi-result op
    of the same call (batch norm's ``_native_batch_norm_legit...``, max pool's
    ``..._with_indices``), whose IR op is the one the value comes from."""
    while node.target is operator.getitem and isinstance(node.args[0], torch.fx.Node):
        source = node.args[0]
        call = _call(source)
        if call is None or call[0] != key:
            break
        node = source
    return node


def fx_style_names(graph: torch.fx.Graph) -> dict[str, str]:
    """The fx-style name of each call_function node of `graph`: {export name: new}."""
    calls = [n for n in graph.nodes if n.op == "call_function"]
    last: dict[str, torch.fx.Node] = {}
    for n in calls:
        if (call := _call(n)) is not None:
            last[call[0]] = n
    # the node that carries each call's value is named after the call
    named = {_producer(n, key): _call(n)[1] for key, n in last.items()}
    # fx never shadows a builtin (sum -> sum_1) or reuses a placeholder's name
    used = {n.name for n in graph.nodes if n.op != "call_function"} | _BUILTINS
    counts: dict[str, int] = {}
    names = {}
    for n in calls:
        base = named.get(n) or _op_name(n.name)
        name, i = base, counts.get(base, 0)
        while name in used:
            i += 1
            name = f"{base}_{i}"
        counts[base] = i
        used.add(name)
        names[n.name] = name
    return names


def _apply(ep: ExportedProgram, names: dict[str, str]) -> None:
    by_name = {n.name: n for n in ep.graph.nodes}
    # two passes through temporary names: a new name may be another node's old one
    for i, old in enumerate(names):
        by_name[old].name = f"__cuvil_rename_{i}"
    for old, new in names.items():
        by_name[old].name = new
    for spec in ep.graph_signature.output_specs:
        arg_name = getattr(spec.arg, "name", None)
        if arg_name in names:
            spec.arg.name = names[arg_name]
    ep.graph_module.recompile()


def rename_like_fx(ep: ExportedProgram) -> ExportedProgram:
    """`ep`, its nodes renamed in place with fx-style names (module docstring)."""
    _apply(ep, fx_style_names(ep.graph))
    return ep


@contextlib.contextmanager
def renamed_like_fx(ep: ExportedProgram, restore: bool) -> Iterator[ExportedProgram]:
    """`ep` with fx-style node names; with `restore` (an ExportedProgram a caller gave:
    nothing a user passed in is changed) its own names come back afterwards."""
    names = fx_style_names(ep.graph)
    _apply(ep, names)
    try:
        yield ep
    finally:
        if restore:
            _apply(ep, {new: old for old, new in names.items()})
