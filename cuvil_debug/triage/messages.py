"""Triage knowledge about what torch and the libraries say, as data: MESSAGE_SIGNALS
(regex over a message's head -> signal, the last resort after torch's structured fields)
and LIBRARY_HINTS (the concrete workaround when the root cause is a library's line)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# message regex -> signal; matched against every message in the exception chain.
MESSAGE_SIGNALS: list[tuple[re.Pattern, str]] = [
    (re.compile(p, re.I | re.S), s)
    for p, s in [
        (r"cannot be used as inputs to control flow", "proxy-control-flow"),
        (
            r"Proxy object cannot be iterated|'Proxy' object is not iterable|"
            r"'len' is not supported in symbolic tracing|"
            r"object of type 'Proxy' has no len",
            "proxy-iter",
        ),
        (
            r"cannot be interpreted as an integer|must be tuple of ints, but found element "
            r"of type Proxy|not 'Proxy'|must be real number, not Proxy",
            "proxy-as-value",
        ),
        (r"unsupported format string|__format__", "format"),
        (
            r"Could not guard on data-dependent|data-dependent expression",
            "data-dependent",
        ),
        (r"Could not extract specialized integer", "specialize-int"),
        (r"Size-like symbols: u\d", "unbacked-size"),
        (
            r"Constraints violated|Not all values of|specialized it to be|"
            r"dynamic_shapes(?![.\w])",
            "constraint",
        ),
        # export refusing the dynamic_shapes spec itself before tracing: its tree
        # does not match forward()'s signature (a `*args` forward binds one `args`)
        (
            r"mismatch between the structure of `inputs` and `dynamic_shapes`|"
            r"dynamic_shapes of a \w+ should be|dynamic_shapes'? (tree|structure)",
            "dyn-spec",
        ),
        # one Dim declared on inputs whose sizes differ (`L['targets'].size()[0] = 2
        # is not equal to L['anchors'].size()[0] = 4`): the spec is what to change
        (r"\]\.size\(\)\[\d+\] = \d+ is not equal to L\[", "dyn-unequal"),
        (r"is not defined|has no attribute", "undefined"),
        (r"object has no attribute '\w+'", "no-attr"),
        (
            r"unsupported op 'in-place|in-place|with out=|out= is not supported",
            "inplace",
        ),
        (
            r"unsupported op 'aten\.(item|_local_scalar_dense)|aten\._local_scalar_dense",
            "item-op",
        ),
        (r"unsupported op", "unsupported-op"),
        (
            r"scalar type|dtype|expected .*(Float|Long|Double|Half|Int)|Float but found|"
            r"Long but found|same dtype|Input type \(.*\) and (bias|weight) type|"
            r"finfo\(\) requires a floating point|element types differ|"
            r"tensors used as indices must be",
            "dtype",
        ),
        (
            r"shapes cannot be multiplied|size of tensor a|must match the size|is invalid "
            r"for input of size|expected input\[.*\] to have|channels|Sizes of tensors must|"
            r"shape '\[|dimension out of range|shape mismatch|"
            r"Expected size for|does not broadcast|normalized_shape|expected input with "
            r"shape|should contain \d+ elements|to have \d+ channels|smaller than kernel "
            r"size|Output size is too small|Kernel size can't be greater than|"
            r"size mismatch|must have the same (size|shape)|split_sizes to sum|"
            r"Split sizes add up to|Expected \d+D .*input to \w+, but got input of size|"
            r"expected \d+D or \d+D input|expected \d+D input \(got \d+D input\)",
            "shape",
        ),
        (r"__array|numpy|can't convert", "numpy"),
        (r"input '\w+' is a (?!Tensor)\w+, not a tensor", "input-not-tensor"),
        # cuvil.compile's dynamic_shapes names dims of tensor inputs only: a container
        # or object input with a spec of its own
        (r"dynamic_shapes of input '\w+': the input is a \w+", "dyn-input-not-tensor"),
        (
            r"input '\w+' is a (NoneType|bool|int|float|str|dict|list|tuple), not a tensor",
            "input-builtin",
        ),
        (r"input '\w+' is a NoneType, not a tensor", "input-none"),
        (
            r"input '\w+' is a (bool|int|float|complex|str), not a tensor",
            "input-scalar",
        ),
        (r"output \d+ is a \w+, not a tensor", "output-not-tensor"),
        (r"takes an argument '\**\w+' but only \d+ example inputs", "missing-input"),
        (r"'(list|dict|tuple|NoneType)' object has no attribute", "container-method"),
        (r"but torch computes|frontend bug|Cuvil bug|cannot lower", "cuvil-bug"),
        (r"Mutating|mutat|register_buffer", "mutation"),
        (r"ShapeProp error|failed to run on the example inputs", "shapeprop"),
        (
            r"argument of type: <class(?! 'torch\._C\._TensorMeta')|"
            r"Found <class '[\w.]+'> in (output|input)|"
            r"inputs? with type `?<class '[\w.]+'>`? is not supported|"
            r"unrecognized type \w+\(\w+\) at output",
            "unsupported-arg-type",
        ),
        # ... the type fx names is numpy's: a numpy value (an np.int64 index, an array
        # numpy built from configuration) handed to a traced op as an argument
        (r"argument of type: <class 'numpy\.", "numpy-arg"),
        (r"'Proxy' object does not support item assignment", "proxy-setitem"),
        # torch.fx patches forward's code object; a *args/**kwargs wrapper breaks it
        (r"co_varnames is too small|code object .* too small", "fx-code-patch"),
        # the model's own check saw a tracer's stand-in instead of a tensor
        (
            r"\bgot Proxy\b|\bProxy\b.*(expected|not|unsupported)|FakeTensor|FunctionalTensor|"
            r"\b(got|found|received|is|has type)\b:? <class '[\w.]*\bProxy'>",
            "traced-type",
        ),
        # a library dispatching on the tensor's type (einops' backend lookup) and
        # finding none for fx's Proxy
        (r"Tensor type unknown to \w+", "type-dispatch"),
        # a TorchScript function's argument check refusing fx's Proxy
        (
            r"Expected a value of type '[^']*' for argument '\w+' but instead found type "
            r"'Proxy'",
            "script-arg",
        ),
        # an attribute named like a torch.nn.Module method (`self.parameters = ...`):
        # export's get_submodule finds the method
        (r"submodule `\w+`: <bound method Module\.", "shadowed-method"),
        # fx met a module built inside forward(): `nn.ZeroPad2d(...)(x)`
        (r"module is not installed as a submodule", "not-submodule"),
        # export lifted a tensor made while tracing into its constants: module state
        # assigned a traced value (`self.w.data = ...`)
        (r"found a fake tensor in the exported program constant", "fake-constant"),
        # dynamo running a node on fake tensors raised (its graph-break type, on the
        # message's first line): the fake kernel refused what eager ran
        (r"^RuntimeError when making fake tensor call", "fake-call-failed"),
        # Cuvil refusing to slice because a dim became symbolic: slicing it lowers for
        # static sizes (zeros/ones of a symbolic size are an unsupported op instead)
        (r"unsupported op 'slicing a dim of symbolic size", "cuvil-symbolic-slice"),
        # Cuvil refusing an op whose output size depends on the values
        (
            r"unsupported op '[^']*(boolean mask|data-dependent shape|nonzero|"
            r"masked_select)",
            "data-size-op",
        ),
        (
            r"unexpected keyword argument|missing \d+ required (positional|keyword)|"
            r"takes \d+ positional arguments? but \d+ (were|was) given",
            "call-signature",
        ),
        # any of torch.fx's words for a Proxy used where Python needs a real value
        # (a bool, a number, ints, an iterable): the family the operand facts refine
        (
            r"cannot be used as inputs to control flow|"
            r"'len' is not supported in symbolic tracing|\bProxy\b",
            "proxy-used",
        ),
        # a tensor subclass the tracer cannot make: `t.as_subclass(C)` / `C(t)` of a
        # FakeTensor, or a tensor class itself handed to a traced call under fx
        (
            r"Creating a new Tensor subclass \w+ but the raw Tensor object is already|"
            r"argument of type: <class 'torch\._C\._TensorMeta'>",
            "tensor-subclass",
        ),
        # dynamo met a stdlib `random` draw it would have to make a graph input
        (r"RandomValueSource", "random-input"),
        # `torch.tensor(x.shape)` / `torch.as_tensor(u)` handed fx's Proxy: torch
        # probes it as an array-like (the Proxy answers every attribute with a Proxy)
        (r"`__cuda_array_interface__` must be a dict", "array-probe"),
        # the model's own message formats a symbolic size (`with s44D coordinates`):
        # its Python logic read a size the capture had made symbolic
        (r"(?<![\w.])s\d+(?=D\b|\b)(?!\s*[,)=<>+*-])", "symbolic-in-message"),
        # `t[:, : x.size(1)]` under fx: a slice bound that is a Proxy
        (r"slice indices must be integers or None or have an __index__", "slice-index"),
        # a LazyLinear / LazyConv never run: its parameters have no shape yet
        (r"uninitialized parameter|UninitializedParameter", "lazy-uninit"),
    ]
]


@dataclass(frozen=True)
class LibraryHint:
    """The concrete workaround when the root cause is in `package`'s code (`*`: any
    library), for `categories` under `frontends` (prefixes: "export" covers strict)."""

    package: str
    categories: frozenset[str]
    frontends: tuple[str, ...]
    text: str


def _h(package: str, categories: str, frontends: str, text: str) -> LibraryHint:
    return LibraryHint(
        package, frozenset(categories.split()), tuple(frontends.split()), text
    )


_HF_FX = (
    "transformers' forward() takes Optional inputs and **kwargs that plain torch.fx turns "
    "into Proxies: trace with transformers.utils.fx.symbolic_trace(model, input_names="
    '["input_ids", "attention_mask"]) or capture with torch.export (--frontend export)'
)


LIBRARY_HINTS: list[LibraryHint] = [
    _h(
        "transformers",
        "non-tensor-argument capture-limitation proxy-iteration",
        "fx",
        _HF_FX,
    ),
    _h(
        "transformers",
        "unsupported-io-type",
        "export dynamo",
        "build the model with use_cache=False (config.use_cache = False) so no Cache "
        "object is returned, and return_dict=False to get a tuple of tensors",
    ),
    _h(
        "transformers",
        "dynamic-shape compiler-internal-error",
        "export",
        "the library's Python reads the symbolic size: export with static shapes (no "
        "DYNAMIC_SHAPES), widen the Dim range the message names, or use Dim.AUTO",
    ),
    _h(
        "torchvision",
        "proxy-iteration non-tensor-argument data-dependent-control-flow",
        "fx",
        "torchvision's detection models take a list of images and branch on it: they are "
        "not fx-traceable; capture model.backbone (a tensor in, tensors out) or use "
        "torch.export",
    ),
    _h(
        "torchvision",
        "dynamic-shape data-dependent-python-value data-dependent-control-flow",
        "export",
        "detection post-processing (score thresholds, NMS) has data-dependent sizes: "
        "export model.backbone and the heads, and run post-processing eagerly",
    ),
    _h(
        "*",
        "capture-limitation unsupported-python-construct",
        "export-strict dynamo",
        "dynamo cannot follow this library code: try non-strict export (--frontend "
        "export, torch.export.export(..., strict=False)), which runs the Python as is",
    ),
]
