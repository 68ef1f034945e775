"""Fuzz target: the object cache on randomly mutated entries (issue 17, deliver 9).

Hypothesis draws up to four byte mutations of a real entry (bit flips, truncations,
overwrites, insertions, deletions, a whole replacement; positions shrink toward the
header). Two properties:

- verification (in-process, thousands of examples): ``load_object`` hands back exactly
  the original object when the bytes are unchanged, and None (the entry evicted)
  whenever any byte changed, so no mutated byte can reach LLVM;
- end to end (one child process, so a crash is a failure, not a dead pytest): after
  each mutation the next compile matches eager and rebuilt the entry, and the compile
  after it is a cache hit.

The bounded run (CI's slow tier) takes about a minute. The long run::

    HYPOTHESIS_PROFILE=explore CUVIL_FUZZ_EXAMPLES=50000 CUVIL_FUZZ_E2E_EXAMPLES=1000 \\
        python -m pytest -p no:cacheprovider -o addopts="--import-mode=importlib" \\
        -s -m fuzz tests/fuzz/test_fuzz_cache.py
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_FAULTS = Path(__file__).resolve().parent.parent / "runtime" / "cache_faults.py"
_spec = importlib.util.spec_from_file_location("cache_faults", _FAULTS)
cf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cf)

EXAMPLES = int(os.environ.get("CUVIL_FUZZ_EXAMPLES", "2000"))
E2E_EXAMPLES = int(os.environ.get("CUVIL_FUZZ_E2E_EXAMPLES", "40"))

_pos = st.integers(0, 127) | st.integers(0, 1 << 20)
_blob = st.binary(min_size=1, max_size=64)
_op = st.one_of(
    st.tuples(st.just("flip"), _pos, st.integers(0, 7)),
    st.tuples(st.just("truncate"), _pos),
    st.tuples(st.just("overwrite"), _pos, _blob),
    st.tuples(st.just("insert"), _pos, _blob),
    st.tuples(st.just("delete"), _pos, st.integers(1, 64)),
    st.tuples(st.just("replace"), st.binary(max_size=512)),
)
mutations = st.lists(_op, min_size=1, max_size=4)


def mutate(data: bytes, ops) -> bytes:
    """Apply `ops` (drawn by `mutations`) to `data`; positions wrap around its length."""
    out = bytearray(data)
    for op in ops:
        kind, args = op[0], op[1:]
        at = args[0] % (len(out) + 1) if kind != "replace" else 0
        if kind == "flip" and out:
            out[min(at, len(out) - 1)] ^= 1 << args[1]
        elif kind == "truncate":
            del out[at:]
        elif kind == "overwrite":
            out[at : at + len(args[1])] = args[1]
        elif kind == "insert":
            out[at:at] = args[1]
        elif kind == "delete":
            del out[at : at + args[1]]
        elif kind == "replace":
            out = bytearray(args[0])
    return bytes(out)


@pytest.fixture(scope="module")
def entry(tmp_path_factory):
    """A real entry of a compiled model: (cache dir, its key, its bytes, the check)."""
    from cuvil.runtime.jit import _object_check

    cache = tmp_path_factory.mktemp("fuzz-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CUVIL_CACHE_DIR", str(cache))
        mp.setenv("CUVIL_CACHE", "1")
        debug_key = cf.compile_once("a")["key"]
        path = cf.find_entry(cache, debug_key)
    return cache, path.stem, path.read_bytes(), _object_check(debug_key)


@pytest.mark.slow
@pytest.mark.fuzz
def test_no_mutated_entry_passes_verification(entry, monkeypatch):
    from cuvil.runtime import objcache

    cache, key, original, check = entry
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(cache))
    path = objcache._path(key)
    body = original[objcache.HEADER :]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(ops=mutations)
    def verify(ops):
        data = mutate(original, ops)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        got = objcache.load_object(key, check)
        if data == original:
            assert got == body
        else:
            assert got is None, ops
            assert not path.exists(), "a bad entry was left in place"
        tried.append(data != original)

    tried: list[bool] = []
    verify()
    print(f"{len(tried)} entries verified, {sum(tried)} of them mutated: 0 passed")


_CHILD = """
import json, os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from hypothesis import given, settings, HealthCheck
import cache_faults as cf
import test_fuzz_cache as fz

cache = Path(os.environ["CUVIL_CACHE_DIR"])
path = cf.find_entry(cache, cf.compile_once("a")["key"])
original = path.read_bytes()
derandomize = os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci"

@settings(max_examples=int(sys.argv[3]), deadline=None, derandomize=derandomize,
          database=None, suppress_health_check=list(HealthCheck))
@given(ops=fz.mutations)
def run(ops):
    data = fz.mutate(original, ops)
    print(json.dumps({"trying": repr(ops)}), flush=True)
    path.write_bytes(data)
    first, second = cf.compile_once("a"), cf.compile_once("a")
    assert first["correct"] and second["correct"], ops
    assert first["hit"] == (data == original), ops
    assert second["hit"] and path.read_bytes() == original, ops

run()
print(json.dumps({"done": True}), flush=True)
"""


def _tried(lines: list[dict]) -> int:
    return sum("trying" in ln for ln in lines)


@pytest.mark.slow
@pytest.mark.fuzz
def test_every_mutated_entry_is_rebuilt_by_the_next_compile(tmp_path):
    env = {**os.environ, "CUVIL_CACHE_DIR": str(tmp_path), "CUVIL_CACHE": "1"}
    here, faults = str(Path(__file__).parent), str(_FAULTS.parent)
    cmd = [sys.executable, "-c", _CHILD, here, faults, str(E2E_EXAMPLES)]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=env, timeout=max(600, E2E_EXAMPLES)
    )
    lines = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    last = next((ln["trying"] for ln in reversed(lines) if "trying" in ln), None)
    assert proc.returncode == 0, f"died on {last}: {proc.stderr[-3000:]}"
    assert lines and lines[-1] == {"done": True}
    print(f"{_tried(lines)} mutated entries compiled, 0 crashes, 0 wrong results")
