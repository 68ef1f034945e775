"""The user's source as data: parsed files, the statement and function at a line, and
the names each statement defines and uses (what the def-use graph is built from)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = ["FileIndex", "Func", "Stmt", "index_file", "names_in"]


@dataclass
class Stmt:
    """One statement (for compound ones: the header) and its data flow."""

    file: str
    line: int
    node: ast.AST
    func: Func | None
    defs: set[str] = field(default_factory=set)
    uses: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)  # called names: `helper`, `self.block`
    # lines of the `if`/`while` headers deciding whether this statement runs (its
    # enclosing branches, and an earlier `if ...: return` in the same block)
    guards: set[int] = field(default_factory=set)


@dataclass
class Func:
    file: str
    name: str
    cls: str | None
    node: ast.FunctionDef
    params: list[ast.arg]
    stmts: list[Stmt] = field(default_factory=list)

    @property
    def qualname(self) -> str:
        return f"{self.cls}.{self.name}" if self.cls else self.name

    def returns(self) -> list[Stmt]:
        return [s for s in self.stmts if isinstance(s.node, ast.Return)]


@dataclass
class FileIndex:
    path: str
    tree: ast.Module
    lines: list[str]
    funcs: list[Func]
    stmts: dict[int, Stmt]  # by first line; module-level statements have func None

    def stmt_at(self, line: int) -> Stmt | None:
        """The innermost statement starting at or spanning `line`."""
        if line in self.stmts:
            return self.stmts[line]
        best = None
        for s in self.stmts.values():
            end = getattr(s.node, "end_lineno", s.line)
            if s.line <= line <= end and not _is_compound(s.node):
                best = s if best is None or s.line > best.line else best
        return best

    def text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""


@lru_cache(maxsize=256)
def index_file(path: str) -> FileIndex | None:
    try:
        text = Path(path).read_text(encoding="utf-8")
        tree = ast.parse(text, filename=path)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    index = FileIndex(path, tree, text.splitlines(), [], {})
    _Indexer(index).visit(tree)
    return index


def names_in(node: ast.AST) -> set[str]:
    """Names and `self.attr` chains read by an expression."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            found.add(sub.id)
        elif _self_attr(sub) and isinstance(sub.ctx, ast.Load):
            found.add(_self_attr(sub))
    return found


def _self_attr(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    ):
        return f"self.{node.attr}"
    return None


def _targets(node: ast.AST) -> set[str]:
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            found.add(sub.id)
        elif _self_attr(sub) and isinstance(sub.ctx, ast.Store):
            found.add(_self_attr(sub))
    return found


_REGISTER = {"register_buffer", "register_parameter", "add_module"}


def _registered(node: ast.AST) -> set[str]:
    """`self.register_buffer("pos", ...)` and `setattr(self, "pos", ...)` define self.pos."""
    found = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call) or not sub.args:
            continue
        args = sub.args
        if _self_attr(sub.func) and sub.func.attr in _REGISTER:
            name = args[0]
        elif (
            isinstance(sub.func, ast.Name)
            and sub.func.id == "setattr"
            and len(args) > 1
        ):
            name = args[1]
        else:
            continue
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            found.add(f"self.{name.value}")
    return found


def _call_names(node: ast.AST) -> set[str]:
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            if isinstance(sub.func, ast.Name):
                found.add(sub.func.id)
            elif _self_attr(sub.func):
                found.add(_self_attr(sub.func))
    return found


_COMPOUND = (
    ast.If,
    ast.For,
    ast.While,
    ast.With,
    ast.Try,
    ast.FunctionDef,
    ast.ClassDef,
    ast.AsyncFunctionDef,
    ast.AsyncFor,
    ast.AsyncWith,
)


def _is_compound(node: ast.AST) -> bool:
    return isinstance(node, _COMPOUND)


def _header(node: ast.AST) -> list[ast.AST]:
    """The parts of a statement evaluated on its own line (not its body)."""
    match node:
        case ast.If() | ast.While() | ast.Assert():  # an assert's message runs only
            return [node.test]  # once its test has failed
        case ast.For():
            return [node.iter]
        case ast.With():
            return [item.context_expr for item in node.items]
        case ast.FunctionDef() | ast.ClassDef() | ast.Try():
            return []
        case _:
            return [node]


def _annotate_params(a: ast.arguments) -> None:
    """Attach each parameter's default and kind, which param_kinds() reads."""
    positional = a.posonlyargs + a.args
    for p, d in zip(
        positional[len(positional) - len(a.defaults) :], a.defaults, strict=True
    ):
        p._cuvil_default = d
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        p._cuvil_default = d
    if a.vararg:
        a.vararg._cuvil_kind = "vararg"
    if a.kwarg:
        a.kwarg._cuvil_kind = "kwarg"


