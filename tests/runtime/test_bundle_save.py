"""Issue 17, deliver 2: ``cuvil.save`` never writes through a link nor replaces a
user's folder, and ``signing_key`` / ``trusted_keys`` take the documented key forms."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_harness import INPUT, Tiny, expected_output  # noqa: E402

import cuvil  # noqa: E402


@pytest.fixture(scope="module")
def compiled():
    return cuvil.compile(Tiny().eval(), INPUT, options={"opt_level": "O1"})


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".cuvil-" in p.name)


def test_overwrite_replaces_a_bundle_whose_files_are_links_not_their_targets(
    compiled, tmp_path
):
    """The issue's case: model.so in the old bundle linked to a user's file."""
    bundle = cuvil.save(compiled, tmp_path / "bundle")
    user = tmp_path / "elsewhere" / "thesis.tex"
    user.parent.mkdir()
    user.write_text("years of work")
    (bundle / "model.so").unlink()
    os.symlink(user, bundle / "model.so")
    cuvil.save(compiled, bundle, overwrite=True)
    assert user.read_text() == "years of work"
    assert not (bundle / "model.so").is_symlink()
    torch.testing.assert_close(cuvil.load(bundle)(*INPUT), expected_output())
    assert _leftovers(tmp_path) == []


def test_save_refuses_a_symlinked_target(compiled, tmp_path):
    real = cuvil.save(compiled, tmp_path / "real")
    before = {p.name: p.read_bytes() for p in real.iterdir()}
    link = tmp_path / "link"
    os.symlink(real, link)
    with pytest.raises(cuvil.CuvilError, match="is a symbolic link"):
        cuvil.save(compiled, link, overwrite=True)
    dangling = tmp_path / "dangling"
    os.symlink(tmp_path / "nowhere", dangling)
    with pytest.raises(cuvil.CuvilError, match="is a symbolic link"):
        cuvil.save(compiled, dangling)
    assert not (tmp_path / "nowhere").exists()
    assert {p.name: p.read_bytes() for p in real.iterdir()} == before


def test_overwrite_refuses_a_folder_that_is_not_a_bundle(compiled, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(cuvil.CuvilError, match="not a saved Cuvil model .*notes.txt"):
        cuvil.save(compiled, folder, overwrite=True)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    cuvil.save(compiled, empty, overwrite=True)
    assert (empty / "model.json").is_file()


def test_a_failed_save_leaves_the_old_bundle_and_no_staging_folder(
    compiled, tmp_path, monkeypatch
):
    bundle = cuvil.save(compiled, tmp_path / "bundle")
    before = {p.name: p.read_bytes() for p in bundle.iterdir()}
    monkeypatch.setenv("CC", "false")  # the link step fails
    with pytest.raises(cuvil.CuvilError, match="linking the shared library failed"):
        cuvil.save(compiled, bundle, overwrite=True)
    assert {p.name: p.read_bytes() for p in bundle.iterdir()} == before
    assert _leftovers(tmp_path) == []


@pytest.fixture
def ed25519():
    return pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ed25519")


def _key_forms(key):
    from cryptography.hazmat.primitives import serialization as s

    raw_private = key.private_bytes(
        s.Encoding.Raw, s.PrivateFormat.Raw, s.NoEncryption()
    )
    pem_private = key.private_bytes(
        s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()
    )
    public = key.public_key()
    raw_public = public.public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
    pem_public = public.public_bytes(
        s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo
    )
    return [key, raw_private, pem_private], [public, raw_public, pem_public]


def test_signing_and_trusting_take_objects_raw_bytes_and_pem(
    compiled, tmp_path, ed25519
):
    key = ed25519.Ed25519PrivateKey.generate()
    signers, trusted = _key_forms(key)
    for i, signer in enumerate(signers):
        bundle = cuvil.save(compiled, tmp_path / f"b{i}", signing_key=signer)
        for public in trusted:
            loaded = cuvil.load(bundle, trusted_keys=[public])
            torch.testing.assert_close(loaded(*INPUT), expected_output())
    stranger = ed25519.Ed25519PrivateKey.generate().public_key()
    with pytest.raises(cuvil.CuvilError, match="no trusted key verifies"):
        cuvil.load(tmp_path / "b0", trusted_keys=[stranger])
    loaded = cuvil.load(tmp_path / "b0", trusted_keys=[stranger, key.public_key()])
    torch.testing.assert_close(loaded(*INPUT), expected_output())


def test_unsigned_bundles_and_bad_keys_are_refused_clearly(compiled, tmp_path, ed25519):
    bundle = cuvil.save(compiled, tmp_path / "plain")
    public = ed25519.Ed25519PrivateKey.generate().public_key()
    with pytest.raises(cuvil.CuvilError, match="is not signed"):
        cuvil.load(bundle, trusted_keys=[public])
    with pytest.raises(cuvil.CuvilError, match="trusted_keys is empty"):
        cuvil.load(bundle, trusted_keys=[])
    with pytest.raises(cuvil.CuvilError, match="not an Ed25519 key"):
        cuvil.load(bundle, trusted_keys=[b"short"])
    with pytest.raises(cuvil.CuvilError, match="signing_key .* not an Ed25519 key"):
        cuvil.save(compiled, tmp_path / "never", signing_key=12345)
    assert not (tmp_path / "never").exists()


def test_without_cryptography_signing_asks_for_the_extra(tmp_path):
    script = textwrap.dedent("""
        import sys
        sys.modules["cryptography"] = None  # as if it were not installed
        import cuvil
        try:
            cuvil.load(".", trusted_keys=[b"x" * 32])
        except cuvil.CuvilError as e:
            print(e)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert "need the 'cryptography' package" in proc.stdout, proc.stderr
    assert "cuvil[sign]" in proc.stdout
