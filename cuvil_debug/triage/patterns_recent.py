"""The PATTERNS rows written from the most recent labelled sets (zoo5 onwards); the
table is assembled in patterns.py, which says how rows are read."""

from __future__ import annotations

from .patternrow import _p

__all__ = [
    "_ZOO5",
    "_ZOO6",
    "_ZOO7",
    "_ZOO8",
    "_ZOO9",
    "_ZOO10",
    "_ZOO12",
    "_ZOO13",
    "_ZOO15",
    "_ZOO16",
    "_ZOO17",
]


# ---- rules written from samples/failures/zoo5/ (segment-anything, esm, whisper...)
_ZOO5 = [
    # a bool / int / float example input export keeps as a placeholder, also a leaf
    # of a tuple or dict input: a non-tensor among the inputs (no Proxy is involved;
    # zoo6 dropped the container exception, categories.py)
    _p("unsupported-io-type", "msg:input-scalar fe:export", 5.0),
    # `coords[:, :, 0] = ...` / `norms[norms < eps] = eps` on a traced tensor under fx:
    # the tracer records no item assignment, whatever the tensor came from
    _p(
        "inplace-mutation",
        "msg:proxy-setitem ast:inplace fe:fx",
        8.0,
        "sig:kwargs-traced near:param-kwargs near:rank-read",
    ),
    # `shape = [1] * x.dim(); shape[d] = -1`: the list is a Proxy of the rank
    _p("capture-limitation", "msg:proxy-setitem near:rank-read eager:ok", 7.0),
    # `np.ceil(x.shape[0] / v)` on the failing line
    _p("dynamic-shape", "msg:numpy ast:shape-iterate", 7.0, "operand:param-optional"),
    # `int(batch.max()) + 1` as a size: the number taken out of a reduction
    _p(
        "data-dependent-python-value",
        "msg:specialize-int ast:item ast:reduction",
        6.0,
    ),
    # code that runs eagerly raising NotImplementedError for the tracer (a dynamo
    # guard calling a library object's `__len__`)
    _p("capture-limitation", "exc:NotImplementedError eager:ok", 3.0),
]

# ---- rules written from samples/failures/zoo6/ (neuraloperator, compressai, ...)
_ZOO6 = [
    # a data-dependent guard asking for a tensor's truth value (torch's own frames:
    # guard_bool without SymBool.__bool__), e.g. torch.distributions' validation
    _p("data-dependent-control-flow", "guard:tensor-bool", 5.0, "ast:numpy"),
    # dynamo traces numpy as tensors: a branch on numpy results is the numpy's doing
    _p("non-torch-call", "gb:data-dependent-branching ast:numpy", 4.0),
    # forward() writes module state (`self.w.data = ...`) and export finds the traced
    # value among its constants, or dynamo made a grad-mode region of it
    _p("inplace-mutation", "msg:fake-constant search:state-write", 6.0),
    # (not when torch's own exception in the chain names what the region could not
    # do: a nonzero's data-dependent size, zoo9)
    _p(
        "inplace-mutation",
        "op:grad-mode-region search:state-write",
        6.0,
        "exc:DynamicOutputShapeException",
    ),
]


# ---- rules written from samples/failures/zoo7/ (zuko, snntorch, demucs, tcn, gpytorch)
# Each is a mechanism (what the failing Python was applied to, or torch's structured
# signal), pinned by hand-written samples in samples/failures/ (issue 16, zoo7 round).
_ZOO7 = [
    # Python arithmetic, a cast or a torch size utility computing with a size read on
    # the failing line under fx: `float(k.size(-1))`, `divmod(x.shape[1], p)`,
    # `int(math.ceil(x.shape[-1] / h))`, `torch.broadcast_shapes(a.shape, b.shape)`
    _p(
        "dynamic-shape",
        "msg:proxy-used ast:shape-math fe:fx",
        8.0,
        "operand:param-optional ast:meta-test ast:reduction",
    ),
    # a sequence of sizes (`x.shape[:-1]`) handed on and then walked (`torch.Size(s)`,
    # a distribution's `expand(batch_shape)`): the walked value is a size
    _p(
        "dynamic-shape",
        "msg:proxy-iter near:shape-seq fe:fx",
        7.0,
        "ast:item near:item operand:param-optional ast:meta-test",
    ),
    # the truth of a tensor's metadata asked under fx (`if x.requires_grad or flag`,
    # `[o for o in outs if o.requires_grad]`, `x.is_floating_point()`): the first
    # operand Python asks is a Proxy attribute, whatever the flags after it are
    _p(
        "capture-limitation",
        "msg:proxy-control-flow ast:meta-test eager:ok",
        8.0,
        "guard:unfed-optional",
    ),
    # fake tensors cannot produce a Python value computed from the data
    # (`torch.equal`, aten.is_nonzero): torch's own exception type says so
    _p("data-dependent-python-value", "exc:DataDependentOutputException", 5.0),
    # a stdlib `random` draw dynamo would have to make an extra graph input
    _p("unsupported-python-construct", "msg:random-input", 6.0),
    # ... and the failing line is such a draw, from constants or configuration
    # (dynamo marks `Random.random` skipped): the draw, not dynamo, is the problem
    _p("unsupported-python-construct", "ast:py-random eager:ok", 7.0),
    # the capture binding the inputs to forward()'s signature failed while eager runs
    # (eager went through an overridden __call__ that fills the arguments)
    _p("capture-limitation", "raise:signature-bind eager:ok", 5.0),
    # forward() rebinds module state (`self.level = ...`): export records a buffer
    # mutation, and that copy is what failed (not a dynamo graph break inside
    # `__setattr__`, which is dynamo's limitation: library ctrl)
    _p(
        "inplace-mutation", "ast:state-write fe:export eager:ok", 4.0, "exc:Unsupported"
    ),
]

