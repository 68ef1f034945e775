"""Static triage: predict a capture failure from the source and AST alone, executing
no model code (`cuvil-debug triage --static`, for untrusted pull requests).

The model file is parsed, never imported. From the entry (an nn.Module class, or a
factory whose `return SomeClass(...)` names one, also from an installed library such
as transformers, whose source is found with importlib.util.find_spec and read, not
imported) a taint pass walks forward() and what it reaches (methods, helpers,
submodule classes) with the kinds of value each name holds: a tensor derived from an
input (`value`), an input or a view of it (`input`), a boolean mask, a symbolic size
(`size`), a Python number taken out of a tensor (`pyvalue`), a container, a non-tensor
forward() parameter. CONSTRUCTS (predicates on a node and those kinds) find risky
constructs; STATIC_RULES (data) says which category each predicts, under which
frontends and with what weight; the def-use graph of rootcause.py ranks root causes.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .categories import CATEGORIES
from .load import DEFAULT_ENTRY, split_spec
from .patterns import _DATA_SIZE, _ITEM, _NON_TORCH, _RESHAPE, _base, line_facts
from .rootcause import DefUseGraph, param_kinds, rank_roots
from .source import FileIndex, Func, _header, index_file

__all__ = ["STATIC_RULES", "CONSTRUCTS", "StaticRule", "static_result", "locate_class"]

ALL = frozenset({"fx", "export", "auto"})
FX = frozenset({"fx"})
# confidence = softmax share x this: a static guess is weaker than a captured error
# (about the measured top-1 accuracy on the labelled folders, docs/TRIAGE.md)
STATIC_SCALE = 0.75
TEMPERATURE = 1.0
OTHER_MASS = 1.0
MAX_DEPTH = 6


@dataclass(frozen=True)
class StaticRule:
    category: str
    weight: float
    frontends: frozenset[str]
    says: str


# construct -> what it predicts. Weights order the constructs by how surely they break
# capture; where several are found the heaviest wins (ties: the first reached).
STATIC_RULES: dict[str, StaticRule] = {
    "undefined-name": StaticRule(
        "undefined-name", 5.0, ALL, "a name that is defined nowhere"
    ),
    "undefined-attr": StaticRule(
        "undefined-name", 4.0, ALL, "a `self.` attribute the class never sets"
    ),
    "leaf-module-call": StaticRule(
        "capture-limitation",
        4.5,
        FX,
        "a torch.nn recurrent/attention module that torch.fx cannot capture",
    ),
    "non-tensor-param": StaticRule(
        "non-tensor-argument",
        4.0,
        FX,
        "an Optional / flag / container / **kwargs forward() parameter (traced as a Proxy)",
    ),
    "container-input": StaticRule(
        "non-tensor-argument",
        3.5,
        FX,
        "a dict/list example input traced as one Proxy",
    ),
    "object-input": StaticRule(
        "unsupported-io-type", 4.0, ALL, "a non-tensor object among the example inputs"
    ),
    "object-return": StaticRule(
        "unsupported-io-type",
        3.0,
        ALL,
        "forward() returns a non-tensor (dict, dataclass, object, string)",
    ),
    "item-on-value": StaticRule(
        "data-dependent-python-value",
        3.5,
        ALL,
        "a Python number taken out of a tensor (.item(), int(t), .tolist())",
    ),
    "numpy-on-value": StaticRule(
        "non-torch-call", 3.5, ALL, "numpy / math / random called on a tensor"
    ),
    "format-value": StaticRule(
        "unsupported-python-construct", 3.5, ALL, "formatting a tensor value"
    ),
    "data-size-op": StaticRule(
        "dynamic-shape",
        3.0,
        ALL,
        "an op whose output size depends on data (nonzero, masks)",
    ),
    "branch-on-value": StaticRule(
        "data-dependent-control-flow",
        3.0,
        ALL,
        "`if` / `while` / `assert` on a tensor's value",
    ),
    "inplace-on-input": StaticRule(
        "inplace-mutation", 3.0, ALL, "an in-place op on an input or a view of it"
    ),
    "out-kwarg": StaticRule("inplace-mutation", 2.5, ALL, "an `out=` argument"),
    "iterate-value": StaticRule(
        "proxy-iteration", 3.0, FX, "iterating / star-unpacking a traced tensor"
    ),
    "len-of-value": StaticRule("proxy-iteration", 3.0, FX, "len() of a traced tensor"),
    "branch-on-size": StaticRule(
        "dynamic-shape", 2.5, FX, "Python control flow on a symbolic size"
    ),
    "branch-on-dynamic-size": StaticRule(
        "dynamic-shape",
        2.5,
        frozenset({"export", "auto"}),
        "Python control flow on a size made dynamic by dynamic_shapes()",
    ),
    "range-on-size": StaticRule(
        "dynamic-shape", 2.5, FX, "range() over a symbolic size"
    ),
    "isinstance-on-value": StaticRule(
        "unsupported-python-construct", 1.0, ALL, "isinstance() on a traced value"
    ),
    "try-in-forward": StaticRule(
        "unsupported-python-construct", 0.8, ALL, "try/except around traced code"
    ),
    "generator-in-forward": StaticRule(
        "unsupported-python-construct", 1.5, ALL, "a generator (yield) in forward()"
    ),
    "state-write": StaticRule(
        "inplace-mutation", 1.0, ALL, "module state written in forward()"
    ),
}

# torch.nn modules torch.fx keeps as leaves whose outputs (tuples) it cannot capture
_LEAF_MODULES = {
    "LSTM",
    "GRU",
    "RNN",
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerDecoder",
    "Transformer",
}
_CONTAINERS = {"ModuleList", "Sequential", "ModuleDict"}
_VIEWS = _RESHAPE | {
    "select",
    "unsqueeze",
    "squeeze",
    "t",
    "unbind",
    "diagonal",
    "as_strided",
    "__getitem__",
}
_MASK_METHODS = {"bool", "logical_not", "logical_and", "logical_or", "isnan", "isinf"}
_SIZE_METHODS = {"size", "dim", "numel", "nelement"}
_CASTS = {"int", "float", "bool", "complex"}
_ITERATING = {"list", "tuple", "zip", "enumerate", "map", "reversed", "sorted", "iter"}
_BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "__class__"}
_TORCH_ROOTS = {"torch", "F", "nn", "functional"}
_SPLITTER = re.compile(r"[A-Z][a-z0-9]+|[A-Z]+(?![a-z])")


# ---- taint ---------------------------------------------------------------------------
Kinds = frozenset[str]
NONE: Kinds = frozenset()


def _bare(k: Kinds) -> bool:
    """A traced tensor that is not a Python container of them."""
    return "value" in k and "container" not in k


def _call_attr(node: ast.AST) -> str | None:
    return node.func.attr if isinstance(node.func, ast.Attribute) else None


def _call_name(node: ast.AST) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else None


# ---- constructs: predicate(node, stmt, ctx) -> bool, ctx.kinds(expr) gives the kinds
def _branch(kind: str, unless: str = "") -> Callable:
    def pred(n, s, c) -> bool:
        if isinstance(n, ast.If | ast.While | ast.Assert) and n is s:
            test = n.test
        elif isinstance(n, ast.IfExp):
            test = n.test
        else:
            return False
        k = c.kinds(test)
        return kind in k and not (unless and unless in k)

    return pred


def _item(n, s, c) -> bool:
    if not isinstance(n, ast.Call):
        return False
    if _call_attr(n) in _ITEM:
        return "value" in c.kinds(n.func.value)
    return _call_name(n) in _CASTS and bool(n.args) and "value" in c.kinds(n.args[0])


def _numpy(n, s, c) -> bool:
    if isinstance(n, ast.BinOp):
        left, right = c.kinds(n.left), c.kinds(n.right)
        return ("ndarray" in left and "value" in right) or (
            "ndarray" in right and "value" in left
        )
    if not isinstance(n, ast.Call):
        return False
    if _call_attr(n) == "numpy":
        return "value" in c.kinds(n.func.value)
    return _base(n) in _NON_TORCH and any(
        "value" in c.kinds(a) for a in [*n.args, *(k.value for k in n.keywords)]
    )


def _format(n, s, c) -> bool:
    if isinstance(n, ast.FormattedValue):
        return n.format_spec is not None and "value" in c.kinds(n.value)
    if (
        isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Mod)
        and isinstance(n.left, ast.Constant)
        and isinstance(n.left.value, str)
    ):
        return "value" in c.kinds(n.right)
    if isinstance(n, ast.Call) and _call_attr(n) == "format":
        return any("value" in c.kinds(a) for a in n.args)
    return False


def _data_size(n, s, c) -> bool:
    if isinstance(n, ast.Call) and _call_attr(n) in _DATA_SIZE:
        recv = [] if _is_module(n.func.value) else [n.func.value]
        return any("value" in c.kinds(a) for a in [*recv, *n.args])
    if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
        return "mask" in c.kinds(n.slice)
    return False


def _is_module(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in _TORCH_ROOTS | {"np", "numpy"}


def _inplace(n, s, c) -> bool:
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
        a = n.func.attr
        if a.endswith("_") and not a.endswith("__") and not a.startswith("_"):
            return bool(c.kinds(n.func.value) & {"input", "view"})
    if isinstance(s, ast.Assign | ast.AugAssign) and n is s:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        return any(
            isinstance(t, ast.Subscript) and "input" in c.kinds(t.value)
            for t in targets
        )
    return False


def _out_kwarg(n, s, c) -> bool:
    return isinstance(n, ast.Call) and any(k.arg == "out" for k in n.keywords)


def _iterate(n, s, c) -> bool:
    if isinstance(n, ast.For) and n is s:
        return _bare(c.kinds(n.iter))
    if isinstance(n, ast.comprehension):
        return _bare(c.kinds(n.iter))
    if isinstance(n, ast.Starred) and isinstance(n.ctx, ast.Load):
        return _bare(c.kinds(n.value))
    if isinstance(n, ast.Call) and _call_name(n) in _ITERATING:
        return any(_bare(c.kinds(a)) for a in n.args)
    return False  # `a, b = proxy` is fine: fx unpacks by the bytecode's count


def _len(n, s, c) -> bool:
    return (
        isinstance(n, ast.Call)
        and _call_name(n) == "len"
        and bool(n.args)
        and _bare(c.kinds(n.args[0]))
    )


def _range_size(n, s, c) -> bool:
    return (
        isinstance(n, ast.Call)
        and _call_name(n) == "range"
        and any("size" in c.kinds(a) for a in n.args)
    )


def _dynamic_branch(n, s, c) -> bool:
    return c.ctx.dynamic_shapes and _branch("size", "value")(n, s, c)


def _isinstance(n, s, c) -> bool:
    return (
        isinstance(n, ast.Call)
        and _call_name(n) == "isinstance"
        and bool(n.args)
        and "value" in c.kinds(n.args[0])
    )


def _try(n, s, c) -> bool:
    return isinstance(n, ast.Try) and n is s and c.func.name == "forward"


def _generator(n, s, c) -> bool:
    return isinstance(n, ast.Yield | ast.YieldFrom) and c.func.name == "forward"


def _state_write(n, s, c) -> bool:
    return (
        isinstance(s, ast.Assign)
        and n is s
        and c.func.name == "forward"
        and any(
            isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            for t in s.targets
        )
        and "value" in c.kinds(s.value)
    )


def _leaf_call(n, s, c) -> bool:
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
        return False
    f = n.func
    if not (isinstance(f.value, ast.Name) and f.value.id == "self"):
        return False
    built = c.ctx.attr_classes(c.func).get(f.attr)
    return built is not None and built[0] == "torch" and built[1] in _LEAF_MODULES


CONSTRUCTS: dict[str, Callable] = {
    "branch-on-value": _branch("value"),
    "branch-on-size": _branch("size", "value"),
    "branch-on-dynamic-size": _dynamic_branch,
    "item-on-value": _item,
    "numpy-on-value": _numpy,
    "format-value": _format,
    "data-size-op": _data_size,
    "inplace-on-input": _inplace,
    "out-kwarg": _out_kwarg,
    "iterate-value": _iterate,
    "len-of-value": _len,
    "range-on-size": _range_size,
    "isinstance-on-value": _isinstance,
    "try-in-forward": _try,
    "generator-in-forward": _generator,
    "state-write": _state_write,
    "leaf-module-call": _leaf_call,
}


# ---- the program: files, classes, imports ------------------------------------------
@dataclass
class Risk:
    construct: str
    file: str
    line: int
    order: int
    param: ast.arg | None = None

    @property
    def rule(self) -> StaticRule:
        return STATIC_RULES[self.construct]


@dataclass
class ClassRef:
    index: FileIndex
    node: ast.ClassDef

    @property
    def name(self) -> str:
        return self.node.name


@dataclass
class Program:
    frontend: str
    dynamic_shapes: bool = False
    user_root: str = "/"  # the model file's folder
    risks: dict[tuple, Risk] = field(default_factory=dict)
    files: dict[str, FileIndex] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)

    def add(self, construct: str, file: str, line: int, param=None) -> None:
        if self.frontend not in STATIC_RULES[construct].frontends:
            return
        key = (construct, file, line)
        if key not in self.risks:
            self.risks[key] = Risk(construct, file, line, len(self.risks), param)

    def use(self, index: FileIndex) -> FileIndex:
        self.files.setdefault(index.path, index)
        return index

    # names, imports and classes ---------------------------------------------------
    def resolve_class(self, index: FileIndex, expr: ast.AST) -> ClassRef | tuple | None:
        """The class an expression names: a ClassRef with source, ("torch", Name)
        for torch classes, None when unknown (memoized)."""
        key = ("class", index.path, ast.dump(expr))
        if key not in self.memo:
            self.memo[key] = self._resolve_class(index, expr)
        return self.memo[key]

    def _resolve_class(self, index: FileIndex, expr: ast.AST):
        if isinstance(expr, ast.Name):
            local = _class_in(index, expr.id)
            if local is not None:
                return ClassRef(index, local)
            imp = _imports(index.path).get(expr.id)
            return self._imported(index, *imp) if imp else None
        if isinstance(expr, ast.Attribute):
            root = expr.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name):
                return None
            imp = _imports(index.path).get(root.id)
            module = imp[0] if imp and imp[1] is None else (imp and ".".join(imp))
            if module is None:
                return None
            return self._imported(index, module, expr.attr)
        return None

    def _imported(self, index: FileIndex, module: str, name: str | None):
        if name is None or not name[:1].isupper():  # classes are CapWords
            return None
        top = module.lstrip(".").split(".")[0]
        if top == "torch" or (not module.startswith(".") and top in {"nn", "F"}):
            return ("torch", name)
        found = locate_class(module, name, index.path)
        if found is None:
            return None
        path, line = found
        target = index_file(path)
        node = next(
            (
                n
                for n in target.tree.body
                if isinstance(n, ast.ClassDef) and n.name == name
            ),
            None,
        )
        return ClassRef(target, node) if node is not None else None

    def methods(self, cls: ClassRef, seen=None) -> dict[str, Func]:
        """name -> Func, own methods over those of (resolvable) base classes."""
        key = ("methods", cls.index.path, cls.name)
        if seen is None and key in self.memo:
            return self.memo[key]
        top, seen = seen is None, seen or set()
        if (cls.index.path, cls.name) in seen:
            return {}
        seen.add((cls.index.path, cls.name))
        out: dict[str, Func] = {}
        for base in cls.node.bases:
            ref = self.resolve_class(cls.index, base)
            if isinstance(ref, ClassRef):
                out.update(self.methods(ref, seen))
        out.update(
            {
                f.name: f
                for f in cls.index.funcs
                if f.cls == cls.name
                and f.node.lineno >= cls.node.lineno
                and f.node.end_lineno <= cls.node.end_lineno
            }
        )
        self.use(cls.index)
        if top:
            self.memo[key] = out
        return out

    def attr_classes(self, fn: Func) -> dict[str, ClassRef | tuple]:
        """`self.name = SomeClass(...)` in the class of fn -> the class."""
        key = ("attrs", fn.file, fn.cls)
        if key in self.memo:
            return self.memo[key]
        out: dict = {}
        index = self.files.get(fn.file) or index_file(fn.file)
        self.memo[key] = out
        for f in index.funcs:
            if f.cls != fn.cls:
                continue
            for node in ast.walk(f.node):
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Attribute)
                    and isinstance(node.targets[0].value, ast.Name)
                    and node.targets[0].value.id == "self"
                ):
                    ref = self.resolve_class(index, node.value.func)
                    if isinstance(ref, tuple) and ref[1] in _CONTAINERS:
                        ref = [
                            r
                            for sub in ast.walk(node.value)
                            if isinstance(sub, ast.Call) and sub is not node.value
                            for r in [self.resolve_class(index, sub.func)]
                            if isinstance(r, ClassRef)
                        ] or None
                    if ref is not None:
                        out[node.targets[0].attr] = ref
        return out


def _class_in(index: FileIndex, name: str) -> ast.ClassDef | None:
    return next(
        (n for n in index.tree.body if isinstance(n, ast.ClassDef) and n.name == name),
        None,
    )


@lru_cache(maxsize=256)
def _imports(path: str) -> dict[str, tuple[str, str | None]]:
    """Local name -> (module, attribute or None) for the file's imports."""
    index = index_file(path)
    out: dict[str, tuple[str, str | None]] = {}
    if index is None:
        return out
    for node in ast.walk(index.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = (a.name, None)
                else:
                    out[a.name.split(".")[0]] = (a.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for a in node.names:
                out[a.asname or a.name] = (module, a.name)
    return out


# ---- finding a library's class without importing it ----------------------------------
def locate_class(module: str, name: str, importer: str) -> tuple[str, int] | None:
    """(file, line) of `class name(` in module's source: relative imports from the
    importing file's folder, a sibling module of the model file, else the installed
    package (importlib.util.find_spec of the top-level name: a search, no import)."""
    here = Path(importer).resolve().parent
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        folder = here
        for _ in range(level - 1):
            folder = folder.parent
        parts = [p for p in module.lstrip(".").split(".") if p]
        return _class_in_module(folder.joinpath(*parts), name) or _search(
            str(_package_top(folder)), name
        )
    sibling = _class_in_module(here.joinpath(*module.split(".")), name)
    if sibling:
        return sibling
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations)))
        return _class_in_module(folder.joinpath(*rest), name) or _search(
            str(folder), name
        )
    if spec.origin and spec.origin.endswith(".py"):
        return _class_line(spec.origin, name)
    return None


