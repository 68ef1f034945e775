"""The pass timeline's view model (history.py, passdiff.py) without Textual: what the
recorder keeps per pass and the fate it tells for an op, on resnet18 -O3 and small IR."""

from __future__ import annotations

from pathlib import Path

from cuvil.ir import parse_module, print_module
from cuvil.passes import PassPipeline
from cuvil_debug.cli import build_parser
from cuvil_debug.tui.command import load_with_history
from cuvil_debug.tui.history import HistoryRecorder, OpKey
from cuvil_debug.tui.passdiff import context_rows, side_by_side, unified

ROOT = Path(__file__).resolve().parents[3]
O3 = "dce,cse,fold-constants,fold-bn,layout-nhwc,fuse-epilogue,fuse-elementwise,dce,memory-hints"


def _fates(history, *nodes, name="cuvil.relu"):
    key = OpKey(frozenset(nodes), name)
    return {s.name: f for s, f in zip(history.steps, history.fates(key))}


def test_every_pass_is_recorded_with_its_table_row(resnet18_target):
    history = resnet18_target[2]
    assert [s.name for s in history.steps] == O3.split(",")
    assert history.pipeline == O3
    fold_bn = history.steps[3]
    assert fold_bn.info.changed and fold_bn.info.actions == 20 and fold_bn.ms > 0
    assert not history.steps[0].info.changed


def test_snapshots_chain_and_unchanged_passes_share_one(resnet18_target):
    module, _, history = resnet18_target
    steps = history.steps
    assert all(b.before is a.after for a, b in zip(steps, steps[1:]))
    assert steps[0].before is steps[0].after  # dce on fresh IR changes nothing
    assert steps[-1].after.lines == tuple(print_module(module).splitlines())
    distinct = {id(s.after) for s in steps} | {id(steps[0].before)}
    assert len(distinct) == 1 + sum(s.info.changed for s in steps)


def test_relu_is_kept_rewritten_then_fused_into_a_kernel(resnet18_target):
    fates = _fates(resnet18_target[2], "layer1_0_relu")
    assert fates["cse"].kind == "kept"
    assert fates["layout-nhwc"].kind == "rewritten"
    fused = fates["fuse-epilogue"]
    assert fused.kind == "fused"
    assert fused.text.startswith("fused into %layer1_0_relu = cuvil.fused @fused_1")
    assert [m.name for m in fused.members] == ["cuvil.conv2d", "cuvil.relu"]
    assert "layer1_0_relu" in fused.kernel.nodes


def test_batch_norm_is_folded_into_its_conv(resnet18_target):
    fate = _fates(resnet18_target[2], "layer1_0_bn1", name="cuvil.batch_norm")
    assert fate["fold-bn"].kind == "folded"
    assert "cuvil.batch_norm folded into %layer1_0_bn1 = cuvil.conv2d" in (
        fate["fold-bn"].text
    )


def test_a_dead_param_is_removed_and_a_folded_param_created(resnet18_target):
    history = resnet18_target[2]
    stats = OpKey(frozenset(), "cuvil.param", "@layer1.0.bn1.running_mean")
    kinds = [f.kind for f in history.fates(stats)]
    assert kinds.count("removed") == 1 and kinds[-1] == "absent"
    assert kinds[7] == "removed"  # the second dce, once fold-bn left it unused
    folded = OpKey(frozenset(), "cuvil.param", "@layer1.0.conv1.weight.bn_folded")
    kinds = [f.kind for f in history.fates(folded)]
    assert kinds[:4] == ["absent", "absent", "absent", "created"]


def test_an_op_without_fx_node_is_not_followed(resnet18_target):
    fate = resnet18_target[2].fate(0, OpKey(frozenset(), "cuvil.add"))
    assert fate.kind == "untracked"


SMALL = """module @m {
  func @forward(%x: tensor<4xf32>) -> (tensor<4xf32>) {
    %c = cuvil.constant() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32> loc("c")
    %d = cuvil.mul(%c, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc("d")
    %y = cuvil.add(%x, %d) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> loc("y")
    return %y
  }
}
"""


def _small(pipeline: str, **kw):
    module = parse_module(SMALL, "small")
    recorder = HistoryRecorder(module, **kw)
    PassPipeline(pipeline, recorder).run(module)
    return recorder.history(pipeline)


def test_constant_folding_says_folded_into_the_constant():
    history = _small("fold-constants")
    fate = history.fate(0, OpKey(frozenset({"d"}), "cuvil.mul"))
    assert fate.kind == "folded"
    assert fate.text == "folded into %d = cuvil.constant"


CSE = """module @m {
  func @forward(%x: tensor<4xf32>) -> (tensor<4xf32>) {
    %a = cuvil.relu(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("a")
    %b = cuvil.relu(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("b")
    %y = cuvil.add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("y")
    return %y
  }
}
"""


def test_cse_says_the_duplicate_was_merged_into_the_op_kept():
    module = parse_module(CSE, "cse")
    recorder = HistoryRecorder(module)
    PassPipeline("cse", recorder).run(module)
    history = recorder.history("cse")
    fate = history.fate(0, OpKey(frozenset({"b"}), "cuvil.relu"))
    assert (fate.kind, fate.text) == ("merged", "merged into %a = cuvil.relu")
    assert history.fate(0, OpKey(frozenset({"y"}), "cuvil.add")).kind == "rewritten"


def test_over_the_text_cap_snapshots_keep_ops_but_no_text():
    history = _small("fold-constants,dce", cap=10)
    assert history.text_dropped
    assert history.steps[0].before.lines is None
    assert history.fate(0, OpKey(frozenset({"d"}), "cuvil.mul")).kind == "folded"


def test_unified_diff_rows_keep_their_line_indices():
    rows = unified(["a", "b", "c"], ["a", "B", "c", "d"])
    assert [r.text for r in rows] == [
        "@@ -1,3 +1,4 @@",
        "  a",
        "- b",
        "+ B",
        "  c",
        "+ d",
    ]
    assert [(r.left, r.right) for r in rows[1:]] == [
        (0, 0),
        (1, None),
        (None, 1),
        (2, 2),
        (None, 3),
    ]
    assert unified(["a"], ["a"]) == []


def test_side_by_side_pairs_a_replaced_line_with_its_replacement():
    rows = side_by_side(["a", "b", "c"], ["a", "B", "c", "d"])
    assert [(r.kind, r.left_text, r.right_text) for r in rows[1:]] == [
        (" ", "a", "a"),
        ("~", "b", "B"),
        (" ", "c", "c"),
        ("+", "", "d"),
    ]


def test_context_rows_show_the_marked_lines_of_an_unchanged_pass():
    lines = [str(i) for i in range(20)]
    rows = context_rows(lines, {2, 15}, context=1)
    assert [r.text for r in rows] == [
        "  1",
        "  2",
        "  3",
        "...",
        "  14",
        "  15",
        "  16",
    ]


def _target(*argv: str):
    return load_with_history(build_parser().parse_args(["tui", *argv]))


def test_a_cuvilir_as_written_has_no_history_and_O0_an_empty_one():
    path = str(ROOT / "samples/ir/small_cnn.cuvilir")
    assert _target(path)[2] is None
    history = _target(path, "-O0")[2]
    assert history is not None and history.steps == []
    history = _target(path, "-p", "fold-bn,dce")[2]
    assert [s.name for s in history.steps] == ["fold-bn", "dce"]
