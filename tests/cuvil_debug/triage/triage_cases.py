"""Shared by the mechanism tests (test_operands.py, test_value_operands.py,
test_zoo8_mechanisms.py, test_zoo9_mechanisms.py): each case is a model file written
from its source, captured in two fresh worker processes (an export of torch's
distributions passes when an earlier in-process test left dynamo state behind), then
classified; the case names its category and a text on its root line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path


def capture_cases(
    folder: Path, cases: Sequence[tuple], text: Callable[[str], str]
) -> dict[str, tuple[Path, dict]]:
    """Case name -> (its model file, its captured record); `text` makes the file's
    text from the case's source (cases are (name, frontend, source, ...))."""
    from cuvil_debug.triage.runner import Job, run_jobs

    jobs = []
    for i, (name, frontend, source, *_) in enumerate(cases):
        path = folder / f"{name}.py"
        path.write_text(text(source))
        jobs.append(Job(i, str(path), frontend))
    records = run_jobs(jobs, workers=2, timeout=300)
    return {
        c[0]: (Path(j.spec), r) for c, j, r in zip(cases, jobs, records, strict=True)
    }


def check_case(
    records: dict, name: str, category: str, root: str, top: int | None = None
) -> None:
    """The case failed to capture, triage names `category`, and the first line holding
    `root` is among its root candidates (the first `top` of them, or any)."""
    from cuvil_debug.triage.classify import classify

    path, record = records[name]
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if root in t)
    assert record["status"] == "failed", record.get("error") or record.get("message")
    d = classify(record)
    assert d.category == category, (d.category, d.signals, d.scores)
    lines = [c.line for c in d.roots[:top]]
    assert line in lines, [(c.line, c.text) for c in d.roots]


def mechanism_tests(
    name: str,
    cases: Sequence[tuple],
    text: Callable[[str], str] = lambda src: src,
    top: int | None = 3,
    tops: dict[str, int] | None = None,
):
    """The `case_records` fixture and the parametrized test of a mechanism file: every
    case (name, frontend, source, category, root text) captured once per module, then
    `check_case` with its root among the first `top` candidates (`tops`: per case).
    Bind both at module level: `case_records, test_x = mechanism_tests(...)`."""
    import pytest

    @pytest.fixture(scope="module")
    def case_records(tmp_path_factory) -> dict:
        folder = tmp_path_factory.mktemp(f"{name}_mechanisms")
        return capture_cases(folder, cases, text)

    @pytest.mark.parametrize("case", cases, ids=[c[0] for c in cases])
    def test(case_records, case) -> None:
        case_name, _, _, category, root = case
        check_case(
            case_records, case_name, category, root, (tops or {}).get(case_name, top)
        )

    return case_records, test
