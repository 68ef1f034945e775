"""The TUI's view model: a Cuvil IR module as plain Python data, no Textual in here.

``ModuleView.build(module)`` indexes every function once: its ops in order, each op's
printed IR line (with and without its ``loc(...)``), the value names the printer gives,
def/use maps by value, the source file:line of each op's location, its FX nodes and,
for a ``cuvil.fused`` op, the body function holding its members. The widgets only read
this; navigation (definition, uses, search) is answered here so it is testable without
a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cuvil.ir import Function, Module, Operation, Value, format_op
from cuvil.ir.location import AnyLoc, Loc
from cuvil.ir.ops.fused import body_of
from cuvil.ir.printer import Namer

__all__ = [
    "OpInfo",
    "FunctionView",
    "ModuleView",
    "ModuleGroup",
    "SourceRef",
    "matches",
    "module_tree",
]


@dataclass(frozen=True)
class SourceRef:
    """A Python source position of an op: the file as the location names it, 1-based line."""

    file: str
    line: int
    col: int | None = None

    def __str__(self) -> str:
        return f"{Path(self.file).name}:{self.line}"


@dataclass(eq=False)
class OpInfo:
    """One op of a function, as the panes show it."""

    index: int  # position in ModuleView.ops (all functions, in order)
    func: str  # the function's name
    pos: int  # position in its function
    op: Operation
    text: str  # the printed line without `loc(...)`
    loc_text: str  # `loc(...)`
    results: tuple[str, ...]  # printed value names, with '%'
    operands: tuple[str, ...]
    source: SourceRef | None
    fx_nodes: tuple[str, ...]
    module_path: str | None = (
        None  # the nn.Module path of its location ("layer1.0.conv1")
    )

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def label(self) -> str:
        """A short name: ``%res = cuvil.add``."""
        res = ", ".join(self.results)
        return f"{res} = {self.op.name}" if res else self.op.name


@dataclass(eq=False)
class FunctionView:
    name: str
    signature: str
    ops: list[OpInfo] = field(default_factory=list)
    args: dict[int, str] = field(default_factory=dict)  # id(Value) -> name

    def by_source_line(self) -> list[tuple[SourceRef | None, list[OpInfo]]]:
        """Consecutive ops grouped by their source line, in op order (a line that comes
        back later starts a new group: the order of the IR stays)."""
        groups: list[tuple[SourceRef | None, list[OpInfo]]] = []
        for info in self.ops:
            key = _line_key(info.source)
            if groups and _line_key(groups[-1][0]) == key:
                groups[-1][1].append(info)
            else:
                groups.append((info.source, [info]))
        return groups

    def by_module(self) -> ModuleGroup:
        """The ops as a tree of nn.Module paths (`module_tree`)."""
        return module_tree(self.ops)


@dataclass(eq=False)
class ModuleGroup:
    """One nn.Module path of a module tree: its ops and its submodules, in op order."""

    path: str  # "" for the root
    ops: list[OpInfo] = field(default_factory=list)
    children: dict[str, ModuleGroup] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return len(self.ops) + sum(c.count for c in self.children.values())


def module_tree(ops: list[OpInfo]) -> ModuleGroup:
    """`ops` as a tree of nn.Module paths: "layer1.0.conv1" is under "layer1" >
    "layer1.0"; ops without a module path sit at the root."""
    root = ModuleGroup("")
    for info in ops:
        group = root
        if info.module_path:
            parts = info.module_path.split(".")
            for k in range(1, len(parts) + 1):
                path = ".".join(parts[:k])
                group = group.children.setdefault(path, ModuleGroup(path))
        group.ops.append(info)
    return root


def _line_key(src: SourceRef | None) -> tuple[str, int] | None:
    return None if src is None else (src.file, src.line)


def _module_of(loc: AnyLoc) -> str | None:
    return next((p.module for p in loc.parts if p.module), None)


def _source_of(loc: AnyLoc) -> SourceRef | None:
    for part in loc.parts:
        if part.file is not None and part.line is not None:
            return SourceRef(part.file, part.line, part.col)
    return None


class ModuleView:
    """Every function of `module`, indexed for the panes (see the module docstring).

    `base` is where relative source paths of locations are looked up from (besides the
    current directory): the `.cuvilir` file's folder and its parents, or the model's."""

    def __init__(self, module: Module, base: Path | None = None) -> None:
        self.module = module
        self.base = base
        self.functions: list[FunctionView] = []
        self.ops: list[OpInfo] = []
        self._by_op: dict[int, OpInfo] = {}  # id(Operation) -> OpInfo
        self._names: dict[int, str] = {}  # id(Value) -> printed name
        self._sources: dict[str, list[str] | None] = {}
        for fn in module.functions:
            self.functions.append(self._index(fn))

    def _index(self, fn: Function) -> FunctionView:
        namer = Namer()
        sig = ", ".join(f"{namer(a)}: {a.type}" for a in fn.args)
        view = FunctionView(fn.name, f"func @{fn.name}({sig})")
        for a in fn.args:
            view.args[id(a)] = self._names[id(a)] = namer(a)
        for pos, op in enumerate(fn.ops):
            line = format_op(op, namer)
            loc = str(op.loc)
            text = line[: -len(loc)].rstrip() if line.endswith(loc) else line
            info = OpInfo(
                index=len(self.ops),
                func=fn.name,
                pos=pos,
                op=op,
                text=text,
                loc_text=loc,
                results=tuple(namer(r) for r in op.results),
                operands=tuple(namer(v) for v in op.operands),
                source=_source_of(op.loc),
                fx_nodes=op.loc.nodes,
                module_path=_module_of(op.loc),
            )
            for r in op.results:
                self._names[id(r)] = namer(r)
            self.ops.append(info)
            view.ops.append(info)
            self._by_op[id(op)] = info
        return view

    # ---- lookups ------------------------------------------------------------------------
    def function(self, name: str) -> FunctionView | None:
        return next((f for f in self.functions if f.name == name), None)

    @property
    def main(self) -> FunctionView | None:
        return self.function("forward") or (
            self.functions[0] if self.functions else None
        )

    def info(self, op: Operation) -> OpInfo | None:
        return self._by_op.get(id(op))

    def name_of(self, value: Value) -> str:
        return self._names.get(id(value), "%?")

    def definition(self, info: OpInfo) -> OpInfo | None:
        """The op defining `info`'s first operand (None: no operand, or an argument)."""
        if not info.op.operands:
            return None
        owner = info.op.operands[0].owner
        return None if owner is None else self.info(owner)

    def uses(self, info: OpInfo) -> list[OpInfo]:
        """The ops using `info`'s first result, in op order, each once."""
        if not info.op.results:
            return []
        found = {id(op): self.info(op) for op, _ in info.op.results[0].uses}
        return sorted(
            (i for i in found.values() if i is not None), key=lambda i: i.index
        )

    def members(self, info: OpInfo) -> FunctionView | None:
        """The body of a ``cuvil.fused`` op (its member ops), else None."""
        if info.op.name != "cuvil.fused":
            return None
        try:
            return self.function(body_of(self.module, info.op).name)
        except Exception:  # a body the verifier would reject: show no members
            return None

    def search(self, query: str, after: int = -1) -> OpInfo | None:
        """The first op after index `after` (wrapping) whose op name, FX node, value
        names, nn.Module path or source line text contain `query` (case-insensitive)."""
        q = query.strip().lower()
        if not q:
            return None
        n = len(self.ops)
        for k in range(n):
            info = self.ops[(after + 1 + k) % n]
            if matches(info, q.lstrip("%")) or q in self.source_text(info).lower():
                return info
        return None

    def ops_at(self, file: str, line: int) -> list[OpInfo]:
        """The ops whose location is `file`:`line`, in op order (fused members too)."""
        return [
            i
            for i in self.ops
            if i.source is not None and i.source.file == file and i.source.line == line
        ]

    def source_text(self, info: OpInfo) -> str:
        """The text of `info`'s source line ('' when it has none or it cannot be read)."""
        src = info.source
        lines = self.source_lines(src.file) if src is not None else None
        if not lines or not 1 <= src.line <= len(lines):
            return ""
        return lines[src.line - 1]

    # ---- source files -------------------------------------------------------------------
    def resolve(self, file: str) -> Path | None:
        """The file a location names, looked up as given, then under `base` and its
        parents (a location is relative to where the model was lowered from)."""
        path = Path(file)
        candidates = [path]
        if not path.is_absolute() and self.base is not None:
            base = self.base.resolve()
            candidates += [d / path for d in (base, *base.parents)]
        return next((c for c in candidates if c.is_file()), None)

    def source_lines(self, file: str) -> list[str] | None:
        """The lines of a source file (cached), None when it cannot be read."""
        if file not in self._sources:
            path = self.resolve(file)
            try:
                text = path.read_text(encoding="utf-8") if path else None
            except (OSError, UnicodeDecodeError):
                text = None
            self._sources[file] = None if text is None else text.splitlines()
        return self._sources[file]


def matches(info: OpInfo, q: str, *, operands: bool = True) -> bool:
    """Whether `q` (lower case, no '%') is in the op's name, FX nodes, result (and
    `operands`: operand) names or nn.Module path."""
    if q in info.op.name.lower():
        return True
    used = info.operands if operands else ()
    names = (*info.fx_nodes, *info.results, *used, info.module_path or "")
    return any(q in n.lower().lstrip("%") for n in names)


def loc_chain(loc: AnyLoc) -> list[Loc]:
    """The locations an op's location is made of (one, or a FusedLoc's members)."""
    return list(loc.parts)
