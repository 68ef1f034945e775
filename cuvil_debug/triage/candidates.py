"""Root-cause candidates beyond the failing value's def-use chain: lines a record's
evidence points at (forward()'s unfed parameters and the `is None` tests they slip
through, the example input a model was fed, the dynamic_shapes spec, the line an
eager replay found, a decorator, a type test), each with the score bonus that
rank_roots adds to its facts' weights."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .callees import callee_lines, lifted_state_writes
from .evidence import _chain, _user_roots, code_stack
from .failing import (
    _forward,
    _from_origin,
    _from_where,
    forward_return,
    output_refused,
    type_guard,
)
from .inputs import cast_input, input_lines, sized_input
from .linefacts import shape_bases
from .outputs import output_lines
from .rootcause import DefUseGraph
from .source import _header, index_file, names_in

__all__ = ["add_candidates"]


PARAM_CATEGORIES = {"non-tensor-argument"}


UNREACHED_PARAM = 2.0  # an unfed parameter the failing value does not come from


OWN_FORWARD = 1.0  # a parameter of the captured model's forward() the value came from


NONE_TEST = 5.0  # forward()'s `if p is None:` an unfed parameter slips through


DECORATOR = 2.0  # a decorator of the failing function, when torch.fx broke on it


VALUE_READ_ROOT = 4.0  # the `.tolist()` / `.item()` eager replay found made the symbol


def add_candidates(record, graph: DefUseGraph, start, paths, extra, category, signals):
    """Adds to `paths` (candidate -> its chain) and `extra` (candidate -> bonus)."""
    if category in PARAM_CATEGORIES:  # the fix is in forward()'s signature
        _param_roots(record, graph, start, paths, extra, signals)
    if category == "unsupported-python-construct":
        _type_guard_roots(record, graph, start, paths, extra)
    if "msg:input-not-tensor" in signals:  # the example input that is no tensor
        for fn in graph.funcs:
            if fn.name == "example_inputs" and fn.returns():
                key = graph.key((fn.file, fn.returns()[-1].line))
                paths.setdefault(key, [start, key])
    refused_output = output_refused(_chain(record))
    if category == "unsupported-io-type" and refused_output:
        ret = forward_return(record, list(graph.files.values()))
        if ret:  # the value is built elsewhere, but forward() is what returns it
            _add(graph, start, ret, paths, extra, FORWARD_RETURN)
        _output_value_roots(record, graph, start, paths, extra)
    if category == "unsupported-io-type" and not refused_output:
        _input_root(record, graph, start, paths, extra, signals)
    _replay_roots(record, graph, start, paths, extra, signals)
    if "model:instance-forward" in signals and category == "capture-limitation":
        _forward_assign_roots(graph, start, paths, extra)
    if category in ("shape-mismatch", "dtype-mismatch") and "eager:fail" in signals:
        _wrong_input_root(record, graph, start, paths, extra, category)
        if "self-call" not in graph.facts(start):  # not `self.fc(x)`: the op itself
            _add(graph, start, start, paths, extra, EAGER_FAILING)
    if {"msg:dyn-spec", "msg:dyn-input-not-tensor", "msg:dyn-unequal"} & signals:
        _spec_root(record, graph, start, paths, extra)
    if category == "unsupported-op":
        _module_class_roots(record, graph, start, paths, extra)
    if "msg:fake-constant" in signals:  # a `.data` write first
        for loc, data in lifted_state_writes(graph, _chain(record)):
            _add(graph, start, loc, paths, extra, NAMED_ATTRIBUTE + data)
    if "msg:data-size-op" in signals:  # the stack may stop at the submodule's call
        for loc in callee_lines(graph, start, "data-size"):
            _add(graph, start, loc, paths, extra, CALLEE_DATA_SIZE)
    if "msg:lazy-uninit" in signals:  # build and run the model once before capture
        _factory_root(record, graph, start, paths, extra)
    _plain_list_roots(record, graph, start, paths, extra)
    _boundary_root(record, graph, start, paths, extra)
    for key in graph.decorators(start):  # `@can_return_tuple` over forward()
        paths.setdefault(key, [start, key])
        extra[key] = DECORATOR if category == "capture-limitation" else -DECORATOR


def _add(graph: DefUseGraph, start, loc, paths: dict, extra: dict, bonus: float):
    key = graph.key(loc)
    paths.setdefault(key, [start, key])
    extra[key] = extra.get(key, 0.0) + bonus


def _param_roots(record, graph: DefUseGraph, start, paths, extra, signals):
    """The captured model's forward() parameters the value came from, its unfed
    ones, and the `if p is None:` tests in forward() an unfed one slips through
    (fx's Proxy is not None, so the default the code meant is never taken)."""
    own = graph.forward_params(_forward_class(record, graph))
    for k in own:  # the captured model's parameters over other forward()s'
        if k in paths:
            extra[k] = OWN_FORWARD
    unfed = own[len(record.get("inputs", [])) :]
    cls = _forward_class(record, graph)  # an Optional passed None: the same tests
    unfed += [k for k, i in graph.bound(cls, record.get("inputs") or []) if _none(i)]
    # a wrapper's **kwargs Proxy (a decorator's, a library's) is forward()'s own
    kwargs_broke = {"msg:proxy-setitem", "msg:proxy-iter"} & signals
    if {"msg:proxy-control-flow", "msg:proxy-iter"} & signals:
        _broken_test(graph, start, paths, extra)
    for k in unfed:
        _none_tests(graph, start, k, paths, extra)
        if k in paths:
            continue
        paths[k] = [start, k]
        kwargs = "param-kwargs" in graph.facts(k)
        extra[k] = 0.0 if kwargs and kwargs_broke else -UNREACHED_PARAM


def _none(given: dict) -> bool:
    return given.get("type") == "NoneType"


_TESTS = ast.If | ast.IfExp | ast.Assert  # the statements a Proxy's truth breaks


def _broken_test(graph: DefUseGraph, start, paths, extra) -> None:
    """The failing line, when it is a test of its function's parameter: where fx's
    Proxy for a flag or an Optional took the branch (`if return_state:`)."""
    fn = graph.func_at(start)
    stmt = graph.files[start[0]].stmts.get(start[1]) if fn else None
    if stmt is None or not isinstance(stmt.node, _TESTS):
        return
    if {p.arg for p in fn.params[1:]} & set(stmt.uses):
        _add(graph, start, start, paths, extra, NONE_TEST)


def _none_tests(graph: DefUseGraph, start, param_key, paths, extra) -> None:
    param = graph.param(param_key)
    fn = graph.func_at(param_key)
    for stmt in fn.stmts if fn and param is not None else ():
        is_test = isinstance(stmt.node, _TESTS)
        if (
            is_test
            and param.arg in stmt.uses
            and "is-none-test" in graph.facts((stmt.file, stmt.line))
        ):
            _add(graph, start, (stmt.file, stmt.line), paths, extra, NONE_TEST)
            return  # the first: where the Proxy took the wrong branch


def _replay_roots(record, graph: DefUseGraph, start, paths, extra, signals) -> None:
    """What the eager replay found (collect's replay.op_origins): for a refused op,
    forward()'s call Cuvil's `where` names (export keeps only that frame); for an
    unbacked symbol, the `.tolist()` / `.item()` line that made it."""
    if not record.get("origin"):
        return
    where = _from_where(record, _chain(record), (), [])
    if where:
        _add(graph, start, where, paths, extra, REFUSED_CALL)
    read = _from_origin(record, (), _user_roots(record), [])
    if read and "origin:value-read" in signals:
        _add(graph, start, read, paths, extra, VALUE_READ_ROOT)


def _forward_class(record: dict, graph: DefUseGraph) -> str | None:
    """The class that defines the captured model's forward(): the model's own, or a
    base class's it inherits (a library's shared `forward` taking Optional inputs),
    so the parameters the user fed are known as fed there too."""
    model = record.get("model") or {}
    fwd = model.get("forward") or {}
    for fn in graph.funcs:
        lines = {fn.node.lineno, *(d.lineno for d in fn.node.decorator_list)}
        if (
            fn.name == "forward"
            and fn.file == fwd.get("file")
            and fwd.get("line") in lines
        ):
            return fn.cls
    return model.get("class")


def _operand_names(key) -> set[str]:
    ix = index_file(key[0]) if key else None
    stmt = ix.stmt_at(key[1]) if ix else None
    if stmt is None:
        return set()
    parts = _header(stmt.node)
    tests = [n.test for p in parts for n in ast.walk(p) if isinstance(n, ast.IfExp)]
    if isinstance(stmt.node, ast.If | ast.While | ast.Assert):
        tests.append(stmt.node.test)
    # what a `*splat` iterates (`zeros(1, *dilation_)`): fx fails iterating that,
    # and what an item assignment writes into (`hidden["memory"] = v`)
    tests += [n.value for p in parts for n in ast.walk(p) if isinstance(n, ast.Starred)]
    targets = getattr(stmt.node, "targets", None) or [
        getattr(stmt.node, "target", None)
    ]
    tests += [t.value for t in targets if isinstance(t, ast.Subscript)]
    return shape_bases(parts).union(*map(names_in, tests))


def _len_args(key) -> set[str]:
    """The names `len(...)` takes on the failing line: a tensor's (proxy-iteration)
    or a size's (`len(dims)` of `dims = x.shape[2:]`: dynamic-shape)."""
    ix = index_file(key[0]) if key else None
    stmt = ix.stmt_at(key[1]) if ix else None
    calls = [
        n
        for p in (_header(stmt.node) if stmt else ())
        for n in ast.walk(p)
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "len"
    ]
    return set().union(*(names_in(a) for c in calls for a in c.args))


SPEC = 3.0  # the dynamic_shapes spec export refused (the capture's argument)


BUILT = 1.0  # the line building the refused input, over example_inputs()' return


NAMED_INPUT = 3.0  # Cuvil says an input is no tensor (`input 'x_0' is a float`)


_INPUT_NAMED = re.compile(r"input '(\w+)' is a")


def _input_root(record, graph: DefUseGraph, start, paths, extra, signals) -> None:
    """A non-tensor among the inputs: the line of example_inputs() that builds it
    (`dt = 0.1` for `return (x, dt)`), else the return line itself; the input
    Cuvil's message names (`input 'rev' is a bool`) when it names one (a list of
    tensors before it is no error)."""
    inputs = record.get("inputs") or []
    odd = [i for i, k in enumerate(inputs) if k["type"] != "Tensor"]
    params = [
        graph.param(k) for k in graph.forward_params(_forward_class(record, graph))
    ]
    names = [p.arg for p in params if p is not None]
    said = {
        m.group(1) for e in _chain(record) for m in _INPUT_NAMED.finditer(e["message"])
    }
    named = [i for i in odd if i < len(names) and names[i] in said]
    # Cuvil's message says an input is no tensor: no other line can be the cause
    sure = NAMED_INPUT if said or "msg:input-not-tensor" in signals else 0.0
    _example_lines(graph, named or odd, start, paths, extra, SPEC + BUILT + sure)
    _example_lines(graph, named or odd, start, paths, extra, SPEC + sure, built=False)


REFUSED_CALL = 3.0  # forward()'s line the refused op was made under (Cuvil's `where`)


FORWARD_ASSIGN = 3.0  # where forward was set on the instance


def _forward_assign_roots(graph: DefUseGraph, start, paths: dict, extra: dict):
    """`self.forward = module.forward`, `setattr(m, "forward", f)`: the lines that
    replaced the forward torch.fx traces from the class."""
    for fn in graph.funcs:
        for stmt in fn.stmts:
            if "forward-assign" in graph.facts((stmt.file, stmt.line)):
                _add(graph, start, (stmt.file, stmt.line), paths, extra, FORWARD_ASSIGN)


WRONG_INPUT = 2.0  # the example input a model that fails eagerly was fed


LIBRARY_LAYER = 1.0  # ... more so when it fails inside a library's layer


def _wrong_input_root(record, graph: DefUseGraph, start, paths, extra, category):
    """The model fails eagerly on a size or dtype: the input it was given may be
    what is wrong, so the line of example_inputs() that builds it is a candidate
    (the input whose forward() parameter the failing value came from, the nearest
    one, else the first)."""
    own = graph.forward_params(_forward_class(record, graph))
    n = len(record.get("inputs") or [])
    # the operands whose size the failing line reads (`vec` in `assert
    # mat.shape[-1] == vec.shape[-1]`) say which input, else any value it came from
    operand = graph.walk_uses(start, _operand_names(start))
    for reached in (operand, paths):
        used = sorted(
            (len(reached[k]), i) for i, k in enumerate(own[:n]) if k in reached
        )
        if used:
            break
    nearest = [used[0][1]] if used else [0][:n]  # the fewest def-use edges away
    sized = sized_input(record)  # the message states a size only that input has
    if "dtype" in category:  # the one input whose dtype the user set
        sized = cast_input(graph, n)
    # failing in a library's layer the user only instantiated, the input is what
    # they can change (not the library's __init__ sizes the value flowed from)
    theirs = start[0] != str(Path(record.get("file") or "").resolve())
    bonus = WRONG_INPUT + (LIBRARY_LAYER if theirs else 0.0) + (SIZED if sized else 0)
    _example_lines(graph, sized or nearest, start, paths, extra, bonus)


EAGER_FAILING = 3.0  # the op that failed eagerly, over the __init__ sizes it read


SIZED = 1.0  # the wrong input is the one whose size torch's message states


def _example_lines(graph, which, start, paths, extra, bonus, built=True):
    """The lines of example_inputs() that build its `which` returned items (with
    `built` False: its `return` line instead)."""
    for loc in dict.fromkeys(input_lines(graph, which, built)):
        _add(graph, start, loc, paths, extra, bonus)


def _spec_root(record, graph: DefUseGraph, start, paths: dict, extra: dict):
    """export refused the dynamic_shapes spec itself: the model file's
    `DYNAMIC_SHAPES = ...` or `def dynamic_shapes()` is the line to change."""
    ix = index_file(record.get("file") or "")
    for node in ix.tree.body if ix else []:
        names = [getattr(t, "id", "") for t in getattr(node, "targets", [])]
        if "DYNAMIC_SHAPES" in names or getattr(node, "name", "") == "dynamic_shapes":
            _add(graph, start, (ix.path, node.lineno), paths, extra, SPEC)


BOUNDARY = 1.5  # the model's own last call into a dependency the error came from


def _boundary_root(record, graph: DefUseGraph, start, paths: dict, extra: dict):
    """The failing line is in a dependency of the model's package (tensorly under
    neuralop): the model package's deepest frame, the call into it, is the line its
    author can change."""
    user = _user_roots(record)
    stack = code_stack(_chain(record), user)
    if not stack or start[0].startswith(user):
        return
    ours = [loc for loc in stack if loc[0].startswith(user)]
    if ours:
        _add(graph, start, ours[-1], paths, extra, BOUNDARY)


FORWARD_RETURN = 2.0  # forward()'s return, when an output is what was refused


OUTPUT_ELEMENT = 3.0  # where the refused output itself is built (the name, the element)


_OUTPUT_NAMED = re.compile(r"output (\d+) is a")


def _output_value_roots(record, graph: DefUseGraph, start, paths, extra) -> None:
    """`output 1 is a float64`: the lines of forward() that assign the name its
    returns put at that place of the flattened output (`return (out,), jac`)."""
    said = [_OUTPUT_NAMED.search(e["message"]) for e in _chain(record)]
    index = next((int(m.group(1)) for m in said if m), None)
    fwd = _forward(record, list(graph.files.values())) if index is not None else None
    for loc in output_lines(graph, fwd, index) if fwd else ():
        _add(graph, start, loc, paths, extra, OUTPUT_ELEMENT)


MODULE_CHOICE = 3.0  # a line naming the torch.nn module class Cuvil refused


_REFUSED_MODULE = re.compile(r"unsupported op 'torch\.nn\.modules\.[\w.]*?(\w+)'")


def _module_class_roots(record, graph: DefUseGraph, start, paths, extra) -> None:
    """fx kept a torch.nn module Cuvil does not list as a leaf (`nn.ELU`,
    `norm_op=nn.InstanceNorm2d`): the lines of the model's code that name its class
    are where it was chosen."""
    said = [_REFUSED_MODULE.search(e["message"]) for e in _chain(record)]
    name = next((m.group(1) for m in said if m), None)
    token = re.compile(rf"\b{name}\b") if name else None
    for ix in graph.files.values() if token else ():
        for i, text in enumerate(ix.lines, 1):
            if token.search(text) and not text.lstrip().startswith(
                ("#", "import", "from")
            ):
                _add(graph, start, (ix.path, i), paths, extra, MODULE_CHOICE)


CALLEE_DATA_SIZE = 3.0  # a boolean-mask index in the method the failing line calls


NAMED_ATTRIBUTE = 3.0  # a state write in the class of the submodule export names


FACTORY = 3.0  # the model file's `Model()` return: where the model is built


# strict export naming a parameter it cannot find among the registered ones:
# `self___layers_0___dict_____parameters____weight` / `L__self___convs_0_weight`
_UNREGISTERED = re.compile(r"KeyError: '(?:L__)?self___(\w+?)_\d+_")


def _plain_list_roots(record, graph: DefUseGraph, start, paths, extra) -> None:
    """Submodules kept in a plain Python list (`self.layers = [ESNCell(...)]`) are not
    registered: strict export's parameter names reach them through the list and
    miss. The line that builds the list (an `nn.ModuleList` there) is the root."""
    said = [
        _UNREGISTERED.search(f"{e['type']}: {e['message']}") for e in _chain(record)
    ]
    name = next((m.group(1) for m in said if m), None)
    built = re.compile(rf"\bself\.{name}\s*\+?=\s*(\[|list\()") if name else None
    for ix in graph.files.values() if built else ():
        for i, text in enumerate(ix.lines, 1):
            if built.search(text):
                _add(graph, start, (ix.path, i), paths, extra, NAMED_ATTRIBUTE)


def _factory_root(record, graph: DefUseGraph, start, paths, extra) -> None:
    for fn in graph.funcs:
        if fn.name == "Model" and fn.file == str(
            Path(record.get("file") or "").resolve()
        ):
            for ret in fn.returns():
                _add(graph, start, (fn.file, ret.line), paths, extra, FACTORY)


TYPE_GUARD = 3.0  # the `isinstance(x, Tensor)` test a failing line ran under


_CHECKER = re.compile(r"check|assert|valid|verify", re.I)


def _type_guard_roots(record, graph: DefUseGraph, start, paths: dict, extra: dict):
    """The type test that sent the Proxy down the non-tensor path; when it is a check
    helper's (`KORNIA_CHECK_IS_TENSOR(x)`, `_check_input`), also the call of it."""
    guard = type_guard(start)
    if guard is None:
        return
    key = graph.key(guard)
    paths.setdefault(key, [start, key])
    extra[key] = TYPE_GUARD
    ix = index_file(start[0])
    stmt = ix.stmt_at(start[1]) if ix else None
    stack = code_stack(_chain(record), _user_roots(record))
    if stmt and stmt.func and _CHECKER.search(stmt.func.name) and len(stack) > 1:
        caller = graph.key(stack[-2])
        paths.setdefault(caller, [start, caller])
        extra[caller] = TYPE_GUARD - 0.5
