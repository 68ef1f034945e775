"""Helpers for pass tests: compile IR text with a pipeline, compare against the interpreter."""

from __future__ import annotations

import torch

from cuvil.ir import parse_module, verify
from cuvil.ir.interpreter import interpret, random_params
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module


def module_of(text: str, seed: int = 0):
    return random_params(parse_module(text), seed)


def inputs_for(module, seed: int = 0) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [
        torch.randn([int(d) for d in a.type.shape], generator=gen).to(
            a.type.dtype.torch
        )
        for a in module.main.args
    ]


def check_pipeline_matches(text: str, pipeline: str, rtol=1e-4, atol=1e-5):
    """Interpret `text`, then compile it after `pipeline`: same outputs. Returns the module."""
    before = module_of(text)
    xs = inputs_for(before)
    want = interpret(before, xs)
    after = module_of(text)
    cm = compile_module(
        after, CompileOptions.parse(pipeline=pipeline, verify_each=True)
    )
    verify(after)
    got = cm(*xs)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=rtol, atol=atol)
    assert interpret(after, xs)[0].shape == want[0].shape
    return after, cm
