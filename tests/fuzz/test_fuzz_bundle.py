"""Fuzz target (issue 17, deliver 9): hypothesis-drawn mutations of a saved bundle's
files (bit flips, truncation, inserted and overwritten bytes, with or without
model.json's digests rewritten to match) and of model.json's fields (any value at any
path, a deleted key), each loaded and called in a forked child: refused with a
CuvilError or correct, never a crash, a hang, another exception or a wrong answer.
Signed, every mutation that changed a byte is refused.

CI runs a bounded number of examples (the slow tier); the long run is documented in
docs/RELIABILITY.md ("Fuzzing" / "AOT bundles")::

    CUVIL_FUZZ_EXAMPLES=5000 CUVIL_FUZZ_TALLY=/tmp/tally HYPOTHESIS_PROFILE=explore \
        .venv/bin/python -m pytest -p no:cacheprovider -q -m fuzz \
        tests/fuzz/test_fuzz_bundle.py   # then: sort /tmp/tally | uniq -c
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

from bundle_harness import (  # noqa: E402
    expected_output,
    fresh_copy,
    probe,
    read_meta,
    save_tiny,
    update_digests,
    write_meta,
)

EXAMPLES = int(os.environ.get("CUVIL_FUZZ_EXAMPLES", "100"))
TALLY = os.environ.get("CUVIL_FUZZ_TALLY")  # a file: one outcome per line, appended
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
pytestmark = [pytest.mark.slow, pytest.mark.fuzz]
FILES = ("model.json", "model.so", "params.pt")

_json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["f64", "i64", "f16", "../params.pt", "/etc/passwd", "model.so"])
)
json_values = st.recursive(
    _json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
byte_edit = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(1, 255)),
    st.tuples(st.just("truncate"), st.floats(0, 1), st.just(0)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.binary(min_size=1, max_size=16)),
    st.tuples(
        st.just("overwrite"), st.floats(0, 1), st.binary(min_size=1, max_size=16)
    ),
)
file_mutation = st.tuples(
    st.just("bytes"),
    st.sampled_from(FILES),
    st.lists(byte_edit, min_size=1, max_size=4),
    st.booleans(),  # rewrite model.json's digests afterwards
)
field_mutation = st.tuples(
    st.just("field"),
    st.integers(min_value=0),  # which path of model.json (modulo their number)
    st.one_of(st.just("delete"), json_values),
    st.booleans(),
)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # the probes fork
    root = tmp_path_factory.mktemp("fuzz")
    plain = save_tiny(root / "plain")
    signed, trusted = None, None
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519

        key = ed25519.Ed25519PrivateKey.generate()
        signed, trusted = (
            save_tiny(root / "signed", signing_key=key),
            [key.public_key()],
        )
    except ImportError:
        pass
    yield plain, signed, trusted
    torch.set_num_threads(before)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


def _edit_bytes(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for kind, where, arg in edits:
        at = min(int(where * len(out)), max(len(out) - 1, 0))
        if kind == "flip" and out:
            out[at] ^= arg
        elif kind == "truncate":
            del out[at:]
        elif kind == "insert":
            out[at:at] = arg
        elif kind == "overwrite":
            out[at : at + len(arg)] = arg
    return bytes(out)


def _apply(bundle: Path, mutation) -> None:
    if mutation[0] == "bytes":
        _, name, edits, digests = mutation
        (bundle / name).write_bytes(_edit_bytes((bundle / name).read_bytes(), edits))
    else:
        _, which, value, digests = mutation
        meta = read_meta(bundle)
        paths = [p for p in _paths(meta) if p]
        path = paths[which % len(paths)]
        node = meta
        for key in path[:-1]:
            node = node[key]
        if value == "delete":
            del node[path[-1]]
        else:
            node[path[-1]] = value
        write_meta(bundle, meta)
    if digests:
        try:
            update_digests(bundle)
        except (ValueError, TypeError, KeyError, AttributeError):
            pass  # model.json is no longer a dict of dicts: leave it so


def _tally(test: str, outcome: str) -> None:
    if TALLY:
        with open(TALLY, "a") as f:
            f.write(f"{test} {outcome}\n")


def _snapshot(bundle: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in bundle.iterdir()}


@FUZZ
@given(mutation=st.one_of(file_mutation, field_mutation))
def test_fuzzed_bundles_are_refused_or_correct(bundles, mutation):
    with tempfile.TemporaryDirectory(prefix="cuvil-fuzz-") as tmp:
        bundle = fresh_copy(bundles[0], Path(tmp))
        _apply(bundle, mutation)
        outcome, detail = probe(bundle, expected_output())
        _tally("plain", outcome)
        assert outcome in ("refused", "correct"), (outcome, detail, mutation)


@FUZZ
@given(mutation=st.one_of(file_mutation, field_mutation))
def test_fuzzed_signed_bundles_are_refused_unless_unchanged(bundles, mutation):
    _, signed, trusted = bundles
    if signed is None:
        pytest.skip("needs the 'cryptography' package")
    with tempfile.TemporaryDirectory(prefix="cuvil-fuzz-") as tmp:
        bundle = fresh_copy(signed, Path(tmp))
        before = _snapshot(bundle)
        _apply(bundle, mutation)
        outcome, detail = probe(bundle, expected_output(), trusted_keys=trusted)
        _tally("signed", outcome)
        want = "correct" if _snapshot(bundle) == before else "refused"
        assert outcome == want, (outcome, detail, json.dumps(mutation, default=repr))
