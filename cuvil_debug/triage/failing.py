"""The failing line of a record: the deepest code frame, draft_export's guard
frame, a Cuvil error's location, a line a message names, or a call to what it names;
and the AST context of that line."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .evidence import _drafted, _is_code, _replayed, code_stack, message_head
from .linefacts import line_facts, state_write, tensor_type_check
from .source import _header, index_file

_WHERE = re.compile(r"^(.+\.py):(\d+)")


_CAUSED_BY = re.compile(r"\(([^()\s]+\.py):(\d+) in (\w+)\)")


_CLASS_IN_MSG = re.compile(
    r"<class '[\w.]*?(\w+)'>|is a (\w+), not a tensor|UserDefinedObjectVariable\((\w+)\)"
)


# ---- the failing line --------------------------------------------------------------
def _failing(record, chain, user, files) -> tuple[str, int] | None:
    for finder in (
        _from_frames,
        _from_draft,
        _from_origin,
        _from_where,
        _from_message_frames,
        _from_io,
        _from_attribute,
        _from_shadowing,
        _from_target,
        _from_output,
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


def _from_origin(record, chain, user, files):
    """Where the eager run first called the op a Cuvil error refused: deeper than
    the error's own location under export, which keeps only forward()'s frame."""
    stack = code_stack(_replayed(record), user)
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


_SHADOWED = re.compile(r"submodule `(\w+)`: <bound method")


def _from_shadowing(record, chain, user, files):
    """`submodule `parameters`: <bound method Module.parameters`: the last line that
    assigns `self.parameters`, shadowing torch.nn.Module's method."""
    for e in chain:
        for name in _SHADOWED.findall(message_head(e["message"])):
            hits = [
                (ix.path, st.line)
                for ix in files
                for st in ix.stmts.values()
                if f"self.{name}" in st.defs
            ]
            if hits:
                return max(hits)
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


_OUTPUT = re.compile(
    r"output \d+ is a|at output \d+|Found <class '[\w.]+'> in output|in output, which"
)


def output_refused(chain) -> bool:
    """The error is about an output export or Cuvil cannot take."""
    return any(_OUTPUT.search(message_head(e["message"])) for e in chain)


def _from_output(record, chain, user, files):
    return forward_return(record, files) if output_refused(chain) else None


def forward_return(record, files) -> tuple[str, int] | None:
    fwd = _forward(record, files)
    return (fwd.file, fwd.returns()[-1].line) if fwd and fwd.returns() else None


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
    return (
        forward_return(record, files) if re.search(r"output \d+ is a", text) else None
    )


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
    if stmt.func and stmt.func.name != "__init__" and state_write(stmt.node):
        out.add("ast:state-write")  # forward() rebinding module state
    if type_guard(key):
        out.add("ast:type-guarded")
    for node in ast.walk(ix.tree):
        if isinstance(node, ast.Try) and node.body and node.handlers:
            end = getattr(node.body[-1], "end_lineno", node.body[-1].lineno)
            if node.body[0].lineno <= key[1] <= end:
                out.add("ast:in-try")
                break
    return out


def type_guard(key: tuple[str, int]) -> tuple[str, int] | None:
    """The `isinstance(x, Tensor)` / `torch.is_tensor(x)` test the failing line is
    under (an `assert` of one, a branch it runs in, or falls through to): under fx
    the Proxy fails the test, so the model took its path for non-tensors."""
    ix = index_file(key[0])
    stmt = ix.stmt_at(key[1]) if ix else None
    if stmt is None:
        return None
    for line in sorted({stmt.line, *stmt.guards}, reverse=True):  # innermost first
        header = ix.stmt_at(line)
        if header is None or not isinstance(header.node, ast.If | ast.Assert):
            continue
        test = header.node.test
        if any(map(tensor_type_check, ast.walk(test))) and not _tests_a_number(
            test, stmt.func
        ):
            return ix.path, line
    return None


_NUMBER = {"int", "float", "bool", "SymInt"}


def _tests_a_number(test: ast.AST, func) -> bool:
    """`def pad(x: int, ...): if isinstance(x, torch.Tensor)`: a size helper meeting a
    traced int, not a tensor turned Proxy."""
    names = {
        n.args[0].id
        for n in ast.walk(test)
        if isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name)
    }
    return func is not None and any(
        p.arg in names
        and p.annotation is not None
        and {getattr(a, "id", None) for a in ast.walk(p.annotation)} & _NUMBER
        for p in func.params
    )


def _facts_at(key: tuple[str, int]) -> set[str]:
    ix = index_file(key[0])
    stmt = ix.stmt_at(key[1]) if ix else None
    if stmt is None:
        return set()
    parts = _header(stmt.node)
    facts = line_facts(stmt.node, parts)
    # `shape = (1,) if x.ndimension() == 1 else x.shape[1:]`: what fx branches on is
    # the conditional's test (the rank), not the size read in one of its arms
    tests = [n.test for p in parts for n in ast.walk(p) if isinstance(n, ast.IfExp)]
    on_test = line_facts(stmt.node, tests) if tests else set()
    if "rank-read" in on_test and not on_test & {"shape-read", "shape-attr"}:
        facts.add("rank-only-test")
    return facts
