"""Issue 17, deliver 2: a tampered bundle cannot be turned against ``cuvil.load``.

Every mutation of bundle_mutations.py (>= 100: each field of model.json, truncation,
bit flips, swapped and replaced files, a foreign library with a constructor, symlinks,
``../`` paths) is applied to its own copy of a saved bundle, which is loaded and called
in a forked child: it must be refused with a CuvilError or load and give the right
answer; never crash, never answer wrong, never run the foreign constructor. With
``trusted_keys`` every modified bundle is refused.
"""

from __future__ import annotations

import collections
import os
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_harness import (  # noqa: E402
    build_context,
    expected_output,
    fresh_copy,
    probe,
    read_meta,
    save_tiny,
    write_meta,
)
from bundle_mutations import mutations, whole_swaps  # noqa: E402

import cuvil  # noqa: E402


@pytest.fixture(scope="module")
def torch_one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # the probes fork: no thread pool to inherit
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def unsigned(tmp_path_factory, torch_one_thread):
    return build_context(tmp_path_factory.mktemp("tamper"))


def _run_all(bundle, ctx, rows, root: Path, expected, **load_kw):
    outcomes, bad = collections.Counter(), []
    for i, (name, apply, must_refuse) in enumerate(rows):
        copy = fresh_copy(bundle, root / f"m{i}")
        apply(copy)
        outcome, detail = probe(copy, expected, **load_kw)
        outcomes[outcome] += 1
        if outcome not in ("refused", "correct") or (
            must_refuse and outcome != "refused"
        ):
            bad.append(f"{name}: {outcome} {detail}")
    return outcomes, bad


def test_every_tampered_bundle_is_refused_or_loads_correctly(unsigned, tmp_path):
    bundle, ctx = unsigned
    rows = mutations(ctx)
    assert len(rows) >= 100
    assert probe(bundle, expected_output()) == ("correct", "")
    outcomes, bad = _run_all(bundle, ctx, rows, tmp_path, expected_output())
    assert bad == [], outcomes
    assert outcomes["wrong"] == outcomes["crash"] == outcomes["error"] == 0
    assert not ctx["marker"].exists(), "a foreign library's constructor ran"


def test_a_consistent_swap_for_another_bundle_needs_a_signature(unsigned, tmp_path):
    """Unsigned, three files replaced consistently by another bundle's are that other
    model (nothing in the files says otherwise): the limit a signature lifts."""
    bundle, ctx = unsigned
    ((name, apply, _),) = whole_swaps(ctx)
    copy = fresh_copy(bundle, tmp_path)
    apply(copy)
    assert probe(copy, expected_output("tanh", seed=1)) == ("correct", "")


@pytest.fixture(scope="module")
def signed(tmp_path_factory, torch_one_thread):
    ed25519 = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ed25519")
    key = ed25519.Ed25519PrivateKey.generate()
    bundle, ctx = build_context(tmp_path_factory.mktemp("signed"), signing_key=key)
    return bundle, ctx, [key.public_key()]


def _signed_run(signed, root: Path, every: int) -> None:
    bundle, ctx, trusted = signed
    assert probe(bundle, expected_output(), trusted_keys=trusted) == ("correct", "")
    rows = [(n, a, True) for n, a, _ in mutations(ctx)[::every] + whole_swaps(ctx)]
    outcomes, bad = _run_all(
        bundle, ctx, rows, root, expected_output(), trusted_keys=trusted
    )
    assert bad == [], outcomes
    assert outcomes == {"refused": len(rows)}
    assert not ctx["marker"].exists()


def test_with_trusted_keys_modified_bundles_are_refused(signed, tmp_path):
    """A fast sample (every 8th mutation and the consistent swap)."""
    _signed_run(signed, tmp_path, every=8)


@pytest.mark.slow
def test_with_trusted_keys_every_modified_bundle_is_refused(signed, tmp_path):
    _signed_run(signed, tmp_path, every=1)


def test_a_refusal_names_the_field_and_says_to_save_again(unsigned, tmp_path):
    bundle = fresh_copy(unsigned[0], tmp_path)
    meta = read_meta(bundle)
    meta["arena_bytes"] = 8
    write_meta(bundle, meta)
    with pytest.raises(cuvil.CuvilError, match=r"'arena_bytes' does not match") as e:
        cuvil.load(bundle)
    assert "save the model again" in (e.value.hint or "")
    meta["arena_bytes"] = read_meta(unsigned[0])["arena_bytes"]
    meta["inputs"][0]["shape"] = [1, 64]
    write_meta(bundle, meta)
    with pytest.raises(cuvil.CuvilError, match=r"'inputs\[0\]\.shape\[1\]'"):
        cuvil.load(bundle)


def test_resaving_another_model_at_the_same_path_loads_the_new_one(
    tmp_path, torch_one_thread
):
    path = tmp_path / "model"
    save_tiny(path, act="relu")
    first = cuvil.load(path)
    torch.testing.assert_close(first(*_input()), expected_output("relu"))
    save_tiny(path, act="tanh", seed=1, overwrite=True)
    second = cuvil.load(path)
    torch.testing.assert_close(second(*_input()), expected_output("tanh", seed=1))
    torch.testing.assert_close(first(*_input()), expected_output("relu"))
    assert first.library._name != second.library._name


def _input():
    from bundle_harness import INPUT

    return INPUT


def test_the_library_is_loaded_from_a_private_copy(unsigned):
    loaded = cuvil.load(unsigned[0])
    copy = Path(loaded.library._name)
    assert copy.parent != unsigned[0]
    assert copy.read_bytes() == (unsigned[0] / "model.so").read_bytes()
    assert oct(copy.parent.stat().st_mode & 0o777) == oct(0o700)
    assert os.path.realpath(copy) == str(copy)  # no link to the bundle's file