def _package_top(folder: Path) -> Path:
    while (folder.parent / "__init__.py").exists():
        folder = folder.parent
    return folder


def _class_in_module(path: Path, name: str) -> tuple[str, int] | None:
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            found = _class_line(str(candidate), name)
            if found:
                return found
    return None


def _class_line(path: str, name: str) -> tuple[str, int] | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^class {re.escape(name)}\b", text, re.M)
    return (path, text.count("\n", 0, m.start()) + 1) if m else None


@lru_cache(maxsize=64)
def _py_files(folder: str) -> tuple[str, ...]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__pycache__", "test"))]
        out += [os.path.join(root, f) for f in files if f.endswith(".py")]
    return tuple(sorted(out))


@lru_cache(maxsize=1024)
def _search(folder: str, name: str) -> tuple[str, int] | None:
    """Files whose name shares a word with the class (modeling_bert.py for BertModel)
    first, `modeling_` files before `modular_` ones; then all the package's files."""
    words = {w.lower() for w in _SPLITTER.findall(name) if len(w) > 2}
    files = _py_files(folder)

    def rank(path: str) -> tuple:
        stem = Path(path).stem.lower()
        return (
            not any(w in stem for w in words),
            stem.startswith("modular_"),
            len(path),
        )

    for path in sorted(files, key=rank):
        found = _class_line(path, name)
        if found:
            return found
    return None


