"""The reference interpreter runs lowered samples exactly like eager PyTorch, reports every
op's outputs to listeners, and rejects wrong inputs with a clear CuvilRuntimeError."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import pytest
import torch
from torch import nn

from cuvil.errors import CuvilRuntimeError
from cuvil.frontend import lower
from cuvil.ir import Module, parse_module, print_module
from cuvil.ir.core import Operation
from cuvil.ir.interpreter import Interpreter, interpret, random_params
from cuvil.ir.types import SymDim

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "models"
NAMES = ["mlp", "small_cnn", "resnet18", "transformer_block"]
FRONTENDS = ["fx", "export"]


@cache
def sample(name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    spec = importlib.util.spec_from_file_location(
        f"sample_{name}", SAMPLES / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), mod.example_inputs()


@cache
def lowered(name: str, frontend: str) -> Module:
    model, inputs = sample(name)
    return lower(model, inputs, frontend=frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", NAMES)
def test_interpreter_matches_eager_on_every_sample(name, frontend):
    model, inputs = sample(name)
    with torch.no_grad():
        want = model(*inputs)
    (got,) = interpret(lowered(name, frontend), inputs)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", NAMES)
def test_listeners_see_each_op_once_with_outputs_of_its_result_types(name, frontend):
    module = lowered(name, frontend)
    seen: list[tuple[Operation, tuple[torch.Tensor, ...]]] = []
    interpret(
        module, sample(name)[1], listeners=[lambda op, outs: seen.append((op, outs))]
    )
    assert [op for op, _ in seen] == module.main.ops
    for op, outs in seen:
        assert isinstance(outs, tuple) and len(outs) == len(op.results)
        for t, r in zip(outs, op.results, strict=True):
            assert tuple(t.shape) == r.type.shape, op
            assert t.dtype == r.type.dtype.torch, op


def test_every_listener_is_called_in_order_for_each_op():
    module = lowered("mlp", "fx")
    calls: list[str] = []
    listeners = [lambda op, _: calls.append("a"), lambda op, _: calls.append("b")]
    interpret(module, sample("mlp")[1], listeners)
    assert calls == ["a", "b"] * len(module.main.ops)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", NAMES)
def test_printed_ir_of_every_sample_round_trips(name, frontend):
    text = print_module(lowered(name, frontend))
    assert print_module(parse_module(text)) == text


def test_parsed_ir_runs_once_params_are_filled():
    module = lowered("small_cnn", "fx")
    parsed = parse_module(print_module(module))
    parsed.param_data.update(module.param_data)
    inputs = sample("small_cnn")[1]
    torch.testing.assert_close(interpret(parsed, inputs), interpret(module, inputs))


def test_a_param_without_data_is_a_runtime_error_with_a_hint():
    parsed = parse_module(print_module(lowered("mlp", "fx")))
    with pytest.raises(CuvilRuntimeError, match="has no data") as info:
        interpret(parsed, sample("mlp")[1])
    assert "random_params" in info.value.hint


def test_random_params_fills_missing_data_deterministically():
    text = print_module(lowered("mlp", "export"))
    a, b = random_params(parse_module(text)), random_params(parse_module(text))
    inputs = sample("mlp")[1]
    assert torch.equal(interpret(a, inputs)[0], interpret(b, inputs)[0])
    for name, t in a.params.items():
        assert tuple(a.param_data[name].shape) == t.shape


# ---- wrong calls --------------------------------------------------------------------------------
def test_wrong_input_shape_names_the_input_and_the_expected_type():
    module = lowered("mlp", "fx")
    with pytest.raises(CuvilRuntimeError) as info:
        interpret(module, (torch.randn(2, 784),))
    message = str(info.value)
    assert (
        "input 0 (%x) is (2, 784) torch.float32, expected tensor<1x784xf32>" in message
    )
    assert "shapes and dtypes" in info.value.hint


def test_wrong_input_dtype_is_a_runtime_error():
    with pytest.raises(
        CuvilRuntimeError, match=r"torch.float64, expected tensor<1x784xf32>"
    ):
        interpret(lowered("mlp", "export"), (torch.randn(1, 784, dtype=torch.float64),))


def test_wrong_input_rank_is_a_runtime_error():
    with pytest.raises(CuvilRuntimeError, match=r"is \(784,\) torch.float32"):
        interpret(lowered("mlp", "fx"), (torch.randn(784),))


def test_wrong_number_of_inputs_is_a_runtime_error():
    x = sample("mlp")[1][0]
    with pytest.raises(CuvilRuntimeError, match="takes 1 inputs, got 2"):
        interpret(lowered("mlp", "fx"), (x, x))


def test_a_non_tensor_input_is_a_runtime_error():
    with pytest.raises(CuvilRuntimeError, match="must be a tensor, got list"):
        interpret(lowered("mlp", "fx"), ([1.0] * 784,))


def test_symbolic_dims_accept_any_size():
    module = lowered("mlp", "fx")
    parsed = parse_module(
        print_module(module).replace("tensor<1x784xf32>", "tensor<?x784xf32>")
    )
    assert isinstance(parsed.main.args[0].type.shape[0], SymDim)
    parsed.param_data.update(module.param_data)
    model, _ = sample("mlp")
    x = torch.randn(3, 784)
    with torch.no_grad():
        torch.testing.assert_close(
            interpret(parsed, (x,))[0], model(x), rtol=1e-5, atol=1e-6
        )


def test_unknown_function_is_a_runtime_error():
    with pytest.raises(CuvilRuntimeError, match="has no function @nope"):
        Interpreter(lowered("mlp", "fx"), function="nope")


def test_an_op_failing_at_run_time_is_wrapped_with_its_location():
    module = lowered("mlp", "fx")
    parsed = parse_module(print_module(module))
    parsed.param_data = {**module.param_data, "fc1.weight": torch.randn(512, 3)}
    with pytest.raises(CuvilRuntimeError, match="'cuvil.linear' failed") as info:
        interpret(parsed, sample("mlp")[1])
    assert "mlp.py:" in info.value.where


# ---- outputs ------------------------------------------------------------------------------------
class ManyOutputs(nn.Module):
    """Returns an input, an intermediate that is used again later, and a final value."""

    def forward(self, x):
        y = x + 1
        return x, y, y * 2, y


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_outputs_that_are_inputs_or_reused_intermediates_are_kept(frontend):
    x = torch.randn(3)
    module = lower(ManyOutputs(), (x,), frontend=frontend)
    got = interpret(module, (x,))
    want = ManyOutputs()(x)
    assert len(got) == 4
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)