# ---- rules written from samples/failures/zoo8/ (mambapy, torchani, nnAudio, ...)
_ZOO8 = [
    # dynamo's fake-tensor run of an op raised while eager runs the same op (a uint8
    # `where` condition eager only warns about): the capture is stricter than eager;
    # under a try/except the model relied on that error (ast:in-try's row)
    _p("capture-limitation", "msg:fake-call-failed eager:ok", 4.0, "ast:in-try"),
    # fx cannot take len() of / iterate a value the code hands to torch.cat/stack as
    # a sequence of tensors, while an example input is a container: the container
    # argument traced as one Proxy (not iteration over a tensor)
    _p(
        "non-tensor-argument",
        "msg:proxy-iter operand:param-seq io:container-input",
        4.0,
        "fe:export",
    ),
]

# ---- rules written from samples/failures/zoo9/ (ncps, entmax, nflows, deepctr, pml)
# Each is a mechanism: the operand of the failing construct, or torch's / Cuvil's
# structured signal (issue 16, seventh round; test_zoo9_mechanisms.py)
_ZOO9 = [
    # fx branching on a value computed from the rank (`is_batched = x.dim() == 3` ...
    # `if not is_batched:`): metadata, not a size and not the tensor's values
    _p(
        "capture-limitation",
        "msg:proxy-control-flow operand:rank-read eager:ok",
        6.0,
        "operand:shape-read operand:item operand:reduction ast:meta-test",
    ),
    # fx using the rank as a number (`range(1, x.ndimension())`, `[0] * x.dim()`)
    _p(
        "capture-limitation",
        "msg:proxy-as-value ast:rank-read eager:ok",
        5.0,
        "ast:shape-iterate ast:shape-attr ast:item",
    ),
    # Cuvil refusing an ATen in-place op the capture recorded (`x.fill_diagonal_()`
    # under strict export): the in-place form is what is refused
    _p("inplace-mutation", "op:inplace", 5.0),
    # fx refusing a numpy value as a node argument (`x[:, idx[0]:idx[1]]` with
    # `idx = np.array(...)`): numpy work in forward() reached a traced op
    _p("non-torch-call", "msg:numpy-arg", 5.0),
]

# ---- rules written from samples/failures/zoo10/ (pyro, kymatio, opacus, brevitas,
# auraloss). Mechanisms again: torch's structured signal or the failing construct's
# operand (issue 16, eighth round; test_zoo10_mechanisms.py)
_ZOO10 = [
    # export refused the dynamic_shapes spec before tracing (its tree does not match
    # forward()'s signature: a `*args` forward takes one entry, `args`): the capture
    # call is what must change, not the model and not a Dim's range
    _p("capture-limitation", "msg:dyn-spec err:INVALID_INPUT", 6.0),
    # `n = x.size(0) if isinstance(x, Tensor) else len(x)`: the Proxy fails the type
    # test on the failing line itself and its non-tensor arm is what fails
    _p("unsupported-python-construct", "ast:type-test-expr fe:fx eager:ok", 8.0),
    # fx iterating (splatting, `len`) a value whose direct def is forward()'s own
    # `*args`: the tuple of inputs traced as one Proxy, not a tensor
    _p("non-tensor-argument", "msg:proxy-iter near:param-varargs fe:fx", 4.0),
    # a size read handed to code that checks for a Python int (`f(batch_size=
    # x.shape[0])` raising "got Proxy"): the size, not a wrapper's unfed **kwargs
    _p("dynamic-shape", "msg:traced-type ast:shape-arg fe:fx eager:ok", 12.0),
    # `len(h)` where h is built by a torch op on the path that ran or may run (an
    # Optional state defaulting to `torch.zeros(...)`): len() of a traced tensor,
    # whatever the Optional was fed
    _p(
        "proxy-iteration",
        "msg:proxy-iter ast:len-call near:torch-call fe:fx",
        7.0,
        "ast:shape-iterate ast:shape-attr near:shape-seq",
    ),
    # forward() calls nn.Module.to / .cuda / .half on a submodule: under export the
    # in-place parameter swap is module state changed inside forward(); under fx
    # the device (or dtype) it is given is a Proxy's metadata
    _p("inplace-mutation", "raise:module-apply fe:export", 6.0),
    _p("capture-limitation", "raise:module-apply msg:proxy-control-flow fe:fx", 6.0),
    # export lifted a tensor it made while tracing into its constants, and forward()
    # writes no module state (a `.data` read, a detached copy): export could not trace
    # through it (zoo6's row takes the state-write case)
    _p("capture-limitation", "msg:fake-constant eager:ok", 3.0),
    # fake tensors could not compute a data-dependent output and the failing line is
    # a branch on it (`if not torch.allclose(a, b):`): the bool's only use is the
    # branch (categories.py: data-dependent-control-flow)
    _p(
        "data-dependent-control-flow",
        "exc:DataDependentOutputException ast:branch",
        6.0,
        "ast:item",
    ),
]