# ---- the taint pass --------------------------------------------------------------------
class _Walker:
    """Kinds of each name in one function, with the constructs found on the way."""

    def __init__(self, prog: Program, func: Func, env: dict[str, Kinds], depth: int):
        self.prog, self.func, self.env, self.depth = prog, func, dict(env), depth
        self.index = prog.use(index_file(func.file))
        self.returns: set[str] = set()
        self.members: dict[str, list] = {}  # loop variable -> the ModuleList's classes

    # kinds of an expression -------------------------------------------------------
    def kinds(self, node: ast.AST | None) -> Kinds:
        if node is None:
            return NONE
        match node:
            case ast.Name():
                return self.env.get(node.id, NONE)
            case ast.Constant() | ast.JoinedStr() | ast.Lambda():
                return NONE
            case ast.Attribute():
                if isinstance(node.value, ast.Name) and node.value.id == "self":
                    return self.env.get(f"self.{node.attr}", NONE)
                base = self.kinds(node.value)
                if node.attr in {"shape", "ndim"} and "value" in base:
                    return frozenset({"size"})
                if node.attr in {"T", "mT", "H", "real", "imag", "data"}:
                    return base
                return base - {"input", "mask"} if "value" in base else NONE
            case ast.Subscript():
                base = self.kinds(node.value)
                if base == {"size"} or ("size" in base and "value" not in base):
                    return frozenset({"size"})
                if "container" in base:
                    return base - {"container", "mask", "dict"}
                out = base - {"mask"}
                if "value" in out:
                    out |= {"view"}
                return out | ({"value"} if "value" in self.kinds(node.slice) else NONE)
            case ast.Call():
                return self._call(node)
            case ast.BinOp():
                k = self.kinds(node.left) | self.kinds(node.right)
                keep = isinstance(node.op, ast.BitAnd | ast.BitOr | ast.BitXor)
                return _scalar(k, keep_mask=keep)
            case ast.UnaryOp():
                k = self.kinds(node.operand)
                return _scalar(k, keep_mask=isinstance(node.op, ast.Invert | ast.Not))
            case ast.BoolOp():
                return _union(self.kinds(v) for v in node.values)
            case ast.Compare():
                if any(
                    isinstance(o, ast.Is | ast.IsNot | ast.In | ast.NotIn)
                    for o in node.ops
                ):
                    k = _union(self.kinds(v) for v in [node.left, *node.comparators])
                    return k & {"param"}
                k = _union(self.kinds(v) for v in [node.left, *node.comparators])
                k = _scalar(k, keep_mask=False)
                return k | {"mask"} if "value" in k else k
            case ast.IfExp():
                return self.kinds(node.body) | self.kinds(node.orelse)
            case ast.Tuple() | ast.List() | ast.Set():
                k = _union(self.kinds(e) for e in node.elts)
                return k | {"container"} if k else NONE
            case ast.Dict():
                k = _union(self.kinds(v) for v in node.values if v is not None)
                return k | {"container", "dict"}
            case ast.ListComp() | ast.GeneratorExp() | ast.SetComp():
                for gen in node.generators:
                    self._bind(gen.target, _element(self.kinds(gen.iter)))
                k = self.kinds(node.elt)
                return k | {"container"} if k else NONE
            case ast.DictComp():
                for gen in node.generators:
                    self._bind(gen.target, _element(self.kinds(gen.iter)))
                k = self.kinds(node.value)
                return k | {"container"} if k else NONE
            case ast.Starred():
                return self.kinds(node.value)
            case ast.NamedExpr():
                k = self.kinds(node.value)
                self._bind(node.target, k)
                return k
        return NONE

    def _call(self, node: ast.Call) -> Kinds:
        args = [*node.args, *(k.value for k in node.keywords)]
        arg_kinds = _union(self.kinds(a) for a in args)
        name, attr = _call_name(node), _call_attr(node)
        if name in _CASTS and args:
            k = self.kinds(args[0])
            return frozenset({"pyvalue"}) if "value" in k else k & {"size"}
        if name == "len" and args:
            k = self.kinds(args[0])
            return frozenset({"size"}) if k & {"value", "size"} else NONE
        if name in _ITERATING:
            return arg_kinds
        if name in {"isinstance", "hasattr", "getattr", "str", "repr", "print"}:
            return NONE
        if _base(node) in {"np", "numpy"}:
            return _scalar(arg_kinds, keep_mask=False) | {"ndarray"}
        callee = self._callee(node)
        if isinstance(callee, list):
            k = NONE
            for c in callee:
                k = self._enter(c, node)
            return k
        if callee is not None:
            return self._enter(callee, node)
        if attr is not None:
            recv = self.kinds(node.func.value)
            if _is_module(node.func.value) or recv == NONE:
                return _scalar(arg_kinds, keep_mask=False) - {"input"}
            if attr in _SIZE_METHODS and "value" in recv:
                return frozenset({"size"})
            if attr in _ITEM and "value" in recv:
                return frozenset({"pyvalue"})
            if "container" in recv:
                return recv - {"container", "dict"}
            out = (recv | arg_kinds) & {"value", "size", "pyvalue"}
            if attr in _VIEWS and "input" in recv:
                out |= {"input"}
            if attr in _VIEWS and "value" in recv:
                out |= {"view"}
            if attr in _MASK_METHODS and "mask" in recv:
                out |= {"mask"}
            return frozenset(out)
        return _scalar(arg_kinds, keep_mask=False) - {"input"}

    # calls into code we have the source of ------------------------------------------
    def _callee(self, node: ast.Call) -> Func | ClassRef | list | None:
        f = node.func
        if isinstance(f, ast.Name) and f.id in self.members:
            return self.members[f.id]
        if isinstance(f, ast.Name):
            ref = self.prog.resolve_class(self.index, f)
            if isinstance(ref, ClassRef):
                return ref
        if isinstance(f, ast.Name):
            fn = next(
                (
                    g
                    for g in self.index.funcs
                    if g.name == f.id
                    and g.cls is None
                    and g.node in self.index.tree.body
                ),
                None,
            )
            return fn
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id == "self"
            and self.func.cls
        ):
            cls = self._own_class()
            if cls is not None:
                method = self.prog.methods(cls).get(f.attr)
                if method is not None:
                    return method
            built = self.prog.attr_classes(self.func).get(f.attr)
            if isinstance(built, ClassRef):
                return built
        return None

    def _members(self, node: ast.AST) -> list | None:
        """`self.blocks` built as nn.ModuleList([Block(8), ...]): the classes."""
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            built = self.prog.attr_classes(self.func).get(node.attr)
            return built if isinstance(built, list) else None
        return None

    def _own_class(self) -> ClassRef | None:
        node = _class_in(self.index, self.func.cls)
        return ClassRef(self.index, node) if node is not None else None

    def _enter(self, callee: Func | ClassRef, call: ast.Call) -> Kinds:
        if isinstance(callee, ClassRef):
            fn = self.prog.methods(callee).get("forward")
            if fn is None:  # a plain class: its instance is an object, not a tensor
                return frozenset({"object"})
        else:
            fn = callee
        params = [p for p in fn.params if p.arg != "self"]
        env: dict[str, Kinds] = {}
        for p, a in zip(params, call.args, strict=False):
            env[p.arg] = self.kinds(a)
        by_name = {p.arg: p for p in params}
        for kw in call.keywords:
            if kw.arg in by_name:
                env[kw.arg] = self.kinds(kw.value)
        return analyse(self.prog, fn, env, self.depth + 1)

    # statements ---------------------------------------------------------------------
    def run(self) -> Kinds:
        self._block(self.func.node.body)
        return frozenset(self.returns)

    def _block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self._stmt(stmt)

    def _stmt(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            return
        for part in _header(stmt) or ([stmt] if isinstance(stmt, ast.Try) else []):
            self._constructs(stmt, part)
        if isinstance(stmt, ast.Try):
            self._constructs(stmt, stmt)
        match stmt:
            case ast.Assign():
                k = self.kinds(stmt.value)
                for t in stmt.targets:
                    self._bind(t, k)
            case ast.AnnAssign() if stmt.value is not None:
                self._bind(stmt.target, self.kinds(stmt.value))
            case ast.AugAssign():
                self._bind(
                    stmt.target, self.kinds(stmt.target) | self.kinds(stmt.value)
                )
            case ast.Return():
                k = self.kinds(stmt.value)
                self.returns |= k
                if self.depth == 0 and self.func.name == "forward" and stmt.value:
                    if k & {"object", "dict"} or any(
                        _non_tensor(self.prog, self.index, p)
                        for p in _return_parts(stmt.value)
                    ):
                        self.prog.add("object-return", self.func.file, stmt.lineno)
            case ast.Expr():
                self.kinds(stmt.value)
            case ast.Assert():
                self.kinds(stmt.test)
            case ast.For():
                self._bind(stmt.target, _element(self.kinds(stmt.iter)))
                members = self._members(stmt.iter)
                if members and isinstance(stmt.target, ast.Name):
                    self.members[stmt.target.id] = members
                self._block(stmt.body)
                self._block(stmt.body)  # a second pass: values carried by the loop
                self._block(stmt.orelse)
            case ast.While():
                self.kinds(stmt.test)
                self._block(stmt.body)
                self._block(stmt.body)
                self._block(stmt.orelse)
            case ast.If():
                self.kinds(stmt.test)
                self._block(stmt.body)
                self._block(stmt.orelse)
            case ast.With():
                for item in stmt.items:
                    self.kinds(item.context_expr)
                self._block(stmt.body)
            case ast.Try():
                self._block(stmt.body)
                for h in stmt.handlers:
                    self._block(h.body)
                self._block(stmt.orelse)
                self._block(stmt.finalbody)

    def _bind(self, target: ast.AST, k: Kinds) -> None:
        match target:
            case ast.Name():
                self.env[target.id] = k
            case ast.Attribute() if isinstance(target.value, ast.Name):
                self.env[f"{target.value.id}.{target.attr}"] = k
            case ast.Tuple() | ast.List():
                for e in target.elts:
                    self._bind(e, _element(k))
            case ast.Starred():
                self._bind(target.value, k)

    def _constructs(self, stmt: ast.stmt, part: ast.AST) -> None:
        nodes = [stmt, *ast.walk(part)] if part is not stmt else list(ast.walk(part))
        for node in nodes:
            for name, pred in CONSTRUCTS.items():
                try:
                    hit = pred(node, stmt, self)
                except (AttributeError, IndexError, TypeError, KeyError):
                    hit = False
                if hit:
                    self.prog.add(name, self.func.file, _line(node, stmt))
        self._undefined(stmt, part)

    @property
    def ctx(self) -> Program:
        return self.prog

    # names defined nowhere ----------------------------------------------------------
    def _undefined(self, stmt: ast.stmt, part: ast.AST) -> None:
        if not self.func.file.startswith(self.prog.user_root):
            return  # library code is not the model's to fix
        known = _known_names(self.func.file, id(self.func.node))
        for node in ast.walk(part):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id not in known:
                    self.prog.add("undefined-name", self.func.file, node.lineno)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and self.func.cls
            ):
                attrs = self._class_attrs()
                if attrs is not None and node.attr not in attrs:
                    self.prog.add("undefined-attr", self.func.file, node.lineno)

    def _class_attrs(self) -> set[str] | None:
        """Every attribute the class (and its bases, when all are known) can have;
        None when a base's source is not known."""
        key = ("class-attrs", self.func.file, self.func.cls)
        if key in self.prog.memo:
            return self.prog.memo[key]
        cls = self._own_class()
        out = None
        if cls is not None:
            out = _attrs_of(self.prog, cls, set())
        self.prog.memo[key] = out
        return out


