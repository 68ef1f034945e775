"""Root cause: a def-use graph (networkx) over the user's functions, walked back from
the failing line to the lines that introduced the offending value.

Edges point from a use to its definition: the latest assignment of a local before the
use, `self.attr = ...` anywhere in the class (e.g. __init__), a parameter's line and,
from there, the call sites of the function, and the `return` lines of called helpers.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from .astbits import PARAM_KINDS, param_kind, param_kinds, tensor_seq_param
from .linefacts import line_facts, state_write
from .patterns import ROOT_FACTS
from .source import FileIndex, Func, Stmt, _header, bound_args, names_in

__all__ = ["Candidate", "DefUseGraph", "rank_roots"]

MAX_DEPTH = 8
DEPTH_PENALTY = 0.35  # per def-use edge between a candidate and the failing line


@dataclass(frozen=True)
class Candidate:
    file: str
    line: int
    confidence: float
    chain: tuple[tuple[str, int], ...]  # root first, failing line last
    text: str = ""


class DefUseGraph:
    """Nodes are (file, line); node attribute `facts` holds that line's LINE_FACTS."""

    def __init__(self, files: list[FileIndex]) -> None:
        self.files = {f.path: f for f in files}
        self.funcs = [fn for f in files for fn in f.funcs]
        import networkx as nx  # here: ~0.1 s to import, only triage needs it

        self.g = nx.DiGraph()
        self._sites: dict[frozenset, list[Stmt]] = {}  # _call_sites, per name set
        for fn in self.funcs:
            self._add_function(fn)

    # ---- building -------------------------------------------------------------------
    def _add_function(self, fn: Func) -> None:
        for stmt in fn.stmts:
            self._node(stmt.file, stmt.line, stmt)
            for var in stmt.uses:
                for target, kind in self._defs_of(var, stmt, fn):
                    self.g.add_edge((stmt.file, stmt.line), target, kind=kind, var=var)
            for line in stmt.guards:  # control dependence: the branch that let it run
                guard = (
                    self.files[fn.file].stmts.get(line)
                    if fn.file in self.files
                    else None
                )
                if guard is not None:
                    self._node(guard.file, guard.line, guard)
                    self.g.add_edge(
                        (stmt.file, stmt.line),
                        (guard.file, guard.line),
                        kind="control",
                        var="",
                    )
            for callee in self._callees(stmt, fn):
                for ret in callee.returns():
                    self._node(ret.file, ret.line, ret)
                    self.g.add_edge(
                        (stmt.file, stmt.line),
                        (ret.file, ret.line),
                        kind="return",
                        var=callee.name,
                    )

    def _node(self, file: str, line: int, stmt: Stmt | None, extra: set | None = None):
        key = (file, line)
        if key not in self.g:  # facts are computed when first asked (facts())
            self.g.add_node(key, stmt=stmt, extra=set(extra or ()))
        elif extra:
            node = self.g.nodes[key]
            node["extra"] = node.get("extra", set()) | extra
            if "facts" in node:
                node["facts"] = node["facts"] | extra
        return key

    def _defs_of(self, var: str, use: Stmt, fn: Func):
        local = [
            s
            for s in fn.stmts
            if var in s.defs
            and s.line < use.line
            and not isinstance(s.node, ast.FunctionDef)
        ]
        # the latest def, and those before it (or the parameter) while it sits in
        # a branch that may not have run
        for s in sorted(local, key=lambda s: s.line, reverse=True):
            yield (use.file, s.line), "def"
            if not s.guards:
                return
        param = next((p for p in fn.params if p.arg == var), None)
        if param is not None:
            yield self._param_node(fn, param), "param"
        elif var.startswith("self."):
            yield from ((k, "attr") for k in self._attr_defs(var, fn))

    def _param_node(self, fn: Func, param: ast.arg):
        facts = {"param"} | tensor_seq_param(fn.node, param.arg)
        if fn.cls and param.arg in ("self", "cls"):  # the receiver: nobody passes it
            facts = {"receiver"}
        elif fn.name == "forward":
            facts |= {"forward-param"} | param_kinds(param)
        # one node per parameter: on a one-line signature `x` must not get the facts
        # of `mask=None` beside it
        key = (fn.file, param.lineno, param.arg)
        if key not in self.g:
            self.g.add_node(key, facts=set(facts))
        self.g.nodes[key]["param"] = param
        for site in self._call_sites(fn):
            self._bind(key, site, fn, param)
        return key

    def _bind(self, key, site: Stmt, fn: Func, param: ast.arg) -> None:
        """An edge from a parameter to the call site that passes it: to a node for
        just the argument bound to it (so `x` does not take the facts of `mask=None`
        beside it in `self.f(x, mask=mask)`), or to the whole line when the binding
        is unclear (a `*args` splat)."""
        args = bound_args(site.node, fn, param)
        if args is None:
            self.g.add_edge(key, (site.file, site.line), kind="call-site", var=fn.name)
        elif args:  # else never passed here: the parameter holds its default
            arg = self._arg_node(site, fn, param, args)
            self.g.add_edge(key, arg, kind="call-site", var=fn.name)

    def _arg_node(self, site: Stmt, fn: Func, param: ast.arg, args) -> tuple:
        """The call site's line, as far as the arguments bound to `param` go."""
        arg = (site.file, site.line, f"{fn.name}:{param.arg}")
        if arg not in self.g:
            self.g.add_node(arg, stmt=site, extra=set())
            for var in set().union(*map(names_in, args)):
                for target, kind in self._defs_of(var, site, site.func):
                    self.g.add_edge(arg, target, kind=kind, var=var)
            index = self.files.get(site.file)
            for line in site.guards:  # the guard's function may not be added yet
                guard = index.stmts.get(line) if index else None
                if guard is not None:
                    key = self._node(guard.file, guard.line, guard)
                    self.g.add_edge(arg, key, kind="control", var="")
        return arg

    def _attr_defs(self, var: str, fn: Func):
        for other in self.funcs:
            if other.cls == fn.cls and other.file == fn.file:
                for s in other.stmts:
                    if var in s.defs:
                        yield self._node(s.file, s.line, s)

    def _callees(self, stmt: Stmt, fn: Func) -> list[Func]:
        out = []
        for name in stmt.calls:
            short = name.removeprefix("self.")
            out += [
                f
                for f in self.funcs
                if f.name == short
                and f.name != fn.name
                and (f.cls == fn.cls if name.startswith("self.") else f.cls is None)
            ]
        return out

    def _call_sites(self, fn: Func) -> list[Stmt]:
        names = {fn.name, f"self.{fn.name}"} if fn.name != "forward" else set()
        if fn.name == "__init__" and fn.cls:
            names = {fn.cls}
        if not names:
            return []
        key = frozenset(names)
        if key not in self._sites:
            self._sites[key] = [
                s for f in self.funcs for s in f.stmts if s.calls & names
            ]
        return self._sites[key]

    def add_stack(self, stack: list[tuple[str, int]]) -> None:
        """Edges from each frame's line to its caller's (the stack, outermost first):
        a value that broke in a library function came through the call that reached
        it, in the user's code or the library's own forward(); through the arguments
        bound to the parameters the value came from, when those are known."""
        keys = [self.key(k) for k in stack if k[0] in self.files]
        ran: dict = {}  # function -> the call sites the stack shows it was called from
        for caller, callee in zip(keys, keys[1:]):
            if caller != callee:
                for target in self._stack_args(caller, callee) or [caller]:
                    self.g.add_edge(callee, target, kind="caller", var="")
                fn = self.func_at(callee)
                if fn is not None:
                    ran.setdefault((fn.file, fn.node.lineno), (fn, set()))[1].add(
                        caller[:2]
                    )
        for fn, sites in ran.values():
            self._keep_sites(fn, sites)

    def _keep_sites(self, fn: Func, sites: set) -> None:
        """A function the stack shows called from `sites`: its parameters came from
        those calls, not from its other call sites (`check(x=a)` then `check(x=b)`:
        the failing check got `a`). Unchanged when the stack's call is not one the
        static call sites know (a call through a name they miss)."""
        for param in fn.params:
            key = self._param_node(fn, param)
            edges = [
                (key, t)
                for t in self.g.successors(key)
                if self.g.edges[key, t]["kind"] == "call-site"
            ]
            if any(t[:2] in sites for _, t in edges):
                self.g.remove_edges_from([e for e in edges if e[1][:2] not in sites])

    def _stack_args(self, caller, callee) -> list | None:
        """The caller's argument nodes for the callee's parameters the value at
        `callee` came from (None: unknown). Each parameter of the callee also gets
        an edge to its argument here: a module's forward() has no call site by name."""
        fn = self.func_at(callee)
        index = self.files.get(caller[0])
        site = index.stmts.get(caller[1]) if index else None
        if fn is None or site is None or site.func is None:
            return None
        bound = {}
        for param in fn.params:
            args = bound_args(site.node, fn, param, any_call=fn.name == "forward")
            bound[param.arg] = args
            if args:
                arg = self._arg_node(site, fn, param, args)
                self.g.add_edge(self._param_node(fn, param), arg, kind="caller", var="")
            elif args is None:  # a splat: the parameter came from the whole call
                key = self._param_node(fn, param)
                self.g.add_edge(key, caller, kind="caller", var="")
        out = []
        for param in self._reached_params(callee, fn):
            if bound[param.arg] is None:
                return None
            if bound[param.arg]:
                out.append(self._arg_node(site, fn, param, bound[param.arg]))
        return out or None

    def func_at(self, key) -> Func | None:
        inside = [
            fn
            for fn in self.funcs
            if fn.file == key[0]
            and fn.node.lineno <= key[1] <= (fn.node.end_lineno or fn.node.lineno)
        ]
        return max(inside, key=lambda fn: fn.node.lineno, default=None)

    def _reached_params(self, start, fn: Func) -> list[ast.arg]:
        """`fn`'s parameters that the value at `start` comes from, inside `fn` (none
        from a line no statement holds, e.g. a `class` statement in a method)."""
        end = fn.node.end_lineno or fn.node.lineno
        seen, todo, found = {start}, [start] if start in self.g else [], []
        while todo:
            for t in self.g.successors(todo.pop()):
                if t in seen or t[0] != fn.file or not fn.node.lineno <= t[1] <= end:
                    continue
                seen.add(t)
                param = self.g.nodes[t].get("param")
                if param is not None and param in fn.params:
                    found.append(param)
                elif len(t) == 2:
                    todo.append(t)
        return found

    def key(self, loc: tuple[str, int]) -> tuple[str, int]:
        """The node of the statement spanning `loc` (a traceback may name any line
        of a multi-line statement)."""
        index = self.files.get(loc[0])
        stmt = index.stmt_at(loc[1]) if index else None
        if stmt is None:
            return loc
        return self._node(stmt.file, stmt.line, stmt)

    # ---- walking --------------------------------------------------------------------
    def walk_back(self, start: tuple[str, int]) -> dict[tuple[str, int], list]:
        """Each reachable line -> the path from `start` to it (BFS: shortest paths)."""
        if start not in self.g:
            return {start: [start]}
        import networkx as nx

        paths = nx.single_source_shortest_path(self.g, start, cutoff=MAX_DEPTH)
        return paths

    def walk_uses(self, start, names: set[str]) -> dict[tuple[str, int], list]:
        """Where the values of `names` on the start line came from: like walk_back,
        from those uses only, along def-use edges (not the branches lines ran under)."""
        import networkx as nx

        data = nx.subgraph_view(
            self.g, filter_edge=lambda u, v: self.g.edges[u, v]["kind"] != "control"
        )
        out = {}
        for t in self.g.successors(start) if start in self.g and names else ():
            if self.g.edges[start, t].get("var") in names:
                found = nx.single_source_shortest_path(data, t, cutoff=MAX_DEPTH - 1)
                for key, path in found.items():
                    out.setdefault(key, [start, *path])
        return out

    def search(self, cls: str | None) -> dict[tuple[str, int], list]:
        """No failing line known: every line of the model's methods (but __init__),
        module-level helpers and forward()'s parameters, each its own path."""
        paths = {}
        for fn in self.funcs:
            if fn.cls not in (cls, None) or fn.name == "__init__":
                continue
            for stmt in fn.stmts[1:]:
                paths[(stmt.file, stmt.line)] = [(stmt.file, stmt.line)]
            if fn.name == "forward":
                for p in fn.params[1:]:
                    key = self._param_node(fn, p)
                    paths[key] = [key]
        return paths

    def tensor_params(self, cls: str | None, inputs: list[dict]) -> set:
        """Parameters whose kind (flag, Optional...) says nothing about a Proxy: the
        root forward()'s fed ones (`inputs` describes what the user passed) and, when
        the root is known, those of every other function (another module's forward(),
        a helper), which get what their caller passes; only the root's unfed
        parameters are the tracer's stand-ins."""
        if not self.forward_params(cls):
            return set()
        fed = {k for k, i in self.bound(cls, inputs) if i.get("type") == "Tensor"}
        others = {
            self._param_node(fn, p)
            for fn in self.funcs
            if not (fn.name == "forward" and fn.cls == cls)
            for p in fn.params
        }
        return fed | others

    def bound(self, cls: str | None, inputs: list[dict]) -> list[tuple]:
        """(root forward() parameter, the input the user passed it) pairs. Inputs bind
        in order up to a `*args`: fx traces its whole tuple (and a `**kwargs`) as one
        Proxy, which no input stands for."""
        root = self.forward_params(cls)
        return list(
            zip([k for k in root if not param_kind(self.g.nodes[k]["param"])], inputs)
        )

    def forward_params(self, cls: str | None) -> list[tuple[str, int]]:
        return [
            self._param_node(fn, p)
            for fn in self.funcs
            if fn.name == "forward" and fn.cls == cls
            for p in fn.params[1:]
        ]

    def decorators(self, key: tuple[str, int] | None) -> list[tuple[str, int]]:
        """The decorator lines of the function whose `def` is at `key`."""
        index = self.files.get(key[0]) if key else None
        stmt = index.stmts.get(key[1]) if index else None
        if stmt is None or not isinstance(stmt.node, ast.FunctionDef):
            return []
        out = []
        for dec in stmt.node.decorator_list:
            k = (key[0], dec.lineno)
            if k not in self.g:
                self.g.add_node(k, facts={"decorator"})
            out.append(k)
        return out

    def facts(self, key: tuple[str, int]) -> set[str]:
        if key not in self.g:
            return set()
        node = self.g.nodes[key]
        if "facts" not in node:
            stmt = node.get("stmt")
            if stmt is None:  # added as an edge target before its own function
                index = self.files.get(key[0])
                stmt = index.stmt_at(key[1]) if index else None
            facts = line_facts(stmt.node, _header(stmt.node)) if stmt else set()
            if stmt and stmt.func and stmt.func.name != "__init__":
                facts |= {"state-write"} if state_write(stmt.node) else set()
            node["facts"] = facts | node.get("extra", set())
        return node["facts"]

    def param(self, key: tuple[str, int]) -> ast.arg | None:
        return self.g.nodes[key].get("param") if key in self.g else None


