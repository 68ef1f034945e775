"""Classification: turns a failed triage record into evidence signals, scores the
PATTERNS table, and walks the def-use graph for the root cause."""

from __future__ import annotations

import ast
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .categories import CATEGORIES
from .patterns import MESSAGE_SIGNALS, PATTERNS, line_facts
from .rootcause import Candidate, DefUseGraph, flow_facts, rank_roots
from .source import FileIndex, _header, index_file

__all__ = ["Diagnosis", "classify", "probabilities", "TEMPERATURE"]

TEMPERATURE = 1.8  # softmax temperature, fitted by benchmarks/calibrate_triage.py
SHRINK = 0.0  # uniform share of the confidence, fitted with TEMPERATURE
UNKNOWN = "unknown"
MIN_SCORE = 1.0  # below this no category is claimed: the result is `unknown`
OTHER_MASS = 1.0  # weight of "none of the voted categories" (a score-0 alternative)
_BUILTIN_INPUTS = {"dict", "list", "tuple", "NoneType", "bool", "int", "float", "str"}
_LIB_MODEL_CODE = re.compile(
    r"/(torch/nn/(?!modules/module\.py)|torch/utils/|"
    r"torch/distributions/|site-packages/(?!torch/))"
)
_PARAM_CATEGORIES = {"non-tensor-argument"}
_WHERE = re.compile(r"^(.+\.py):(\d+)")
_CAUSED_BY = re.compile(r"\(([^()\s]+\.py):(\d+) in (\w+)\)")
_CLASS_IN_MSG = re.compile(
    r"<class '[\w.]*?(\w+)'>|is a (\w+), not a tensor|UserDefinedObjectVariable\((\w+)\)"
)
_TORCH_TARGETS = (
    "torch.",
    "aten.",
    "Tensor.",
    "in-place",
    "slicing",
    "tensor ",
    "_operator.",
    "operator.",
)
_NON_TORCH_TARGETS = ("math.", "numpy.", "np.", "random.", "scipy.")


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
    probs = calibrated(scores)
    # ties go to the category with the more specific evidence (the pattern with more
    # conditions, torch's structured fields over message words), not to table order
    ranked = sorted(scores, key=lambda c: (scores[c], evidence[c]), reverse=True)
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


def _record_signals(record: dict, chain: list[dict], user: tuple[str, ...]) -> set[str]:
    signals = (
        _message_signals(record) | _exception_signals(record) | _io_signals(record)
    )
    signals |= _signature_signals(record)
    signals |= _raise_signals(chain, user) | _op_signals(chain)
    signals.add("eager:ok" if record.get("eager", {}).get("ok") else "eager:fail")
    frontend = record.get("frontend") or "fx"
    signals.add("fe:" + ("export" if frontend.startswith("export") else frontend))
    return signals


def _locate(record, chain, user, graph: DefUseGraph, signals: set[str]):
    """The failing line and the lines its value came from (adds ast:/flow: signals).
    Without a failing line, every line of the model is a candidate."""
    start = _failing(record, chain, user, list(graph.files.values()))
    if start is None:
        start = _forward_line(record)
        paths = graph.search((record.get("model") or {}).get("class"))
        signals.add("where:unknown")
    else:
        start = graph.key(start)
        paths = graph.walk_back(start)
        signals |= {f"ast:{f}" for f in _facts_at(start)} | _context_signals(start)
    signals |= {f"flow:{f}" for f in flow_facts(graph, paths)}
    near = {k: p for k, p in paths.items() if len(p) == 2}  # the value's direct defs
    signals |= {f"near:{f}" for f in flow_facts(graph, near)}
    return start, paths


UNREACHED_PARAM = 2.0  # an unfed parameter the failing value does not come from
DECORATOR = 2.0  # a decorator of the failing function, when torch.fx broke on it


def _roots(record, graph: DefUseGraph, start, paths: dict, category: str, signals=()):
    if start is None:
        return []
    extra = {}
    if category in _PARAM_CATEGORIES:  # the fix is in forward()'s signature
        cls = (record.get("model") or {}).get("class")
        unfed = graph.forward_params(cls)[len(record.get("inputs", [])) :]
        # a wrapper's **kwargs Proxy (a decorator's, a library's) is forward()'s own
        kwargs_broke = {"msg:proxy-setitem", "msg:proxy-iter"} & set(signals)
        for k in unfed:
            if k in paths:
                continue
            paths[k] = [start, k]
            kwargs = "param-kwargs" in graph.facts(k)
            extra[k] = 0.0 if kwargs and kwargs_broke else -UNREACHED_PARAM
    for key in graph.decorators(start):  # `@can_return_tuple` over forward()
        paths.setdefault(key, [start, key])
        extra[key] = DECORATOR if category == "capture-limitation" else -DECORATOR
    return rank_roots(graph, start, paths, category, extra=extra)