def _attrs_of(prog: Program, cls: ClassRef, seen: set) -> set[str] | None:
    if (cls.index.path, cls.name) in seen:
        return set()
    seen.add((cls.index.path, cls.name))
    out: set[str] = set()
    for base in cls.node.bases:
        ref = prog.resolve_class(cls.index, base)
        if isinstance(ref, ClassRef):
            more = _attrs_of(prog, ref, seen)
            if more is None:
                return None
            out |= more
        elif isinstance(ref, tuple) and ref[1] == "Module":
            out |= _module_attrs()
        else:
            return None
    for node in ast.walk(cls.node):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)  # class-level assignments
        elif isinstance(node, ast.Call) and node.args:
            first = node.args[0] if _call_attr(node) else (node.args[1:2] or [None])[0]
            if (
                (_call_attr(node) or _call_name(node) or "").startswith(
                    ("register_", "add_module", "setattr")
                )
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                out.add(first.value)
    return out


@lru_cache(maxsize=1)
def _module_attrs() -> frozenset[str]:
    """nn.Module's methods and attributes, read from torch's source (not imported)."""
    spec = importlib.util.find_spec("torch")
    names = {"training", "forward", "__class__", "__dict__"}
    if spec and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations)), "nn/modules/module.py")
        index = index_file(str(path))
        node = _class_in(index, "Module") if index else None
        if node is not None:
            for sub in ast.walk(node):
                if isinstance(sub, ast.FunctionDef):
                    names.add(sub.name)
                elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.attr)
                elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return frozenset(names)