# ---- rules written from samples/failures/zoo12/ (torch-kmeans, diffsort, mpc,
# torchkbnufft, torchsr), after its one unseen measurement
_ZOO12 = [
    # the model's own `assert` fails eagerly too, on the input's size or rank
    # (`assert len(vectors.shape) == 2`): the input's shape is what is wrong
    _p("shape-mismatch", "exc:AssertionError eager:fail ast:shape-read", 5.0),
    _p("shape-mismatch", "exc:AssertionError eager:fail ast:rank-read", 5.0),
    # a call-signature TypeError only the capture meets: torch called something the
    # model's code does not (non-strict export's builtin max() over one tensor); not
    # under fx, where a Proxy among an op's arguments says the same (`zeros(n, 4)`)
    _p("capture-limitation", "msg:call-signature eager:ok", 4.0, "fe:fx"),
    # cuvil.compile's dynamic_shapes given for a container or object input
    _p("unsupported-io-type", "msg:dyn-input-not-tensor", 6.0),
    # fx: the failing path was chosen by an unfed Optional's `is not None` test
    # (evidence._unfed_guard); concrete_args would take the other path
    _p(
        "non-tensor-argument",
        "guard:unfed-optional msg:proxy-control-flow eager:ok",
        9.0,
    ),
]


# ---- rules written from samples/failures/zoo13/ (torch-hd, cliffordlayers, pypose,
# hypll, e2cnn), after its one unseen measurement
_ZOO13 = [
    # tensor subclasses (VSA tensors, LieTensors, manifold parameters): the tracer's
    # FakeTensor / Proxy cannot become the subclass, or the subclass's own
    # `__torch_function__` refuses what the tracer calls on it; eager runs
    _p("capture-limitation", "msg:tensor-subclass eager:ok", 7.0),
    _p("capture-limitation", "raise:subclass-hook eager:ok", 6.0),
    # torch's fake-tensor converter refusing a tensor it has no meta for (functorch's
    # batched tensors inside torch.autograd.functional.jacobian)
    _p("capture-limitation", "exc:UnsupportedFakeTensorException eager:ok", 5.0),
    # an `assert` that passes eagerly fails under export: its test saw the FakeTensor
    # (an isinstance of a tensor subclass; value tests raise data-dependent errors)
    _p(
        "unsupported-python-construct",
        "exc:AssertionError eager:ok fe:export",
        3.0,
        "msg:data-dependent",
    ),
    # a library's own type check that names the Proxy it got (`... but the given
    # inputs has type Proxy`), raised in library code under fx (not a torch op's
    # overload error naming its FakeTensor arguments: zoo10's numpy randint)
    _p(
        "unsupported-python-construct",
        "msg:traced-type exc:TypeError eager:ok fe:fx",
        4.0,
    ),
    # the model's own `raise` on a size it read (`*_, I = x.shape; if I != n: raise`),
    # eager fails too: the input's shape is wrong
    _p("shape-mismatch", "raise:user-raise eager:fail near:shape-read", 5.0),
    # fx: the failing branch reads sizes itself (`assert x.size(-1) == P.size(-1)`):
    # logic on a symbolic size, whatever Optional was fed elsewhere
    _p(
        "dynamic-shape",
        "msg:proxy-control-flow ast:branch ast:shape-read",
        9.0,
        "guard:unfed-optional near:item ast:item ast:rank-only-test",
    ),
]


