"""Classification: turns a failed triage record into evidence signals, scores the
PATTERNS table, and walks the def-use graph for the root cause."""

from __future__ import annotations

import ast
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from .categories import CATEGORIES
from .evidence import _chain, _drafted, _files, _record_signals, _user_roots, code_stack
from .failing import (
    _context_signals,
    _facts_at,
    _failing,
    _forward_line,
    _from_where,
    forward_return,
    output_refused,
    type_guard,
)
from .linefacts import shape_bases
from .patterns import PATTERNS
from .rootcause import Candidate, DefUseGraph, flow_facts, rank_roots
from .source import _header, index_file, names_in

__all__ = ["Diagnosis", "classify", "probabilities", "stated", "TEMPERATURE"]


TEMPERATURE = 2.0  # softmax temperature, fitted by benchmarks/calibrate_triage.py


SHRINK = 0.07  # uniform share of the confidence, fitted with TEMPERATURE


# The stated confidence of the answer: how often first-sight answers with as much
# evidence were right (benchmarks/calibrate_triage.py fits both on the first-sight
# rows): a top score below CONF_SPLIT gets the first level, at or above it the second.
CONF_SPLIT = 3.5
CONF_LEVELS = (0.54, 0.85)


UNKNOWN = "unknown"


MIN_SCORE = 1.0  # below this no category is claimed: the result is `unknown`


OTHER_MASS = 1.0  # weight of "none of the voted categories" (a score-0 alternative)


_PARAM_CATEGORIES = {"non-tensor-argument"}


@dataclass
class Diagnosis:
    category: str
    confidence: float
    alternatives: list[tuple[str, float]]
    failing: tuple[str, int] | None
    roots: list[Candidate]
    signals: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def hint(self) -> str:
        return CATEGORIES[self.category].hint


def classify(record: dict) -> Diagnosis:
    """The diagnosis of a record whose status is `failed`."""
    chain, user = _chain(record), _user_roots(record)
    signals = _record_signals(record, chain, user)
    graph = DefUseGraph(_files(record, chain, user))
    graph.add_stack(code_stack(chain, user) or code_stack(_drafted(record), user))
    start, paths = _locate(record, chain, user, graph, signals)
    scores, evidence = _score(signals)
    # ties go to the category with the more specific evidence (the pattern with more
    # conditions, torch's structured fields over message words), not to table order
    ranked = sorted(scores, key=lambda c: (scores[c], evidence[c]), reverse=True)
    probs = stated(scores, ranked[0])
    category = ranked[0] if scores[ranked[0]] >= MIN_SCORE else UNKNOWN
    if category == UNKNOWN:  # nothing strong: say so, with the guesses and evidence
        guess = _guess(signals, scores, ranked)
        roots = _roots(record, graph, start, paths, guess, signals)
        alts = [(guess, round(probs.get(guess, 0.0), 3))]
        return Diagnosis(UNKNOWN, 0.0, alts, start, roots, sorted(signals), scores)
    roots = _roots(record, graph, start, paths, category, signals)
    alts = [(c, probs[c]) for c in ranked[1:3] if scores[c] > 0]
    return Diagnosis(
        category, round(probs[category], 3), alts, start, roots, sorted(signals), scores
    )


def _guess(signals: set[str], scores: dict, ranked: list[str]) -> str:
    """The best weak category, else where it raised: Cuvil's code or the tracer's."""
    if scores[ranked[0]] > 0:
        return ranked[0]
    return (
        "compiler-internal-error" if "raise:cuvil" in signals else "capture-limitation"
    )


def _locate(record, chain, user, graph: DefUseGraph, signals: set[str]):
    """The failing line and the lines its value came from (adds ast:/flow: signals).
    Without a failing line, every line of the model is a candidate."""
    start = _failing(record, chain, user, list(graph.files.values()))
    if start is None:
        start = _forward_line(record)
        paths = graph.search((record.get("model") or {}).get("class"))
        signals.add("where:unknown")
        # what the model's code does anywhere (forward() writing module state)
        signals |= {f"search:{f}" for f in SEARCH_FACTS if _any_fact(graph, paths, f)}
    else:
        start = graph.key(start)
        paths = graph.walk_back(start)
        signals |= {f"ast:{f}" for f in _facts_at(start)} | _context_signals(start)
    cls = _forward_class(record, graph)
    tensors = graph.tensor_params(cls, record.get("inputs") or [])
    signals |= {f"flow:{f}" for f in flow_facts(graph, paths, tensors)}
    # the value's direct defs; a parameter passes its argument on unchanged, so the
    # argument a caller bound to it is as near (`f(x.shape[:-1])` -> `if not dims:`)
    near = {k: p for k, p in paths.items() if len(p) > 1 and _hops(graph, p) <= 1}
    signals |= {f"near:{f}" for f in flow_facts(graph, near, tensors)}
    # where the failing line's operands came from, along def-use edges only: the
    # tensors whose size it reads (`mask` in `len(mask.shape[2:])`) and the names a
    # branch tests (an unfed Optional there, not anywhere upstream)
    sized = _operand_names(start) if "where:unknown" not in signals else set()
    operand = graph.walk_uses(start, sized)
    signals |= {f"operand:{f}" for f in flow_facts(graph, operand, tensors)}
    return start, paths


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
    # what a `*splat` iterates (`zeros(1, *dilation_)`): fx fails iterating that
    tests += [n.value for p in parts for n in ast.walk(p) if isinstance(n, ast.Starred)]
    return shape_bases(parts).union(*map(names_in, tests))


