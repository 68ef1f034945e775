"""The diff overlay's view model (no Textual): a diff report's rows mapped onto the ops
of a ModuleView through their FX node names.

An op's verdict in the selected stage and mode is the worst verdict of its FX nodes
(a fused op covers several: ``introduced`` beats ``failed``, ``inherited``, ``ok``,
``none``). Mode ``propagated`` is the report's own verdict; ``isolated`` judges the
isolated run only (the node's ops fed eager inputs: does it add error by itself).

Navigation (`n`/`N`) walks *anchor ops*: for each FX node that diverges in the selected
stage and mode, the op computing its value (a result named after the node or after the
stage's value, in the main function first; else the last op whose location names the
node), in op order. The first divergence is the report's own ``first`` field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..diff.render.cells import num
from ..diff.status import Verdict
from .data import ModuleView, OpInfo

__all__ = ["DiffOverlay", "NodeVerdict", "MODES", "worst"]

MODES = ("propagated", "isolated")
RANK = {v: i for i, v in enumerate(Verdict)}  # strongest first (status.Verdict)


def worst(verdicts) -> Verdict | None:
    return min(verdicts, key=RANK.__getitem__, default=None)


@dataclass(frozen=True)
class NodeVerdict:
    """One FX node of an op, in one stage and mode."""

    node: str
    verdict: Verdict
    result: dict[str, Any] | None  # the report's stage result (None: not in the stage)


def isolated_verdict(result: dict[str, Any]) -> Verdict:
    if result.get("status") == "failed":
        return Verdict.FAILED
    m = result.get("isolated")
    if m is None:
        return Verdict.NONE
    return Verdict.OK if m.get("ok") else Verdict.INTRODUCED


def propagated_verdict(result: dict[str, Any]) -> Verdict:
    """The report's ``verdict`` (report_json adds it), else the same rule again."""
    if "verdict" in result:
        return Verdict(result["verdict"])
    if result.get("status") == "failed":
        return Verdict.FAILED
    iso, prop = result.get("isolated"), result.get("propagated")
    if iso is not None and not iso.get("ok"):
        return Verdict.INTRODUCED
    if (prop is not None and not prop.get("ok")) or result.get("static"):
        return Verdict.INHERITED
    return Verdict.OK if prop is not None else Verdict.NONE


class DiffOverlay:
    """A report (its JSON document) over `view`; `stage` and `mode` are selected."""

    def __init__(self, doc: dict[str, Any], view: ModuleView) -> None:
        self.doc = doc
        self.view = view
        self.rows: dict[str, dict[str, Any]] = {r["name"]: r for r in doc["rows"]}
        self.stages: tuple[str, ...] = tuple(doc["stages"])
        self.modes = MODES if self._has_isolated() else MODES[:1]
        self.first: dict[str, Any] | None = doc.get("first")
        self.stage = self.first["stage"] if self.first else self.stages[-1]
        self.mode = MODES[0]
        self._anchors: dict[tuple[str, str], list[OpInfo]] = {}
        self._by_node: dict[str, list[OpInfo]] = {}  # FX node -> its ops, in op order
        for info in view.ops:
            for node in info.fx_nodes:
                self._by_node.setdefault(node, []).append(info)
        self.first_op = self.anchor(self.first["node"]) if self.first else None

    def _has_isolated(self) -> bool:
        return any(
            s.get("isolated") for r in self.rows.values() for s in r["stages"].values()
        )

    # ---- selection of stage and mode ----------------------------------------------------
    def cycle_stage(self) -> str:
        i = self.stages.index(self.stage) if self.stage in self.stages else -1
        self.stage = self.stages[(i + 1) % len(self.stages)]
        return self.stage

    def cycle_mode(self) -> str:
        self.mode = self.modes[(self.modes.index(self.mode) + 1) % len(self.modes)]
        return self.mode

    # ---- verdicts -----------------------------------------------------------------------
    def node_verdict(self, node: str) -> NodeVerdict | None:
        """`node` in the selected stage and mode (None: the report has no such node)."""
        row = self.rows.get(node)
        if row is None:
            return None
        result = row["stages"].get(self.stage)
        if result is None:
            return NodeVerdict(node, Verdict.NONE, None)
        judge = propagated_verdict if self.mode == "propagated" else isolated_verdict
        return NodeVerdict(node, judge(result), result)

    def nodes(self, info: OpInfo) -> list[NodeVerdict]:
        """The op's FX nodes that the report knows, worst first."""
        found = [v for n in info.fx_nodes if (v := self.node_verdict(n)) is not None]
        return sorted(found, key=lambda v: RANK[v.verdict])

    def verdict(self, info: OpInfo) -> Verdict | None:
        """The op's worst verdict (None: none of its FX nodes is in the report)."""
        return worst(v.verdict for v in self.nodes(info))

    def matched(self) -> int:
        """How many FX nodes of the ops the report knows (0: another model's report)."""
        return sum(1 for n in self._by_node if n in self.rows)

    def is_first(self, info: OpInfo) -> bool:
        return self.first_op is not None and info is self.first_op

    # ---- navigation ---------------------------------------------------------------------
    def anchor(self, node: str) -> OpInfo | None:
        """The op computing `node`'s value (see the module docstring)."""
        row = self.rows.get(node, {})
        values = {f"%{node}"}
        for result in row.get("stages", {}).values():
            if result.get("value"):
                values.add(f"%{result['value'].lstrip('%')}")
        located = self._by_node.get(node, [])
        main = self.view.main
        in_main = [i for i in located if main is not None and i.func == main.name]
        for ops in (in_main, located):
            named = [i for i in ops if values & set(i.results)]
            if named or ops:
                return (named or ops)[-1]
        return None

    def divergent(self) -> list[OpInfo]:
        """The anchor ops of the nodes diverging in the selected stage and mode."""
        key = (self.stage, self.mode)
        if key not in self._anchors:
            found: dict[int, OpInfo] = {}
            for name in self.rows:
                v = self.node_verdict(name)
                if v is not None and v.verdict.bad and (op := self.anchor(name)):
                    found[op.index] = op
            self._anchors[key] = [found[k] for k in sorted(found)]
        return self._anchors[key]

    def step(self, after: OpInfo | None, direction: int) -> OpInfo | None:
        """The next (`direction` 1) or previous (-1) divergent op from `after`, wrapping."""
        ops = self.divergent()
        if not ops:
            return None
        at = after.index if after is not None else -1
        if direction > 0:
            return next((i for i in ops if i.index > at), ops[0])
        return next((i for i in reversed(ops) if i.index < at), ops[-1])

    # ---- the inspector section ----------------------------------------------------------
    def describe(self, info: OpInfo) -> list[tuple[str, str]]:
        """The diff rows of the selected op (what the section shows, as text)."""
        rows = [("diff", f"{self.stage} · {self.mode}")]
        first = self.first
        if first and first["node"] in info.fx_nodes:  # on top: the short pane shows it
            rows.append(("first", f"▶ {first['node']} in {first['stage']}"))
            rows.append(("culprit", first["culprit"]))
            rows.append(("reason", first["reason"]))
        found = self.nodes(info)
        if not found:
            return [*rows, ("node", "no FX node of this op is in the report")]
        for v in found:
            rows += _node_rows(v, self.mode)
        return rows


