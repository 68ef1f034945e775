"""The quantization ops' kernels, for lower_op.prepare: one table, op class -> Prepared."""

from __future__ import annotations

from ..ir import ops
from ..ir.core import Module, Operation
from .bf16matmul import prepare_matmul_bf16
from .kernel import Prepared
from .qconv import prepare_conv_bf16, prepare_qconv
from .qops import (
    emit_dequantize,
    emit_fake_quantize_dynamic,
    emit_quantize,
    emit_round_bf16,
    prepare_linear_bf16,
    prepare_qlinear,
    qparam_extras,
)

__all__ = ["QUANT_OPS", "prepare_quant"]

_GEMMS = {
    ops.QLinearOp: prepare_qlinear,
    ops.QConv2dOp: prepare_qconv,
    ops.LinearBf16Op: prepare_linear_bf16,
    ops.Conv2dBf16Op: prepare_conv_bf16,
    ops.MatmulBf16Op: prepare_matmul_bf16,
}
_POINTWISE = {
    ops.QuantizeOp: emit_quantize,
    ops.DequantizeOp: emit_dequantize,
    ops.RoundBf16Op: emit_round_bf16,
    ops.FakeQuantizeDynamicOp: emit_fake_quantize_dynamic,
}
QUANT_OPS = frozenset(cls.name for cls in (*_GEMMS, *_POINTWISE))


def prepare_quant(
    op: Operation, param_data, module: Module | None, threads: int = 1
) -> Prepared | None:
    """The kernel plan of a quantization op (None: not one of them)."""
    gemm = _GEMMS.get(type(op))
    if gemm is not None:
        return gemm(op, param_data, module, threads)
    emit = _POINTWISE.get(type(op))
    if emit is None:
        return None
    return Prepared(lambda k: emit(k, op), extra=qparam_extras(op))