SEARCH_FACTS = ("state-write",)  # read from every searched line: search:<fact>


def _any_fact(graph: DefUseGraph, paths: dict, fact: str) -> bool:
    return any(fact in graph.facts(k) for k in paths)


def _hops(graph: DefUseGraph, path: list) -> int:
    """Def-use edges on `path` that compute a value (not a parameter's binding)."""
    return sum(graph.param(k) is None for k in path[1:])


UNREACHED_PARAM = 2.0  # an unfed parameter the failing value does not come from


OWN_FORWARD = 1.0  # a parameter of the captured model's forward() the value came from


DECORATOR = 2.0  # a decorator of the failing function, when torch.fx broke on it


def _roots(record, graph: DefUseGraph, start, paths: dict, category: str, signals=()):
    if start is None:
        return []
    extra = {}
    if category in _PARAM_CATEGORIES:  # the fix is in forward()'s signature
        own = graph.forward_params(_forward_class(record, graph))
        for k in own:  # the captured model's parameters over other forward()s'
            if k in paths:
                extra[k] = OWN_FORWARD
        unfed = own[len(record.get("inputs", [])) :]
        # a wrapper's **kwargs Proxy (a decorator's, a library's) is forward()'s own
        kwargs_broke = {"msg:proxy-setitem", "msg:proxy-iter"} & set(signals)
        for k in unfed:
            if k in paths:
                continue
            paths[k] = [start, k]
            kwargs = "param-kwargs" in graph.facts(k)
            extra[k] = 0.0 if kwargs and kwargs_broke else -UNREACHED_PARAM
    if category == "unsupported-python-construct":
        _type_guard_roots(record, graph, start, paths, extra)
    if "msg:input-not-tensor" in signals:  # the example input that is no tensor
        for fn in graph.funcs:
            if fn.name == "example_inputs" and fn.returns():
                key = graph.key((fn.file, fn.returns()[-1].line))
                paths.setdefault(key, [start, key])
    if category == "unsupported-io-type" and output_refused(_chain(record)):
        ret = forward_return(record, list(graph.files.values()))
        if ret:  # the value is built elsewhere, but forward() is what returns it
            key = graph.key(ret)
            paths.setdefault(key, [start, key])
            extra[key] = extra.get(key, 0.0) + FORWARD_RETURN
    if category == "unsupported-io-type" and not output_refused(_chain(record)):
        _input_root(record, graph, start, paths, extra)
    if record.get("origin"):  # the eager replay found the op's own line: the call
        where = _from_where(record, _chain(record), (), [])  # export named stays one
        if where:
            key = graph.key(where)
            paths.setdefault(key, [start, key])
            extra[key] = extra.get(key, 0.0) + REFUSED_CALL
    if "model:instance-forward" in signals and category == "capture-limitation":
        _forward_assign_roots(graph, start, paths, extra)
    if category in ("shape-mismatch", "dtype-mismatch") and "eager:fail" in signals:
        _wrong_input_root(record, graph, start, paths, extra)
    if {"msg:dyn-spec", "msg:dyn-input-not-tensor"} & set(signals):
        _spec_root(record, graph, start, paths, extra)
    _boundary_root(record, graph, start, paths, extra)
    for key in graph.decorators(start):  # `@can_return_tuple` over forward()
        paths.setdefault(key, [start, key])
        extra[key] = DECORATOR if category == "capture-limitation" else -DECORATOR
    return rank_roots(graph, start, paths, category, extra=extra)


SPEC = 3.0  # the dynamic_shapes spec export refused (the capture's argument)


def _input_root(record, graph: DefUseGraph, start, paths: dict, extra: dict):
    """A non-tensor among the inputs: the line of example_inputs() that builds it
    (`dt = 0.1` for `return (x, dt)`), else the return line itself."""
    odd = [i for i, k in enumerate(record.get("inputs") or []) if k["type"] != "Tensor"]
    _example_lines(graph, odd, start, paths, extra, SPEC, with_return=True)


REFUSED_CALL = 3.0  # forward()'s line the refused op was made under (Cuvil's `where`)


FORWARD_ASSIGN = 3.0  # where forward was set on the instance


def _forward_assign_roots(graph: DefUseGraph, start, paths: dict, extra: dict):
    """`self.forward = module.forward`, `setattr(m, "forward", f)`: the lines that
    replaced the forward torch.fx traces from the class."""
    for fn in graph.funcs:
        for stmt in fn.stmts:
            if "forward-assign" in graph.facts((stmt.file, stmt.line)):
                key = graph.key((stmt.file, stmt.line))
                paths.setdefault(key, [start, key])
                extra[key] = extra.get(key, 0.0) + FORWARD_ASSIGN