@lru_cache(maxsize=4096)
def _known_names(path: str, func_id: int) -> frozenset[str]:
    """Names visible in a function: module-level names, builtins, every name bound in
    an enclosing function (parameters, assignments, loops, comprehensions, imports)."""
    index = index_file(path)
    names = set(_BUILTINS)
    if index is None:
        return frozenset(names)
    for node in index.tree.body:
        names |= _bound(node, top=True)
    for node in ast.walk(index.tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return frozenset(names | {"*"})  # cannot know: treat all as known
    for fn in ast.walk(index.tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = {id(n) for n in ast.walk(fn)}
            if func_id in inner:
                names |= _bound(fn, top=False)
    return frozenset(names)


def _bound(node: ast.AST, top: bool) -> set[str]:
    out = set()
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        out.add(node.name)
        if top:
            return out
    for sub in ast.walk(node) if not top or not isinstance(node, ast.ClassDef) else []:
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            out.add(sub.id)
        elif isinstance(sub, ast.arg):
            out.add(sub.arg)
        elif isinstance(sub, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).split(".")[0] for a in sub.names}
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(sub.name)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            out.add(sub.name)
        elif isinstance(sub, ast.Global | ast.Nonlocal):
            out |= set(sub.names)
    return out


def _line(node: ast.AST, stmt: ast.stmt) -> int:
    line = getattr(node, "lineno", stmt.lineno)
    return line if isinstance(node, ast.expr) else stmt.lineno


def _union(ks) -> Kinds:
    out: set[str] = set()
    for k in ks:
        out |= k
    return frozenset(out)


def _scalar(k: Kinds, keep_mask: bool) -> Kinds:
    """An op's result: tensors stay tensors, sizes sizes; no container, no input."""
    out = k & {"value", "size", "pyvalue", "param", "ndarray"}
    return frozenset(out | (k & {"mask"} if keep_mask else set()))


def _element(k: Kinds) -> Kinds:
    """What iterating a value gives: a container's elements, a tensor's rows."""
    return frozenset(k - {"container", "mask", "dict"})


def analyse(prog: Program, fn: Func, env: dict[str, Kinds], depth: int = 0) -> Kinds:
    key = (
        fn.file,
        id(fn.node),
        tuple(sorted((n, tuple(sorted(k))) for n, k in env.items())),
    )
    if key in prog.memo:
        return prog.memo[key]
    if depth > MAX_DEPTH:
        return _union(env.values()) & {"value"}
    prog.memo[key] = (
        frozenset({"value"}) if any("value" in k for k in env.values()) else NONE
    )
    result = _Walker(prog, fn, env, depth).run()
    prog.memo[key] = result
    return result


# ---- the entry: spec -> class, forward, example inputs ------------------------------
class StaticError(Exception):
    pass


_SELF_RETURNING = {
    "eval",
    "train",
    "to",
    "float",
    "double",
    "half",
    "cpu",
    "requires_grad_",
}


def _built(factory: ast.FunctionDef, value: ast.AST | None) -> ast.Call | None:
    """The constructor call a factory returns: `Cls(...)`, `Cls(...).eval()`, or a
    local name assigned from one (`model = Cls(cfg); return model`)."""
    if isinstance(value, ast.Name):
        assigned = [
            n.value
            for n in ast.walk(factory)
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)
        ]
        value = assigned[-1] if assigned else None
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _SELF_RETURNING
        and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    return value if isinstance(value, ast.Call) else None


