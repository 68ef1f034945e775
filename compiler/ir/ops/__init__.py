"""The Cuvil op set. Importing this package registers every op by name (``cuvil.add`` ...)."""

from .constant import INLINE_CONSTANT_LIMIT, ConstantOp, ParamOp
from .elementwise import (
    BINARY_OPS,
    UNARY_OPS,
    BinaryOp,
    CastOp,
    ClampOp,
    CompareOp,
    GeluOp,
    LeakyReluOp,
    LogicalNotOp,
    UnaryOp,
    WhereOp,
)
from .fused import FusedOp
from .indexing import GatherOp, IndexOp, IndexPutOp, ScatterOp
from .layout import ANY_LAYOUT, RelayoutOp
from .linalg import Conv1dOp, Conv2dOp, ConvOp, LinearOp, MatmulOp, conv_out_size
from .mathx import MATH_BINARY, MATH_UNARY, PredicateOp
from .nn import (
    AdaptiveAvgPool1dOp,
    AdaptiveAvgPool2dOp,
    AvgPool1dOp,
    AvgPool2dOp,
    BatchNormOp,
    EmbeddingOp,
    LayerNormOp,
    MaxPool1dOp,
    MaxPool2dOp,
    PoolOp,
)
from .reduction import REDUCE_OPS, ArgmaxOp, LogSoftmaxOp, ReduceOp, SoftmaxOp, VarOp
from .resample import GroupNormOp, PadOp, UpsampleOp
from .scan import CumOp, CumprodOp, CumsumOp, TopkOp
from .shape import CatOp, ExpandOp, PermuteOp, ReshapeOp, SliceOp

__all__ = [
    "INLINE_CONSTANT_LIMIT",
    "ConstantOp",
    "ParamOp",
    "BINARY_OPS",
    "UNARY_OPS",
    "BinaryOp",
    "CastOp",
    "ClampOp",
    "CompareOp",
    "GeluOp",
    "LeakyReluOp",
    "LogicalNotOp",
    "UnaryOp",
    "WhereOp",
    "FusedOp",
    "GatherOp",
    "IndexOp",
    "IndexPutOp",
    "ScatterOp",
    "Conv1dOp",
    "Conv2dOp",
    "ConvOp",
    "LinearOp",
    "MatmulOp",
    "conv_out_size",
    "AdaptiveAvgPool1dOp",
    "AdaptiveAvgPool2dOp",
    "AvgPool1dOp",
    "AvgPool2dOp",
    "BatchNormOp",
    "EmbeddingOp",
    "LayerNormOp",
    "MaxPool1dOp",
    "MaxPool2dOp",
    "PoolOp",
    "REDUCE_OPS",
    "ArgmaxOp",
    "LogSoftmaxOp",
    "ReduceOp",
    "SoftmaxOp",
    "VarOp",
    "CatOp",
    "ExpandOp",
    "PermuteOp",
    "ReshapeOp",
    "SliceOp",
    "GroupNormOp",
    "PadOp",
    "UpsampleOp",
    "CumOp",
    "CumprodOp",
    "CumsumOp",
    "TopkOp",
    "ANY_LAYOUT",
    "RelayoutOp",
    "MATH_UNARY",
    "MATH_BINARY",
    "PredicateOp",
]
