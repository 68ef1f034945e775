"""Parser limits: a dense<> constant over the limit is a located IRParseError before
anything is allocated (never a MemoryError); a big-but-allowed one parses in time
linear in the text; the tools take --max-constant-bytes."""

from __future__ import annotations

import time

import pytest
import torch

from cuvil.errors import IRParseError
from cuvil.ir import parse_module
from cuvil.ir.parser import DEFAULT_MAX_CONSTANT_BYTES
from cuvil.opt import main as opt_main
from cuvil_debug.cli import main as debug_main


def _constant(shape: str, dense: str, dtype: str = "f32") -> str:
    t = f"tensor<{shape}x{dtype}>" if shape else f"tensor<{dtype}>"
    return (
        f"func @f() -> ({t}) {{\n"
        f"  %c = cuvil.constant() {{value = {dense} : {t}}} : () -> {t}\n"
        "  return %c\n}\n"
    )


@pytest.mark.parametrize(
    "shape, dtype",
    [
        ("100000x100000x100000", "f32"),  # 4e15 bytes: list * numel was a MemoryError
        ("1000000000000000000000000", "i64"),
        ("65536x4097", "f64"),  # just over the default 256 MiB
    ],
)
def test_a_huge_splat_is_a_located_error_not_a_memory_error(shape, dtype):
    text = _constant(shape, "dense<1>", dtype)
    with pytest.raises(IRParseError) as info:
        parse_module(text, "big.cuvilir")
    err = info.value
    assert (err.line, err.col) == (2, 34)  # at dense<
    assert "over the limit of" in err.message and "--max-constant-bytes" in err.hint


def test_the_limit_counts_bytes_of_the_element_type():
    limit = 1 << 20  # 1 MiB: 131072 f64 elements are allowed, one more is not
    ok = _constant(f"{limit // 8}", "dense<2.5>", "f64")
    assert parse_module(ok, max_constant_bytes=limit).main.ops[0].attrs["value"].numel()
    over = _constant(f"{limit // 8 + 1}", "dense<2.5>", "f64")
    with pytest.raises(IRParseError, match=f"{limit + 8} bytes, over the limit"):
        parse_module(over, max_constant_bytes=limit)
    assert DEFAULT_MAX_CONSTANT_BYTES == 256 << 20  # docs/RELIABILITY.md says so


def test_a_splat_is_filled_without_a_python_list():
    text = _constant("4096x1024", "dense<3>", "i32")  # 16 MiB
    start = time.process_time()
    value = parse_module(text).main.ops[0].attrs["value"]
    assert torch.equal(value, torch.full((4096, 1024), 3, dtype=torch.int32))
    assert value.is_contiguous()
    assert time.process_time() - start < 30  # generous: it takes milliseconds


def _parse_seconds(n: int) -> float:
    text = _constant(str(n), "dense<[" + ",".join(["1.5"] * n) + "]>")
    start = time.process_time()
    parse_module(text)
    return time.process_time() - start


def test_parsing_a_listed_constant_is_linear_in_its_length():
    small, big = _parse_seconds(20_000), _parse_seconds(200_000)
    # 10x the elements: linear is ~10x; quadratic would be ~100x
    assert big < 40 * max(small, 1e-3)


def test_a_long_malformed_type_fails_fast():
    # (\d+x)* followed by [a-z0-9]+ backtracked quadratically: 40,000 dims took a minute
    body = "1x" * 40_000 + "!"
    text = f"func @f(%x: tensor<{body}>) -> () {{\n}}\n"
    start = time.process_time()
    with pytest.raises(IRParseError) as info:
        parse_module(text)
    assert time.process_time() - start < 10
    assert len(info.value.message) < 120  # the type is cut in the message


def test_validate_and_opt_take_max_constant_bytes(tmp_path, capsys):
    path = tmp_path / "c.cuvilir"
    path.write_text(_constant("256", "dense<1.0>"))  # 1 KiB
    assert debug_main(["validate", "-q", str(path), "--max-constant-bytes", "1K"]) == 0
    assert debug_main(["validate", str(path), "--max-constant-bytes", "1023"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:34: error: dense constant tensor<256xf32> is 1024 bytes" in err
    assert opt_main([str(path), "--max-constant-bytes", "512"]) == 2
    assert "over the limit of 512 bytes" in capsys.readouterr().err
