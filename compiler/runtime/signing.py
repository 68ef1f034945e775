"""Ed25519 signatures over a bundle (``cuvil.save(signing_key=)``,
``cuvil.load(trusted_keys=)``), with the ``cryptography`` package (``pip install
'cuvil[sign]'``), imported only when a signature is asked for.

``model.sig`` is JSON: the format, ``files`` (every other file of the bundle -> its
SHA-256), the signer's raw public key and the signature, hex. What is signed is the
canonical JSON (sorted keys, no spaces) of ``{"format", "files"}``, so the signature
vouches for every byte of every file. With trusted keys, ``cuvil.load`` refuses a bundle
without model.sig, one signed by another key, one whose signature does not verify, and
one with a file added, missing or different from the signed hash.

Keys: a ``cryptography`` Ed25519 key object, raw bytes (32: a private key's seed for
signing, a public key for trusting) or PEM bytes/str (PKCS#8 private, SubjectPublicKeyInfo
public). A trusted private key stands for its public key.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import CuvilError
from .bundle_fs import read_file

__all__ = [
    "SIGNATURE",
    "sign_bundle",
    "verify_bundle",
    "check_signed",
    "private_key",
    "public_keys",
]

SIGNATURE = "model.sig"
FORMAT = "cuvil-sig-1"
RESAVE = "save and sign the model again, or load it without trusted_keys"


def _crypto():
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise CuvilError(
            "signed bundles need the 'cryptography' package, which is not installed",
            hint="pip install 'cuvil[sign]' (or pip install cryptography)",
        ) from None
    return ed25519, serialization


def _bad_key(role: str, key: object, why: str = "") -> CuvilError:
    return CuvilError(
        f"{role} {type(key).__name__} is not an Ed25519 key{why}",
        hint="pass a cryptography Ed25519 key, its 32 raw bytes, or PEM bytes",
    )


def private_key(key: object):
    """The Ed25519 private key `key` stands for."""
    ed25519, serialization = _crypto()
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return key
    if isinstance(key, str):
        key = key.encode()
    if isinstance(key, (bytes, bytearray)) and len(key) == 32:
        return ed25519.Ed25519PrivateKey.from_private_bytes(bytes(key))
    if isinstance(key, (bytes, bytearray)) and b"-----BEGIN" in key:
        try:
            loaded = serialization.load_pem_private_key(bytes(key), password=None)
        except (ValueError, TypeError) as e:
            raise _bad_key("signing_key", key, f" ({e})") from None
        if isinstance(loaded, ed25519.Ed25519PrivateKey):
            return loaded
    raise _bad_key("signing_key", key)


def _public_key(key: object):
    ed25519, serialization = _crypto()
    if isinstance(key, ed25519.Ed25519PublicKey):
        return key
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return key.public_key()
    if isinstance(key, str):
        key = key.encode()
    if isinstance(key, (bytes, bytearray)) and len(key) == 32:
        return ed25519.Ed25519PublicKey.from_public_bytes(bytes(key))
    if isinstance(key, (bytes, bytearray)) and b"-----BEGIN" in key:
        try:
            if b"PRIVATE KEY" in key:
                return private_key(key).public_key()
            loaded = serialization.load_pem_public_key(bytes(key))
        except (ValueError, TypeError) as e:
            raise _bad_key("a trusted key", key, f" ({e})") from None
        if isinstance(loaded, ed25519.Ed25519PublicKey):
            return loaded
    raise _bad_key("a trusted key", key)


def public_keys(keys: Iterable[object]) -> list:
    if isinstance(keys, (bytes, bytearray, str)) or not isinstance(keys, Iterable):
        keys = [keys]
    found = [_public_key(k) for k in keys]
    if not found:
        raise CuvilError(
            "trusted_keys is empty: no bundle could be trusted",
            hint="pass the signer's public key(s), or trusted_keys=None to skip checks",
        )
    return found


def _message(files: dict[str, str]) -> bytes:
    doc = {"format": FORMAT, "files": files}
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def _raw(public) -> str:
    _, serialization = _crypto()
    enc, fmt = serialization.Encoding.Raw, serialization.PublicFormat.Raw
    return public.public_bytes(enc, fmt).hex()


def sign_bundle(folder: Path, key: object) -> None:
    """Write ``model.sig``: `key`'s signature over the hashes of `folder`'s files."""
    key = private_key(key)
    files = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.name != SIGNATURE
    }
    doc = {
        "format": FORMAT,
        "files": files,
        "public_key": _raw(key.public_key()),
        "signature": key.sign(_message(files)).hex(),
    }
    (folder / SIGNATURE).write_text(json.dumps(doc, indent=2) + "\n")


def _refuse(root: Path, why: str) -> CuvilError:
    return CuvilError(
        f"'{root}' is not a bundle signed by a trusted key: {why}; refusing to load it",
        hint=RESAVE,
    )


def _signed_files(doc: Any, root: Path) -> dict[str, str]:
    ok = (
        isinstance(doc, dict)
        and doc.get("format") == FORMAT
        and isinstance(doc.get("files"), dict)
        and all(isinstance(v, str) for v in doc["files"].values())
        and isinstance(doc.get("signature"), str)
    )
    if not ok:
        raise _refuse(root, f"{SIGNATURE} is not a {FORMAT} document")
    return doc["files"]


def verify_bundle(root: Path, sig_bytes: bytes, trusted: list) -> dict[str, str]:
    """The signed hashes {file: SHA-256} of the bundle at `root`, whose model.sig is
    `sig_bytes`, once the signature verifies under one of `trusted` and the bundle
    holds exactly the signed files, each with its signed hash (the caller checks the
    bytes it uses again as it reads them)."""
    from cryptography.exceptions import InvalidSignature

    try:
        doc = json.loads(sig_bytes)
    except (ValueError, RecursionError):
        raise _refuse(root, f"{SIGNATURE} is not JSON") from None
    files = _signed_files(doc, root)
    try:
        signature = bytes.fromhex(doc["signature"])
    except ValueError:
        raise _refuse(root, "the signature is not hex") from None
    message = _message(files)
    for key in trusted:
        try:
            key.verify(signature, message)
            break
        except InvalidSignature:
            continue
    else:
        raise _refuse(root, "no trusted key verifies its signature")
    present = {p.name for p in root.iterdir() if p.name != SIGNATURE}
    if present != set(files):
        extra = sorted(present ^ set(files))
        raise _refuse(root, f"{extra[0]!r} was added or removed after signing")
    for name in sorted(files):
        check_signed(files, name, read_file(root, name, "file"), root)
    return files


def check_signed(files: dict[str, str] | None, name: str, data: bytes, root: Path):
    """Refuse `data` (the bytes of `name` as read) unless it is what was signed."""
    if files is None:
        return
    if files.get(name) != hashlib.sha256(data).hexdigest():
        raise _refuse(root, f"{name} differs from the signed file")
