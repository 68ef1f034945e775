"""Corruptions of a JIT object-cache entry, and a child process that compiles through them.

Shared by tests/runtime/test_cache_corruption.py and tests/fuzz/test_fuzz_cache.py (both
load this file by path) and runnable on its own to measure any version of Cuvil::

    python tests/runtime/cache_faults.py sweep      # every corruption, each in a child

A corruption works on bytes and paths only (offsets are relative to the file), so the
same catalogue measures the cache before and after it grew a header. The child
(``python cache_faults.py child CACHE_DIR USER_FILE NAME...``) compiles two tiny models
(``a`` and ``b``), then per corruption NAME: corrupts ``a``'s entry, compiles ``a``
twice, and prints one JSON line: was each compile a cache hit, did it match eager, is
the entry a healthy regular file again, the cache counters, is the user file intact.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

HEADER = 88  # the size of the entry header (compiler/runtime/objcache.py)
USER_TEXT = b"a file the user wrote; the cache must never change it\n"


# ---- the corruptions: (entry, context) -> None ----------------------------------------


def _elf_body(data: bytes) -> bytes:
    """The ELF object inside an entry (the whole entry before the header existed)."""
    at = data.find(b"\x7fELF")
    return data[at:] if at >= 0 else data


def _truncate(at):
    def run(p: Path, ctx) -> None:
        data = p.read_bytes()
        cut = at(len(data))
        p.write_bytes(data[:cut])

    return run


def _flip(at, mask=0x01):
    def run(p: Path, ctx) -> None:
        data = bytearray(p.read_bytes())
        i = min(at(len(data)), len(data) - 1)
        data[i] ^= mask
        p.write_bytes(bytes(data))

    return run


def _zero(start, length):
    def run(p: Path, ctx) -> None:
        data = bytearray(p.read_bytes())
        s = start(len(data))
        n = min(length(len(data)), len(data) - s)
        data[s : s + n] = bytes(n)
        p.write_bytes(bytes(data))

    return run


def _swap(p: Path, ctx) -> None:
    other = ctx["other"]
    a, b = p.read_bytes(), other.read_bytes()
    p.write_bytes(b)
    other.write_bytes(a)


def _foreign_entry(p: Path, ctx) -> None:
    p.write_bytes(ctx["other"].read_bytes())


def _foreign_elf(p: Path, ctx) -> None:
    p.write_bytes(_elf_body(ctx["other"].read_bytes()))


def _legacy(p: Path, ctx) -> None:
    p.write_bytes(_elf_body(p.read_bytes()))


def _forge(p: Path, body: bytes) -> None:
    """A well-formed entry header for `p`'s key over `body`: what a buggy writer (not
    an accident) leaves; the JIT's own check of the object must catch it."""
    key = p.stem.encode()
    digests = hashlib.sha256(key).digest() + hashlib.sha256(body).digest()
    head = struct.pack("<8sIIQ", b"CUVILOB\0", 1, 0, len(body)) + digests
    p.write_bytes(head + body)


def _forged_other(p: Path, ctx) -> None:
    _forge(p, _elf_body(ctx["other"].read_bytes()))