# ---- evidence ----------------------------------------------------------------------
def _chain(record: dict) -> list[dict]:
    """The exceptions to read frames from: eager's when the model fails eagerly."""
    eager = record.get("eager") or {}
    if not eager.get("ok") and eager.get("error"):
        capture = record["error"]["chain"]
        if _unrelated(eager["error"]["chain"], capture):  # e.g. a C++ op failing to
            return capture + eager["error"]["chain"]  # load later in the eager run
        return eager["error"]["chain"] + capture
    return (record.get("error") or {}).get("chain", [])


def _unrelated(eager: list[dict], capture: list[dict]) -> bool:
    """Eager failed with an error the capture never met, and the capture's own error
    has frames in the model's code: then the capture's error is the one to read."""
    heads = {message_head(e["message"]) for e in capture}
    if any(message_head(e["message"]) in heads for e in eager):
        return False
    return any(f.get("user") or _is_code(f, ()) for e in capture for f in e["frames"])


def _all_exceptions(record: dict) -> list[dict]:
    eager = (record.get("eager") or {}).get("error") or {}
    return (record.get("error") or {}).get("chain", []) + eager.get("chain", [])


def _message_signals(record: dict) -> set[str]:
    """Regexes over each message's own head (message_head), never over the source
    lines, overload listings or graph dumps torch appends below it."""
    heads = [message_head(e["message"]) for e in _all_exceptions(record)]
    return {f"msg:{s}" for rx, s in MESSAGE_SIGNALS if any(rx.search(h) for h in heads)}


_HEAD_LINES = 2
_NOT_HEAD = re.compile(
    r"^\s*(\*|File \"|\^|~|While executing|Original traceback|Traceback|from user "
    r"code|graph\(|%\w+ :|For more information|Set TORCH|Explanation:|Hint:|"
    r"Developer debug context|For C\+\+ stack|Exception raised from)"
)


def message_head(message: str) -> str:
    """The first lines of a message that are its own words: up to the first overload
    listing (` * (Tensor ...)`), quoted source or stack line, or graph dump."""
    head = []
    for line in message.strip().splitlines():
        if _NOT_HEAD.match(line) or len(head) == _HEAD_LINES:
            break
        if line.strip():
            head.append(line.strip())
    return "\n".join(head)


def _exception_signals(record: dict) -> set[str]:
    """The exception types (with their bases: a GuardOnDataDependentSymNode is a
    RuntimeError too) and torch's own structured fields: dynamo's UserError kind
    (`err:DYNAMIC_CONTROL_FLOW`), its graph-break type (`gb:data-dependent-branching`)
    and the op a fake-tensor error names (`fake-op`)."""
    out = set()
    for e in _all_exceptions(record):
        out |= {f"exc:{t}" for t in [e["type"], *e.get("bases", [])]}
        fields = e.get("fields") or {}
        if fields.get("error_type"):
            out.add(f"err:{fields['error_type']}")
        if fields.get("gb_type"):
            out.add(
                "gb:" + re.sub(r"[^a-z0-9]+", "-", fields["gb_type"].lower()).strip("-")
            )
        if fields.get("func"):
            out.add("fake-op")
    return out


def _io_signals(record: dict) -> set[str]:
    kinds = {i["type"] for i in record.get("inputs", [])} - {"Tensor"}
    out = {"io:container-input"} if kinds & _BUILTIN_INPUTS else set()
    return out | ({"io:non-tensor-input"} if kinds - _BUILTIN_INPUTS else set())


def _signature_signals(record: dict) -> set[str]:
    """torch.fx turns every forward() parameter into a Proxy, fed or not."""
    if record.get("frontend") != "fx":
        return set()
    params = ((record.get("model") or {}).get("forward") or {}).get("params", [])
    unfed = params[len(record.get("inputs", [])) :]
    out = (
        {"sig:kwargs-traced"}
        if any(p["kind"] == "VAR_KEYWORD" for p in params)
        else set()
    )
    if any(p["default"] is not None or p["kind"] == "VAR_KEYWORD" for p in unfed):
        out.add("sig:defaults-traced")
    return out


