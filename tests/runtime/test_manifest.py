"""The debug manifest (docs/DEBUGGING.md) is in every build and says what each kernel
computes: read from a live JIT module, from a saved library, and from a stepped build."""

from __future__ import annotations

import runpy
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

import cuvil
from cuvil.errors import CuvilRuntimeError
from cuvil.frontend import lower
from cuvil.options import CompileOptions
from cuvil.passes import run_passes
from cuvil.runtime.manifest import live_manifest, parse_manifest, read_manifest
from cuvil.runtime.stepper import Stepper

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"
SLOT_KINDS = {"input", "output", "param", "const", "arena"}


def _sample(name: str):
    ns = runpy.run_path(str(SAMPLES / f"{name}.py"))
    return ns["Model"]().eval(), ns["example_inputs"]()


@pytest.fixture(scope="module")
def small_cnn():
    model, xs = _sample("small_cnn")
    return cuvil.compile(model, xs), xs


def _check_kernels(doc: dict, compiled) -> None:
    by_symbol = {k["symbol"]: k for k in doc["kernels"]}
    assert list(by_symbol) == [k.symbol for k in compiled.kernels]
    ops = {r.name: op for op in compiled.module.main.ops for r in op.results}
    for info in compiled.kernels:
        entry = by_symbol[info.symbol]
        assert (entry["op"], tuple(entry["nodes"])) == (info.op_name, info.nodes)
        assert entry["source"] == info.source
        outs = [a for a in entry["args"] if a["role"] == "out"]
        for arg in outs:  # an output argument is the IR value the kernel computes
            t = ops[arg["value"]].results[0].type
            assert arg["shape"] == list(t.shape) and arg["dtype"] == t.dtype.value
            assert arg["layout"] == t.layout
        assert all(a["slot"]["kind"] in SLOT_KINDS for a in entry["args"])


def test_release_jit_build_carries_a_manifest_of_every_kernel(small_cnn):
    compiled, xs = small_cnn
    doc = live_manifest(compiled.jit)
    assert (doc["format"], doc["version"], doc["entry"]) == (
        "cuvil.manifest",
        2,
        "cuvil_main",
    )
    assert doc["inputs"][0]["shape"] == list(xs[0].shape)
    assert doc["arena_bytes"] == compiled.program.arena_bytes
    assert doc["params"] == compiled.program.params
    _check_kernels(doc, compiled)


def test_nhwc_arguments_carry_their_physical_strides(small_cnn):
    doc = live_manifest(small_cnn[0].jit)
    nhwc = [a for k in doc["kernels"] for a in k["args"] if a.get("layout") == "nhwc"]
    assert nhwc  # O3 converts the convolutions to NHWC
    for arg in nhwc:
        n, c, h, w = arg["shape"]
        assert arg["strides"] == [h * w * c, 1, w * c, c]


def test_saved_library_has_the_same_manifest_in_its_section(small_cnn, tmp_path):
    compiled, _ = small_cnn
    cuvil.save(compiled, tmp_path / "bundle")
    (library,) = (tmp_path / "bundle").glob("*.so")
    assert read_manifest(library) == live_manifest(compiled.jit)


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_gdb_reads_the_manifest_of_a_saved_library_by_its_symbol(small_cnn, tmp_path):
    compiled, _ = small_cnn
    cuvil.save(compiled, tmp_path / "bundle")
    (library,) = (tmp_path / "bundle").glob("*.so")
    # GDB's Python reads the symbol's bytes from the library file (no process)
    read = (
        "python import gdb; a = int(gdb.parse_and_eval('(long)&cuvil_manifest')); "
        "n = int(gdb.parse_and_eval('((unsigned int *)&cuvil_manifest)[2]')); "
        "print(bytes(gdb.selected_inferior().read_memory(a, 16 + n)).hex())"
    )
    out = subprocess.run(
        ["gdb", "-batch", "-nx", "-ex", read, str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data = bytes.fromhex(out.strip().splitlines()[-1])
    assert parse_manifest(data, "gdb") == live_manifest(compiled.jit)


def test_a_kernels_call_index_names_its_step_in_a_stepped_build():
    model, xs = _sample("mlp")
    module = run_passes(lower(model, xs), CompileOptions())
    stepper = Stepper(module)
    steps = {s.symbol: s for s in stepper.steps}
    for kernel in live_manifest(stepper.jit)["kernels"]:
        step = steps[f"cuvil_step_{kernel['call']}"]
        assert step.op is not None and step.op.name == kernel["op"]


def test_files_without_a_manifest_are_refused_with_the_reason(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not an object file")
    with pytest.raises(CuvilRuntimeError, match="not an ELF file"):
        read_manifest(text)
    with pytest.raises(CuvilRuntimeError, match="no .cuvil.manifest section"):
        read_manifest("/bin/true")
    header = struct.Struct("<4sIII")
    with pytest.raises(CuvilRuntimeError, match="version 3"):
        parse_manifest(header.pack(b"CUVM", 3, 0, 0), "x")
    with pytest.raises(CuvilRuntimeError, match="no cuvil.manifest document"):
        parse_manifest(b'{"format": "cuvil.manifest", "version": 1}\0', "x")
    good = zlib.compress(b'{"format": "cuvil.manifest"}')
    with pytest.raises(CuvilRuntimeError, match="corrupt"):
        parse_manifest(header.pack(b"CUVM", 2, len(good), 999) + good, "x")
