"""cuvil.save / cuvil.load: a shared library bundle that runs without recompiling."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from elftools.elf.elffile import ELFFile

import cuvil
from cuvil.runtime.aot import NOTE_SECTION, LoadedModule
from cuvil_debug import load_model

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "samples" / "models"


def _compile(name: str, **options):
    loaded = load_model(str(MODELS / f"{name}.py"))
    model = loaded.model.eval()
    opts = {"opt_level": "O2", **options}
    return model, loaded.inputs, cuvil.compile(model, loaded.inputs, options=opts)


@pytest.fixture(scope="module")
def mlp():
    return _compile("mlp")


@pytest.fixture(scope="module")
def saved_mlp(mlp, tmp_path_factory) -> Path:
    return cuvil.save(mlp[2], tmp_path_factory.mktemp("aot") / "mlp")


def _copy(bundle: Path, tmp_path: Path) -> Path:
    dst = tmp_path / bundle.name
    shutil.copytree(bundle, dst)
    return dst


@pytest.mark.parametrize("name", ["mlp", "small_cnn"])
def test_saved_model_loads_and_matches_eager(name, tmp_path):
    model, inputs, compiled = _compile(name)
    loaded = cuvil.load(cuvil.save(compiled, tmp_path / name))
    assert isinstance(loaded, LoadedModule)
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(loaded(*inputs), expected, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(loaded(*inputs), compiled(*inputs), rtol=0, atol=0)


def test_loaded_model_checks_inputs_like_the_jit_module(saved_mlp):
    loaded = cuvil.load(saved_mlp)
    with pytest.raises(cuvil.CuvilRuntimeError, match="expected tensor<1x784xf32>"):
        loaded(torch.zeros(2, 784))
    with pytest.raises(cuvil.CuvilRuntimeError, match="takes 1 inputs"):
        loaded()


def test_save_refuses_an_existing_path_unless_overwrite(mlp, saved_mlp, tmp_path):
    with pytest.raises(cuvil.CuvilError, match="already exists"):
        cuvil.save(mlp[2], saved_mlp)
    user_file = tmp_path / "notes.txt"
    user_file.write_text("mine")
    with pytest.raises(cuvil.CuvilError, match="already exists"):
        cuvil.save(mlp[2], user_file)
    with pytest.raises(cuvil.CuvilError, match="is a file"):
        cuvil.save(mlp[2], user_file, overwrite=True)
    assert user_file.read_text() == "mine"
    bundle = _copy(saved_mlp, tmp_path)
    assert cuvil.save(mlp[2], bundle, overwrite=True) == bundle


def test_tampered_library_is_refused(saved_mlp, tmp_path):
    bundle = _copy(saved_mlp, tmp_path)
    data = bytearray((bundle / "model.so").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bundle / "model.so").write_bytes(bytes(data))
    with pytest.raises(
        cuvil.CuvilError, match="library .* does not match its metadata"
    ):
        cuvil.load(bundle)


def test_tampered_params_are_refused(saved_mlp, tmp_path):
    bundle = _copy(saved_mlp, tmp_path)
    torch.save({"fc1.weight": torch.zeros(1)}, bundle / "params.pt")
    with pytest.raises(cuvil.CuvilError, match="params file .* does not match"):
        cuvil.load(bundle)


def test_missing_or_corrupt_metadata_is_refused(saved_mlp, tmp_path):
    bundle = _copy(saved_mlp, tmp_path)
    (bundle / "model.json").write_text('{"format": "cuvil-aot-1", "libr')
    with pytest.raises(cuvil.CuvilError, match="metadata file .* is corrupt"):
        cuvil.load(bundle)
    (bundle / "model.json").write_text('{"format": "cuvil-aot-1"}')
    with pytest.raises(cuvil.CuvilError, match="is corrupt: fields are missing"):
        cuvil.load(bundle)
    (bundle / "model.json").unlink()
    with pytest.raises(cuvil.CuvilError, match="model.json is missing"):
        cuvil.load(bundle)


def _notes(path: Path) -> dict[str, str]:
    """{section name: hex desc} of the library's ELF notes, read with pyelftools."""
    with path.open("rb") as f:
        elf = ELFFile(f)
        found = {}
        for section in elf.iter_sections():
            if section.header.sh_type == "SHT_NOTE":
                for note in section.iter_notes():
                    desc = note["n_desc"]
                    found[section.name] = desc if isinstance(desc, str) else desc.hex()
        return found


