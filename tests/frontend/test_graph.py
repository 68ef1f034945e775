"""The graph walk shared by both frontends: unsupported ops are reported with the torch
target, the FX node and the model's source line; every lowered value is checked against
the type torch computes; malformed models get clear FrontendErrors."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import torch
import torch.fx
from lowering_checks import FRONTENDS, check_lowering, randn
from torch import nn

from cuvil.errors import FrontendError, UnsupportedOpError
from cuvil.frontend import lower
from cuvil.frontend.registry import lowers
from cuvil.ir import ops


class RfftModel(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return torch.fft.rfft(y).abs()


def _line_of(fn, text: str) -> tuple[int, str]:
    """The file line number and source text of the first line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    i = next(i for i, line in enumerate(lines) if text in line)
    return start + i, lines[i].strip()


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_unsupported_op_error_names_target_node_and_source_line(frontend):
    line, text = _line_of(RfftModel.forward, "rfft(")
    with pytest.raises(UnsupportedOpError) as info:
        lower(RfftModel(), (randn(2, 8),), frontend=frontend)
    err = info.value
    message = str(err)
    assert "rfft" in err.target and f"unsupported op '{err.target}'" in message
    assert "rfft" in err.node and f"FX node '{err.node}'" in message
    assert f"{Path(__file__).name}:{line}:" in message
    file, at_line, _col = err.where.rsplit(":", 2)
    assert Path(file).resolve() == Path(__file__).resolve() and int(at_line) == line
    assert text in err.note and str(line) in err.note
    assert err.hint


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_unsupported_op_error_full_text_shows_the_source_line(frontend):
    _, text = _line_of(RfftModel.forward, "rfft(")
    with pytest.raises(UnsupportedOpError) as info:
        lower(RfftModel(), (randn(2, 8),), frontend=frontend)
    full = info.value.full()
    assert full.startswith(str(info.value)) and full.rstrip().endswith(text)


