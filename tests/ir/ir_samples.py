"""A small hand-built module and its printed text, shared by the printer and parser tests."""

from __future__ import annotations

import torch

from cuvil.ir import DType, Function, FusedLoc, Loc, Module, SymDim, TensorType
from cuvil.ir import ops as O

__all__ = ["small_cnn", "SMALL_CNN_TEXT"]


def _loc(node: str, line: int, col: int = 16) -> Loc:
    return Loc(
        node=node, module=node.split("_")[0], file="samples/cnn.py", line=line, col=col
    )


def small_cnn() -> Module:
    """conv -> batch_norm -> relu -> pool -> flatten -> linear, batch dim symbolic."""
    m = Module("small_cnn")
    for name, shape in [
        ("conv.weight", (4, 3, 3, 3)),
        ("bn.mean", (4,)),
        ("bn.var", (4,)),
        ("fc.weight", (10, 64)),
        ("fc.bias", (10,)),
    ]:
        m.add_param(name, type=TensorType(shape, DType.f32))
    fn = m.add_function(Function("forward"))
    x = fn.add_arg(
        TensorType((SymDim("batch"), 3, 10, 10), DType.f32), "x", Loc(node="x")
    )

    def param(name: str):
        return fn.append(
            O.ParamOp.of(m, name, result_names=[name.replace(".", "_")])
        ).result

    w, mean, var = param("conv.weight"), param("bn.mean"), param("bn.var")
    y = fn.append(
        O.Conv2dOp.build(x, w, padding=(1, 1), loc=_loc("conv", 12), name="conv")
    )
    y = fn.append(
        O.BatchNormOp.build(y.result, mean, var, loc=_loc("bn", 13), name="bn")
    )
    relu_loc = FusedLoc((_loc("relu", 14), Loc(node="clamp", file='we"ird\\file.py')))
    y = fn.append(O.UNARY_OPS["cuvil.relu"].build(y.result, loc=relu_loc, name="relu"))
    y = fn.append(
        O.MaxPool2dOp.build(y.result, kernel=(2, 2), stride=(2, 2), name="pool")
    )
    y = fn.append(
        O.ReshapeOp.build(y.result, shape=(SymDim("batch"), 100), name="flat")
    )
    half = torch.tensor([0.5, -0.0, float("inf"), float("nan")])
    c = fn.append(O.ConstantOp.build(value=half, name="c"))
    y = fn.append(O.SliceOp.build(y.result, dim=1, start=0, end=64, name="cut"))
    fw, fb = param("fc.weight"), param("fc.bias")
    y = fn.append(O.LinearOp.build(y.result, fw, fb, loc=_loc("fc", 17), name="fc"))
    fn.set_outputs([y.result, c.result])
    return m


SMALL_CNN_TEXT = r"""module @small_cnn {
  param @conv.weight : tensor<4x3x3x3xf32>
  param @bn.mean : tensor<4xf32>
  param @bn.var : tensor<4xf32>
  param @fc.weight : tensor<10x64xf32>
  param @fc.bias : tensor<10xf32>
  func @forward(%x: tensor<[batch]x3x10x10xf32> loc("x")) -> (tensor<[batch]x10xf32>, tensor<4xf32>) {
    %conv_weight = cuvil.param() {name = @conv.weight} : () -> tensor<4x3x3x3xf32> loc(unknown)
    %bn_mean = cuvil.param() {name = @bn.mean} : () -> tensor<4xf32> loc(unknown)
    %bn_var = cuvil.param() {name = @bn.var} : () -> tensor<4xf32> loc(unknown)
    %conv = cuvil.conv2d(%x, %conv_weight) {dilation = [1, 1], groups = 1, padding = [1, 1], stride = [1, 1]} : (tensor<[batch]x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<[batch]x4x10x10xf32> loc("conv" in "conv" at "samples/cnn.py":12:16)
    %bn = cuvil.batch_norm(%conv, %bn_mean, %bn_var) {eps = 1e-05} : (tensor<[batch]x4x10x10xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<[batch]x4x10x10xf32> loc("bn" in "bn" at "samples/cnn.py":13:16)
    %relu = cuvil.relu(%bn) : (tensor<[batch]x4x10x10xf32>) -> tensor<[batch]x4x10x10xf32> loc(fused["relu" in "relu" at "samples/cnn.py":14:16, "clamp" at "we\"ird\\file.py"])
    %pool = cuvil.max_pool2d(%relu) {ceil_mode = false, dilation = [1, 1], kernel = [2, 2], padding = [0, 0], stride = [2, 2]} : (tensor<[batch]x4x10x10xf32>) -> tensor<[batch]x4x5x5xf32> loc(unknown)
    %flat = cuvil.reshape(%pool) {shape = [[batch], 100]} : (tensor<[batch]x4x5x5xf32>) -> tensor<[batch]x100xf32> loc(unknown)
    %c = cuvil.constant() {value = dense<[0.5, -0.0, inf, nan]> : tensor<4xf32>} : () -> tensor<4xf32> loc(unknown)
    %cut = cuvil.slice(%flat) {dim = 1, end = 64, start = 0, step = 1} : (tensor<[batch]x100xf32>) -> tensor<[batch]x64xf32> loc(unknown)
    %fc_weight = cuvil.param() {name = @fc.weight} : () -> tensor<10x64xf32> loc(unknown)
    %fc_bias = cuvil.param() {name = @fc.bias} : () -> tensor<10xf32> loc(unknown)
    %fc = cuvil.linear(%cut, %fc_weight, %fc_bias) : (tensor<[batch]x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<[batch]x10xf32> loc("fc" in "fc" at "samples/cnn.py":17:16)
    return %fc, %c
  }
}
"""
