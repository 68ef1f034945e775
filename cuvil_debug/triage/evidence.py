"""The evidence in a triage record: which exceptions and frames to read, the
signals of messages, exception types and torch's structured fields, inputs, the
forward() signature, and which frames are code (the user's or a model library's)."""

from __future__ import annotations

import ast
import linecache
import re
from pathlib import Path

from .draft import GUARD_SOLVE
from .frames import package_of
from .messages import MESSAGE_SIGNALS
from .replay import VALUE_READ
from .source import FileIndex, index_file

BUILTIN_INPUTS = {"dict", "list", "tuple", "NoneType", "bool", "int", "float", "str"}


_LIB_MODEL_CODE = re.compile(
    r"/(torch/nn/(?!modules/module\.py)|torch/utils/|"
    r"torch/distributions/|site-packages/(?!torch/))"
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


def _record_signals(record: dict, chain: list[dict], user: tuple[str, ...]) -> set[str]:
    signals = (
        _message_signals(record) | _exception_signals(record) | _io_signals(record)
    )
    signals |= _signature_signals(record) | _unfed_guard(record, chain, user)
    if record.get("instance_forward"):  # a forward torch.fx does not trace
        signals.add("model:instance-forward")
    origin = record.get("origin")
    if origin and record.get("origin_op") == VALUE_READ and _is_code(origin[-1], user):
        signals.add("origin:value-read")  # the model's `.tolist()` made the symbol
    signals |= _raise_signals(chain, user) | _op_signals(chain)
    signals.add("eager:ok" if record.get("eager", {}).get("ok") else "eager:fail")
    frontend = record.get("frontend") or "fx"
    signals.add("fe:" + ("export" if frontend.startswith("export") else frontend))
    return signals


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
    return any(_is_code(f, ()) for e in capture for f in e["frames"])


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
    r"Developer debug context|For C\+\+ stack|Exception raised from|hint:)"
)


def _listing(line: str) -> bool:
    """A list of types torch prints after its message (export's supported input
    types: `[<class 'torch.Tensor'>, ...]`), not the message's own words."""
    return line.count("<class '") >= 3


def message_head(message: str) -> str:
    """The first lines of a message that are its own words: up to the first overload
    listing (` * (Tensor ...)`), quoted source or stack line, or graph dump."""
    head = []
    for line in message.strip().splitlines():
        if _NOT_HEAD.match(line) or _listing(line) or len(head) == _HEAD_LINES:
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
        out |= _guard_kind(e)
        # torch's exception for nonzero / masked_select under fake tensors, which
        # Cuvil's refusal of the op names in its hint
        if "DynamicOutputShapeException" in e["message"]:
            out.add("exc:DynamicOutputShapeException")
    return out


def _guard_kind(exc: dict) -> set[str]:
    """What Python asked of a data-dependent value, from the symbolic-shape frames:
    sym_node's guard_bool reached without SymBool.__bool__ is the truth value of a
    tensor (`if t.any():`, `assert valid.all()`), not of a size comparison."""
    funcs = {f["func"] for f in exc["frames"] if f["file"].endswith("sym_node.py")}
    tensor_bool = "guard_bool" in funcs and "bool_" not in funcs
    return {"guard:tensor-bool"} if tensor_bool or _proxy_truth(exc) else set()


_TRUTH_OF_VALUES = re.compile(r"\b(?:_is_all_true|_is_any_true|all|any)\(")


def _proxy_truth(exc: dict) -> bool:
    """The same under fx: Proxy.__bool__ called by torch's own Python (not the
    tracer's) on a line that reduces tensor values to a truth
    (`if not torch._is_all_true(valid):` in torch.distributions' validation)."""
    frames = exc["frames"]
    for caller, f in zip(frames, frames[1:], strict=False):
        if f["func"] == "__bool__" and f["file"].endswith("/torch/fx/proxy.py"):
            path = caller["file"]
            if "/torch/" in path and "/torch/fx/" not in path:
                line = linecache.getline(path, caller["line"])
                return bool(_TRUTH_OF_VALUES.search(line))
    return False


def _io_signals(record: dict) -> set[str]:
    # a namedtuple is a tuple (a container fx traces as one Proxy, export flattens)
    kinds = {i.get("container") or i["type"] for i in record.get("inputs", [])}
    kinds -= {"Tensor"}
    out = {"io:container-input"} if kinds & BUILTIN_INPUTS else set()
    if kinds & {"dict", "list", "tuple"}:  # its leaves are inputs of their own
        out.add("io:container-type")
    return out | ({"io:non-tensor-input"} if kinds - BUILTIN_INPUTS else set())


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


