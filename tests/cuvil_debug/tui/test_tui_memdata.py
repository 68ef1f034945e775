"""The memory view's model (memdata.py) on real plans: every kernel, lifetimes that hold
up, no two live buffers sharing arena bytes, in-place and arena reuse marked, the
inspector's native rows; and the same numbers as the manifest of a real JIT build."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from cuvil.codegen.buffers import moves_nothing
from cuvil_debug.cli import build_parser
from cuvil_debug.tui.command import load_target
from cuvil_debug.tui.data import ModuleView
from cuvil_debug.tui.memdata import MemoryModel, kernel_rows

ROOT = Path(__file__).resolve().parents[3]
NO_KERNEL = ("cuvil.param", "cuvil.constant", "cuvil.reshape")


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["tui", *argv])


def _model(*argv: str) -> MemoryModel:
    module, base = load_target(_args(*argv))
    return MemoryModel(ModuleView(module, base))


@pytest.fixture(scope="module")
def cnn() -> MemoryModel:
    """small_cnn.py lowered and -O3'd as the TUI loads it (fused convs, relayouts)."""
    return _model(str(ROOT / "samples/models/small_cnn.py"))


@pytest.fixture(scope="module")
def resnet() -> MemoryModel:
    """resnet18.cuvilir at -O3: batch norms written in place over their convs."""
    return _model(str(ROOT / "samples/ir/resnet18.cuvilir"), "-O3")


def _buffer(model: MemoryModel, name: str):
    return next(b for b in model.buffers if b.name == name)


def test_every_kernel_is_listed_in_call_order(cnn):
    main = cnn.view.main
    computing = [
        i.op for i in main.ops if i.name not in NO_KERNEL and not moves_nothing(i.op)
    ]
    assert [k.op for k in cnn.kernels] == computing
    assert [k.index for k in cnn.kernels] == list(range(len(computing)))
    for k in cnn.kernels:
        assert k.symbol.startswith(f"cuvil_k{k.index}_")
        assert k.info is not None and k.info.op is k.op


@pytest.mark.parametrize("which", ["cnn", "resnet"])
def test_lifetimes_hold_up(which, request):
    model = request.getfixturevalue(which)
    n = len(model.kernels)
    for b in model.buffers:
        if b.kind in ("arena", "scratch"):  # written by the kernel that starts it
            assert b.producer is not None and b.producer.index == b.first, b.name
        if b.first >= 0:
            assert 0 <= b.first <= b.last < n, b.name
    for k in model.kernels:  # a kernel only touches buffers live at it
        assert k.buffers, k.symbol
        assert all(b.live_at(k.index) for b in k.buffers), k.symbol


@pytest.mark.parametrize("which", ["cnn", "resnet"])
def test_no_two_live_buffers_overlap_in_the_arena(which, request):
    model = request.getfixturevalue(which)
    placed = [b for b in model.buffers if b.offset is not None]
    assert placed and all(b.offset + b.size <= model.arena_bytes for b in placed)
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            together = a.first <= b.last and b.first <= a.last
            disjoint = a.offset + a.size <= b.offset or b.offset + b.size <= a.offset
            assert not together or disjoint, (a.name, b.name)


def test_arena_reuse_is_marked_where_offsets_are_shared(cnn):
    placed = sorted(
        (b for b in cnn.buffers if b.offset is not None), key=lambda b: b.first
    )
    shared = 0
    for b in placed:
        before = [a for a in placed if a.offset == b.offset and a.last < b.first]
        if before:
            shared += 1
            assert b.reuses is max(before, key=lambda a: a.first), b.name
        else:
            assert b.reuses is None, b.name
    assert shared >= 2
    pool = _buffer(cnn, "%block1_pool")  # over the first conv's scratch, dead by then
    assert pool.reuses.name == "k1 scratch 0" and pool.offset == pool.reuses.offset
    relu = _buffer(cnn, "%block2_relu")
    assert relu.offset == 0 and relu.reuses.name == "%x_nhwc"


def test_in_place_reuse_is_marked(resnet):
    bn1 = _buffer(resnet, "%bn1")  # the relu after it is written over it in place
    assert bn1.kind == "arena" and len(bn1.inplace) == 1
    k = resnet.kernels[bn1.inplace[0]]
    assert k.op.name == "cuvil.relu" and k.op.attrs.get("inplace") == 0
    assert resnet.buffer_of(k.op.results[0]) is bn1
    assert bn1.values == ("%bn1", "%relu")
    assert bn1.first == 2 and bn1.last > k.index  # alive until relu's reader
    assert "%relu" not in [b.name for b in resnet.buffers]  # no buffer of its own
    rows = dict(kernel_rows(resnet, k.info))
    assert rows["in place"] == "in the buffer of %bn1"
    assert sum(1 for b in resnet.buffers if b.inplace) >= 8


