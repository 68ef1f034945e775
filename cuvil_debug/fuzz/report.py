"""The figures of a fuzz run: outcomes per configuration, refusals by op, failures.

``Tally.add(record)`` takes runner records (worker answers) one by one; ``summary()``
is a JSON-able dict and ``text()`` the table the command prints. A *graph* counts as
``crash`` if any configuration crashed, else ``wrong`` if any was wrong, else
``refused`` if any refused, else ``torch`` if torch could not capture it, else ``ok``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

__all__ = ["Tally", "ORDER"]

ORDER = ("crash", "wrong", "refused", "torch", "ok")


class Tally:
    def __init__(self) -> None:
        self.graphs = 0
        self.by_graph: Counter[str] = Counter()
        self.by_config: dict[str, Counter[str]] = defaultdict(Counter)
        self.refusals: Counter[str] = Counter()  # key -> graphs refused for it
        self.failures: dict[str, list[dict]] = defaultdict(list)  # key -> records
        self.families: Counter[str] = Counter()
        self.fuzzer_errors: list[dict] = []
        self.seconds: Counter[str] = Counter()

    def add(self, record: dict[str, Any]) -> None:
        if "error" in record or "invalid" in record or "results" not in record:
            self.fuzzer_errors.append(record)
            return
        self.graphs += 1
        self.families.update(record.get("families", []))
        outcomes = set()
        refused_keys = set()
        for config, r in record["results"].items():
            outcome = r["outcome"]
            outcomes.add(outcome)
            self.by_config[config][outcome] += 1
            self.seconds[config] += r.get("seconds", 0.0)
            if outcome == "refused":
                refused_keys.add(r["key"])
            elif outcome in ("crash", "wrong"):
                self.failures[f"{outcome}: {r['key']}"].append(
                    {
                        "seed": record.get("seed"),
                        "config": config,
                        "detail": r.get("detail", ""),
                        "graph": record.get("graph"),
                    }
                )
        self.refusals.update(refused_keys)
        self.by_graph[next((o for o in ORDER if o in outcomes), "ok")] += 1

    def summary(self) -> dict[str, Any]:
        return {
            "graphs": self.graphs,
            "graph_outcomes": {o: self.by_graph[o] for o in ORDER},
            "config_outcomes": {
                c: {o: n[o] for o in ORDER} for c, n in sorted(self.by_config.items())
            },
            "refusals_by_op": dict(self.refusals.most_common()),
            "failures": {
                k: [{"seed": f["seed"], "config": f["config"]} for f in v]
                for k, v in self.failures.items()
            },
            "fuzzer_errors": len(self.fuzzer_errors),
            "families_drawn": len(self.families),
            "compile_seconds": {c: round(s, 1) for c, s in self.seconds.items()},
        }

    def text(self, refusals: int = 25) -> str:
        s = self.summary()
        lines = [
            f"graphs: {s['graphs']}  "
            + "  ".join(f"{o} {n}" for o, n in s["graph_outcomes"].items())
        ]
        lines.append("per configuration:")
        for config, n in s["config_outcomes"].items():
            lines.append(
                f"  {config:<11} " + "  ".join(f"{o} {k}" for o, k in n.items())
            )
        if self.failures:
            lines.append("failures:")
            for key, v in sorted(self.failures.items(), key=lambda kv: -len(kv[1])):
                seeds = sorted({f["seed"] for f in v})
                lines.append(
                    f"  {len(v):>4}  {key}  (seeds {', '.join(map(str, seeds[:8]))}{' …' if len(seeds) > 8 else ''})"
                )
        if self.refusals:
            lines.append(f"refusals by op (graphs; top {refusals}):")
            for key, n in self.refusals.most_common(refusals):
                lines.append(f"  {n:>5}  {key}")
        if self.fuzzer_errors:
            lines.append(
                f"fuzzer errors: {len(self.fuzzer_errors)} (seeds {[r.get('seed') for r in self.fuzzer_errors[:8]]})"
            )
        lines.append(f"op families drawn: {s['families_drawn']}")
        return "\n".join(lines)
