"""The debug metadata Cuvil emits, checked in the LLVM IR (no debugger needed)."""

from __future__ import annotations

import re

import pytest

import cuvil
from cuvil_debug import load_model

from .conftest import MODEL


@pytest.fixture(scope="module")
def llvm_ir() -> dict[bool, str]:
    loaded = load_model(str(MODEL))
    return {
        debug: cuvil.compile(
            loaded.model, loaded.inputs, options={"debug": debug, "opt_level": "O0"}
        ).llvm_ir()
        for debug in (False, True)
    }


def test_no_debug_cost_without_debug(llvm_ir):
    text = llvm_ir[False]
    assert "!DI" not in text and "llvm.dbg" not in text and "volatile" not in text


def test_debug_info_uses_c99_and_dwarf_4(llvm_ir):
    text = llvm_ir[True]
    assert "language: DW_LANG_C99" in text  # trap 1: DW_LANG_Python hides variables
    assert '!"Dwarf Version", i32 4' in text  # trap 3: DWARF 5 breaks GDB 13 on cores


def test_kernel_prologue_spills_carry_no_location(llvm_ir):
    """Trap 2: argument spills without !dbg, then a located volatile reload."""
    for body in re.findall(
        r"define void @\"?cuvil_k[^\n]*\n(.*?)\n}", llvm_ir[True], flags=re.S
    ):
        entry = body.split("\n\n")[0].splitlines()
        spills = [i for i in entry if re.match(r"\s*store ptr %\S+, ptr %\S+\.addr", i)]
        reloads = [i for i in entry if "load volatile ptr" in i]
        assert spills and all("!dbg" not in i for i in spills), body
        assert reloads and all("!dbg" in i for i in reloads), body
