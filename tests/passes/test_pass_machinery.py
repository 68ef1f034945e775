"""Registry, pipeline strings, O-level pipelines, instrumentation and verify-after-each."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest

from cuvil.errors import CuvilError, PassError
from cuvil.ir import parse_module, print_module
from cuvil.options import CompileOptions
from cuvil.passes import (
    ModulePass,
    PassContext,
    PassPipeline,
    PrintAfterAll,
    PrintAfterChange,
    Snapshots,
    TimingReport,
    default_pipeline,
    get_pass,
    parse_pipeline,
    register_pass,
)

TEXT = """
module @m {
  func @forward(%x: tensor<4xf32>) -> (tensor<4xf32>) {
    %dead = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %a = cuvil.relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = cuvil.neg(%a) : (tensor<4xf32>) -> tensor<4xf32>
    return %b
  }
}
"""


def test_unknown_pass_lists_known_ones_with_a_suggestion():
    with pytest.raises(PassError) as info:
        get_pass("fuse-elementwse")
    assert "did you mean 'fuse-elementwise'" in str(info.value)
    assert "fold-bn" in str(info.value)


def test_pipeline_string_with_options_round_trips():
    passes = parse_pipeline("fold-constants, fuse-elementwise{max-ops=8},dce")
    assert [p.name for p in passes] == ["fold-constants", "fuse-elementwise", "dce"]
    assert passes[1].max_ops == 8
    assert str(PassPipeline(passes)) == "fold-constants,fuse-elementwise{max-ops=8},dce"


@pytest.mark.parametrize(
    "bad", ["dce{nope=1}", "fuse-elementwise{max-ops=many}", "dce{"]
)
def test_bad_pipeline_text_is_a_pass_error(bad):
    with pytest.raises(PassError):
        parse_pipeline(bad)


def test_opt_levels_map_to_documented_pipelines_and_fusion_can_be_disabled():
    assert default_pipeline("O0") == ""
    assert "fuse" not in default_pipeline("O1")
    assert "fuse-elementwise" in default_pipeline("O2")
    assert "fuse-epilogue" in default_pipeline("O3")
    assert "fuse" not in default_pipeline("O3", enable_fusion=False)


def test_user_pass_registered_with_the_decorator_is_found_by_name():
    @register_pass
    @dataclass(frozen=True)
    class CountOpsPass(ModulePass):
        name = "test-count-ops"
        limit: int = 3

        def apply(self, module, ctx):
            return False

    (p,) = parse_pipeline("test-count-ops{limit=5}")
    assert isinstance(p, CountOpsPass) and p.limit == 5


def test_callback_gets_pass_ir_before_module_after_and_info():
    calls = []
    PassPipeline(
        "dce,cse",
        lambda p, before, after, info: calls.append(
            (p.name, "cuvil.exp" in before, "cuvil.exp" in print_module(after), info)
        ),
    ).run(parse_module(TEXT))
    (n1, had1, has1, i1), (n2, _, _, i2) = calls
    assert (n1, had1, has1) == ("dce", True, False)
    assert (i1.changed, i1.actions, i1.first_action, i1.last_action) == (True, 1, 1, 1)
    assert (n2, i2.changed, i2.actions) == ("cse", False, 0)


def test_print_after_change_prints_a_unified_diff_only_for_changing_passes():
    out = io.StringIO()
    PassPipeline("cse,dce", PrintAfterChange(out)).run(parse_module(TEXT))
    text = out.getvalue()
    assert "--- before dce" in text and "-    %dead = cuvil.exp" in text
    assert "before cse" not in text


def test_print_after_all_timing_and_snapshots(tmp_path):
    out = io.StringIO()
    timing = TimingReport()
    from cuvil.passes import combine

    PassPipeline(
        "dce,fuse-elementwise", combine(PrintAfterAll(out), timing, Snapshots(tmp_path))
    ).run(parse_module(TEXT))
    assert out.getvalue().count("IR after") == 2
    assert "fuse-elementwise" in timing.table() and "total" in timing.table()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "0000-input.cuvilir",
        "0001-dce.cuvilir",
        "0002-fuse-elementwise.cuvilir",
    ]
    assert "cuvil.fused" in (tmp_path / "0002-fuse-elementwise.cuvilir").read_text()


def test_verify_each_names_the_broken_pass_and_those_before_it():
    @register_pass
    @dataclass(frozen=True)
    class BreakTypesPass(ModulePass):
        name = "test-break-types"

        def apply(self, module, ctx):
            op = module.main.ops[-1]
            op.results[0].type = op.results[0].type.with_shape((5,))
            return True

    with pytest.raises(PassError) as info:
        PassPipeline("dce,cse,test-break-types", verify_each=True).run(
            parse_module(TEXT)
        )
    err = info.value
    assert "after pass 'test-break-types'" in err.message
    assert "passes before it: dce, cse" in str(err)
    assert "cuvil.neg" in err.note


def test_bisect_limit_applies_only_the_first_actions_and_names_the_last():
    from cuvil.passes import describe_bisect

    module = parse_module(TEXT)
    ctx = PassPipeline("dce,fuse-elementwise").run(module, PassContext(bisect_limit=1))
    assert [a.applied for a in ctx.actions] == [True, False]
    assert "cuvil.fused" not in print_module(
        module
    ) and "cuvil.exp" not in print_module(module)
    assert "last applied: #1 dce: erase cuvil.exp" in describe_bisect(ctx)


@pytest.mark.parametrize(
    "options",
    [
        {"bisect_limit": -1},
        {"pipeline": 3},
        {"print_after_change": "yes"},
        {"pipeline": "nope"},
    ],
)
def test_bad_pass_options_are_cuvil_errors(options):
    import torch

    import cuvil

    with pytest.raises(CuvilError):
        CompileOptions.parse(options)._check() if "nope" not in str(
            options
        ) else cuvil.compile(torch.nn.ReLU(), [torch.randn(2)], options=options)


def test_passes_from_the_cuvil_passes_entry_point_group_are_registered(monkeypatch):
    from cuvil.passes import registry

    @dataclass(frozen=True)
    class PluginPass(ModulePass):
        name = "test-plugin"

        def apply(self, module, ctx):
            return False

    class FakeEntryPoint:
        name = "test-plugin"

        def load(self):
            return PluginPass

    def fake_entry_points(group):
        return [FakeEntryPoint()] if group == "cuvil.passes" else []

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_loaded_entry_points", False)
    assert get_pass("test-plugin") is PluginPass


def test_llvm_bisect_limit_reaches_llvm_and_skips_the_object_cache(capfd, monkeypatch):
    import os

    import torch

    import cuvil

    monkeypatch.setenv("CUVIL_CACHE", "1")
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    x = torch.randn(2, 4)
    cm = cuvil.compile(model, [x], options={"llvm_bisect_limit": 0})
    torch.testing.assert_close(cm(x), model(x).detach(), rtol=1e-4, atol=1e-5)
    assert "BISECT: NOT running pass" in capfd.readouterr().err
    assert os.environ["CUVIL_CACHE"] == "1"
