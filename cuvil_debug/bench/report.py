"""A bench report as text, Markdown or JSON (``bench.schema.json`` describes the JSON;
the text forms are made from the same dictionary)."""

from __future__ import annotations

import json
from importlib import resources

__all__ = ["render", "schema", "FORMATS"]

FORMATS = ("text", "json", "markdown")
_HEAD = (
    "batch",
    "run",
    "cpu p50",
    "cpu p90",
    "cpu p99",
    "wall p50",
    "wall p90",
    "wall p99",
    "items/s",
    "noise",
)


def schema() -> dict:
    """The JSON Schema of a report (package data)."""
    text = resources.files(__package__).joinpath("bench.schema.json").read_text()
    return json.loads(text)


def render(report: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, indent=2) + "\n"
    rows = [_HEAD, *_latency_rows(report)]
    table = _markdown(rows) if fmt == "markdown" else _text(rows)
    lines = [_title(report), "", *table, ""]
    lines += [_compile_line(r) for r in report["results"]]
    lines += [_speedup_line(r) for r in report["results"]]
    lines.append(_memory_line(report["memory"]))
    if report.get("comparison"):
        lines += ["", *_comparison_lines(report["comparison"])]
    if fmt == "markdown":  # keep the prose lines apart in rendered Markdown
        lines = [
            f"- {ln}" if ln and not ln.startswith(("|", "#")) else ln for ln in lines
        ]
    return "\n".join(lines) + "\n"


def _title(report: dict) -> str:
    s, o = report["settings"], report["options"]
    inject = f", faults {' '.join(o['inject'])}" if o["inject"] else ""
    text = (
        f"bench {report['model']}: {o['opt_level']}, {o['threads']} thread(s){inject}; "
        f"{s['warmup']} warm-up, {s['rounds']} rounds x {s['calls']} calls, "
        f"interleaved; times in ms per call, cpu = {s['cpu_clock']} CPU time"
    )
    return text


def _latency_rows(report: dict) -> list[tuple[str, ...]]:
    rows = []
    for r in report["results"]:
        for run in ("compiled", "eager"):
            t = r[run]
            cpu, wall = t["cpu_ms"], t["wall_ms"]
            rows.append(
                (
                    str(r["batch"]),
                    run,
                    *(f"{cpu[p]:.3f}" for p in ("p50", "p90", "p99")),
                    *(f"{wall[p]:.3f}" for p in ("p50", "p90", "p99")),
                    f"{t['throughput_per_s']:.1f}",
                    f"{t['noise']:.1%}",
                )
            )
    return rows


def _text(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    fmt = "  ".join(
        f"{{:<{w}}}" if i < 2 else f"{{:>{w}}}" for i, w in enumerate(widths)
    )
    return [fmt.format(*row).rstrip() for row in rows]


def _markdown(rows: list[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(rows[0]) + " |"]
    out.append(
        "|" + "|".join("---" if i < 2 else "---:" for i in range(len(rows[0]))) + "|"
    )
    out += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return out


def _compile_line(r: dict) -> str:
    c = r["compile"]
    hit = "" if c["warm_cache_hit"] else " (no cache hit: CUVIL_CACHE=0?)"
    return (
        f"batch {r['batch']}: compile cold {c['cold_s']:.2f} s (empty object cache), "
        f"warm {c['warm_s']:.2f} s{hit}"
    )


def _speedup_line(r: dict) -> str:
    return (
        f"batch {r['batch']}: compiled / eager: {r['speedup_cpu']:.2f}x faster "
        f"(median CPU), {r['speedup_wall']:.2f}x (median wall)"
    )


def _memory_line(m: dict) -> str:
    return (
        f"memory: RSS {m['rss_start_mib']:.0f} MiB at start, peak "
        f"{m['compile_peak_mib']:.0f} MiB compiling, {m['run_peak_mib']:.0f} MiB "
        f"running ({m['source']})"
    )


def _comparison_lines(c: dict) -> list[str]:
    lines = [
        f"against {c['baseline']} ({c['metric']}, as measured and relative to eager; "
        f"a regression is both above {c['max_regression']:.0%} and the noise):"
    ]
    for row in c["rows"]:
        verdict = "REGRESSION" if row["regressed"] else "ok"
        lines.append(
            f"batch {row['batch']}: {row['baseline_ms']:.3f} -> {row['current_ms']:.3f}"
            f" ms ({row['change']:+.1%}; vs eager {row['change_vs_eager']:+.1%}; "
            f"noise {row['noise']:.1%}): {verdict}"
        )
    lines += [f"note: {n}" for n in c["notes"]]
    return lines
