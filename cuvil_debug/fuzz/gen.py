"""The random graph generator: ``generate(seed)`` -> a valid ``Graph``.

A graph grows one node at a time: draw a lowering rule uniformly from the catalog, one
of its spellings, then its arguments (synth.Draft); run the graph with the new node
eagerly, twice under different random states, and keep the node only if torch accepts
it, the result is one or more non-empty tensors of at most 4096 elements, and both runs
agree (random ops such as dropout in training mode are thrown away). A node that
returns several tensors (``topk``, ``split``, ``var_mean``) is followed by accessors
of some of them (``r[0]``, ``r.values``). In-place forms write only to values the graph
computed. The outputs are every value no node reads, plus a few others.

Everything is drawn from ``random.Random(seed)`` and the tensors from seeds stored in
the graph, so a seed is a graph.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from .catalog import Form, Param, families
from .graph import (
    Env,
    Graph,
    Node,
    build_state,
    call_node,
    decode,
    evaluate,
    make_module,
)
from .synth import Draft, Pool, Skip
from .values import TensorSpec, make

__all__ = ["generate", "run_eager", "same"]

MAX_NUMEL = 4096
TRIES = 6  # draws per chosen op before another op is chosen


def run_eager(graph: Graph, seed: int = 0, dt=torch.float32) -> list[Any]:
    """Every node value, on fresh inputs, under a fixed random state."""
    inputs = [make(s) for s in graph.inputs]
    if dt != torch.float32:
        inputs = [x.to(dt) if x.dtype == torch.float32 else x for x in inputs]
    with torch.random.fork_rng(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(seed)
        return evaluate(graph, inputs, dt, build_state(graph, dt))


def same(a: Any, b: Any) -> bool:
    """Equal values (NaN equal to NaN), dtypes and shapes, through tuples."""
    if isinstance(a, tuple | list):
        return isinstance(b, tuple | list) and len(a) == len(b) and all(map(same, a, b))
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return a == b
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return torch.equal(a, b)


def _same_meta(fake: Any, real: Any) -> bool:
    if isinstance(real, tuple | list):
        return (
            isinstance(fake, tuple | list)
            and len(fake) == len(real)
            and all(map(_same_meta, fake, real))
        )
    return (
        isinstance(fake, torch.Tensor)
        and fake.shape == real.shape
        and fake.dtype == real.dtype
    )


def _valid(value: Any) -> bool:
    if isinstance(value, tuple | list):
        return 0 < len(value) <= 8 and all(_valid_tensor(v) for v in value)
    return _valid_tensor(value)


def _valid_tensor(t: Any) -> bool:
    return (
        isinstance(t, torch.Tensor)
        and 0 < t.numel() <= MAX_NUMEL
        and not t.is_complex()
        and t.layout == torch.strided
        and not t.requires_grad
    )


_TIE_ORDER = {
    "topk",
    "sort",
    "argsort",
    "msort",
}  # which of equal values comes first: open
_IOPS = {
    "iadd",
    "isub",
    "imul",
    "itruediv",
    "ifloordiv",
    "imod",
    "ipow",
    "iand",
    "ior",
    "ixor",
}


def _inplace(form: Form) -> bool:
    name = (
        form.call.split(".")[1] if form.kind == "aten" else form.call.rsplit(".", 1)[-1]
    )
    if form.kind == "operator":
        return name in _IOPS
    return name.endswith("_") and not name.startswith("_")


class Generator:
    def __init__(self, seed: int, max_ops: int) -> None:
        self.rng = random.Random(seed)
        self.graph = Graph(seed, [], {}, [], [])
        self.values: list[Any] = []  # node values of the graph so far
        self.max_ops = max_ops
        self.table = families()
        self.names = sorted(self.table)

    def pool(self) -> Pool:
        g = self.graph
        pairs = [({"x": i}, make(s)) for i, s in enumerate(g.inputs)]
        pairs += [({"v": j}, v) for j, v in enumerate(self.values)]
        return Pool(pairs, len(g.inputs), len(g.state))

    def draw(self, form: Form) -> tuple[Node, Pool] | None:
        pool = self.pool()
        d = Draft(self.rng, pool, form)
        try:
            if form.kind == "module":
                node = self._module(d, form)
            elif form.kind in ("getitem", "getattr"):
                node = self._access(d, form)
            else:
                overload, params = self.rng.choice(
                    form.meta.get("overloads") or [("", form.params)]
                )
                args, kwargs = d.call(params)
                call = (
                    f"{form.call}.{overload or 'default'}"
                    if form.kind == "aten"
                    else form.call
                )
                node = Node(call, form.kind, args, kwargs, form.family)
        except Exception:  # Skip, or a rule that met values it did not expect
            return None
        first = (node.args or [None])[0]
        if _inplace(form) and not (isinstance(first, dict) and "v" in first):
            return None  # writes only to values the graph computed
        return node, pool

    def _module(self, d: Draft, form: Form) -> Node:
        ref, x = d.first_tensor(Param("input", "Tensor"))
        d.primary = d.ctx["input"] = x
        ctor = {}
        for p in form.params:
            if p.kind.startswith("Tensor") or not d.include(p):
                continue
            ctor[p.name], d.ctx[p.name] = d.arg(p)
        name = f"m{len(self.graph.nodes)}"
        node = Node(form.call, "module", [ref], {}, form.family, ctor, name)
        try:
            module = make_module(node)
        except Exception as e:  # torch refused the configuration
            raise Skip(str(e)) from None
        for key, t in module.state_dict().items():
            dtype = str(t.dtype).removeprefix("torch.")
            profile = "positive" if key.endswith("running_var") else "normal"
            d.pool.new_state[f"{name}.{key}"] = TensorSpec(
                list(t.shape), dtype, d.seed(), profile
            )
        return node

    def _access(self, d: Draft, form: Form) -> Node:
        """``x[1:, None, i]`` or ``x.T`` / ``x.mT`` on an existing tensor."""
        ref, x = d.first_tensor(Param("self", "Tensor"))
        d.primary = x
        if form.kind == "getattr":
            attr = self.rng.choice(["T", "mT"] if x.dim() >= 2 else ["T"])
            return Node("getattr", "getattr", [ref, attr], {}, form.family)
        items = [
            index_item(d, size) for size in x.shape[: self.rng.randint(0, x.dim())]
        ]
        if self.rng.random() < 0.2:
            items.insert(self.rng.randint(0, len(items)), {"ellipsis": 1})
        if self.rng.random() < 0.2 or not items:
            items.insert(self.rng.randint(0, len(items)), None)
        index = (
            items[0]
            if len(items) == 1 and self.rng.random() < 0.5
            else {"tuple": items}
        )
        return Node("getitem", "getitem", [ref, index], {}, form.family)

    def trial(self, node: Node, pool: Pool) -> Graph:
        g = self.graph
        return Graph(
            g.seed,
            g.inputs + pool.new_inputs,
            {**g.state, **pool.new_state},
            g.nodes + [node],
            [],
        )

    def accept(self, trial: Graph) -> list[Any] | None:
        try:
            first = run_eager(trial, 1)
            second = run_eager(trial, 2)
        except Exception:  # torch refused the draw: draw again
            return None
        if not _valid(first[-1]) or not same(first[-1], second[-1]):
            return None
        return first

    def _meta_differs(self, trial: Graph, values: list[Any], form: Form) -> bool:
        """torch's own shape functions (fake tensors: what torch.export and dynamo see)
        disagree with eager on the new node, or fail: torch's bug, not Cuvil's."""
        if _inplace(form) or form.kind == "module":
            return False
        node = trial.nodes[-1]
        env = Env([make(s) for s in trial.inputs], values[:-1], build_state(trial)[0])
        args = decode(node.args, env)
        kwargs = {k: decode(v, env) for k, v in node.kwargs.items()}
        try:
            with FakeTensorMode(allow_non_fake_inputs=True), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fake = call_node(node, args, kwargs, env, {})
        except Exception:
            return True
        return not _same_meta(fake, values[-1])

    def _ties(self, trial: Graph, values: list[Any]) -> bool:
        """An op whose order among equal values torch leaves open (topk, an unstable
        sort) drawn on values with ties: its result is not checkable."""
        node = trial.nodes[-1]
        name = (
            node.call.split(".")[1]
            if node.kind == "aten"
            else node.call.rsplit(".", 1)[-1]
        )
        if name not in _TIE_ORDER or node.kwargs.get("stable") is True:
            return False
        ref = node.args[0] if node.args else None
        if not isinstance(ref, dict):
            return True
        x = (
            values[ref["v"]]
            if "v" in ref
            else make(trial.inputs[ref["x"]])
            if "x" in ref
            else make(trial.state[ref["p"]])
        )
        if (
            not isinstance(x, torch.Tensor)
            or x.is_floating_point()
            and int(x.isnan().sum()) > 1
        ):
            return True
        return x.reshape(-1).unique().numel() < x.numel()

    def _aliased(self, trial: Graph, values: list[Any], form: Form) -> bool:
        """An in-place write to a tensor that shares memory with another value: how
        the write propagates is left to torch's aliasing rules (fx refuses such
        writes, and torch.export's functionalization loses some: the dropout of an
        eval model is its input)."""
        if not _inplace(form):
            return False
        target = values[trial.nodes[-1].args[0]["v"]]
        ptr = target.untyped_storage().data_ptr()
        others = [
            v for j, v in enumerate(values[:-1]) if j != trial.nodes[-1].args[0]["v"]
        ]
        return any(
            isinstance(v, torch.Tensor) and v.untyped_storage().data_ptr() == ptr
            for v in others
        )

    def add(self) -> bool:
        form = self.rng.choice(self.table[self.rng.choice(self.names)])
        for _ in range(TRIES):
            drawn = self.draw(form)
            if drawn is None:
                continue
            trial = self.trial(*drawn)
            values = self.accept(trial)
            if (
                values is None
                or self._ties(trial, values)
                or self._aliased(trial, values, form)
            ):
                continue
            self.graph, self.values = trial, values
            self._accessors(values[-1])
            return True
        return False

    def _accessors(self, value: Any) -> None:
        """``r[i]`` / ``r.values`` for some results of a node returning several."""
        if not isinstance(value, tuple | list):
            return
        j = len(self.graph.nodes) - 1
        fields = getattr(value, "_fields", None)
        picks = sorted(
            self.rng.sample(range(len(value)), self.rng.randint(1, len(value)))
        )
        for i in picks:
            if fields and self.rng.random() < 0.5:
                node = Node("getattr", "getattr", [{"v": j}, fields[i]], {}, "_getattr")
            else:
                node = Node("getitem", "getitem", [{"v": j}, i], {}, "_getitem_tensors")
            self.graph.nodes.append(node)
            self.values.append(value[i])

    def outputs(self) -> list[int]:
        read = set()
        for node in self.graph.nodes:
            _refs(node.args, read)
            _refs(list(node.kwargs.values()), read)
        tensors = [j for j, v in enumerate(self.values) if isinstance(v, torch.Tensor)]
        leaves = [j for j in tensors if j not in read]
        extra = [j for j in tensors if j in read and self.rng.random() < 0.15]
        return sorted(set(leaves[-4:] + extra[:2])) or tensors[-1:]


def index_item(d: Draft, size: int) -> Any:
    """One item of a subscript for a dim of `size`: an int, a slice, an index tensor."""
    rng = d.rng
    pick = rng.choice(["int", "slice", "slice", "full", "tensor"])
    if pick == "int":
        return rng.randint(-size, size - 1)
    if pick == "full":
        return {"slice": [None, None, None]}
    if pick == "tensor":
        ref, _ = d.fresh(
            [rng.randint(1, 3)], "int64", state=rng.random() < 0.5, low=-size, high=size
        )
        return ref
    start = rng.choice([None, rng.randint(-size, size - 1)])
    stop = rng.choice([None, rng.randint(-size, size + 1)])
    return {"slice": [start, stop, rng.choice([None, 1, 2, 3])]}


def _refs(arg: Any, found: set[int]) -> None:
    if isinstance(arg, list):
        for a in arg:
            _refs(a, found)
    elif isinstance(arg, dict):
        if "v" in arg:
            found.add(arg["v"])
        for key in ("tuple",):
            if key in arg:
                _refs(arg[key], found)


def generate(seed: int, min_ops: int = 3, max_ops: int = 25) -> Graph:
    """A valid random graph of `min_ops` to `max_ops` drawn ops (accessors of tuple
    results come on top)."""
    gen = Generator(seed, max_ops)
    rng = gen.rng
    for _ in range(rng.randint(1, 2)):
        shape = [rng.choice([1, 2, 3, 4, 5, 7, 8]) for _ in range(rng.randint(1, 4))]
        gen.graph.inputs.append(TensorSpec(shape, "float32", rng.randrange(2**31)))
    target = rng.randint(min_ops, max_ops)
    drawn = 0
    for _ in range(target * 8):
        if drawn >= target:
            break
        drawn += gen.add()
    gen.graph.outputs = gen.outputs()
    return gen.graph