def _node_rows(v: NodeVerdict, mode: str) -> list[tuple[str, str]]:
    rows = [("node", f"{v.node}: {v.verdict}")]
    result = v.result
    if result is None:
        return [*rows, ("status", "not in this stage")]
    rows.append(("status", result["status"]))
    rows.append(("error", _origin(result)))
    m = result.get(mode)
    if m is not None:
        rows += _metric_rows(m)
    if result.get("note"):
        rows.append(("note", result["note"]))
    return rows


def _origin(result: dict[str, Any]) -> str:
    """Introduced here or inherited from upstream (from both runs)."""
    iso, prop = result.get("isolated"), result.get("propagated")
    if iso is not None and not iso["ok"]:
        return "introduced (the isolated run diverges)"
    if prop is not None and not prop["ok"]:
        return "inherited (the isolated run is clean)"
    return "none" if prop is None else "within tolerance"


def _metric_rows(m: dict[str, Any]) -> list[tuple[str, str]]:
    if not m["shape_ok"]:
        return [("shape", "differs from eager (nothing else measured)")]
    rows = [
        ("max abs", _num(m["max_abs"])),
        ("max rel", _num(m["max_rel"])),
    ]
    if m.get("max_ulp"):
        rows.append(("max ulp", _num(m["max_ulp"])))
    rows.append(("cosine", "n/a" if m["cosine"] is None else _cos(m["cosine"])))
    sqnr = m["sqnr_db"]
    rows.append(("sqnr", "n/a" if sqnr is None else f"{_num(sqnr)} dB"))
    rows.append(("mismatched", f"{m['mismatched']} of {m['numel']}"))
    rows.append(("nan / inf", f"{m['nan']} / {m['inf']}"))
    return rows + _truth_rows(m)


def _truth_rows(m: dict[str, Any]) -> list[tuple[str, str]]:
    """The float64 judge's numbers: this stage's error against the truth and
    eager-float32's (RMSE, max abs, max ulp), and the bound."""
    truth, eager = m.get("truth"), m.get("eager")
    if m.get("judge") != "float64" or not truth or not eager:
        return []
    rows = []
    for label, key in (
        ("rmse", "rmse"),
        ("max abs", "max_abs"),
        ("max ulp", "max_ulp"),
    ):
        rows.append((f"f64 {label}", f"{_num(truth[key])} (eager {_num(eager[key])})"))
    rows.append(("bound", f"{_num(m['bound'])} on {m.get('measure', 'rmse')}"))
    return rows


def _num(x: Any) -> str:
    return x if isinstance(x, str) else num(float(x))


def _cos(x: Any) -> str:
    return x if isinstance(x, str) else f"{x:.6f}"
