"""Code generation refuses symbolic shapes up front, naming the value (it used to fail
with a raw TypeError inside GEMM planning on samples/ir/attention_dynamic.cuvilir)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuvil.codegen.plan import plan_build
from cuvil.errors import CodegenError
from cuvil.ir import parse_file

ROOT = Path(__file__).resolve().parents[2]


def test_a_dynamic_module_is_a_clear_codegen_error():
    module = parse_file(ROOT / "samples/ir/attention_dynamic.cuvilir")
    with pytest.raises(CodegenError) as info:
        plan_build(module)
    message = str(info.value)
    assert "needs static shapes" in message and "argument x of @forward" in message
    assert "[batch]" in message
    assert info.value.hint and "concrete example inputs" in info.value.hint
