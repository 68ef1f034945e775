"""CompileOptions / DebugOptions: the flat ``options={...}`` of ``cuvil.compile``, typed."""

from __future__ import annotations

import pytest

from cuvil.errors import CuvilError
from cuvil.options import KEYS, CompileOptions, DebugOptions


def test_flat_keys_split_into_the_two_groups_and_back():
    opts = CompileOptions.parse(
        {"opt_level": "O1", "num_threads": 2, "bisect_limit": 3}, print_after_all=True
    )
    assert (opts.opt_level, opts.num_threads) == ("O1", 2)
    assert opts.debug_options == DebugOptions(bisect_limit=3, print_after_all=True)
    flat = opts.to_dict()
    assert tuple(flat) == KEYS  # every key, in the order saved models have them
    assert CompileOptions.parse(flat) == opts


def test_with_debug_changes_only_the_debug_group():
    opts = CompileOptions(pipeline="dce").with_debug(llvm_bisect_limit=0)
    assert opts.pipeline == "dce" and opts.debug_options.llvm_bisect_limit == 0


def test_a_group_field_is_not_a_flat_key():
    with pytest.raises(CuvilError, match="unknown option 'debug_options'"):
        CompileOptions.parse({"debug_options": DebugOptions()})
