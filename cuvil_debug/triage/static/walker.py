"""The taint pass: the kinds of each name through forward() and what it reaches
(methods, helpers, submodule classes), and the risky constructs met on the way."""

from __future__ import annotations

import ast

from ..linefacts import _ITEM, _base
from ..source import FileIndex, Func, _header, index_file
from .names import _attrs_of, _known_names
from .program import ClassRef, Program, _class_in
from .rules import (
    _CASTS,
    _ITERATING,
    _MASK_METHODS,
    _SIZE_METHODS,
    _VIEWS,
    CONSTRUCTS,
    MAX_DEPTH,
    NONE,
    Kinds,
    _call_attr,
    _call_name,
    _element,
    _is_module,
    _line,
    _scalar,
    _union,
)


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
                return self._attribute(node)
            case ast.Subscript():
                return self._subscript(node)
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
                return self._compare(node)
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

    def _attribute(self, node: ast.Attribute) -> Kinds:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return self.env.get(f"self.{node.attr}", NONE)
        base = self.kinds(node.value)
        if node.attr in {"shape", "ndim"} and "value" in base:
            return frozenset({"size"})
        if node.attr in {"T", "mT", "H", "real", "imag", "data"}:
            return base
        return base - {"input", "mask"} if "value" in base else NONE

    def _subscript(self, node: ast.Subscript) -> Kinds:
        base = self.kinds(node.value)
        if base == {"size"} or ("size" in base and "value" not in base):
            return frozenset({"size"})
        if "container" in base:
            return base - {"container", "mask", "dict"}
        out = base - {"mask"}
        if "value" in out:
            out |= {"view"}
        return out | ({"value"} if "value" in self.kinds(node.slice) else NONE)

    def _compare(self, node: ast.Compare) -> Kinds:
        k = _union(self.kinds(v) for v in [node.left, *node.comparators])
        if any(
            isinstance(o, ast.Is | ast.IsNot | ast.In | ast.NotIn) for o in node.ops
        ):
            return k & {"param"}
        k = _scalar(k, keep_mask=False)
        return k | {"mask"} if "value" in k else k

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