def _unfed_guard(record: dict, chain: list[dict], user: tuple[str, ...]) -> set[str]:
    """fx: the failure is on a path forward() took because of an unfed Optional
    parameter (`if smaps is not None:` with `smaps` a Proxy, not None): passing the
    real value (concrete_args) would have taken the other path."""
    if record.get("frontend") != "fx":
        return set()
    params = ((record.get("model") or {}).get("forward") or {}).get("params", [])
    unfed = {p["name"] for p in params[len(record.get("inputs", [])) :]}
    unfed &= {p["name"] for p in params if p["default"] == "None"}
    for file, line in code_stack(chain, user) if unfed else ():
        ix = index_file(file)
        stmt = ix.stmt_at(line) if ix else None
        if stmt is None or stmt.func is None or stmt.func.name != "forward":
            continue
        for guard in stmt.guards:
            header = ix.stmt_at(guard)
            test = getattr(header.node, "test", None) if header else None
            if test is not None and _none_tested(test) & unfed:
                return {"guard:unfed-optional"}
    return set()


def _none_tested(test: ast.AST) -> set[str]:
    """The names a branch test compares with None (`x is not None`) or tests bare."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Name):
        return {test.id}
    out = set()
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name):
            ops_none = [
                isinstance(op, ast.Is | ast.IsNot)
                and isinstance(c, ast.Constant)
                and c.value is None
                for op, c in zip(node.ops, node.comparators)
            ]
            if any(ops_none):
                out.add(node.left.id)
    return out


def _user_roots(record: dict) -> tuple[str, ...]:
    """The model file's folder, and the top-level package of the model class (so a
    model in an installed package, e.g. transformers, counts as user code); a class
    in a top-level module of its own (`site-packages/rtdl_revisiting_models.py`) gives
    that file, not its folder, which would make every installed package, torch
    included, the user's code."""
    sample, cls = record.get("file"), (record.get("model") or {}).get("file")
    roots = {str(_package_root(Path(sample))) + "/"} if sample else set()
    if cls and package_of(cls) in INFRA_PACKAGES:  # torch.nn.Sequential: not code
        cls = None
    if cls and not any(cls.startswith(r) for r in roots):
        lone = Path(cls).parent.name in _INSTALL_FOLDERS
        roots.add(cls if lone else str(_package_root(Path(cls))) + "/")
    return tuple(roots)


_INSTALL_FOLDERS = ("site-packages", "dist-packages")


def _package_root(file: Path) -> Path:
    folder = file.parent
    while (folder / "__init__.py").exists() and (
        folder.parent / "__init__.py"
    ).exists():
        folder = folder.parent
    return folder


def _is_user(frame: dict, user: tuple[str, ...]) -> bool:
    """The model's own code; torch's frames never are, even where the model's class
    is torch's own (a `torch.nn.Sequential` of library layers)."""
    return bool(frame.get("user")) or (
        not frame.get("cuvil")
        and frame.get("package") not in INFRA_PACKAGES
        and frame["file"].startswith(user)
    )


# installed packages that are the machinery, not model code: a frame in any other
# package (transformers, torchvision, timm...) is read like the user's own code
INFRA_PACKAGES = frozenset(
    "torch functorch torchgen sympy numpy typing_extensions cuvil cuvil_debug "
    "_pytest pluggy networkx llvmlite optree filelock fsspec jinja2 packaging "
    "safetensors huggingface_hub tqdm regex einops einx opt_einsum "
    "torch_einops_utils".split()
)


def _is_code(frame: dict, user: tuple[str, ...]) -> bool:
    """The user's code or a model library's (the lines a root cause can be on)."""
    package = frame.get("package")
    return _is_user(frame, user) or bool(package and package not in INFRA_PACKAGES)


def _frames(exc: dict) -> list[dict]:
    """The traceback's frames, then the traced code's own (dynamo's real_stack: under
    strict export and dynamo the traceback holds only torch's frames)."""
    return exc["frames"] + exc.get("user_stack", [])


def _replayed(record: dict) -> list[dict]:
    """The eager stack of the op a Cuvil error refused (collect's replay.op_origins)
    as a frame holder like an exception."""
    origin = record.get("origin") or []
    return [{"frames": origin, "message_frames": []}] if origin else []


def _drafted(record: dict) -> list[dict]:
    """draft_export's failures (collect._draft) as frame holders like exceptions, the
    ones most like the guard export's error names first (report order breaks ties)."""
    wanted = guard_tokens(" ".join(e["message"] for e in _all_exceptions(record)))
    drafts = record.get("draft") or []
    ranked = sorted(
        range(len(drafts)),
        key=lambda i: -len(guard_tokens(drafts[i]["expr"]) & wanted),
    )
    return [{"frames": drafts[i]["frames"], "message_frames": []} for i in ranked]