def _user_roots(record: dict) -> tuple[str, ...]:
    """The model file's folder, and the top-level package of the model class (so a
    model in an installed package, e.g. transformers, counts as user code)."""
    files = (record.get("file"), (record.get("model") or {}).get("file"))
    return tuple({str(_package_root(Path(f))) + "/" for f in files if f})


def _package_root(file: Path) -> Path:
    folder = file.parent
    while (folder / "__init__.py").exists() and (
        folder.parent / "__init__.py"
    ).exists():
        folder = folder.parent
    return folder


def _is_user(frame: dict, user: tuple[str, ...]) -> bool:
    return bool(frame.get("user")) or (
        not frame.get("cuvil") and frame["file"].startswith(user)
    )


# installed packages that are the machinery, not model code: a frame in any other
# package (transformers, torchvision, timm...) is read like the user's own code
INFRA_PACKAGES = frozenset(
    "torch functorch torchgen sympy numpy typing_extensions cuvil cuvil_debug "
    "_pytest pluggy networkx llvmlite optree filelock fsspec jinja2 packaging "
    "safetensors huggingface_hub tqdm regex".split()
)


def _is_code(frame: dict, user: tuple[str, ...]) -> bool:
    """The user's code or a model library's (the lines a root cause can be on)."""
    package = frame.get("package")
    return _is_user(frame, user) or bool(package and package not in INFRA_PACKAGES)


def _frames(exc: dict) -> list[dict]:
    """The traceback's frames, then the traced code's own (dynamo's real_stack: under
    strict export and dynamo the traceback holds only torch's frames)."""
    return exc["frames"] + exc.get("user_stack", [])


def _drafted(record: dict) -> list[dict]:
    """draft_export's failures (collect._draft) as frame holders like exceptions."""
    return [
        {"frames": d["frames"], "message_frames": []} for d in record.get("draft") or []
    ]


def code_stack(chain: list[dict], user: tuple[str, ...]) -> list[tuple[str, int]]:
    """The code frames of the first exception that has any, outermost first."""
    for exc in chain:
        frames = [(f["file"], f["line"]) for f in _frames(exc) if _is_code(f, user)]
        if frames:
            return frames
    return []


def _op_signals(chain: list[dict]) -> set[str]:
    """What the unsupported op is: a torch op, a numpy/math call, or a user object."""
    targets = [e["target"] for e in chain if e.get("target")]
    if not targets:
        return set()
    t = targets[0]
    if t.startswith(_NON_TORCH_TARGETS):
        return {"op:non-torch"}
    last = t.rsplit(".", 1)[-1]
    if not t.startswith(_TORCH_TARGETS) and last[:1].isupper() and "torch" not in t:
        return {"op:user-object"}
    return {"op:torch"}


def _raise_signals(chain: list[dict], user: tuple[str, ...]) -> set[str]:
    if not chain:
        return set()
    frames = chain[-1]["frames"]
    last_user = max((i for i, f in enumerate(frames) if _is_user(f, user)), default=-1)
    below = frames[last_user + 1 :]
    out = set()
    if last_user >= 0 and any(_LIB_MODEL_CODE.search(f["file"]) for f in below):
        out.add("raise:lib")
    if (
        frames
        and frames[-1].get("cuvil")
        and not chain[-1]["module"].startswith("cuvil")
    ):
        out.add("raise:cuvil")
    return out


def _files(record: dict, chain: list[dict], user: tuple[str, ...]) -> list[FileIndex]:
    paths = {
        f["file"]
        for e in chain + _drafted(record)
        for f in _frames(e) + e["message_frames"]
        if _is_code(f, user)
    }
    paths |= {
        p for p in (record.get("file"), (record.get("model") or {}).get("file")) if p
    }
    return [ix for ix in map(index_file, sorted(paths)) if ix is not None]


# ---- the failing line --------------------------------------------------------------
def _failing(record, chain, user, files) -> tuple[str, int] | None:
    for finder in (
        _from_frames,
        _from_draft,
        _from_where,
        _from_message_frames,
        _from_io,
        _from_attribute,
        _from_target,
    ):
        found = finder(record, chain, user, files)
        if found:
            return found
    return None


def _forward_line(record) -> tuple[str, int] | None:
    fwd = (record.get("model") or {}).get("forward") or {}
    return (fwd["file"], fwd["line"]) if fwd.get("file") else None


def _from_frames(record, chain, user, files):
    stack = code_stack(chain, user)
    return stack[-1] if stack else None