_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _guards(fn: ast.FunctionDef) -> dict[int, set[int]]:
    """line -> the branch headers it is control-dependent on (within `fn`)."""
    out: dict[int, set[int]] = {}

    def lines(stmts) -> set[int]:
        return {n.lineno for b in stmts for n in ast.walk(b) if isinstance(n, ast.stmt)}

    for block in _blocks(fn):
        for i, node in enumerate(block):
            if not isinstance(node, ast.If | ast.While):
                continue
            ruled = lines(node.body) | lines(node.orelse)
            chain = _elif_chain(node) if isinstance(node, ast.If) else [node]
            if isinstance(node, ast.If) and any(
                isinstance(b[-1], _EXITS) for b in _branches(chain)
            ):  # `if a: return ... elif b: return ...`: the rest of the block runs
                rest = lines(block[i + 1 :])  # only when no exiting branch was taken
                ruled |= rest
                for header in chain[1:]:
                    for line in rest:
                        out.setdefault(line, set()).add(header.lineno)
            for line in ruled:
                out.setdefault(line, set()).add(node.lineno)
    return out


def _elif_chain(node: ast.If) -> list[ast.If]:
    chain = [node]
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
        chain.append(chain[-1].orelse[0])
    return chain


def _branches(chain: list[ast.If]) -> list[list[ast.stmt]]:
    return [n.body for n in chain] + ([chain[-1].orelse] if chain[-1].orelse else [])


def _blocks(fn: ast.FunctionDef):
    """Every statement list in `fn` (bodies, else branches, handlers)."""
    for node in ast.walk(fn):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


class _Indexer(ast.NodeVisitor):
    def __init__(self, index: FileIndex) -> None:
        self.index, self.cls, self.func = index, None, None

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer, self.cls = self.cls, node.name
        self.generic_visit(node)
        self.cls = outer

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        a = node.args
        params = (
            a.posonlyargs
            + a.args
            + a.kwonlyargs
            + [p for p in (a.vararg, a.kwarg) if p]
        )
        _annotate_params(a)
        func = Func(self.index.path, node.name, self.cls, node, params)
        self.index.funcs.append(func)
        outer, self.func = self.func, func
        self._add(node, defs={p.arg for p in params})
        for child in node.body:
            self.visit(child)
        self.func = outer
        guards = _guards(node)
        for stmt in func.stmts:
            stmt.guards = guards.get(stmt.line, set()) - {stmt.line}

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not isinstance(
            node, ast.FunctionDef | ast.ClassDef
        ):
            self._statement(node)
        super().generic_visit(node)

    def _statement(self, node: ast.stmt) -> None:
        parts = _header(node)
        defs = (
            set().union(*(_targets(p) | _registered(p) for p in parts))
            if parts
            else set()
        )
        if isinstance(node, ast.For):
            defs |= _targets(node.target)
        if isinstance(node, ast.AugAssign):
            defs |= _targets(node.target) | {n for n in names_in(node.target)}
        uses = set().union(*(names_in(p) for p in parts)) if parts else set()
        calls = set().union(*(_call_names(p) for p in parts)) if parts else set()
        self._add(node, defs, uses, calls)

    def _add(self, node, defs=(), uses=(), calls=()) -> None:
        stmt = Stmt(
            self.index.path,
            node.lineno,
            node,
            self.func,
            set(defs),
            set(uses),
            set(calls),
        )
        self.index.stmts.setdefault(node.lineno, stmt)
        if self.func is not None:
            self.func.stmts.append(stmt)


def bound_args(
    stmt: ast.AST, fn: Func, param: ast.arg, any_call: bool = False
) -> list[ast.AST] | None:
    """The argument expressions `stmt`'s calls of `fn` bind to `param` (empty: none
    passes it), or None when a splat makes the binding unclear. `any_call`: every
    call of the line may be it (a module's forward(), called as `self.block(x)`)."""
    names = {fn.cls} if fn.name == "__init__" else {fn.name}
    kind = getattr(param, "_cuvil_kind", "")
    if kind in ("vararg", "kwarg"):
        return None
    positional = fn.node.args.posonlyargs + fn.node.args.args
    bound = fn.cls is not None and positional[:1] and positional[0].arg in _BOUND
    index = positional.index(param) - bool(bound) if param in positional else -1
    out = []
    calls = [n for part in _header(stmt) for n in ast.walk(part)]
    for call in calls:
        if not isinstance(call, ast.Call) or not (
            (any_call and _module_call(call.func)) or _callee_name(call.func) in names
        ):
            continue
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return None
        out += [k.value for k in call.keywords if k.arg == param.arg]
        if 0 <= index < len(call.args):
            out.append(call.args[index])
    return out


_BOUND = ("self", "cls")


def _module_call(func: ast.AST) -> bool:
    """A call that may be a module's forward(): `block(x)`, `self.block(x)`,
    `self.blocks[i](x)`, not a method of another value (`mask.view(...)`,
    `torch.cat(...)`)."""
    while isinstance(func, ast.Subscript):
        func = func.value
    if isinstance(func, ast.Name):
        return True
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in _BOUND


def _callee_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None
