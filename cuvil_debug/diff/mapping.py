"""Which IR value holds each FX node's value, in a given stage's module.

The frontend records what every FX node became (``module.fx_values``): usually an
op result named after the node, sometimes another node's value (a view or identity that
lowered to no op), a compile-time Python value, or a param not yet used. Passes keep value
names when they rewrite (fold-bn names the folded conv's result after the batch norm,
fusion keeps member names inside the ``cuvil.fused`` body and names the fused op's result
after its last member), and every op keeps the FX nodes it came from in its ``loc``. So in
every stage a node is found by its value's name, and a node without a value is explained by
the locs: *folded* into an op that names it, or *removed* when no op does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cuvil.ir.core import Module, Operation, Value
from cuvil.ir.ops.fused import FusedOp, body_of

from .model import NodeRow, StageResult
from .status import Status

__all__ = ["StageMap", "map_stage", "fx_value_names"]

_RANKS = {"nhwc": 4, "nwc": 3, "nchw8c": 4, "nchw16c": 4}


@dataclass
class Site:
    """Where a value lives: the op defining it (None: a function argument) and, inside a
    fused body, the ``cuvil.fused`` op that computes it."""

    value: Value
    op: Operation | None
    fused: FusedOp | None = None


@dataclass
class StageMap:
    """Per FX node: its StageResult skeleton; per IR value: the FX nodes it holds."""

    results: dict[str, StageResult]
    anchors: dict[int, list[str]] = field(default_factory=dict)  # id(Value) -> nodes

    def nodes_of(self, v: Value) -> list[str]:
        return self.anchors.get(id(v), [])


def fx_value_names(before: Module) -> dict[str, str | None]:
    """Node -> the name of the IR value holding its value (None: no tensor value)."""
    out: dict[str, str | None] = {}
    for node, v in before.fx_values.items():
        out[node] = v.name if isinstance(v, Value) else None
    return out


def map_stage(
    module: Module,
    rows: list[NodeRow],
    names: dict[str, str | None],
    exact: dict[str, Value] | None = None,
) -> StageMap:
    """Map every FX node onto `module` (``exact``: the frontend's own values, for the
    module straight out of the frontend, where identity beats names)."""
    sites = _sites(module)
    by_name: dict[str, list[Site]] = {}
    for s in sites.values():
        if s.value.name:
            by_name.setdefault(s.value.name, []).append(s)
    by_loc: dict[str, list[Operation]] = {}
    for s in sites.values():
        if s.op is not None:
            for n in s.op.loc.nodes:
                if s.op not in by_loc.setdefault(n, []):
                    by_loc[n].append(s.op)

    smap = StageMap({})
    for row in rows:
        if not row.is_tensor or names.get(row.name) is None:
            smap.results[row.name] = StageResult(
                Status.CONSTANT, note=_constant_note(row)
            )
            continue
        vname = names[row.name]
        if exact is not None:
            v = exact.get(row.name)
            found = [sites[id(v)]] if isinstance(v, Value) and id(v) in sites else []
        else:
            found = by_name.get(vname, [])
        # a value in the main function is a real buffer; one inside a fused body is not
        found.sort(key=lambda s: s.fused is not None)
        if found:
            site = found[0]
            result = _with_value(row, site, vname)
            for s in found:
                smap.anchors.setdefault(id(s.value), [])
                if row.name not in smap.anchors[id(s.value)]:
                    smap.anchors[id(s.value)].append(row.name)
        else:
            result = _without_value(row, by_loc.get(row.name, []))
        smap.results[row.name] = result
    return smap


def _sites(module: Module) -> dict[int, Site]:
    """Every value of the main function and of the fused bodies it calls."""
    sites: dict[int, Site] = {}
    main = module.main
    for a in main.args:
        sites[id(a)] = Site(a, None)
    for op in main.ops:
        for r in op.results:
            sites[id(r)] = Site(r, op)
        if isinstance(op, FusedOp):
            body = body_of(module, op)
            for bop in body.ops:
                for r in bop.results:
                    sites.setdefault(id(r), Site(r, bop, op))
    return sites


def _with_value(row: NodeRow, site: Site, vname: str) -> StageResult:
    op = site.op
    own = op is None or row.name in op.loc.nodes
    status = Status.VALUE if own else Status.ALIAS
    if site.fused is not None:
        status = Status.FUSED
    t = site.value.type
    result = StageResult(
        status=status,
        value=vname,
        op=op.name if op is not None else "argument",
        kernel=site.fused.results[0].name if site.fused is not None else None,
        with_nodes=tuple(n for n in (op.loc.nodes if op else ()) if n != row.name),
        layout=t.layout if t.layout != "contiguous" else None,
    )
    if status == Status.ALIAS:
        result.note = f"lowered to no op: the value of %{vname}"
    result.static = _static_check(row, site.value)
    return result


def _without_value(row: NodeRow, ops: list[Operation]) -> StageResult:
    if not ops:
        return StageResult(
            Status.REMOVED, note="no op of this stage comes from this node"
        )
    op = ops[-1]
    others = tuple(n for n in op.loc.nodes if n != row.name)
    into = op.results[0].name if op.results else None
    return StageResult(
        Status.FOLDED,
        value=into,
        op=op.name,
        with_nodes=others,
        note=f"folded into {op.name} %{into}" if into else f"folded into {op.name}",
    )


def _static_check(row: NodeRow, v: Value) -> list[str]:
    problems = []
    t = v.type
    shape = tuple(t.shape)
    if any(not isinstance(d, int) for d in shape):
        pass  # symbolic dims match any size
    elif shape != tuple(row.shape):
        problems.append(f"shape {list(shape)} != FX {list(row.shape)}")
    if t.dtype.value != row.dtype:
        problems.append(f"dtype {t.dtype.value} != FX {row.dtype}")
    rank = _RANKS.get(t.layout)
    if rank is not None and len(shape) != rank:
        problems.append(f"layout {t.layout} on a rank-{len(shape)} tensor")
    return problems


def _constant_note(row: NodeRow) -> str:
    if row.op == "output":
        return "the graph's output node (its operands are compared)"
    if row.op == "get_attr":
        return "a parameter or buffer (compile-time tensor)"
    return "not a tensor: evaluated at compile time"