def test_build_id_and_note_hold_the_debug_key(saved_mlp, tmp_path):
    key = json.loads((saved_mlp / "model.json").read_text())["debug_key"]
    notes = _notes(saved_mlp / "model.so")
    assert notes[".note.gnu.build-id"] == key
    assert notes[NOTE_SECTION] == key
    strip = shutil.which("strip")
    if strip:
        stripped = tmp_path / "stripped.so"
        subprocess.run(
            [strip, "--strip-all", "-o", stripped, saved_mlp / "model.so"], check=True
        )
        assert _notes(stripped)[NOTE_SECTION] == key


def test_debug_key_covers_options_not_just_the_ir(tmp_path):
    keys = {}
    for opt in ("O2", "O3", "O2"):
        compiled = _compile("mlp", opt_level=opt)[2]
        bundle = cuvil.save(compiled, tmp_path / f"{opt}-{len(keys)}")
        keys.setdefault(opt, set()).add(cuvil.load(bundle).debug_key)
    assert len(keys["O2"]) == 1, "the same compilation must give the same key"
    assert keys["O2"].isdisjoint(keys["O3"])


def test_load_in_a_fresh_process_runs_without_compiling(mlp, saved_mlp, tmp_path):
    model, inputs, _ = mlp
    torch.save(
        {"inputs": inputs, "expected": model(*inputs).detach()}, tmp_path / "io.pt"
    )
    script = textwrap.dedent(f"""
        import llvmlite.binding as llvm
        import torch
        import cuvil
        import cuvil.pipeline

        def refuse(*args, **kwargs):
            raise AssertionError("cuvil.load must not compile or JIT")

        llvm.parse_assembly = llvm.create_mcjit_compiler = refuse
        cuvil.pipeline.compile_module = cuvil.pipeline.generate = refuse
        io = torch.load({str(tmp_path / "io.pt")!r})
        loaded = cuvil.load({str(saved_mlp)!r})
        assert type(loaded).__name__ == "LoadedModule", type(loaded)
        torch.testing.assert_close(loaded(*io["inputs"]), io["expected"],
                                   rtol=1e-4, atol=1e-5)
        print("ok")
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def _kernel_lines(library: Path) -> dict[str, set[int]]:
    """{kernel: the non-zero lines its address range has in the DWARF line table}."""
    with library.open("rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        lines: dict[str, set[int]] = {}
        for cu in dwarf.iter_CUs():
            assert cu.header["version"] == 4  # trap 3: GDB 13 reads no DWARF 5 in cores
            rows = [
                e.state
                for e in dwarf.line_program_for_CU(cu).get_entries()
                if e.state is not None
            ]
            for die in cu.iter_DIEs():
                if (
                    die.tag != "DW_TAG_subprogram"
                    or "DW_AT_low_pc" not in die.attributes
                ):
                    continue
                low = die.attributes["DW_AT_low_pc"].value
                high = low + die.attributes["DW_AT_high_pc"].value
                name = die.attributes["DW_AT_name"].value.decode()
                lines[name] = {
                    r.line for r in rows if low <= r.address < high and r.line
                }
        return lines


@pytest.mark.parametrize("opt", ["O0", "O2"])
def test_debug_line_table_maps_each_kernel_to_its_model_line(opt, tmp_path):
    compiled = _compile("mlp", opt_level=opt, debug=True)[2]
    lines = _kernel_lines(cuvil.save(compiled, tmp_path / "mlp") / "model.so")
    model_lines = {int(k.source.split(":")[1]) for k in compiled.kernels}
    assert compiled.kernels
    for k in compiled.kernels:
        # A kernel's own op line is in its table, and no line that is not an op's
        # (a fused kernel may hold the lines of all the ops it fuses).
        assert int(k.source.split(":")[1]) in lines[k.symbol], k
        assert lines[k.symbol] <= model_lines, k