def _from_draft(record, chain, user, files):
    """Where torch.export.draft_export saw the guard (or data-dependent value) added:
    the line a constraint violation's message does not name."""
    stack = code_stack(_drafted(record), user)
    return stack[-1] if stack else None


def _from_where(record, chain, user, files):
    for exc in chain:
        m = _WHERE.match(exc.get("where") or "")
        if m:
            return str(Path(m.group(1)).resolve()), int(m.group(2))
    return None


def _from_message_frames(record, chain, user, files):
    """`File "m.py", line 3` in an FX stack trace, `(m.py:3 in forward)` from export."""
    for exc in chain:
        frames = [f for f in exc["message_frames"] if _is_code(f, user)]
        frames += [
            {"file": str(Path(f).resolve()), "line": int(n)}
            for f, n, _ in _CAUSED_BY.findall(exc["message"])
            if Path(f).exists() and str(Path(f).resolve()).startswith(user)
        ]
        if frames:
            return frames[-1]["file"], frames[-1]["line"]
    return None


_ATTR_IN_MSG = re.compile(
    r"(?:Constant|[Aa]ttribute|[Bb]uffer|[Pp]arameter) '?((?:\w+\.)*\w+)'? (?:is|was) mutated"
)


def _from_attribute(record, chain, user, files):
    """`Constant layer.last_hidden is mutated`: the line writing self.last_hidden."""
    for e in chain:
        for path in _ATTR_IN_MSG.findall(message_head(e["message"])):
            name = "self." + path.rsplit(".", 1)[-1]
            hits = [
                (ix.path, st.line, "inplace" in line_facts(st.node, _header(st.node)))
                for ix in files
                for st in ix.stmts.values()
                if st.func and st.func.name != "__init__" and name in st.uses | st.defs
            ]
            if hits:
                file, line, _ = max(hits, key=lambda h: h[2])
                return file, line
    return None


def _from_target(record, chain, user, files):
    """An op or class named in the error -> the user line that calls it."""
    names = [e["target"].rsplit(".", 1)[-1] for e in chain if e.get("target")]
    for e in chain:
        names += [next(g for g in m if g) for m in _CLASS_IN_MSG.findall(e["message"])]
    for name in names:
        for ix in files:
            for stmt in ix.stmts.values():
                if stmt.func and (
                    name in stmt.calls
                    or f"self.{name}" in stmt.calls
                    or _calls_method(stmt, name)
                ):
                    return ix.path, stmt.line
    return None


def _calls_method(stmt, name: str) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == name
        for p in _header(stmt.node)
        for n in ast.walk(p)
    )


def _from_io(record, chain, user, files):
    """`input 'mask' ...` -> the parameter's line; `output 1 ...` -> forward's return."""
    text = " ".join(e["message"] for e in chain)
    fwd = _forward(record, files)
    if fwd is None:
        return None
    m = re.search(r"(?:input|argument) '\**(\w+)'", text)
    if m:
        param = next((p for p in fwd.params if p.arg == m.group(1)), None)
        return (fwd.file, param.lineno) if param else None
    if re.search(r"output \d+ is a", text) and fwd.returns():
        return fwd.file, fwd.returns()[-1].line
    return None


def _forward(record, files):
    model = record.get("model") or {}
    for ix in files:
        for fn in ix.funcs:
            if fn.name == "forward" and fn.cls == model.get("class"):
                return fn
    return None


def _context_signals(key: tuple[str, int]) -> set[str]:
    """Where the failing line sits: in a `try:` body (`ast:in-try`), or a `raise`
    of the model's own (`raise:user-raise`)."""
    ix = index_file(key[0])
    stmt = ix.stmt_at(key[1]) if ix else None
    if stmt is None:
        return set()
    out = {"raise:user-raise"} if isinstance(stmt.node, ast.Raise) else set()
    for node in ast.walk(ix.tree):
        if isinstance(node, ast.Try) and node.body and node.handlers:
            end = getattr(node.body[-1], "end_lineno", node.body[-1].lineno)
            if node.body[0].lineno <= key[1] <= end:
                out.add("ast:in-try")
                break
    return out


def _facts_at(key: tuple[str, int]) -> set[str]:
    ix = index_file(key[0])
    stmt = ix.stmt_at(key[1]) if ix else None
    return line_facts(stmt.node, _header(stmt.node)) if stmt else set()


# ---- scoring ------------------------------------------------------------------------
_STRUCTURED = ("exc:", "err:", "gb:", "fake-op", "op:", "raise:")


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
