"""Who may use the object cache: its files and folders get the modes the umask (or
CUVIL_CACHE_UMASK, for the cache alone) gives, so that a cache shared by the users of
one group works, and a private one stays private (compiler/runtime/cachefiles.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cuvil.runtime import cachefiles, objcache

KEY = "ab" * 32


@pytest.fixture
def umask():
    """Set the process umask for the test (restored after)."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(root))
    monkeypatch.delenv(cachefiles.UMASK_ENV, raising=False)
    monkeypatch.setattr(cachefiles, "_warned", set())
    return root


def _modes(root: Path) -> dict[str, int]:
    """The permission bits (setgid included) of what a store made."""
    paths = {
        "root": root,
        "objects": root / "objects",
        "shard": root / "objects" / KEY[:2],
        "entry": root / "objects" / KEY[:2] / f"{KEY}.o",
        "stats": root / "stats.json",
        "lock": root / "stats.lock",
    }
    return {k: stat.S_IMODE(os.lstat(p).st_mode) for k, p in paths.items()}


def _store() -> None:
    objcache.store_object(KEY, b"\x7fELF" + b"\0" * 60)


def test_files_and_folders_follow_the_umask(cache, umask):
    _store()
    assert _modes(cache) == {
        "root": 0o755,
        "objects": 0o755,
        "shard": 0o755,
        "entry": 0o644,  # was 0o600 whatever the umask: no one else could read it
        "stats": 0o644,
        "lock": 0o644,
    }
    assert objcache.load_object(KEY) is not None


def test_a_private_umask_keeps_the_cache_private(cache, umask):
    umask(0o077)
    _store()
    modes = _modes(cache)
    assert {modes[k] for k in ("root", "objects", "shard")} == {0o700}
    assert {modes[k] for k in ("entry", "stats", "lock")} == {0o600}


def test_cache_umask_shares_with_the_group_and_keeps_setgid(cache, umask, monkeypatch):
    monkeypatch.setenv(cachefiles.UMASK_ENV, "002")
    cache.mkdir()
    os.chmod(cache, 0o2775)  # a shared cache folder: new folders take its group
    _store()
    modes = _modes(cache)
    assert modes["root"] == 0o2775  # the user's folder: never changed
    assert modes["objects"] == modes["shard"] == 0o2775
    assert modes["entry"] == modes["stats"] == modes["lock"] == 0o664
    assert os.umask(0o022) == 0o022  # the process umask itself is untouched


def test_an_invalid_cache_umask_is_one_warning_line_and_the_umask_rules(
    cache, umask, monkeypatch, capsys
):
    monkeypatch.setenv(cachefiles.UMASK_ENV, "rw-rw-r--")
    _store()
    _store()
    assert _modes(cache)["entry"] == 0o644
    assert capsys.readouterr().err == (
        "cuvil: warning: CUVIL_CACHE_UMASK='rw-rw-r--' is not an octal umask (000 to "
        "777, e.g. 002 to share the cache with the group, 077 to keep it private); "
        "the process umask applies\n"
    )


@pytest.mark.parametrize(
    "text, mask", [("002", 0o002), ("0o77", 0o077), ("0027", 0o027), ("8", None)]
)
def test_cache_umask_values(text, mask, monkeypatch, capsys):
    monkeypatch.setenv(cachefiles.UMASK_ENV, text)
    assert cachefiles.cache_umask() == mask


def test_a_temporary_file_is_never_created_through_a_link(tmp_path, monkeypatch):
    """create_temp makes a new file or fails; a link at the name it picks is not
    followed (O_EXCL | O_NOFOLLOW)."""
    victim = tmp_path / "victim"
    victim.write_text("the user's\n")
    names = iter(["aaaa", "bbbb"])
    monkeypatch.setattr(cachefiles.secrets, "token_hex", lambda n: next(names))
    (tmp_path / ".aaaa.tmp").symlink_to(victim)
    fd, path = cachefiles.create_temp(tmp_path)
    os.close(fd)
    assert path == str(tmp_path / ".bbbb.tmp")
    assert victim.read_text() == "the user's\n"