def _entry_class(prog: Program, index: FileIndex, entry: str) -> ClassRef:
    for node in index.tree.body:
        if isinstance(node, ast.ClassDef) and node.name == entry:
            return ClassRef(index, node)
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            for sub in ast.walk(node):
                call = _built(node, sub.value) if isinstance(sub, ast.Return) else None
                if call is not None:
                    ref = prog.resolve_class(index, call.func)
                    if isinstance(ref, ClassRef):
                        return ref
            raise StaticError(
                f"cannot tell statically which class {entry}() in '{index.path}' builds"
            )
        if isinstance(node, ast.Assign | ast.ImportFrom | ast.Import):
            names = (
                [t.id for t in node.targets if isinstance(t, ast.Name)]
                if isinstance(node, ast.Assign)
                else [a.asname or a.name for a in node.names]
            )
            if entry in names:
                value = (
                    node.value if isinstance(node, ast.Assign) else ast.Name(id=entry)
                )
                ref = prog.resolve_class(index, value)
                if isinstance(ref, ClassRef):
                    return ref
    raise StaticError(
        f"'{index.path}' defines no model: no class or factory '{entry}' "
        f"(define {entry}(nn.Module) or pass --entry NAME)"
    )


def _example_inputs(index: FileIndex) -> list[ast.expr] | None:
    """The expressions example_inputs() returns, when it returns a literal tuple."""
    fn = next(
        (
            n
            for n in index.tree.body
            if isinstance(n, ast.FunctionDef) and n.name == "example_inputs"
        ),
        None,
    )
    if fn is None:
        return None
    rets = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value]
    if len(rets) != 1:
        return None
    value = rets[0].value
    return list(value.elts) if isinstance(value, ast.Tuple | ast.List) else [value]


