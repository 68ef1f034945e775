"""The PATTERNS rows written from the blind sets (zoo18 onwards), each after its one
unseen measurement; the table is assembled in patterns.py, which says how rows are
read."""

from __future__ import annotations

from .patternrow import _p

__all__ = [
    "_ZOO18",
    "_ZOO19",
    "_ZOO20",
    "_ZOO21",
    "_ZOO22",
    "_ZOO23",
    "_ZOO24",
    "_ZOO26",
    "_ZOO27",
]


# ---- rules written from samples/failures/zoo18/ (nnts, dynamic-network-architectures,
# skrl, torchgan, pytorchcv), after its one unseen measurement
_ZOO18 = [
    # `self.pe[:, : x.size(1)]` under fx: a slice bound read from a size
    _p("dynamic-shape", "msg:slice-index ast:shape-read fe:fx", 7.0),
    # a lazy module (nn.LazyLinear) captured before its first call: valid eager code
    # (the first call initialises it) the capture cannot record
    _p("capture-limitation", "msg:lazy-uninit eager:ok", 7.0),
    # `len(x_len)` under fx where the argument is a tensor, not a size read from one
    # (`len(dims)` of `dims = x.shape[2:]`) nor a non-tensor parameter (`len` counts
    # as a shape read on its own line, so the line's facts cannot tell)
    _p(
        "proxy-iteration",
        "msg:proxy-iter ast:len-call",
        5.0,
        "ast:shape-iterate lenarg:shape-read lenarg:shape-attr "
        "lenarg:param-optional lenarg:param-kwargs lenarg:param-container "
        "lenarg:param-flag io:container-input ast:type-check ast:tensor-type-check "
        "ast:type-test-expr",
    ),
]


# ---- rules written from samples/failures/zoo19/ (pythae, fastmri, xlstm, pyod,
# diffwave), after its one unseen measurement
_ZOO19 = [
    # strict export / dynamo traces numpy through torch._numpy, so `np.exp(...)`
    # becomes a FakeTensor; a torch constructor fed those values then fails to run
    # on fake tensors: the numpy call on the failing line is what to replace
    _p("non-torch-call", "msg:fake-call-failed ast:numpy", 6.0),
]


# ---- rules written from samples/failures/zoo20/ (pytorch-frame, tabm,
# rtdl_num_embeddings), after its one unseen measurement
_ZOO20 = [
    # an object among the inputs (a TensorFrame, a batch class) is a Proxy under fx:
    # iterating it or taking its len() fails first (zoo21: `next(model.modules())` on
    # a module passed in), but the object at the boundary is the cause (categories.py: "in any frontend, an object ... among the inputs")
    _p("unsupported-io-type", "io:non-tensor-input msg:proxy-used fe:fx", 8.0),
]


# ---- rules written from samples/failures/zoo21/ (geffnet, a-unet,
# pytorch-pretrained-vit, torchbnn, alias-free-torch), after its one unseen measurement
_ZOO21 = [
    # torch.export's own code raised a plain Python error (an IndexError in _trace.py)
    # on a model that runs eagerly, and no frame of the model is on the stack: the
    # exporter could not handle it
    _p(
        "capture-limitation",
        "raise:exporter where:unknown eager:ok",
        4.0,
        "io:non-tensor-input",
    ),
    # `_, C, _ = x.shape` then `filter.expand(C, -1, -1)` under fx: a call meets a
    # size read it cannot take (a TypeError on its arguments), the model runs eagerly
    _p("dynamic-shape", "msg:call-signature eager:ok fe:fx near:shape-read", 5.0),
    # `assert torch.is_tensor(x)` under fx: the Proxy is no tensor (categories.py's
    # isinstance / type tests on tensors)
    _p(
        "unsupported-python-construct",
        "exc:AssertionError ast:tensor-type-check fe:fx eager:ok",
        5.0,
    ),
]


