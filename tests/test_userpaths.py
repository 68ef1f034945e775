"""cuvil.userpaths, the one way the tools write a user's path: never over an existing
path without force, atomically (nothing half-written, no temporary file left), never
through a symbolic link; and the tools that use it (cuvil-opt -o, --snapshot-dir,
reduce's repro files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cuvil.opt import main as opt_main
from cuvil.userpaths import OutputError, check_dir, write_file, write_in_dir

ROOT = Path(__file__).resolve().parents[1]
IR = ROOT / "samples" / "ir" / "mlp.cuvilir"


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_new_file_is_written_and_no_temporary_file_is_left(tmp_path):
    write_file(tmp_path / "out.txt", "hello\n")
    write_file(tmp_path / "out.bin", b"\x00\x01")
    assert (tmp_path / "out.txt").read_text() == "hello\n"
    assert (tmp_path / "out.bin").read_bytes() == b"\x00\x01"
    assert _names(tmp_path) == ["out.bin", "out.txt"]


def test_an_existing_file_is_refused_without_force_and_kept(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("the user's\n")
    with pytest.raises(OutputError, match="already exists; pass --force"):
        write_file(target, "new\n")
    assert target.read_text() == "the user's\n"
    write_file(target, "new\n", force=True)
    assert target.read_text() == "new\n" and _names(tmp_path) == ["out.txt"]


def test_a_link_is_replaced_never_written_through(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "precious.txt"
    victim.write_text("keep\n")
    folder = tmp_path / "out"
    folder.mkdir()
    link = folder / "report.txt"
    link.symlink_to(victim)
    with pytest.raises(OutputError, match="already exists"):
        write_file(link, "report\n")
    write_file(link, "report\n", force=True)
    assert victim.read_text() == "keep\n"
    assert not link.is_symlink() and link.read_text() == "report\n"


def test_a_dangling_link_counts_as_existing(tmp_path):
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "nowhere" / "file")
    with pytest.raises(OutputError, match="already exists"):
        write_file(link, "x")
    assert not (tmp_path / "nowhere").exists()


def test_a_folder_or_a_missing_folder_is_one_clear_error(tmp_path):
    with pytest.raises(OutputError, match="is a directory"):
        write_file(tmp_path, "x", force=True)
    with pytest.raises(OutputError, match="does not exist; create it first"):
        write_file(tmp_path / "no" / "out.txt", "x")


def test_a_file_where_a_folder_goes_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is a file; give a folder"):
        check_dir(tmp_path / "f", ["repro.py"])


def test_names_in_a_folder_must_be_plain(tmp_path):
    for bad in ("../escape.txt", "a/b", "..", ""):
        with pytest.raises(ValueError, match="not a plain file name"):
            write_in_dir(tmp_path / "out", bad, "x")
    assert not (tmp_path / "escape.txt").exists()
    path = write_in_dir(tmp_path / "out", "repro.py", "print(1)\n")
    assert path == tmp_path / "out" / "repro.py" and path.read_text() == "print(1)\n"


def test_a_write_that_fails_leaves_the_old_file_whole(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    class Boom(str):
        def encode(self, *args):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_file(target, Boom("new"), force=True)
    assert target.read_text() == "old\n" and _names(tmp_path) == ["out.txt"]


def test_files_get_the_umask_mode_not_the_temporary_files(tmp_path):
    old = os.umask(0o022)
    try:
        path = write_file(tmp_path / "out.txt", "x")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644


# ---- the tools -----------------------------------------------------------------------
def test_opt_o_force_replaces_a_link_and_leaves_its_target(tmp_path, capsys):
    victim = tmp_path / "precious.cuvilir"
    victim.write_text("keep\n")
    link = tmp_path / "out.cuvilir"
    link.symlink_to(victim)
    assert opt_main([str(IR), "-o", str(link)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert opt_main([str(IR), "-o", str(link), "--force"]) == 0
    assert victim.read_text() == "keep\n" and "module @" in link.read_text()


def test_snapshots_need_force_over_an_earlier_run_and_replace_links(tmp_path, capsys):
    snaps = tmp_path / "snaps"
    args = [str(IR), "-p", "dce", "--snapshot-dir", str(snaps), "-o", "-"]
    assert opt_main(args) == 0
    first = _names(snaps)
    assert first == ["0000-input.cuvilir", "0001-dce.cuvilir"]
    capsys.readouterr()
    assert opt_main(args) == 2
    assert "already holds snapshots (0000-input.cuvilir ...)" in capsys.readouterr().err
    victim = tmp_path / "precious.txt"
    victim.write_text("keep\n")
    (snaps / "0001-dce.cuvilir").unlink()
    (snaps / "0001-dce.cuvilir").symlink_to(victim)
    assert opt_main([*args, "--force"]) == 0
    assert victim.read_text() == "keep\n" and _names(snaps) == first
    assert not (snaps / "0001-dce.cuvilir").is_symlink()
