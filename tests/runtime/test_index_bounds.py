"""Every op that indexes with tensor values, called with every boundary index value
(size, size-1, -1, -size, -size-1, 0, +-2**40; int32 indices with +-2**31 edges), through
the fx and export frontends at O0 and O3, the AOT bundle, the dynamic-shape module and
4 threads: each call matches eager or raises a CuvilRuntimeError that names the op, the
FX node, the source line, the value and the valid range (issue 17, deliver 1).

One subprocess per op family runs all its builds and values (index_bounds_worker.py), so
a segfault or an abort is this test failing, not pytest dying.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("index_bounds_worker.py")
FAMILIES = ("embedding", "index", "gather", "put", "scatter", "runtimes")


def _start(family: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.Popen(
        [sys.executable, str(WORKER), family],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.fixture(scope="module")
def workers() -> dict[str, subprocess.Popen]:
    """All families' workers, started together (they are independent processes)."""
    procs = {f: _start(f) for f in FAMILIES}
    yield procs
    for p in procs.values():
        if p.poll() is None:
            p.kill()
            p.wait()


def _rows(proc: subprocess.Popen, family: str) -> list[dict]:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, (
        f"the {family} worker died with status {proc.returncode} "
        f"(negative: killed by that signal)\n{err[-3000:]}"
    )
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _problem(row: dict) -> str | None:
    where = f"{row['op']} [{row['frontend']} {row['opt']} {row['dtype']}]"
    if row.get("compile_error"):
        return f"{where}: did not compile: {row['compile_error'][:300]}"
    v, err = row["value"], row["cuvil_error"]
    if not row["eager_raised"]:
        if not row["same"]:
            return f"{where} index {v}: eager answered, cuvil gave {err or 'another'}"
        return None
    if not row["cuvil_runtime_error"]:
        return f"{where} index {v}: eager raised, cuvil gave {err or 'a result'}"
    missing = [
        what
        for what, text in [
            ("the value", f"index {v} "),
            ("the valid range", "(valid: ["),
            ("the op", "cuvil."),
            ("the FX node", "FX node '"),
            ("the source line", "index_bounds_worker.py:"),
        ]
        if text not in err
    ]
    return f"{where} index {v}: the error lacks {missing}: {err}" if missing else None


_RESULTS: dict[str, list[dict]] = {}


@pytest.fixture(params=FAMILIES)
def family_rows(request, workers) -> tuple[str, list[dict]]:
    family = request.param
    if family not in _RESULTS:
        _RESULTS[family] = _rows(workers[family], family)
    return family, _RESULTS[family]


def test_boundary_indices_match_eager_or_raise(family_rows):
    family, rows = family_rows
    assert rows, f"the {family} worker ran no case"
    problems = [p for p in map(_problem, rows) if p]
    assert not problems, "\n".join(problems)


def test_every_op_and_build_was_compared(family_rows):
    """The table is not vacuous: every op of the family compiled in every build listed
    for it (fx and export, O0 and O3, int32 where torch takes it), and it has both calls
    eager answers (size-1, -1 where torch wraps) and calls it refuses (size, 2**40)."""
    family, rows = family_rows
    ran = [r for r in rows if not r.get("compile_error")]
    assert ran == rows, [r for r in rows if r.get("compile_error")][:3]
    assert any(r["eager_raised"] for r in ran)
    assert any(not r["eager_raised"] for r in ran)
    if family != "runtimes":
        want = set(_worker().FAMILIES[family])
        assert {r["op"] for r in ran} == want
        assert {"fx", "export"} <= {r["frontend"] for r in ran}
        assert {"torch.int32"} <= {r["dtype"] for r in ran} or family == "gather"


def _worker():
    sys.path.insert(0, str(WORKER.parent))
    try:
        import index_bounds_worker
    finally:
        sys.path.remove(str(WORKER.parent))
    return index_bounds_worker