def _forged_cut(p: Path, ctx) -> None:
    body = _elf_body(p.read_bytes())
    _forge(p, body[: len(body) // 2])


def _forged_notes_only(p: Path, ctx) -> None:
    """An object carrying this build's debug-key note and nothing else: it passes
    every byte check, LLVM loads it, and it has no entry function."""
    from cuvil.codegen.target import target_machine
    from cuvil.runtime.debugkey import note_module
    from cuvil.runtime.elfinfo import Elf

    key = Elf(_elf_body(p.read_bytes())).cuvil_key
    _forge(p, target_machine(3).emit_object(note_module(key, build_id=True)))


def _symlink_to(target):
    def run(p: Path, ctx) -> None:
        p.unlink()
        os.symlink(target(ctx), p)

    return run


def _directory(with_file: bool):
    def run(p: Path, ctx) -> None:
        p.unlink()
        p.mkdir()
        if with_file:
            (p / "inside").write_bytes(b"x")

    return run


def _fifo(p: Path, ctx) -> None:
    p.unlink()
    os.mkfifo(p)


def _unreadable(p: Path, ctx) -> None:
    os.chmod(p, 0)


def _garbage(p: Path, ctx) -> None:
    n = p.stat().st_size
    p.write_bytes(bytes((i * 131 + 7) % 256 for i in range(n)))


def _append(p: Path, ctx) -> None:
    with open(p, "ab") as f:
        f.write(b"\0" * 100)


_ENTRY = {
    "empty": _truncate(lambda n: 0),
    "truncate-1": _truncate(lambda n: 1),
    "truncate-16": _truncate(lambda n: 16),
    "truncate-header": _truncate(lambda n: HEADER - 1),
    "truncate-after-header": _truncate(lambda n: HEADER),
    "truncate-half": _truncate(lambda n: n // 2),
    "truncate-last-16": _truncate(lambda n: n - 16),
    "truncate-last-byte": _truncate(lambda n: n - 1),
    "flip-magic": _flip(lambda n: 0),
    "flip-version": _flip(lambda n: 8),
    "flip-length": _flip(lambda n: 16),
    "flip-key-digest": _flip(lambda n: 30),
    "flip-content-digest": _flip(lambda n: 70),
    "flip-header-end": _flip(lambda n: HEADER - 1, 0x80),
    "flip-body-start": _flip(lambda n: HEADER + 5),
    "flip-body-elf-class": _flip(lambda n: HEADER + 4, 0x03),
    "flip-body-middle": _flip(lambda n: n // 2),
    "flip-body-three-quarters": _flip(lambda n: 3 * n // 4, 0xFF),
    "flip-last-byte": _flip(lambda n: n - 1),
    "zero-all": _zero(lambda n: 0, lambda n: n),
    "zero-header": _zero(lambda n: 0, lambda n: HEADER),
    "zero-body-64": _zero(lambda n: HEADER + 64, lambda n: 64),
    "zero-middle-256": _zero(lambda n: n // 3, lambda n: 256),
    "zero-tail-64": _zero(lambda n: n - 64, lambda n: 64),
    "garbage-same-size": _garbage,
    "append-zeros": _append,
    "swap-with-other-model": _swap,
    "other-model-entry": _foreign_entry,
    "other-model-elf": _foreign_elf,
    "legacy-raw-elf": _legacy,
    "forged-header-other-model": _forged_other,
    "forged-header-cut-object": _forged_cut,
    "forged-header-notes-only": _forged_notes_only,
    "symlink-to-other-entry": _symlink_to(lambda ctx: ctx["other"]),
    "symlink-to-user-file": _symlink_to(lambda ctx: ctx["user"]),
    "symlink-dangling": _symlink_to(lambda ctx: ctx["user"].parent / "missing"),
    "directory-empty": _directory(False),
    "directory-with-file": _directory(True),
    "fifo": _fifo,
    "unreadable": _unreadable,
}
CORRUPTIONS = sorted(n for n in _ENTRY if n != "unreadable" or os.geteuid() != 0)
# those whose bytes reach LLVM if the cache ever trusted them: one child each (slow tier)
_TOUCHING_OBJECT = ("flip-body", "flip-last", "zero-body", "zero-middle", "zero-tail")
BODY = [n for n in CORRUPTIONS if n.startswith(_TOUCHING_OBJECT + ("garbage",))]
BODY += ["swap-with-other-model", "other-model-entry", "other-model-elf"]
BODY += [n for n in CORRUPTIONS if n.startswith("forged")]


# ---- the child --------------------------------------------------------------------------


def _model(name: str):
    import torch
    from torch import nn

    torch.manual_seed(0)
    if name == "a":
        layers = [nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)]
    else:
        layers = [nn.Linear(8, 4), nn.Tanh()]
    return nn.Sequential(*layers).eval(), torch.randn(2, 8)


def compile_once(name: str) -> dict:
    """Compile model `name`: was it a cache hit, does it match eager, its debug key."""
    import torch

    import cuvil

    model, x = _model(name)
    compiled = cuvil.compile(model, [x])
    with torch.no_grad():
        want = model(x)
    got = compiled(x)
    ok = bool(torch.allclose(got, want, rtol=1e-5, atol=1e-6))
    return {
        "hit": bool(compiled.jit.cache_hit),
        "correct": ok,
        "key": compiled.jit.debug_key,
    }


def entries(cache: Path) -> list[Path]:
    objects = cache / "objects"
    return sorted(p for p in objects.rglob("*.o")) if objects.is_dir() else []


def find_entry(cache: Path, debug_key: str) -> Path:
    """The entry holding the object whose debug-key note is `debug_key`."""
    from cuvil.runtime.elfinfo import Elf

    for path in entries(cache):
        if path.is_file() and not path.is_symlink():
            try:
                if Elf(_elf_body(path.read_bytes())).cuvil_key == debug_key:
                    return path
            except ValueError:
                continue
    raise LookupError(f"no entry for {debug_key}")


def _stats() -> dict:
    import cuvil

    stats = getattr(cuvil, "cache_stats", None)
    return stats()._asdict() if stats else {}


def healthy(p: Path) -> bool:
    return p.is_file() and not p.is_symlink() and p.stat().st_size > HEADER


def _later(cache: Path) -> None:
    """A compile over what an earlier process left: a, a again, b, and the entries."""
    row = {"name": None, "first": compile_once("a"), "second": compile_once("a")}
    row["other"] = compile_once("b")
    keys = {"a": row["first"]["key"], "b": row["other"]["key"]}
    row["entries"] = {m: str(find_entry(cache, k)) for m, k in keys.items()}
    row["stats"] = _stats()
    print(json.dumps(row), flush=True)


def run_child(cache: Path, user: Path, names: list[str]) -> None:
    os.environ["CUVIL_CACHE_DIR"] = str(cache)
    if not names:
        return _later(cache)
    a = find_entry(cache, compile_once("a")["key"])
    b = find_entry(cache, compile_once("b")["key"])
    ctx = {"other": b, "user": user}
    for name in names:
        _ENTRY[name](a, ctx)
        before = _stats()
        first = compile_once("a")
        second = compile_once("a")
        other = compile_once("b")  # a swap hurt b's entry too: healed here
        row = {"name": name, "first": first, "second": second, "other": other}
        row["healthy"] = healthy(a) and healthy(b)
        row["user_intact"] = user.read_bytes() == USER_TEXT
        after = _stats()
        row["stats"] = {k: after[k] - before.get(k, 0) for k in after if k != "dir"}
        print(json.dumps(row), flush=True)


def corrupt(name: str, a: Path, b: Path, user: Path) -> None:
    """Apply corruption `name` to entry `a` (`b`: the other model's entry)."""
    _ENTRY[name](a, {"other": b, "user": user})


def child(cache: Path, user: Path, names: list[str], timeout: float = 300):
    """Run `names` in one child process: (its return code, its rows, its stderr)."""
    cmd = [sys.executable, __file__, "child", str(cache), str(user), *names]
    env = {**os.environ, "CUVIL_CACHE": "1"}
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return "timeout", [], ""
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    return proc.returncode, rows, proc.stderr


def make_user_file(folder: Path) -> Path:
    user = folder / "user-notes.txt"
    user.write_bytes(USER_TEXT)
    return user


def _verdict(rc, rows) -> str:
    if rc == "timeout":
        return "hang"
    if rc != 0 or not rows:
        return f"crash (exit {rc})"
    first = rows[0]["first"]
    if first["hit"]:
        return "executed, " + ("correct" if first["correct"] else "WRONG")
    return "detected, rebuilt" if first["correct"] else "rebuilt, WRONG"


def sweep(folder: Path, timeout: float) -> None:
    """Each corruption in its own child; a crash is followed by one more compile, to
    see whether the entry keeps crashing."""
    for name in CORRUPTIONS:
        case = folder / name
        shutil.rmtree(case, ignore_errors=True)
        case.mkdir(parents=True)
        user = make_user_file(case)
        rc, rows, err = child(case / "cache", user, [name], timeout)
        verdict = _verdict(rc, rows)
        if not rows:
            again, _, _ = child(case / "cache", user, [], timeout)
            verdict += "; next compile " + ("ok" if again == 0 else f"exit {again}")
        tail = err.strip().splitlines()[-1:] if rc != 0 else []
        print(f"{name:28} {verdict}  {' '.join(tail)[:90]}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        run_child(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
    else:
        out = Path(os.environ.get("TMPDIR", "/tmp")) / "cuvil-cache-sweep"
        sweep(out, float(os.environ.get("SWEEP_TIMEOUT", "120")))