def _input_kind(prog: Program, index: FileIndex, expr: ast.expr) -> str:
    if isinstance(expr, ast.Dict | ast.DictComp | ast.List | ast.ListComp):
        return "container"
    if isinstance(expr, ast.Constant):
        return "builtin"
    if isinstance(expr, ast.Call):
        ref = prog.resolve_class(index, expr.func)
        if isinstance(ref, ClassRef):
            return "object"
        if isinstance(expr.func, ast.Name) and expr.func.id in {"dict", "list"}:
            return "container"
    return "tensor"


def _forward_env(
    prog: Program, forward: Func, inputs: list[ast.expr] | None, index: FileIndex
) -> dict[str, Kinds]:
    params = [p for p in forward.params if p.arg != "self"]
    fed = len(inputs) if inputs is not None else None
    env: dict[str, Kinds] = {}
    for i, p in enumerate(params):
        kinds = param_kinds(p)
        is_fed = fed is None and getattr(p, "_cuvil_default", None) is None
        is_fed = is_fed or (fed is not None and i < fed)
        kind = _input_kind(prog, index, inputs[i]) if inputs and i < fed else "tensor"
        if getattr(p, "_cuvil_kind", "") in {"kwarg", "vararg"}:
            is_fed = False
        if kind == "object":
            prog.add("object-input", forward.file, p.lineno, p)
        elif kind == "container" or "param-container" in kinds:
            prog.add("container-input", forward.file, p.lineno, p)
        if (
            prog.frontend == "fx"
            and kinds
            and (not is_fed or kinds - {"param-optional"})
        ):
            prog.add("non-tensor-param", forward.file, p.lineno, p)
        if is_fed and kind in {"tensor", "container"}:
            env[p.arg] = frozenset(
                {"value", "input"} | ({"container"} if kind == "container" else set())
            )
        elif is_fed and kind == "object":
            env[p.arg] = frozenset({"value", "container"})
        elif prog.frontend == "fx" and not is_fed:
            env[p.arg] = frozenset({"param"})
        else:
            env[p.arg] = NONE
    return env


def _returns(prog: Program, forward: Func) -> None:
    """forward() of the entry returns something that is not tensors."""
    index = index_file(forward.file)
    for stmt in forward.stmts:
        if not isinstance(stmt.node, ast.Return) or stmt.node.value is None:
            continue
        for part in _return_parts(stmt.node.value):
            if _non_tensor(prog, index, part):
                prog.add("object-return", forward.file, stmt.line)
                break