# ---- the static type check ---------------------------------------------------------------------
@torch.library.custom_op("cuvil_test::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@twice.register_fake
def _(x):
    return torch.empty_like(x)


@torch.fx.wrap
def halve(x):
    return x / 2


class CustomOps(nn.Module):
    def forward(self, x):
        return twice(x) + 1


class WrappedFunction(nn.Module):
    def forward(self, x):
        return halve(x) + 1


def _twice_rule(cx, x):
    return cx.op("cuvil.mul", cx.value(x), cx.scalar(2.0, cx.value(x).type.dtype))


def _broken_rule(cx, x):
    """Sums away the last dim: a result type torch does not compute."""
    v = cx.value(x)
    return cx.emit(ops.REDUCE_OPS["cuvil.sum"], v, dims=(v.type.rank - 1,))


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_correct_rule_for_a_custom_op_lowers_it(registry, frontend):
    lowers(torch.ops.cuvil_test.twice)(_twice_rule)
    check_lowering(CustomOps(), (randn(3, 4),), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_rule_whose_type_differs_from_torch_is_a_frontend_error(registry, frontend):
    lowers(torch.ops.cuvil_test.twice)(_broken_rule)
    with pytest.raises(FrontendError, match="torch computes") as info:
        lower(CustomOps(), (randn(3, 4),), frontend=frontend)
    assert "tensor<3xf32>" in str(info.value) and "tensor<3x4xf32>" in str(info.value)
    assert "bug in Cuvil's frontend" in info.value.hint


def test_a_broken_rule_for_a_wrapped_python_function_is_a_frontend_error(registry):
    lowers(halve)(_broken_rule)
    with pytest.raises(FrontendError, match="torch computes"):
        lower(WrappedFunction(), (randn(3, 4),), frontend="fx")


def test_a_wrapped_python_function_without_a_rule_is_unsupported():
    with pytest.raises(UnsupportedOpError, match="halve"):
        lower(WrappedFunction(), (randn(3, 4),), frontend="fx")


# ---- malformed models and calls ------------------------------------------------------------------
class Two(nn.Module):
    def forward(self, x, y):
        return x + y


class ReturnsInt(nn.Module):
    def forward(self, x):
        return x + 1, 3


class MutatesInput(nn.Module):
    def forward(self, x):
        x.add_(1)
        return x


class MutatesView(nn.Module):
    def forward(self, x):
        y = x * 1
        y[0].mul_(2)
        return y


def test_unknown_frontend_lists_the_known_ones():
    with pytest.raises(FrontendError, match="unknown frontend 'jit'") as info:
        lower(Two(), (randn(2), randn(2)), frontend="jit")
    assert "fx" in info.value.hint and "export" in info.value.hint


def test_fx_with_too_few_example_inputs_says_which_argument_is_missing():
    with pytest.raises(FrontendError, match="argument 'y'"):
        lower(Two(), (randn(2),), frontend="fx")


def test_fx_with_a_model_that_fails_on_its_inputs_reports_the_failure():
    with pytest.raises(FrontendError, match="failed to run on the example inputs"):
        lower(Two(), (randn(2), randn(3)), frontend="fx")


def test_export_failure_is_a_frontend_error():
    with pytest.raises(FrontendError, match="torch.export could not export Two"):
        lower(Two(), (randn(2), randn(3)), frontend="export")


def test_a_non_tensor_output_is_a_frontend_error():
    with pytest.raises(FrontendError, match="output 1 is a int"):
        lower(ReturnsInt(), (randn(2),), frontend="fx")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_in_place_update_of_a_model_input_is_unsupported(frontend):
    with pytest.raises(UnsupportedOpError, match="in-place|add_"):
        lower(MutatesInput(), (randn(2),), frontend=frontend)


def test_in_place_update_of_a_view_is_unsupported():
    with pytest.raises(
        UnsupportedOpError, match="shares its storage and is read later"
    ):
        lower(MutatesView(), (randn(2, 3),), frontend="fx")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_supported_module_can_be_the_whole_model(frontend):
    bn = nn.BatchNorm2d(3).eval()
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
    module = check_lowering(bn, (randn(2, 3, 4, 4),), frontend)
    assert [op.name for op in module.main.ops].count("cuvil.batch_norm") == 1


class ListAndDict(nn.Module):
    def forward(self, x):
        return [x + 1, (x * 2,)], {"a": x - 1}


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_lists_and_dicts_come_back_as_the_plain_ones_eager_returns(frontend):
    import cuvil

    x = randn(3)
    out = cuvil.compile(ListAndDict(), inputs=[x], options={"frontend": frontend})(x)
    want = ListAndDict()(x)
    assert type(out[0]) is list and type(out[0][1]) is tuple and type(out[1]) is dict
    out[0].append(None)  # fx's immutable_list refused this
    out[1]["b"] = None
    torch.testing.assert_close(out[0][0], want[0][0])
    torch.testing.assert_close(out[1]["a"], want[1]["a"])


class AddsIntoZeros(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.randn(3))

    def forward(self, x):
        z = torch.zeros(3)
        z.add_(self.p)
        return x + z


def test_an_in_place_write_into_a_tensor_fx_froze_says_so_and_export_compiles_it():
    """torch.fx runs `torch.zeros(3)` while tracing and keeps its result as a constant
    every call shares: the refusal names that (not a parameter or buffer and
    model.eval()), and the default frontend compiles the model."""
    import cuvil

    x = randn(2, 3)
    with pytest.raises(UnsupportedOpError, match="froze into a constant") as err:
        lower(AddsIntoZeros(), (x,), frontend="fx")
    assert "frontend='export'" in err.value.hint and "eval()" not in err.value.hint
    model = AddsIntoZeros().eval()
    with torch.no_grad():
        got = cuvil.compile(model, inputs=[x], options={"frontend": "export"})(x)
        torch.testing.assert_close(got, model(x))
