"""Fuzz targets of the IR: mutants of the sample .cuvilir files (samples/ir/).

* the parser: every mutant parses to a Module or raises IRParseError located inside
  the text — never another exception;
* the verifier: a parsed mutant verifies or yields VerifyErrors — never another
  exception;
* the verifier + codegen: a mutant the verifier accepts compiles natively or is
  refused with a CuvilError (a CodegenError, ...) — never a TypeError, KeyError or a
  crash. The generated modules of tests/ir/ir_strategies.py (all verify) go the same
  way.

Mutations work on the text's atoms (numbers, names, types, punctuation): replace one
with another of the file or an edge value (0, -1, 2**32, nan, ?, another dtype, another
op), delete, duplicate, swap or drop lines. "Soft" mutations (an op swapped for one of
the same signature, an attribute's number changed) keep more mutants verifiable, so
codegen sees them.

CI runs a bounded tier (``-m fuzz``, about a minute). The long run:

    CUVIL_FUZZ_EXAMPLES=20000 HYPOTHESIS_PROFILE=explore \\
        python -m pytest -m fuzz tests/fuzz -p no:cacheprovider -q
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_strategies import modules

from cuvil.errors import CuvilError, IRParseError, VerifyError
from cuvil.ir import Module, parse_module, verify_all
from cuvil.ir.interpreter import random_params
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module

pytestmark = [pytest.mark.slow, pytest.mark.fuzz]

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {
    p.name: p.read_text() for p in sorted((ROOT / "samples" / "ir").glob("*.cuvilir"))
}
SMALL = [name for name in SAMPLES if name != "resnet18.cuvilir"]  # quick to compile
SCALE = int(os.environ.get("CUVIL_FUZZ_EXAMPLES", "0")) or None
# the suite draws the same examples every run (a gate fails on a change, not on luck);
# a scaled run (CUVIL_FUZZ_EXAMPLES, nightly) draws new ones
FIXED = SCALE is None
_FAST = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

_ATOM = re.compile(
    r"%[\w.$-]+|@[\w.$-]+|-?\d+(?:\.\d*)?(?:e[+-]?\d+)?|[A-Za-z_][\w.]*|->|[<>(){}\[\],:=?x]"
)
EDGES = [
    "0", "1", "-1", "2", "3", "7", "4294967296", "-9223372036854775809", "1e308",
    "nan", "inf", "-inf", "?", "[n]", "x", "f16", "bf16", "i64", "i1", "u8", "f64",
    "%x", "%arg0", "@w", "tensor<2x3xf32>", "tensor<?xf32>", "tensor<f32>",
    "dense<1.0>", "dense<[1, 2]>", "cuvil.relu", "cuvil.add", "cuvil.matmul",
    "cuvil.reshape", "cuvil.constant", "cuvil.param", "loc(unknown)", '"s"',
    ",", "(", ")", "{", "}", "<", ">", "[", "]", ":", "=", "->", "",
]  # fmt: skip
# ops with the same operand and result types: a swap keeps the IR verifiable
SWAPS = [
    ["cuvil.relu", "cuvil.gelu", "cuvil.sigmoid", "cuvil.tanh", "cuvil.neg", "cuvil.exp",
     "cuvil.silu", "cuvil.abs", "cuvil.sqrt"],
    ["cuvil.add", "cuvil.sub", "cuvil.mul", "cuvil.div", "cuvil.maximum",
     "cuvil.minimum", "cuvil.pow"],
]  # fmt: skip
_NUMBER = re.compile(r"(?<=[=\[, ])-?\d+(?=[\],}])")  # a number in an attribute


@st.composite
def hard_mutants(draw, names=tuple(SAMPLES)) -> str:
    """A sample with 1..4 mutations of its atoms or lines."""
    text = SAMPLES[draw(st.sampled_from(names))]
    for _ in range(draw(st.integers(1, 4))):
        text = draw(st.sampled_from([_atom, _line]))(draw, text)
    return text


def _atom(draw, text: str) -> str:
    atoms = list(_ATOM.finditer(text))
    m = atoms[draw(st.integers(0, len(atoms) - 1))]
    kind = draw(st.sampled_from(["edge", "other", "delete", "twice"]))
    if kind == "edge":
        new = draw(st.sampled_from(EDGES))
    elif kind == "other":
        new = atoms[draw(st.integers(0, len(atoms) - 1))].group()
    else:
        new = "" if kind == "delete" else m.group() * 2
    return text[: m.start()] + new + text[m.end() :]


def _line(draw, text: str) -> str:
    lines = text.split("\n")
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["drop", "twice", "swap"]))
    if kind == "drop":
        del lines[i]
    elif kind == "twice":
        lines.insert(i, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


@st.composite
def soft_mutants(draw) -> str:
    """A small sample with ops swapped for same-signature ones and attribute numbers
    changed (to edge values): mostly still verifiable."""
    text = SAMPLES[draw(st.sampled_from(SMALL))]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            group = draw(st.sampled_from(SWAPS))
            found = [
                m for op in group for m in re.finditer(re.escape(op) + r"\b", text)
            ]
            if found:
                m = draw(st.sampled_from(found))
                new = draw(st.sampled_from(group))
                text = text[: m.start()] + new + text[m.end() :]
            continue
        found = list(_NUMBER.finditer(text))
        if found:
            m = draw(st.sampled_from(found))
            new = draw(
                st.sampled_from(["0", "1", "-1", "-2", "2", "3", "4", "64", "1000"])
            )
            text = text[: m.start()] + new + text[m.end() :]
    return text


def _parse(text: str) -> Module | None:
    """The module, or None for a parse error located inside the text."""
    try:
        return parse_module(text, "fuzz.cuvilir")
    except IRParseError as err:
        assert 1 <= err.line <= text.count("\n") + 1, err
        assert err.col >= 1, err
        return None


def _verified(module: Module) -> bool:
    errors = list(verify_all(module))
    assert all(isinstance(e, VerifyError) for e in errors), errors
    return not errors


_BIG = 1 << 22  # elements: a mutant's tensors beyond this are not compiled here


def _small_enough(module: Module) -> bool:
    types = [*module.params.values()]
    for fn in module.functions:
        types += [a.type for a in fn.args]
        types += [r.type for op in fn.ops for r in op.results]
    return all((t.numel() or 0) <= _BIG for t in types)


def _compiles_or_refuses(module: Module) -> str:
    """'compiled' or 'refused' (a CuvilError); any other exception fails the test."""
    if not _small_enough(module):
        return "skipped"
    random_params(module)
    try:
        compile_module(module, CompileOptions(opt_level="O1"), echo_llvm_bisect=False)
    except CuvilError:
        return "refused"
    return "compiled"


@settings(
    max_examples=SCALE or 600,
    deadline=None,
    suppress_health_check=_FAST,
    derandomize=FIXED,
)
@given(hard_mutants())
def test_parser_and_verifier_give_a_module_or_a_diagnostic(text: str):
    module = _parse(text)
    if module is not None:
        _verified(module)


@settings(
    max_examples=(SCALE or 6000) // 40,
    deadline=None,
    suppress_health_check=_FAST,
    derandomize=FIXED,
)
@given(
    st.one_of(
        soft_mutants(), soft_mutants(), soft_mutants(), hard_mutants(tuple(SMALL))
    )
)
def test_verified_mutants_compile_or_are_refused_cleanly(text: str):
    module = _parse(text)
    if module is not None and _verified(module):
        _compiles_or_refuses(module)


@settings(
    max_examples=(SCALE or 4000) // 40,
    deadline=None,
    suppress_health_check=_FAST,
    derandomize=FIXED,
)
@given(modules(max_functions=1, max_ops=6))
def test_generated_modules_compile_or_are_refused_cleanly(module: Module):
    _compiles_or_refuses(module)


def test_the_dynamic_attention_sample_is_refused_cleanly():
    """It verifies; native code needs static shapes: a CodegenError, not a TypeError."""
    module = parse_module(SAMPLES["attention_dynamic.cuvilir"])
    assert _verified(module) and _compiles_or_refuses(module) == "refused"
    static = parse_module(SAMPLES["attention_dynamic.cuvilir"].replace("[batch]", "2"))
    assert _compiles_or_refuses(static) == "compiled"
