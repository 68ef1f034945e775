"""The compile cache's IR-fingerprint level (compiler/runtime/ircache.py).

A warm compile finds the build under the fingerprint of its optimized Cuvil IR and
skips LLVM IR generation and LLVM: the result must be indistinguishable from the cold
build (outputs bit for bit, the debug manifest, the kernel table, params and derived
tensors, the arena, the debug key, the LLVM IR when asked for). Hit rates per level
after a cold and a warm compile; a bad entry at either level is detected, evicted,
counted and rebuilt, never used.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
from torch import nn

import cuvil
from cuvil.errors import CodegenError
from cuvil.hooks import CompileHooks
from cuvil.runtime import cachemaint, cachestats, ircache, objcache
from cuvil.runtime.manifest import live_manifest
from cuvil_debug.cli import main


class Net(nn.Module):
    """Conv + batch norm (folded; packed weights: derived tensors), a linear scaled
    by a one-element param."""

    def __init__(self, scale: float = 2.0) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 6 * 6, 10)
        self.scale = nn.Parameter(torch.tensor(scale))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.bn(self.conv(x)))
        return torch.relu(self.fc(h.flatten(1)) * self.scale)


def _net(seed: int = 0, scale: float = 2.0) -> nn.Module:
    torch.manual_seed(seed)
    model = Net(scale).eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    return model


X = torch.randn(2, 3, 6, 6, generator=torch.Generator().manual_seed(1))


def _levels(root) -> dict:
    return cachestats.read(root)["levels"]


def _hits(root, level: str) -> tuple[int, int]:
    c = _levels(root)[level]
    return c["hits"], c["hits"] + c["misses"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """A cold and a warm compile of one model into a fresh cache."""
    root = tmp_path_factory.mktemp("ircache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUVIL_CACHE_DIR", str(root))
        mp.setenv("CUVIL_CACHE", "1")
        cold = cuvil.compile(_net(), [X])
        after_cold = {lv: _hits(root, lv) for lv in cachestats.LEVELS}
        warm = cuvil.compile(_net(), [X])
    return root, cold, warm, after_cold


def test_hit_rates_per_level_after_a_cold_and_a_warm_compile(pair, capsys):
    root, cold, warm, after_cold = pair
    assert after_cold == {"ir": (0, 1), "object": (0, 1)}
    assert {lv: _hits(root, lv) for lv in cachestats.LEVELS} == {
        "ir": (1, 2),
        "object": (1, 2),
    }
    assert (cold.jit.ir_cache_hit, cold.jit.cache_hit) == (False, False)
    assert (warm.jit.ir_cache_hit, warm.jit.cache_hit, warm.jit.reused) == (
        True,
        True,
        True,
    )
    assert main(["cache", "stats", "--cache-dir", str(root), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["levels"]["ir"]["hit_rate"] == 0.5
    assert report["levels"]["object"]["hit_rate"] == 0.5
    assert sorted(e["level"] for e in report["entry_list"]) == ["ir", "object"]
    assert main(["cache", "stats", "--cache-dir", str(root)]) == 0
    text = capsys.readouterr().out
    assert "Level ir" in text and "Level object" in text and "(50.00 %)" in text


def test_a_warm_build_is_indistinguishable_from_the_cold_one(pair):
    _, cold, warm, _ = pair
    assert torch.equal(cold(X), warm(X))
    torch.testing.assert_close(warm(X), _net()(X), rtol=1e-4, atol=1e-5)
    assert live_manifest(warm.jit) == live_manifest(cold.jit)
    assert warm.debug_key == cold.debug_key
    assert [vars(k) for k in warm.kernels] == [vars(k) for k in cold.kernels]
    a, b = cold.program, warm.program
    assert (a.params, a.arena_bytes, a.inputs, a.outputs) == (
        b.params,
        b.arena_bytes,
        b.inputs,
        b.outputs,
    )
    assert a.derived.keys() == b.derived.keys()
    assert all(torch.equal(a.derived[n], b.derived[n]) for n in a.derived)

    def plan(p):  # each main-function value's buffer, in program order
        return [(p.values[k].name, s.kind, s.index) for k, s in p.slots.items()]

    assert plan(a) == plan(b) and len(plan(a)) > 5
    assert isinstance(b, ircache.CachedProgram) and b._text is None
    assert warm.llvm_ir() == cold.llvm_ir()  # generated again, checked by hash


def test_new_weights_hit_and_compute_with_the_new_weights(tmp_path, monkeypatch):
    """Large params reach the code as buffers: other conv and fc weights hit, and the
    folded, packed weights are derived from them again. A small param (at most
    SMALL_PARAM elements: a bias) is fingerprinted by value: a miss at the IR level
    that the object level serves (its value is not in the LLVM IR either)."""
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    cuvil.compile(_net(), [X])
    other = _net()
    with torch.no_grad():
        other.conv.weight.mul_(-1.5)
        other.fc.weight.add_(0.25)
    warm = cuvil.compile(other, [X])
    assert warm.jit.ir_cache_hit
    torch.testing.assert_close(warm(X), other(X), rtol=1e-4, atol=1e-5)
    with torch.no_grad():
        other.fc.bias.add_(1.0)
    again = cuvil.compile(other, [X])
    assert not again.jit.ir_cache_hit and again.jit.cache_hit
    torch.testing.assert_close(again(X), other(X), rtol=1e-4, atol=1e-5)


def test_a_small_param_is_fingerprinted_by_value(tmp_path, monkeypatch):
    """Code generation may bake a small param's value into code (a GEMM epilogue's
    scalar: codegen/fused.py reads one-element operands as constants): a param of at
    most SMALL_PARAM elements is part of the fingerprint by value."""
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    cuvil.compile(_net(scale=2.0), [X])
    other = _net(scale=-3.0)
    built = cuvil.compile(other, [X])
    assert not built.jit.ir_cache_hit
    torch.testing.assert_close(built(X), other(X), rtol=1e-4, atol=1e-5)


def test_empty_and_bfloat16_params_are_fingerprinted(tmp_path, monkeypatch):
    """numpy has no bfloat16 and an empty tensor has no bytes to view (the IR fuzzer's
    find: fingerprint() raised a TypeError on an empty bf16 param)."""
    from cuvil.frontend import lower

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.empty = nn.Parameter(torch.zeros(0, dtype=torch.bfloat16))
            self.scale = nn.Parameter(torch.full((4,), 1.5, dtype=torch.bfloat16))

        def forward(self, x):
            return x * self.scale + self.empty.sum()

    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    module = lower(Net(), (torch.randn(4, dtype=torch.bfloat16),))
    assert {d.numel() for d in module.param_data.values()} == {0, 4}
    options = cuvil.options.CompileOptions(opt_level="O0")
    assert ircache.fingerprint(module, options) == ircache.fingerprint(module, options)


def test_a_layer_norm_over_no_element_compiles(tmp_path, monkeypatch):
    """Rows of no element: no row runs, and code generation no longer divides by the
    row's zero length (the IR fuzzer's find)."""
    from cuvil.ir.parser import parse_module
    from cuvil.pipeline import compile_module

    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    text = (
        "module @M {\n  func @forward(%x: tensor<3x0xf32>) -> (tensor<3x0xf32>) {\n"
        "    %y = cuvil.layer_norm(%x) {eps = 1e-05, normalized_shape = [0]} : "
        "(tensor<3x0xf32>) -> tensor<3x0xf32>\n    return %y\n  }\n}\n"
    )
    options = cuvil.options.CompileOptions(opt_level="O1")
    built = compile_module(parse_module(text), options, echo_llvm_bisect=False)
    assert built(torch.zeros(3, 0)).shape == (3, 0)


def _entry(root, level: str):
    (entry,) = [e for e in cachemaint.entries(root) if e.level == level]
    return entry.path


def _flip(path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x20
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("level", ["ir", "object"])
def test_a_corrupt_entry_at_each_level_is_evicted_counted_and_rebuilt(
    tmp_path, monkeypatch, level
):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    want = _net()(X)
    cuvil.compile(_net(), [X])
    _flip(_entry(tmp_path, level), objcache.HEADER + 30)  # inside the body
    before = _levels(tmp_path)
    rebuilt = cuvil.compile(_net(), [X])
    after = _levels(tmp_path)
    assert after[level]["corrupt_evicted"] == before[level]["corrupt_evicted"] + 1
    assert not rebuilt.jit.ir_cache_hit
    assert rebuilt.jit.cache_hit == (level == "ir")  # the object itself was sound
    torch.testing.assert_close(rebuilt(X), want, rtol=1e-4, atol=1e-5)
    again = cuvil.compile(_net(), [X])
    assert again.jit.ir_cache_hit and again.jit.cache_hit
    assert cachemaint.verify(tmp_path) == (2, [])


def _forge(root, change) -> None:
    """Rewrite the IR entry's JSON with a sound header (an entry the checksums pass)."""
    path = _entry(root, "ir")
    key = path.stem
    body, problem = objcache.unpack_entry(path.read_bytes(), key, ircache.MAGIC)
    assert problem is None
    doc = json.loads(body)
    change(doc)
    objcache.store(path, key, json.dumps(doc).encode(), ircache.MAGIC, "ir")


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(contract="0" * 64),  # another build plan
        lambda d: d.update(format=99),
        lambda d: d.pop("debug_key"),
        lambda d: d.update(fingerprint="f" * 64),
    ],
    ids=["contract", "format", "field", "fingerprint"],
)
def test_a_sound_header_over_a_wrong_entry_is_never_used(tmp_path, monkeypatch, change):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    cuvil.compile(_net(), [X])
    _forge(tmp_path, change)
    before = _levels(tmp_path)["ir"]["corrupt_evicted"]
    rebuilt = cuvil.compile(_net(), [X])
    assert not rebuilt.jit.ir_cache_hit
    assert _levels(tmp_path)["ir"]["corrupt_evicted"] == before + 1
    torch.testing.assert_close(rebuilt(X), _net()(X), rtol=1e-4, atol=1e-5)
    assert cuvil.compile(_net(), [X]).jit.ir_cache_hit


