"""The right side of `cuvil-debug graph`: one function's ops, one node each; a
``cuvil.fused`` op as a cluster of its body's ops (one kernel); the ops lowered from one
FX node as a cluster (decomposed); data edges between them. Also which item carries
each FX node (the op locations' nodes, FusedLoc members included)."""

from __future__ import annotations

from collections import Counter

from cuvil.errors import CuvilError
from cuvil.ir import Function, Module
from cuvil.ir.core import Operation, Value
from cuvil.ir.ops.fused import body_of

from ..diff.render.cells import STYLE
from ..diff.render.dot import dot_text
from ..diff.status import Verdict
from .scene import Group, Item, Side, common_module, strongest

__all__ = ["ir_side", "RETURN", "pick_function"]

RETURN = "@return"  # the key `carried` gives the return (the FX graph's output node)
_OP = ("#e3f2fd", "#1565c0")  # fill, border of an op when no diff colours it
_LEAF = ("#ffffff", "#78909c")  # params, constants, arguments


def pick_function(module: Module, name: str | None) -> Function:
    if name is None:
        return module.main
    fn = module.lookup(name.lstrip("@"))
    if fn is None:
        known = ", ".join(f"@{f.name}" for f in module.functions)
        raise CuvilError(f"no function '{name}' in module @{module.name} ({known})")
    return fn


class _Builder:
    def __init__(self, module: Module, verdicts: dict[str, Verdict] | None) -> None:
        self.module, self.verdicts = module, verdicts
        self.producer: dict[int, str] = {}  # id(Value) -> the item computing it
        self.carried: dict[str, list[str]] = {}  # FX node -> items
        self.weak: dict[str, list[str]] = {}  # FX node -> params, constants
        self.side: Side = Side("ir", "", boxes=False)

    def function(self, fn: Function) -> None:
        self.side.label = f"optimized IR: @{fn.name}"
        for i, (arg, loc) in enumerate(zip(fn.args, fn.arg_locs)):
            item = self._item(f"arg{i}", [f"%{arg.name}", "argument"], loc, _LEAF)
            self.producer[id(arg)] = item.id
            item.attrs["shape"] = "ellipse"
        # decomposed: one FX node lowered to several ops that compute (not weights)
        singles = Counter(
            op.loc.nodes[0]
            for op in fn.ops
            if len(op.loc.nodes) == 1 and not _is_leaf(op)
        )
        for j, op in enumerate(fn.ops):
            if op.name == "cuvil.fused":
                self._fused(f"o{j}", op)
            else:
                self._op(f"o{j}", op, singles)
        ret = self._item("ret", ["return"], None, _LEAF)
        ret.attrs["shape"] = "ellipse"
        self.carried.setdefault(RETURN, []).append(ret.id)
        self._uses(ret.id, fn.outputs, {})

    def _op(self, key: str, op: Operation, singles: Counter) -> None:
        item = self._op_item(key, op)
        nodes = op.loc.nodes
        if len(nodes) == 1 and singles[nodes[0]] > 1:  # its weights join the box
            item.group = f"d_{nodes[0]}"
            self.side.groups.setdefault(
                item.group,
                Group(
                    f"d{len(self.side.groups)}",
                    {
                        "label": dot_text(
                            f"{nodes[0]}: decomposed, {singles[nodes[0]]} ops"
                        ),
                        "style": "rounded,dashed",
                        "color": _OP[1],
                        "fontsize": "11",
                    },
                    item.module,
                ),
            )
        self._uses(key, op.operands, {})
        for r in op.results:
            self.producer[id(r)] = item.id

    def _fused(self, key: str, op: Operation) -> None:
        body = body_of(self.module, op)
        outer = {id(a): v for a, v in zip(body.args, op.operands)}
        members = [self._op_item(f"{key}_{k}", m) for k, m in enumerate(body.ops)]
        inner: dict[int, str] = {}
        for item, m in zip(members, body.ops):
            item.group = key
            self._uses(item.id, m.operands, inner, outer)
            inner.update((id(r), item.id) for r in m.results)
        name = ", ".join(f"%{r.name}" for r in op.results)
        self.side.groups[key] = Group(
            key,
            {
                "label": dot_text(
                    f"{name} = cuvil.fused @{body.name}",
                    f"one kernel, {len(members)} ops",
                ),
                "style": "rounded,filled",
                "fillcolor": "#f3f7fb",
                "color": _OP[1],
                "penwidth": "2",
                "fontsize": "11",
            },
            common_module(i.module for i in members),
        )
        for r, out in zip(op.results, body.outputs):
            self.producer[id(r)] = inner.get(id(out)) or self.producer.get(
                id(outer.get(id(out))), ""
            )

    def _uses(self, to: str, operands, inner, outer=None) -> None:
        for v in operands:
            if id(v) in inner:
                src = inner[id(v)]
            else:
                v = (outer or {}).get(id(v), v)
                src = self.producer.get(id(v))
            if src:
                self.side.edges.append((src, to))

    def _op_item(self, key: str, op: Operation) -> Item:
        leaf = _is_leaf(op)
        names = ", ".join(f"%{r.name}" for r in op.results)
        lines = [f"{names} = {op.name.removeprefix('cuvil.')}"]
        if op.symbol() and not leaf:
            lines[0] += f" @{op.symbol()}"
        lines += [_type_text(r) for r in op.results[:2]]
        if op.loc.nodes:
            shown = ", ".join(op.loc.nodes[:3])
            lines.append("← " + shown + (", …" if len(op.loc.nodes) > 3 else ""))
        item = self._item(key, lines, op.loc, _LEAF if leaf else _OP, weak=leaf)
        item.leaf = leaf
        item.attrs["tooltip"] = dot_text(repr(op))
        if leaf:
            item.attrs.update(fontsize="8", style="rounded,filled,dashed")
        return item

    def _item(self, key: str, lines: list[str], loc, colours, weak=False) -> Item:
        nodes = loc.nodes if loc is not None else ()
        verdict = None
        if self.verdicts is not None:
            verdict = strongest(self.verdicts.get(n) for n in nodes)
        fill, border = STYLE[verdict][1:] if verdict else colours
        attrs = {"label": dot_text(*lines), "fillcolor": fill, "color": border}
        module = common_module(p.module for p in loc.parts) if loc else None
        for n in nodes:  # a param carries its node only when no op computes it
            (self.weak if weak else self.carried).setdefault(n, []).append(key)
        return self.side.add(Item(key, attrs, module, None, verdict, (lines[0],)))


def _is_leaf(op: Operation) -> bool:
    return op.name in ("cuvil.param", "cuvil.constant")


def _type_text(v: Value) -> str:
    text = str(v.type)
    return text[len("tensor<") : -1] if text.startswith("tensor<") else text


def ir_side(
    module: Module, fn: Function, verdicts: dict[str, Verdict] | None = None
) -> tuple[Side, dict[str, list[str]]]:
    """The IR side of `fn` and, per FX node name (RETURN: the return), the ids of the
    items computing it; `verdicts` (FX node -> verdict) colour each op by the
    strongest verdict of the FX nodes its location names."""
    b = _Builder(module, verdicts)
    b.function(fn)
    return b.side, {**b.weak, **b.carried}
