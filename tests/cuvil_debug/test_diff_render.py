"""The diff renderers on hand-built reports: table, JSON + schema, HTML, DOT."""

from __future__ import annotations

import copy
import json
import math
import subprocess
from html.parser import HTMLParser

import graphviz
import jsonschema
import pytest
from rich.console import Console

from cuvil_debug.diff.model import (
    DiffReport,
    Divergence,
    Metrics,
    NodeRow,
    StageResult,
    Tolerance,
)
from cuvil_debug.diff.render import (
    SCHEMA_PATH,
    render_dot,
    render_html,
    render_table,
    report_json,
    validate_json,
)

IR_AFTER = """\
module @net {
  func @forward(%x: tensor<1x4xf32> loc("x")) -> (tensor<1x4xf32>) {
    %bn = cuvil.conv2d(%x, %w) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("bn")
    %add = cuvil.fused(%bn, %x) {body = @fused_0} : (...) -> tensor<1x4xf32> loc("add")
    %mul = cuvil.mul(%add, %add) : (...) -> tensor<1x4xf32> loc("mul")
    return %mul
  }
  func @fused_0(%a0: tensor<1x4xf32>, %a1: tensor<1x4xf32>) -> (tensor<1x4xf32>) {
    %relu = cuvil.relu(%a0) : (tensor<1x4xf32>) -> tensor<1x4xf32> loc("relu")
    %add = cuvil.add(%relu, %a1) : (...) -> tensor<1x4xf32> loc("add")
    return %add
  }
}
"""


def _ok(err: float = 0.0) -> Metrics:
    sqnr = math.inf if err == 0 else 120.0
    return Metrics(numel=4, dtype="f32", ok=True, max_abs=err, sqnr_db=sqnr)


def _bad(err: float) -> Metrics:
    return Metrics(
        numel=4,
        dtype="f32",
        ok=False,
        max_abs=err,
        max_rel=math.nan,
        cosine=0.5,
        sqnr_db=-math.inf,
        mismatched=3,
        worst_index=(0, 2),
    )


def _same(status: str = "value", **kw) -> dict[str, StageResult]:
    return {st: StageResult(status, **kw) for st in ("ir", "opt", "native")}


def _rows(diverge: bool) -> list[NodeRow]:
    add_opt = (
        StageResult(
            "value",
            "%add",
            "cuvil.fused",
            "%add",
            propagated=_bad(0.51),
            isolated=_bad(0.51),
        )
        if diverge
        else StageResult("value", "%add", "cuvil.fused", "%add", propagated=_ok(3e-7))
    )
    mul_opt = StageResult(
        "value",
        "%mul",
        "cuvil.mul",
        propagated=_bad(0.4) if diverge else _ok(),
        isolated=_ok(),
    )
    src = "/home/me/models/net.py:"
    return [
        NodeRow(
            0,
            "x",
            "placeholder",
            "x",
            shape=(1, 4),
            dtype="f32",
            stages=_same(value="%x", propagated=_ok()),
        ),
        NodeRow(
            1,
            "conv",
            "call_module",
            "torch.nn.modules.conv.Conv2d",
            module="conv",
            source=src + "10",
            code="y = self.conv(x)",
            shape=(1, 4),
            dtype="f32",
            inputs=("x",),
            stages={
                "ir": StageResult("value", "%conv", propagated=_ok(1e-7)),
                "opt": StageResult("folded", "%bn", with_nodes=("bn",)),
                "native": StageResult("folded", "%bn", with_nodes=("bn",)),
            },
        ),
        NodeRow(
            2,
            "bn",
            "call_module",
            "torch.nn.modules.batchnorm.BatchNorm2d",
            source=src + "11",
            code="y = self.bn(y)",
            shape=(1, 4),
            dtype="f32",
            inputs=("conv",),
            stages=_same(value="%bn", propagated=_ok(2e-7)),
        ),
        NodeRow(
            3,
            "relu",
            "call_function",
            "torch.nn.functional.relu",
            source=src + "12",
            code="y = x + F.relu(y)",
            shape=(1, 4),
            dtype="f32",
            inputs=("bn",),
            stages={
                "ir": StageResult("value", "%relu", propagated=_ok()),
                "opt": StageResult(
                    "fused",
                    "%add",
                    kernel="%add",
                    with_nodes=("add",),
                    propagated=_ok(),
                ),
                "native": StageResult("fused", kernel="cuvil_k1_add"),
            },
        ),
        NodeRow(
            4,
            "add",
            "call_function",
            "_operator.add",
            source=src + "12",
            code="y = x + F.relu(y)",
            shape=(1, 4),
            dtype="f32",
            inputs=("x", "relu"),
            stages={
                "ir": StageResult("value", "%add", propagated=_ok()),
                "opt": add_opt,
                "native": StageResult(
                    "value",
                    "%add",
                    kernel="cuvil_k1_add",
                    propagated=add_opt.propagated,
                ),
            },
        ),
        NodeRow(
            5, "size", "call_method", "size", inputs=("add",), stages=_same("constant")
        ),
        NodeRow(
            6,
            "mul",
            "call_function",
            "_operator.mul",
            source=src + "14",
            code="return y * y",
            shape=(1, 4),
            dtype="f32",
            inputs=("add",),
            stages={
                "ir": StageResult("value", "%mul", propagated=_ok()),
                "opt": mul_opt,
                "native": mul_opt,
            },
        ),
        NodeRow(
            7, "output", "output", "output", inputs=("mul",), stages=_same("removed")
        ),
    ]