# ---- rules written from samples/failures/zoo22/ (flowtorch, sb3-contrib, hippynn,
# allRank, lightly), after its one unseen measurement
_ZOO22 = [
    # fx iterating a list / tuple / dict the user passed (`zip(all_features, ...)`,
    # `for img in images`): the container is the Proxy, not a tensor (categories.py's
    # non-tensor-argument names "a tuple, list or dict"; proxy-iteration a tensor itself)
    _p("non-tensor-argument", "msg:proxy-iter near:fed-container fe:fx", 5.0),
    # fx branching on a flag parameter itself (`if update:` with `update` unfed): the
    # branch's own operand, not a size read somewhere upstream
    _p(
        "non-tensor-argument",
        "msg:proxy-control-flow operand:param-flag fe:fx",
        4.0,
        "operand:shape-read operand:item operand:reduction",
    ),
]


# ---- rules written from samples/failures/zoo23/ (torchsynth, pytorch-msssim,
# spandrel), after its one unseen measurement
_ZOO23 = [
    # an `assert` on sizes fails eagerly (`assert min(X.shape[-2:]) > ...`): the input
    # has the wrong size for the model (every eager-failing assert of the development
    # sets is labelled so)
    _p("shape-mismatch", "exc:AssertionError eager:fail operand:shape-read", 5.0),
    # einops' backend lookup by the tensor's type refusing fx's Proxy: a type check
    # that sees the Proxy (categories.py), unless an unfed Optional reached it
    _p(
        "unsupported-python-construct",
        "msg:type-dispatch fe:fx",
        7.0,
        "guard:unfed-optional operand:param-optional near:param-optional",
    ),
]


# ---- rules written from samples/failures/zoo24/ (dall-e, pygod, microsoft-aurora,
# rl-games, wavenet_vocoder), after its one unseen measurement
_ZOO24 = [
    # fx: the failing construct's own operand, or what len() takes, is a forward()
    # parameter the user passed a number, string, tuple... (`assert step >= 0` with
    # `step=3`, `len(var_names)` of a tuple): categories.py's non-tensor-argument
    _p("non-tensor-argument", "fe:fx msg:proxy-used operand:fed-builtin", 6.0),
    _p("non-tensor-argument", "fe:fx msg:proxy-used lenarg:fed-builtin", 6.0),
]


# ---- rules written from samples/failures/zoo26/ (fightingcv-attention, auto-esn,
# akita-torch), after its one unseen measurement (zoo25's misses were all labels its
# labeller flagged arguable: no rule from them)
_ZOO26 = [
    # fx: a branch on a value that came from a tensor's metadata through a call
    # (`position(h, w, x.is_cuda)` then `if is_cuda:`), not from a size or a value:
    # categories.py's "its metadata (`x.ndim`, `x.device`): capture-limitation"
    _p(
        "capture-limitation",
        "msg:proxy-control-flow ast:branch operand:tensor-meta eager:ok",
        6.0,
        "operand:shape-read operand:param-optional operand:item operand:reduction "
        "ast:shape-attr guard:unfed-optional",
    ),
    # fx refusing a Proxy as module state on a line of forward() that writes it
    # (`self.p = nn.Parameter(f(self.p))`, `self.mean = x.mean()`): categories.py's
    # inplace-mutation, "module state changed inside forward()"
    _p("inplace-mutation", "fe:fx msg:traced-type ast:state-write eager:ok", 6.0),
]


# ---- rules written from samples/failures/zoo27/ (dnc, ttach, torchdistill,
# torchlayers), after its one unseen measurement
_ZOO27 = [
    # fx: an item assignment into what came out of a container default left unfed
    # (`hx=(None, None, None)`, then `hidden["memory"] = ...` on its Proxy): the
    # unfed parameter, not a traced tensor's write (categories.py's
    # non-tensor-argument: "None / an Optional left unfed ... a tuple, list or dict")
    _p("non-tensor-argument", "fe:fx msg:proxy-setitem operand:unfed-container", 9.0),
    # the model fails eagerly too, indexing the input past its rank ("too many
    # indices for tensor of dimension 2"): the input's shape, not the capture
    # (an index of the wrong dtype says `dtype` and stays dtype-mismatch)
    _p("shape-mismatch", "eager:fail exc:IndexError", 5.0, "msg:dtype"),
]