def test_verify_checks_the_ir_level_too(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    cuvil.compile(_net(), [X])
    path = _entry(tmp_path, "ir")
    _flip(path, objcache.HEADER + 5)
    assert main(["cache", "verify", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"removed {path}: fails its SHA-256 checksum" in out
    assert "verified 2 entries: 1 sound, 1 removed" in out
    assert _levels(tmp_path)["ir"]["corrupt_evicted"] == 1


def test_a_kernel_hook_or_a_disabled_cache_skips_the_ir_level(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    hooks = CompileHooks(after_kernel=lambda k: None)
    built = [cuvil.compile(_net(), [X], hooks=hooks) for _ in range(2)]
    assert not any(c.jit.ir_cache_used for c in built)
    assert built[1].jit.cache_hit  # the object level still serves it
    monkeypatch.setenv("CUVIL_CACHE", "0")
    assert not cuvil.compile(_net(), [X]).jit.ir_cache_used


def test_regenerated_llvm_ir_must_match_the_cached_objects(pair, monkeypatch):
    root, _, warm, _ = pair
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(root))
    entry = {"llvm_ir_sha256": "0" * 64}
    program = ircache._program(warm.module, warm.options, entry)
    with pytest.raises(CodegenError, match="not deterministic"):
        _ = program.llvm_ir


@pytest.mark.slow  # two fresh processes: torch's import and a compile each
def test_a_fresh_process_warm_compile_hits_both_levels(tmp_path):
    code = (
        "import sys, torch, cuvil; sys.path.insert(0, sys.argv[1]);"
        "from test_ircache import _net, X;"
        "c = cuvil.compile(_net(), [X]);"
        "print(c.jit.ir_cache_hit, c.jit.cache_hit)"
    )
    env = {"CUVIL_CACHE_DIR": str(tmp_path), "CUVIL_CACHE": "1"}
    here = str(__import__("pathlib").Path(__file__).parent)
    outs = [
        subprocess.run(
            [sys.executable, "-c", code, here],
            env={**__import__("os").environ, **env},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    assert outs == [["False", "False"], ["True", "True"]]


def test_a_warm_stepper_skips_llvm_ir_and_steps_like_the_cold_one(
    tmp_path, monkeypatch
):
    """The steppable build (runtime/stepper.py, the diff's native stage) has its own
    IR-level entry: a second Stepper of the same optimized module generates no LLVM
    IR, has the cold one's step table and buffers, and computes bit for bit alike;
    the plain compile of the module is another entry."""
    from cuvil.frontend import lower
    from cuvil.options import CompileOptions
    from cuvil.passes import run_passes
    from cuvil.runtime.stepper import Stepper

    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUVIL_CACHE", "1")
    module = run_passes(lower(_net(), [X], "fx"), CompileOptions())
    cold, warm = Stepper(module), Stepper(module, background=True)
    assert not cold.jit.ir_cache_hit and warm.jit.ir_cache_hit
    assert (
        isinstance(warm.program, ircache.CachedProgram) and warm.program._text is None
    )

    def table(st):
        return [
            (s.index, s.symbol, s.op, s.operands, s.results, s.output) for s in st.steps
        ]

    assert table(warm) == table(cold) and len(cold.steps) > 2
    got = []
    for st in (cold, warm):
        st.bind(X)
        out = []
        for s in st.steps:
            st.step(s.index)
            out += [st.read(r) for r in s.results]
        got.append(out)
    assert all(torch.equal(a, b) for a, b in zip(*got, strict=True))
    assert warm.program.llvm_ir == cold.program.llvm_ir  # regenerated, hash-checked
    plain = ircache.fingerprint(module, CompileOptions())
    assert plain != ircache.fingerprint(module, CompileOptions(), steps=True)