def _report(diverge: bool = True, affected: bool = True) -> DiffReport:
    first = Divergence(
        node="add",
        stage="opt",
        source="/home/me/models/net.py:12",
        code="    y = x + F.relu(y)",
        reason="max abs 0.51 > tol (rtol 1e-4, atol 1e-5)",
        culprit="pass fuse-elementwise",
        pass_name="fuse-elementwise",
        metrics=_bad(0.51),
        output_affected=affected,
    )
    return DiffReport(
        model="models/net.py",
        inputs=[((1, 4), "f32")],
        options={"opt_level": 2, "pipeline": "fold-bn,fuse-elementwise"},
        tolerances={"f32": Tolerance(rtol=1e-4, atol=1e-5)},
        rows=_rows(diverge),
        first=first if diverge else None,
        outputs_ok={"ir": True, "opt": not diverge, "native": not diverge},
        passes=[
            {"name": "fold-bn", "actions": ["fold %conv into %bn"]},
            {"name": "fuse-elementwise", "actions": ["fuse %relu, %add"]},
        ],
        ir_before=IR_AFTER,
        ir_after=IR_AFTER,
        timings={"eager": 0.01, "native": 0.2},
    )


def _table(report: DiffReport, width: int = 140, **kw) -> str:
    console = Console(record=True, width=width, no_color=True)
    render_table(report, console, **kw)
    return console.export_text()


def _line(text: str, *words: str) -> str:
    found = [ln for ln in text.splitlines() if all(w in ln for w in words)]
    assert found, f"no line with {words} in:\n{text}"
    return found[0]


# ---------------------------------------------------------------------------- table


def test_table_marks_the_first_divergence_row_and_its_stage():
    text = _table(_report())
    row = _line(text, "▶")
    assert " add " in row and "✗ 0.51 introduced" in row
    assert text.count("▶") == 2  # the row and the summary
    assert "✗ 0.4 inherited" in _line(text, " mul ")


def test_table_shows_fused_folded_and_ok_cells():
    text = _table(_report())
    assert "folded→%bn" in _line(text, " conv ")
    assert "fused→%add" in _line(text, " relu ")
    assert "✓ 2e-7" in _line(text, " bn ")
    row = _line(text, " relu ")
    assert "F.relu" in row and "net.py:12" in row and "/home/me" not in row
    assert "Conv2d" in _line(text, " conv ") and "conv.Conv2d" not in text