# ---- rules written from samples/failures/zoo15/ (facenet-pytorch, julius, unfoldNd,
# pytorch-nlp, fft-conv-pytorch), after its one unseen measurement
_ZOO15 = [
    # the model's own `raise` on the rank it read (`N = x.dim() - 2` then a check of
    # N), eager fails too: the input has the wrong rank
    _p("shape-mismatch", "raise:user-raise eager:fail flow:rank-read", 5.0),
    _p("shape-mismatch", "raise:user-raise eager:fail near:rank-read", 5.0),
    # unpacking a size into names fails eagerly (`b, n, d = query.size()` given a
    # 2-d query): the input's rank is wrong
    _p("shape-mismatch", "exc:ValueError ast:unpack ast:shape-read eager:fail", 5.0),
    # dynamo refusing to set a tensor attribute (`kernel_fr.imag *= -1`): an
    # in-place write to a tensor's view
    _p("inplace-mutation", "gb:failed-to-set-tensor-attribute", 6.0),
    # numpy work on sizes that dynamo traced as tensor ops, so an `.item()` reaches
    # the graph (`int(numpy.prod(shape))` under strict export): Python ints fix it
    _p("non-torch-call", "msg:item-op ast:numpy", 9.0),
    # a forward set on the model instance (a library's wrapper): torch.fx traces the
    # class's forward instead, so parameters the wrapper sets are missing or the
    # class has none; other captures follow the wrapper and its closure's state
    _p("capture-limitation", "model:instance-forward fe:fx", 6.0),
    _p("capture-limitation", "model:instance-forward eager:ok", 3.0),
    # fx iterating a value built from the rank (`dims = (d,) * (x.ndim - 2)` then
    # `zeros(1, *dims)`): no tensor itself is iterated (categories.py), unlike a
    # permutation a torch op builds (`x.permute(*torch.cat(...))`)
    _p(
        "capture-limitation",
        "msg:proxy-iter operand:rank-read eager:ok fe:fx",
        7.0,
        "operand:shape-read operand:torch-call",
    ),
]


# ---- rules written from samples/failures/zoo16/ (snac, pytorch-ood, easyfsl,
# positional-encodings, nbeats-pytorch), after its one unseen measurement
_ZOO16 = [
    # a training step inside forward() (`loss.backward()` under enable_grad): valid
    # eager code no capture can record as an inference graph
    _p("capture-limitation", "ast:autograd eager:ok", 7.0),
    # an attribute that shadows a torch.nn.Module method (`self.parameters =
    # nn.ParameterList(...)`): export's submodule lookup finds the method
    _p("capture-limitation", "msg:shadowed-method eager:ok", 7.0),
    # a @torch.jit.script function handed fx's Proxy (its argument check refuses
    # it): fx cannot trace through TorchScript
    _p("capture-limitation", "msg:script-arg eager:ok fe:fx", 7.0),
    # `len(x.shape)` under fx ("'len' is not supported"): a size walked in Python
    # (not a size of an unfed Optional's: non-tensor-argument)
    _p(
        "dynamic-shape",
        "msg:proxy-iter ast:len-call ast:shape-iterate fe:fx",
        6.0,
        "operand:param-optional guard:unfed-optional",
    ),
    # math on a size read just before, with a numpy operand fx cannot record
    # (`math.ceil(x.shape[-1] / np.prod(rates))`): Python logic on a symbolic size,
    # over the numpy rows a numpy value alone meets
    _p(
        "dynamic-shape",
        "msg:numpy-arg ast:numpy near:shape-read fe:fx",
        11.0,
        "near:item",
    ),
]


# ---- rules written from samples/failures/zoo17/ (geotorch, torchnmf,
# torch-cubic-spline-grids, FrEIA, unet), after its one unseen measurement
_ZOO17 = [
    # `torch.tensor(x.shape)` under fx: torch probes the Proxy of the shape as an
    # array-like; Python logic on a size
    _p("dynamic-shape", "msg:array-probe ast:shape-read fe:fx", 7.0),
    # `torch.as_tensor(u)` of the Proxy itself: valid code fx cannot record
    _p("capture-limitation", "msg:array-probe fe:fx", 5.0, "ast:shape-read"),
    # the model's own check formats a size the capture made symbolic (`with s44D
    # coordinates`): its Python took the branch a symbolic comparison decided
    _p("dynamic-shape", "msg:symbolic-in-message raise:user-raise eager:ok", 7.0),
    # export could not guard on a symbol the eager replay traced to a `.tolist()`
    # / `.item()` (a padding list read from a tensor of sizes): the number taken
    # out of the tensor, used as an argument where torch checks it
    _p(
        "data-dependent-python-value",
        "origin:value-read msg:data-dependent",
        4.0,
        "ast:branch",
    ),
]
