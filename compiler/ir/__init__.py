"""Cuvil IR: typed SSA over tensors, with locations, a text format and a verifier."""

from . import ops
from .attributes import AttrSpec, SymbolRef
from .core import OPS, Function, Module, Operation, Trait, Value, lookup_op, register_op
from .location import UNKNOWN, FusedLoc, Loc, fuse
from .parser import parse_file, parse_module, parse_type
from .printer import format_op, print_function, print_module
from .types import LAYOUTS, DType, SymDim, TensorType, broadcast_shapes
from .verifier import verify, verify_all

__all__ = [
    "ops",
    "AttrSpec",
    "SymbolRef",
    "OPS",
    "Function",
    "Module",
    "Operation",
    "Trait",
    "Value",
    "lookup_op",
    "register_op",
    "UNKNOWN",
    "FusedLoc",
    "Loc",
    "fuse",
    "parse_file",
    "parse_module",
    "parse_type",
    "format_op",
    "print_function",
    "print_module",
    "LAYOUTS",
    "DType",
    "SymDim",
    "TensorType",
    "broadcast_shapes",
    "verify",
    "verify_all",
]