WRONG_INPUT = 2.0  # the example input a model that fails eagerly was fed


def _wrong_input_root(record, graph: DefUseGraph, start, paths: dict, extra: dict):
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
    _example_lines(graph, nearest, start, paths, extra, WRONG_INPUT)


def _example_lines(graph, which, start, paths, extra, bonus, with_return=False):
    """The lines of example_inputs() that build its `which` returned items (and its
    `return` line itself when `with_return`)."""
    for fn in graph.funcs if which else ():
        if fn.name != "example_inputs" or not fn.returns():
            continue
        ret = fn.returns()[-1]
        items = getattr(ret.node.value, "elts", None) or []
        lines = [ret.line] if with_return else []
        for i in which:
            item = items[i] if i < len(items) else None
            name = item.id if isinstance(item, ast.Name) else None
            built = [s.line for s in fn.stmts if name in s.defs and s.line < ret.line]
            built = built or [getattr(item, "lineno", ret.line)]
            lines = [*built[-1:], *lines]
        for line in dict.fromkeys(lines):
            key = graph.key((fn.file, line))
            paths.setdefault(key, [start, key])
            extra[key] = extra.get(key, 0.0) + bonus


def _spec_root(record, graph: DefUseGraph, start, paths: dict, extra: dict):
    """export refused the dynamic_shapes spec itself: the model file's
    `DYNAMIC_SHAPES = ...` or `def dynamic_shapes()` is the line to change."""
    ix = index_file(record.get("file") or "")
    for node in ix.tree.body if ix else []:
        names = [getattr(t, "id", "") for t in getattr(node, "targets", [])]
        if "DYNAMIC_SHAPES" in names or getattr(node, "name", "") == "dynamic_shapes":
            key = graph.key((ix.path, node.lineno))
            paths.setdefault(key, [start, key])
            extra[key] = extra.get(key, 0.0) + SPEC


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
        key = graph.key(ours[-1])
        paths.setdefault(key, [start, key])
        extra[key] = extra.get(key, 0.0) + BOUNDARY


FORWARD_RETURN = 2.0  # forward()'s return, when an output is what was refused


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


# ---- scoring ------------------------------------------------------------------------
_STRUCTURED = ("exc:", "err:", "gb:", "fake-op", "op:", "raise:", "guard:")


def _score(signals: set[str]) -> tuple[dict[str, float], dict[str, float]]:
    """(pattern score, specificity of its best evidence) per category."""
    scores = defaultdict(float, {c: 0.0 for c in CATEGORIES if c != UNKNOWN})
    evidence = defaultdict(float)
    for p in PATTERNS:
        if p.signals <= signals and not (p.unless & signals):
            scores[p.category] += p.weight
            specific = len(p.signals) + 0.5 * sum(
                s.startswith(_STRUCTURED) for s in p.signals
            )
            evidence[p.category] = max(evidence[p.category], specific)
    return dict(scores), evidence


def probabilities(scores: dict[str, float], temperature: float) -> dict[str, float]:
    return _softmax(scores, temperature)


def calibrated(
    scores: dict[str, float],
    temperature: float | None = None,
    shrink: float | None = None,
) -> dict[str, float]:
    """The confidence triage states: the softmax mixed with a uniform share `shrink`
    (what failures unlike the development part leave to another category). Both knobs
    are fitted by benchmarks/calibrate_triage.py on first-sight scores."""
    shrink = SHRINK if shrink is None else shrink
    probs = _softmax(scores, temperature)
    k = len(CATEGORIES) - 1  # every category but unknown
    return {c: (1 - shrink) * p + shrink / k for c, p in probs.items()}


def stated(
    scores: dict[str, float],
    best: str | None = None,
    split: float | None = None,
    levels: tuple[float, float] | None = None,
) -> dict[str, float]:
    """The probabilities triage states: its answer `best` (a top score) gets the level
    of its evidence bucket, the other categories share the rest as `calibrated` weighs
    them; with no answer (top below MIN_SCORE) `calibrated` as it is."""
    split = CONF_SPLIT if split is None else split
    low, high = CONF_LEVELS if levels is None else levels
    probs = calibrated(scores)
    best = best or max(scores, key=scores.get)
    if scores[best] < MIN_SCORE:
        return probs
    conf = high if scores[best] >= split else low
    rest = sum(p for c, p in probs.items() if c != best) or 1.0
    scale = (1 - conf) / rest
    return {c: conf if c == best else p * scale for c, p in probs.items()}


def _softmax(scores: dict[str, float], temperature: float | None = None) -> dict:
    """Pattern scores -> probabilities; the temperature is the calibration knob."""
    t = temperature or TEMPERATURE
    exp = {c: math.exp(s / t) for c, s in scores.items() if s > 0}
    z = sum(exp.values()) + OTHER_MASS  # the categories no pattern voted for, together
    probs = {c: exp.get(c, 0.0) / z for c in scores}
    silent = [c for c in scores if c not in exp]
    for c in silent:
        probs[c] = OTHER_MASS / z / len(silent)
    return probs