def test_table_brackets_rows_of_one_fused_kernel():
    text = _table(_report())
    assert "╭" in _line(text, " relu ") and "╰" in _line(text, " add ")


def test_table_summary_names_source_culprit_and_next_command():
    text = _table(_report())
    assert "8/8 FX nodes accounted for" in _line(text, "opt:")
    assert "1 fused" in _line(text, "opt:") and "1 folded" in _line(text, "opt:")
    assert "net.py:12: y = x + F.relu(y)" in text
    assert "pass fuse-elementwise" in _line(text, "culprit")
    assert "affected" in _line(text, "output ")
    assert "cuvil-debug bisect models/net.py" in text
    assert "cuvil-debug reduce models/net.py" in text


def test_table_says_when_the_error_is_hidden_downstream():
    text = _table(_report(affected=False))
    assert "hidden downstream (damped)" in text


def test_clean_report_says_no_divergence():
    text = _table(_report(diverge=False))
    assert "no divergence" in text and "▶" not in text and "✗" not in text
    assert "bisect" not in text


def test_non_tensor_rows_only_with_all_rows():
    assert " size " not in _table(_report())
    assert "const" in _line(_table(_report(), all_rows=True), " size ")


def test_narrow_table_keeps_marker_and_verdict():
    text = _table(_report(), width=80)
    row = _line(text, "▶")
    assert "add" in row and "✗" in row
    assert all(len(ln) <= 80 for ln in text.splitlines())


# ---------------------------------------------------------------------------- JSON


@pytest.fixture(scope="module")
def schema() -> dict:
    doc = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(doc)
    return doc


@pytest.mark.parametrize("diverge", [True, False])
def test_json_validates_against_the_schema(schema, diverge):
    doc = report_json(_report(diverge))
    validate_json(json.loads(json.dumps(doc)))
    assert doc["schema_version"] == 1 and doc["diverged"] is diverge


def test_plain_to_json_validates_too(schema):
    validate_json(_report().to_json())


def test_json_writes_inf_and_nan_as_strings():
    doc = report_json(_report())
    opt = doc["rows"][4]["stages"]["opt"]
    assert opt["propagated"]["max_rel"] == "nan"
    assert opt["propagated"]["sqnr_db"] == "-inf"
    assert doc["rows"][0]["stages"]["ir"]["propagated"]["sqnr_db"] == "inf"
    json.dumps(doc, allow_nan=False)


def test_json_adds_verdicts_and_mapping_counts():
    doc = report_json(_report())
    assert doc["rows"][4]["stages"]["opt"]["verdict"] == "introduced"
    assert doc["rows"][6]["stages"]["opt"]["verdict"] == "inherited"
    assert doc["accounted"]["opt:folded"] == 1


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda d: d.pop("rows"),
        lambda d: d.update(schema_version=2),
        lambda d: d["rows"][0]["stages"]["opt"].update(status="gone"),
        lambda d: d["rows"][0]["stages"].update(eagre=d["rows"][0]["stages"]["ir"]),
        lambda d: d["rows"][4]["stages"]["opt"]["propagated"].update(max_abs="big"),
        lambda d: d["first"].update(stage="later"),
        lambda d: d.update(surprise=True),
    ],
)
def test_corrupted_json_does_not_validate(corrupt):
    doc = copy.deepcopy(report_json(_report()))
    corrupt(doc)
    with pytest.raises(jsonschema.ValidationError):
        validate_json(doc)


# ---------------------------------------------------------------------------- HTML


class _Checker(HTMLParser):
    """Fails on unbalanced tags; records every attribute."""

    VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs += attrs
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs += attrs

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()


def _parse(page: str) -> _Checker:
    checker = _Checker()
    checker.feed(page)
    checker.close()
    assert checker.stack == []
    return checker