def flow_facts(graph: DefUseGraph, paths: dict, tensors=frozenset()) -> set[str]:
    """Facts of the lines the failing value came from (the failing line excluded).
    A forward() parameter's kind (flag, Optional...) counts unless it is in `tensors`:
    parameters the user fed a tensor, and a library submodule's parameters, whose
    `Optional[Tensor]` annotation says nothing about what its caller passed."""
    out = set()
    for key, path in paths.items():
        if len(path) > 1:
            out |= graph.facts(key) - (PARAM_KINDS if key in tensors else set())
    return out


def rank_roots(
    graph: DefUseGraph,
    start: tuple[str, int],
    paths: dict,
    category: str,
    top: int = 3,
    extra: dict | None = None,
) -> list[Candidate]:
    """The `top` lines most likely to be the root cause, with softmax confidences
    (`extra`: a score added to some candidates, e.g. parameters the walk missed)."""
    weights = ROOT_FACTS.get(category, {"failing": 1})
    extra = extra or {}
    scored = []
    for key, path in paths.items():
        facts = graph.facts(key) | ({"failing"} if key == start else set())
        score = (
            sum(weights.get(f, 0.0) for f in facts)
            - DEPTH_PENALTY * (len(path) - 1)
            + extra.get(key, 0.0)
        )
        scored.append((score, -len(path), key, path))
    # best score, then the shorter chain, then the earlier line (a stable order)
    scored.sort(key=lambda t: (-t[0], -t[1], str(t[2][0]), t[2][1]))
    best, lines = [], set()
    for item in scored:  # one candidate per line (parameters share their line)
        if item[2][:2] not in lines and len(best) < top:
            lines.add(item[2][:2])
            best.append(item)
    z = sum(math.exp(s) for s, *_ in best) or 1.0
    return [
        Candidate(
            k[0],
            k[1],
            round(math.exp(s) / z, 3),
            tuple(n[:2] for n in reversed(p)),
            _text(graph, k),
        )
        for s, _, k, p in best
    ]


def _text(graph: DefUseGraph, key: tuple[str, int]) -> str:
    index = graph.files.get(key[0])
    return index.text(key[1]) if index else ""
