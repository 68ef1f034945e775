"""Classification: turns a failed triage record into evidence signals, scores the
PATTERNS table, and walks the def-use graph for the root cause."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from .astbits import param_kind
from .candidates import _forward_class, _len_args, _operand_names, add_candidates
from .categories import CATEGORIES
from .evidence import (
    BUILTIN_INPUTS,
    _chain,
    _drafted,
    _files,
    _record_signals,
    _user_roots,
    code_stack,
)
from .failing import _context_signals, _facts_at, _failing, _forward_line
from .patterns import PATTERNS
from .rootcause import Candidate, DefUseGraph, flow_facts, rank_roots

__all__ = ["Diagnosis", "classify", "probabilities", "stated", "TEMPERATURE"]


TEMPERATURE = 1.8  # softmax temperature, fitted by benchmarks/calibrate_triage.py


SHRINK = 0.06  # uniform share of the confidence, fitted with TEMPERATURE


# The stated confidence of the answer: how often first-sight answers with as much
# evidence were right (benchmarks/calibrate_triage.py fits both on the first-sight
# rows of the last ten sets measured: the classifier improves from set to set): a top
# score below CONF_SPLIT gets the first level, at or above it the second.
CONF_SPLIT = 3.5
CONF_LEVELS = (0.62, 0.91)


UNKNOWN = "unknown"


MIN_SCORE = 1.0  # below this no category is claimed: the result is `unknown`


OTHER_MASS = 1.0  # weight of "none of the voted categories" (a score-0 alternative)


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
    lengths = graph.walk_uses(start, _len_args(start)) if sized is not None else {}
    signals |= {f"lenarg:{f}" for f in flow_facts(graph, lengths, tensors)}
    # (the flow, the assignments allowed between the line and the parameter)
    flows = {"near": (near, 1), "operand": (operand, 0), "lenarg": (lengths, 0)}
    signals |= _fed_signals(graph, cls, record.get("inputs") or [], flows)
    return start, paths


def _fed_signals(graph: DefUseGraph, cls, inputs: list[dict], flows: dict) -> set:
    """`<flow>:fed-container` / `<flow>:fed-builtin`: the flow reaches a root forward()
    parameter the user passed a list, tuple or dict / any built-in non-tensor (a
    number, a string, None...), which fx traces as one Proxy. An operand or len()
    argument must be the parameter itself (`len(var_names)`; `obs = obs_dict["obs"]`
    then `len(obs.shape)` is a tensor's size)."""
    kinds = {k: i.get("container") or i["type"] for k, i in graph.bound(cls, inputs)}
    # a container default left unfed (`hx=(None, None, None)`): fx traces all of it,
    # and what is taken out of it, as Proxies: an operand from it by any path
    unfed = graph.forward_params(cls)[len(kinds) :]
    out = {
        "operand:unfed-container"
        for k in flows["operand"][0].keys() & set(unfed)
        if "param-container" in graph.facts(k) and not param_kind(graph.param(k))
    }
    for name, (flow, most) in flows.items():
        hit = [k for k in flow.keys() & kinds.keys() if _hops(graph, flow[k]) <= most]
        hit = [kinds[k] for k in hit]
        out |= {f"{name}:fed-container" for k in hit if k in _LISTS}
        out |= {f"{name}:fed-builtin" for k in hit if k in BUILTIN_INPUTS}
    return out


_LISTS = ("list", "tuple", "dict")

SEARCH_FACTS = ("state-write",)  # read from every searched line: search:<fact>


def _any_fact(graph: DefUseGraph, paths: dict, fact: str) -> bool:
    return any(fact in graph.facts(k) for k in paths)


def _hops(graph: DefUseGraph, path: list) -> int:
    """Def-use edges on `path` that compute a value (not a parameter's binding)."""
    return sum(graph.param(k) is None for k in path[1:])


def _roots(record, graph: DefUseGraph, start, paths: dict, category: str, signals=()):
    if start is None:
        return []
    extra: dict = {}
    add_candidates(record, graph, start, paths, extra, category, set(signals))
    return rank_roots(graph, start, paths, category, extra=extra)


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