def _return_parts(value: ast.expr) -> list[ast.expr]:
    if isinstance(value, ast.Tuple | ast.List):
        return [p for e in value.elts for p in _return_parts(e)] + (
            [value] if isinstance(value, ast.List) else []
        )
    return [value]


def _non_tensor(prog: Program, index: FileIndex, expr: ast.expr) -> bool:
    if isinstance(expr, ast.Dict | ast.DictComp | ast.JoinedStr):
        return True
    if isinstance(expr, ast.List):
        return any(isinstance(e, ast.Dict) for e in expr.elts)
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        if expr.func.id == "dict":
            return True
        ref = prog.resolve_class(index, expr.func)
        return isinstance(ref, ClassRef) or (ref is None and expr.func.id[:1].isupper())
    return False


# ---- the result ----------------------------------------------------------------------
def static_result(spec: str, frontend: str = "fx", entry: str | None = None) -> dict:
    """A result dict in the schema of results.to_result, with "mode": "static"."""
    from .results import relpath

    t0 = time.perf_counter()
    base = {"model": spec, "mode": "static", "frontend": frontend}
    target, attr = split_spec(spec)
    entry = attr or entry or DEFAULT_ENTRY
    try:
        prog, forward = _analyse(target, entry, frontend)
    except StaticError as e:
        return {**base, "status": "error", "message": str(e), "duration_s": _dt(t0)}
    risks = sorted(prog.risks.values(), key=lambda r: (-r.rule.weight, r.order))
    out = {**base, "duration_s": _dt(t0)}
    if not risks:
        return {**out, "status": "ok", "message": "no capture risk found statically"}
    top = risks[0]
    scores: dict[str, float] = {}
    for r in risks:
        scores[r.rule.category] = max(scores.get(r.rule.category, 0.0), r.rule.weight)
    probs = _softmax(scores)
    category = top.rule.category
    roots = _roots(prog, risks, top)
    index = index_file(top.file)
    text = index.text(top.line) if index else ""
    alts = sorted(
        ((c, p) for c, p in probs.items() if c != category),
        key=lambda kv: kv[1],
        reverse=True,
    )[:2]
    return {
        **out,
        "status": "failed",
        "category": category,
        "title": CATEGORIES[category].title,
        "confidence": round(probs[category] * STATIC_SCALE, 3),
        "alternatives": [
            {"category": c, "confidence": round(p * STATIC_SCALE, 3)} for c, p in alts
        ],
        "message": f"static prediction (no model code was run): {top.rule.says} at "
        f"{relpath(top.file)}:{top.line}: {text}"[:300],
        "hint": CATEGORIES[category].hint,
        "location": roots[0]["location"] if roots else _loc(top.file, top.line),
        "failing": _loc(top.file, top.line),
        "root_causes": roots,
        "signals": sorted({f"static:{r.construct}" for r in risks}),
    }


def _analyse(target: str, entry: str, frontend: str) -> tuple[Program, Func]:
    path = _model_path(target)
    index = index_file(str(path))
    if index is None:
        raise StaticError(f"'{target}' is not valid Python source")
    prog = Program(frontend="export" if frontend == "auto" else frontend)
    prog.use(index)
    prog.user_root = str(path.parent) + os.sep
    prog.dynamic_shapes = any(
        isinstance(n, ast.FunctionDef) and n.name == "dynamic_shapes"
        for n in index.tree.body
    )
    cls = _entry_class(prog, index, entry)
    forward = prog.methods(cls).get("forward")
    if forward is None:
        raise StaticError(f"class {cls.name} in '{cls.index.path}' has no forward()")
    env = _forward_env(prog, forward, _example_inputs(index), index)
    init = prog.methods(cls).get("__init__")
    if init is not None and init.file == cls.index.path:
        analyse(prog, init, {})
    analyse(prog, forward, env)
    return prog, forward


def _model_path(target: str) -> Path:
    path = Path(target)
    if target.endswith(".py") or path.exists():
        if not path.is_file():
            raise StaticError(f"'{target}' does not exist")
        return path.resolve()
    top, *rest = target.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
        for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
            if candidate.is_file():
                return candidate
    elif spec and spec.origin and not rest:
        return Path(spec.origin)
    raise StaticError(f"cannot find the source of '{target}'")


def _roots(prog: Program, risks: list[Risk], top: Risk) -> list[dict]:
    category = top.rule.category
    same = [r for r in risks if r.rule.category == category]
    if category in {"non-tensor-argument", "unsupported-io-type"} and top.param:
        params = [r for r in same if r.param is not None][:3]
        z = sum(math.exp(r.rule.weight) for r in params)
        return [
            {
                "location": _loc(r.file, r.line),
                "confidence": round(math.exp(r.rule.weight) / z, 3),
                "chain": [_loc(r.file, r.line)],
            }
            for r in params
        ]
    graph = DefUseGraph(list(prog.files.values()))
    start = (top.file, top.line)
    paths = graph.walk_back(start)
    for r in same[1:]:  # the other risky lines of the category are candidates too
        paths.setdefault((r.file, r.line), [(r.file, r.line)])
    return [
        {
            "location": _loc(c.file, c.line),
            "confidence": c.confidence,
            "chain": [_loc(f, n) for f, n in c.chain],
        }
        for c in rank_roots(graph, start, paths, category)
    ]


def _loc(file: str, line: int) -> dict:
    from .results import relpath

    index = index_file(file)
    return {
        "file": relpath(file),
        "line": line,
        "text": index.text(line) if index else "",
    }


def _softmax(scores: dict[str, float]) -> dict[str, float]:
    exp = {c: math.exp(s / TEMPERATURE) for c, s in scores.items()}
    z = sum(exp.values()) + OTHER_MASS
    return {c: v / z for c, v in exp.items()}


def _dt(t0: float) -> float:
    return round(time.perf_counter() - t0, 4)


# LINE_FACTS are shared with the captured mode: the def-use graph reads them
_ = line_facts