@pytest.mark.parametrize("diverge", [True, False])
def test_html_is_one_self_contained_page(diverge):
    page = render_html(_report(diverge))
    checker = _parse(page)
    assert "svg" in checker.tags and "<svg" in page
    for ref in ("http://", "https://", "src=", "<link", "@import", "url("):
        assert ref not in page
    for name in ("conv", "bn", "relu", "add", "mul"):
        assert f">{name}<" in page


def test_html_highlights_the_diverging_ir_lines_outside_fused_bodies():
    page = render_html(_report())
    marked = [ln for ln in page.split("<span") if "introduced first" in ln]
    assert len(marked) == 1  # IR before passes (ir_before): nothing diverges in "ir"
    assert "%add = cuvil.fused" in marked[0]
    inherited = [ln for ln in page.split("<span") if 'class="l inherited' in ln]
    assert inherited and "%mul = cuvil.mul" in inherited[0]
    assert not [
        ln
        for ln in page.split("<span")
        if "%add = cuvil.add" in ln and "introduced" in ln
    ]


def test_html_shows_summary_and_pass_table():
    page = render_html(_report())
    assert "First divergence" in page and "fuse-elementwise" in page
    assert "net.py:12: y = x + F.relu(y)" in page
    assert '<tr class="first"><td>fuse-elementwise' in page
    assert "no divergence" in render_html(_report(diverge=False))


def test_html_escapes_model_text():
    report = _report()
    report.rows[1].code = "y = a < b & c > '<script>'"
    report.model = "<b>net</b>.py"
    page = render_html(report)
    assert "<script>" not in page and "<b>net" not in page
    _parse(page)


def test_html_without_dot_falls_back_to_a_note(monkeypatch):
    monkeypatch.setenv("PATH", "")
    page = render_html(_report())
    assert "<svg" not in page and "graph not drawn" in page
    _parse(page)


# ---------------------------------------------------------------------------- DOT


def test_dot_parses_and_colours_by_verdict():
    dot = render_dot(_report())
    svg = graphviz.Source(dot).pipe(format="svg").decode()
    assert "<svg" in svg
    add = _line(dot, 'label="add\\n')
    assert "penwidth=4" in add and "#ffd6d6" in add  # first divergence: red, thick
    assert "#fff3c4" in _line(dot, 'label="mul\\n')  # inherited: yellow
    assert "#d9f2d9" in _line(dot, 'label="bn\\n')  # ok: green
    assert "#eeeeee" in _line(dot, 'label="conv\\n')  # folded in the end: grey


def test_dot_has_one_edge_per_input():
    dot = render_dot(_report())
    assert dot.count("->") == sum(len(r.inputs) for r in _report().rows)


def test_dot_is_accepted_by_the_dot_binary():
    done = subprocess.run(
        ["dot", "-Tsvg"], input=render_dot(_report()), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------------- edges


def test_failed_stage_is_marked_and_explained():
    report = _report()
    report.rows[6].stages["native"] = StageResult("failed", note="kernel crashed")
    text = _table(report)
    assert "✗ failed" in _line(text, " mul ")
    assert _line(text, "native %mul: kernel crashed").startswith("failed")
    validate_json(report_json(report))


def test_divergence_without_a_first_is_reported_as_such():
    report = _report()
    report.first = None
    text = _table(report)
    assert "2 nodes diverge (add, mul)" in text and "▶" not in text
    assert "but none introduces an error in isolation" in render_html(report)


def test_alias_static_and_shape_cells():
    report = _report()
    report.rows[2].stages["opt"] = StageResult("alias", "%conv")
    report.rows[3].stages["ir"] = StageResult("value", static=["layout nhwc != nchw"])
    bad_shape = Metrics(numel=4, dtype="f32", ok=False, shape_ok=False)
    report.rows[6].stages["ir"] = StageResult("value", propagated=bad_shape)
    text = _table(report)
    assert "alias→%conv" in _line(text, " bn ")
    assert "✗ static inherited" in _line(text, " relu ")
    assert "✗ shape inherited" in _line(text, " mul ")
    validate_json(report_json(report))