def test_views_share_their_operands_buffer(cnn):
    avg = _buffer(cnn, "%avgpool")
    # the [1, 32, 1, 1] relayout out of the NHWC region has the same bytes, flatten is a
    # reshape: neither copies
    assert avg.values == ("%avgpool", "%avgpool_nchw", "%flatten")
    flatten = next(i for i in cnn.view.main.ops if "%flatten" in i.results)
    assert cnn.buffer_of(flatten.op.results[0]) is avg


def test_inspector_rows_name_the_kernel_slot_and_lifetime(cnn):
    ops = {i.results[0]: i for i in cnn.view.main.ops if i.results}
    rows = dict(kernel_rows(cnn, ops["%block1_pool"]))
    assert rows["kernel"] == "cuvil_k2_block1_pool, call 2 of 7"
    assert rows["slot"] == "%block1_pool: arena +0x13000 (16384 B)"
    assert rows["lifetime"] == "kernel 2..3"
    assert rows["reuses"] == "the arena space of k1 scratch 0 (dead after kernel 1)"
    assert dict(kernel_rows(cnn, ops["%fc"]))["slot"] == "%fc: output #0"
    assert "a param" in dict(kernel_rows(cnn, ops["%fc_weight"]))["kernel"]
    assert "a view" in dict(kernel_rows(cnn, ops["%flatten"]))["kernel"]
    fused = next(i for i in cnn.view.main.ops if i.name == "cuvil.fused")
    member = cnn.view.members(fused).ops[0]
    assert dict(kernel_rows(cnn, member))["kernel"].endswith("fused kernel)")


def test_a_module_with_dynamic_shapes_has_no_plan_and_says_why(tmp_path):
    path = tmp_path / "dyn.cuvilir"
    t = "tensor<[batch]x4xf32>"
    path.write_text(
        f'func @forward(%x: {t} loc("x")) -> ({t}) {{\n'
        f'  %y = cuvil.relu(%x) : ({t}) -> {t} loc("relu" at "m.py":3:5)\n'
        f'  %z = cuvil.neg(%y) : ({t}) -> {t} loc("neg" at "m.py":4:5)\n'
        "  return %z\n}\n"
    )  # %y is an arena buffer: its size is unknown
    model = _model(str(path))
    assert model.kernels == [] and model.buffers == []
    assert "needs static shapes" in model.error and "\n" not in model.error
    info = model.view.main.ops[0]
    assert kernel_rows(model, info)[0][1].startswith("no plan: code generation")
    assert kernel_rows(None, info)[0][1].startswith("(not planned yet")


def _jit_manifest():
    import cuvil
    from cuvil.runtime.manifest import live_manifest

    spec = importlib.util.spec_from_file_location(
        "small_cnn", ROOT / "samples/models/small_cnn.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    compiled = cuvil.compile(mod.Model(), mod.example_inputs())
    return live_manifest(compiled.jit)


def test_the_plan_is_the_one_a_jit_build_of_the_model_runs(cnn):
    """cuvil.compile on the same model: its manifest (read from the JIT module's
    memory) has the same arena size, kernels and slot of every argument."""
    doc = _jit_manifest()
    assert doc["arena_bytes"] == cnn.arena_bytes
    assert [k["symbol"] for k in doc["kernels"]] == [k.symbol for k in cnn.kernels]
    checked = 0
    for entry, k in zip(doc["kernels"], cnn.kernels, strict=True):
        assert entry["op"] == k.op.name
        values = [*k.op.results, *k.op.operands]
        for arg, v in zip(entry["args"], values):  # results, operands, then scratch
            buf = cnn.buffer_of(v)
            slot = arg["slot"]
            assert slot["kind"] == buf.kind, (k.symbol, arg)
            if buf.offset is not None:
                assert slot["index"] == buf.offset
                checked += 1
        scratch = [a["slot"] for a in entry["args"][len(values) :]]
        mine = [b for b in k.buffers if b.kind == "scratch"]
        assert [s["index"] for s in scratch if s["kind"] == "arena"] == [
            b.offset for b in mine
        ]
    assert checked >= 10
