"""`cuvil-debug graph TARGET -o FILE`: the pictures it writes (read back from the SVG
graphviz's real dot drew) and the bad inputs it refuses with one line and exit 2."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cuvil.ir import parse_file, parse_module
from cuvil.ir.ops.fused import body_of
from cuvil_debug.cli import main
from cuvil_debug.diff.capture import capture
from cuvil_debug.diff.render import render_html, report_json
from cuvil_debug.diff.render.cells import STYLE
from cuvil_debug.diff.render.json import report_from_json
from cuvil_debug.diff.status import Verdict
from cuvil_debug.loader import load_model
from cuvil_debug.tui.command import load_target

from .test_graph_build import args_for

ROOT = Path(__file__).resolve().parents[3]
SMALL_CNN = str(ROOT / "samples/models/small_cnn.py")
RESNET18 = str(ROOT / "samples/models/resnet18.py")
SVG = "{http://www.w3.org/2000/svg}"


class Picture:
    """An SVG `graph` wrote: each node's and edge's <title> (DOT id), text, fills."""

    def __init__(self, path: Path) -> None:
        root = ET.parse(path).getroot()
        self.nodes: dict[str, list[str]] = {}
        self.fills: dict[str, set[str]] = {}
        self.edges: set[str] = set()
        self.clusters: dict[str, list[str]] = {}
        for g in root.iter(f"{SVG}g"):
            kind, title = g.get("class"), g.findtext(f"{SVG}title")
            texts = [t.text or "" for t in g.iter(f"{SVG}text")]
            if kind == "node":
                self.nodes[title] = texts
                self.fills[title] = {e.get("fill") for e in g.iter() if e.get("fill")}
            elif kind == "edge":
                self.edges.add(title.replace("&#45;", "-"))
            elif kind == "cluster":
                self.clusters[title] = texts

    def texts(self) -> set[str]:
        """Every line of every node's and cluster's label."""
        found = [*self.nodes.values(), *self.clusters.values()]
        return {t for texts in found for t in texts}

    def words(self) -> set[str]:
        return {w.strip(",") for t in self.texts() for w in t.split()}


def _graph(*argv: str) -> int:
    return main(["graph", *argv])


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[Path, Picture]:
    out = tmp_path_factory.mktemp("small") / "small_cnn.svg"
    assert _graph(SMALL_CNN, "-o", str(out)) == 0
    return out, Picture(out)


@pytest.fixture(scope="module")
def resnet(tmp_path_factory) -> Picture:
    out = tmp_path_factory.mktemp("resnet") / "resnet18.svg"
    assert _graph(RESNET18, "-o", str(out)) == 0
    return Picture(out)


def _fx_names(spec: str) -> list[str]:
    loaded = load_model(spec, None)
    return [r.name for r in capture(loaded.model, loaded.inputs).rows]


def _op_names(spec: str, *argv: str) -> tuple[list[str], list[str]]:
    """Result names of the entry's ops and of every fused body's ops; body names."""
    module, _ = load_target(args_for(spec, *argv))
    ops, bodies = [], []
    for op in module.main.ops:
        ops += [f"%{r.name}" for r in op.results]
        if op.name == "cuvil.fused":
            body = body_of(module, op)
            bodies.append(f"@{body.name}")
            ops += [f"%{r.name}" for m in body.ops for r in m.results]
    return ops, bodies


@pytest.mark.parametrize("model", ["small", "resnet"])
def test_svg_names_every_fx_node_and_every_ir_op(model, request):
    fixture = request.getfixturevalue(model)
    picture = fixture[1] if model == "small" else fixture
    spec = SMALL_CNN if model == "small" else RESNET18
    texts, words = picture.texts(), picture.words()
    missing = [n for n in _fx_names(spec) if n not in texts]
    assert not missing, f"FX nodes not drawn: {missing}"
    ops, bodies = _op_names(spec)
    assert bodies and not [b for b in bodies if b not in words]
    assert not [o for o in ops if o not in words], "IR ops not drawn"


def test_each_fx_node_has_an_edge_to_the_op_computing_it(small):
    _, picture = small
    fx = {t[0]: id for id, t in picture.nodes.items() if id.startswith("fx")}
    ir = {t[0].split(" = ")[0]: id for id, t in picture.nodes.items() if " = " in t[0]}
    # pool: its own op; relu: a member of the fused kernel; conv: folded into bn's conv
    for node, op in [
        ("block1_pool", "%block1_pool"),
        ("block1_relu", "%block1_relu"),
        ("block1_conv", "%block1_bn"),
        ("block1_bn", "%block1_bn"),
    ]:
        assert f"{fx[node]}->{ir[op]}" in picture.edges, (node, op)


def test_fused_kernels_and_decomposed_nodes_are_clusters_and_modules_too(small):
    _, picture = small
    labels = {" ".join(t) for t in picture.clusters.values()}
    assert any("cuvil.fused @fused_0" in t and "one kernel, 2 ops" in t for t in labels)
    # the relayout out of the NHWC region + the reshape; fc's linear and its two
    # params are no box
    assert any(t.startswith("flatten: decomposed, 2 ops") for t in labels)
    assert not [t for t in labels if t.startswith("fc:")]
    assert "cluster_fx:block1" in picture.clusters  # nn.Module boxes: the FX side
    assert not [c for c in picture.clusters if c.startswith("cluster_ir:")]


def test_resnet18_has_a_cluster_per_block_and_collapses(resnet, tmp_path):
    assert {"cluster_fx:layer1.0", "cluster_fx:layer4.1"} <= set(resnet.clusters)
    out = tmp_path / "r.svg"
    assert _graph(RESNET18, "-o", str(out), "--collapse", "1") == 0
    small = Picture(out)
    assert len(small.nodes) < len(resnet.nodes) / 4
    labels = [" ".join(t) for t in small.nodes.values()]
    assert "layer1 14 FX nodes (collapsed)" in labels
    assert any(t.startswith("layer1 ") and " ops (collapsed)" in t for t in labels)
    layer1 = [i for i, t in small.nodes.items() if t[0] == "layer1"]
    assert f"{layer1[0]}->{layer1[1]}" in small.edges  # FX layer1 -> IR layer1


def test_dot_and_png_outputs(tmp_path):
    dot, png = tmp_path / "g.dot", tmp_path / "g.png"
    assert _graph(SMALL_CNN, "-o", str(dot)) == 0
    assert dot.read_text().startswith('digraph "graph"')
    assert _graph(SMALL_CNN, "-o", str(png)) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    other = tmp_path / "g.picture"
    assert _graph(SMALL_CNN, "-o", str(other), "--format", "svg") == 0
    assert other.read_text().lstrip().startswith("<?xml")


@pytest.fixture(scope="module")
def diff_json(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("diff") / "diff.json"
    argv = [SMALL_CNN, "--format", "json", "-o", str(out), "--stages", "opt"]
    assert main(["diff", *argv, "--inject", "pass:block2_pool"]) in (0, 1)
    return out


def test_diff_colours_the_divergent_node_and_its_op(diff_json, tmp_path):
    out = tmp_path / "d.svg"
    assert _graph(SMALL_CNN, "--diff", str(diff_json), "-o", str(out)) == 0
    picture = Picture(out)
    by_label = {t[0]: id for id, t in picture.nodes.items()}
    bad, good = STYLE[Verdict.INTRODUCED][1], STYLE[Verdict.OK][1]
    assert bad in picture.fills[by_label["block2_pool"]]
    assert bad in picture.fills[by_label["%block2_pool = max_pool2d"]]
    assert good in picture.fills[by_label["block1_relu"]]
    assert STYLE[Verdict.INHERITED][1] in picture.fills[by_label["fc"]]


def test_a_cuvilir_target_draws_the_ir_side_with_fx_names(tmp_path):
    spec = str(ROOT / "samples/ir/small_cnn.cuvilir")
    out = tmp_path / "ir.svg"
    assert _graph(spec, "-o", str(out)) == 0
    picture = Picture(out)
    assert "cluster_fx" not in picture.clusters
    assert "← block1_conv" in picture.texts()  # the op's location names its node
    names = [f"%{r.name}" for op in parse_file(spec).main.ops for r in op.results]
    assert not [n for n in names if n not in picture.words()]


def _fails(capsys, *argv: str) -> str:
    assert _graph(*argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_bad_inputs_are_one_line_and_exit_2(capsys, tmp_path, small):
    written, _ = small
    assert "does not exist" in _fails(capsys, str(tmp_path / "m.py"), "-o", "x.svg")
    line = _fails(capsys, SMALL_CNN, "-o", str(tmp_path / "g.jpg"))
    assert "cannot tell the format" in line
    line = _fails(capsys, SMALL_CNN, "-o", str(written))
    assert "already exists" in line and "--force" in line
    assert "binary" in _fails(capsys, SMALL_CNN, "--format", "png")
    assert "no function '@nope'" in _fails(capsys, SMALL_CNN, "--function", "@nope")
    for text, words in [("nope", "is not JSON"), ("{}", "is not a diff report")]:
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        assert words in _fails(capsys, SMALL_CNN, "--diff", str(bad))
    assert "cannot read" in _fails(capsys, SMALL_CNN, "--diff", str(tmp_path / "no"))


def test_force_overwrites(small):
    written, _ = small
    before = written.stat().st_mtime_ns
    assert _graph(SMALL_CNN, "-o", str(written), "--force") == 0
    assert written.stat().st_mtime_ns >= before and written.read_text().strip()


def test_the_diff_json_reads_back_to_the_same_report(diff_json):
    doc = json.loads(diff_json.read_text())
    assert report_json(report_from_json(doc)) == doc


def test_the_html_report_embeds_the_side_by_side_picture(diff_json, tmp_path):
    report = report_from_json(json.loads(diff_json.read_text()))
    page = render_html(report)
    svg = page[page.index("<svg") : page.index("</svg>") + 6]
    root = ET.fromstring(svg.replace("xlink:", ""))
    clusters = {
        g.findtext("title") for g in root.iter("g") if g.get("class") == "cluster"
    }
    assert {"cluster_fx", "cluster_ir", "cluster_fx:block1"} <= clusters
    assert 'xlink:href="#row-' in svg  # an FX node links to its row of the table
    words = {w for t in root.iter("text") for w in (t.text or "").split()}
    ops = parse_module(report.ir_after).main.ops  # with the injected fault's ops
    assert not [r.name for op in ops for r in op.results if f"%{r.name}" not in words]
    for ref in ("http://", "https://", "src=", "<link"):
        assert ref not in page