# a guard as export prints it (`L['x'].size()[1] % ... != 0`, "specialized it to be a
# constant (8)") and as draft_export does (sympy: `Ne(Mod(2*s53 - 1, s53), 0)`)
_SIZE_SYMBOL = re.compile(r"L\[[^\]]*\](?:\.size\(\)\[\d+\])?|\b[suz]\d+\b")
_GUARD_PARTS = re.compile(r"\d+|%|Mod|==|Eq|!=|Ne|//|floor|<=|>=|Max|Min|<|>")
_GUARD_WORDS = {"%": "Mod", "==": "Eq", "!=": "Ne", "//": "floor", "specialized": "Eq"}


def guard_tokens(text: str) -> set[str]:
    """The numbers and operators of the guard expressions in `text`; `S=N` for a size
    specialised to a constant."""
    guards = re.findall(r"generated guard (.+?)\.?$|constant \((\d+)\)", text, re.M)
    if text.startswith(("Eq(", "Ne(", "Mod(")) or not guards:
        guards = [(text, "")]
    out = set()
    for expr, const in guards:
        expr = _SIZE_SYMBOL.sub("S", expr)
        out |= {f"S={const}"} if const else set()
        out |= {f"S={n}" for n in re.findall(r"^Eq\(S, (\d+)\)$", expr)}
        out |= {_GUARD_WORDS.get(p, p) for p in _GUARD_PARTS.findall(expr)}
    return out


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
    if t.endswith("wrap_with_set_grad_enabled"):  # dynamo's region for a grad-mode
        return {"op:grad-mode-region"}  # change: torch.no_grad(), `w.data = ...`
    last = t.rsplit(".", 1)[-1]
    if not t.startswith(_TORCH_TARGETS) and last[:1].isupper() and "torch" not in t:
        return {"op:user-object"}
    # ATen names an in-place op with a trailing `_` (`aten.fill_diagonal_.default`):
    # the capture recorded an in-place write Cuvil does not lower
    parts = t.split(".")
    name = parts[-2] if len(parts) > 2 else parts[-1]
    if name.endswith("_") and not name.startswith("_"):
        return {"op:torch", "op:inplace"}
    return {"op:torch"}


_EXPORTER = re.compile(r"/torch/(export|_export)/")
# errors no code raises on purpose with a message for the user: the code slipped
_SLIPS = ("IndexError", "KeyError", "AttributeError", "AssertionError")


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
    if any(f.get("func") in GUARD_SOLVE for f in frames):
        out.add("raise:guard-solve")
    if frames and _EXPORTER.search(frames[-1]["file"]) and chain[-1]["type"] in _SLIPS:
        out.add("raise:exporter")  # torch.export's own code broke (an IndexError)
    if frames and _signature_bind(frames[-1]):
        out.add("raise:signature-bind")
    if below and _module_apply(below[0]):
        out.add("raise:module-apply")
    if any(_subclass_hook(f) for e in chain for f in e["frames"]):
        out.add("raise:subclass-hook")
    return out


def _subclass_hook(frame: dict) -> bool:
    """A tensor subclass's own `__torch_function__` / `__torch_dispatch__` (a library's,
    not torch's): the tracer's calls went through the model's tensor type."""
    return frame.get("func") in ("__torch_function__", "__torch_dispatch__") and (
        frame.get("package") not in INFRA_PACKAGES
    )


# nn.Module methods that rewrite every parameter and buffer of a module in place
_APPLY = {"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "type", "_apply"}


def _module_apply(frame: dict) -> bool:
    """The model's code called `module.to(...)` / `.cuda()` / `.half()`...: torch's
    first frame under it is nn.Module's (not a tensor's `.to`, which has no frame)."""
    return frame["file"].endswith("torch/nn/modules/module.py") and (
        frame.get("func") in _APPLY
    )


def _signature_bind(frame: dict) -> bool:
    """The capture binding the example inputs to forward()'s signature
    (`inspect.Signature.bind`, as torch.export does) raised: not the model's code."""
    return frame["file"].endswith("/inspect.py") and frame.get("func") in {
        "bind",
        "_bind",
    }


def _files(record: dict, chain: list[dict], user: tuple[str, ...]) -> list[FileIndex]:
    paths = {
        f["file"]
        for e in chain + _drafted(record) + _replayed(record)
        for f in _frames(e) + e["message_frames"]
        if _is_code(f, user)
    }
    wrapper = (record.get("instance_forward") or {}).get("file")
    model_file = (record.get("model") or {}).get("file")
    paths |= {p for p in (record.get("file"), model_file, wrapper) if p}
    return [ix for ix in map(index_file, sorted(paths)) if ix is not None]
