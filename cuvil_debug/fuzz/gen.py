"""The random graph generator: ``generate(seed)`` -> a valid ``Graph``.

A graph grows one node at a time: draw a lowering rule uniformly from the catalog, one
of its spellings, then its arguments (synth.Draft); run the new node eagerly on the
values computed so far, twice under different random states, and keep it only if torch
accepts it and the checks of checks.py pass (tensors of bounded size, deterministic,
torch's shape functions agree, no open tie order, no aliased in-place write). A node
that returns several tensors (``topk``, ``split``, ``var_mean``) is followed by
accessors of some of them (``r[0]``, ``r.values``). In-place forms write only to values
the graph computed. The outputs are every value no node reads, plus a few others.
``empty``/``empty_like``/``new_empty`` are not drawn: their values are undefined.

Everything is drawn from ``random.Random(seed)`` and the tensors from seeds stored in
the graph, so a seed is a graph.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import torch

from . import checks
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

TRIES = 6  # draws per chosen op before another op is chosen
same = checks.same


def run_eager(graph: Graph, seed: int = 0, dt=torch.float32) -> list[Any]:
    """Every node value, on fresh inputs, under a fixed random state."""
    return _run(graph, seed, dt)[0]


def _run(graph: Graph, seed: int = 0, dt=torch.float32) -> tuple[list[Any], Env, dict]:
    """(node values, the environment they were computed in, the modules)."""
    inputs = [make(s) for s in graph.inputs]
    tensors, modules = build_state(graph, dt)
    with torch.random.fork_rng(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(seed)
        values = evaluate(graph, inputs, dt, (tensors, modules))
    return values, Env(inputs, values, tensors, dt), modules


class Generator:
    def __init__(self, seed: int, max_ops: int) -> None:
        self.rng = random.Random(seed)
        self.graph = Graph(seed, [], {}, [], [])
        self.env = Env([], [], {})  # the graph's values so far (inputs, nodes, state)
        self.modules: dict[str, torch.nn.Module] = {}
        self.open_zero: set[int] = set()  # values holding zeros of an open sign
        self.max_ops = max_ops
        self.table = {
            family: kept
            for family, forms in families().items()
            if (kept := [f for f in forms if "empty" not in f.name])
        }  # empty_like, new_empty: values torch leaves undefined
        self.names = sorted(self.table)

    @property
    def values(self) -> list[Any]:
        return self.env.nodes

    def add_input(self, spec: TensorSpec) -> None:
        self.graph.inputs.append(spec)
        self.env.inputs.append(make(spec))

    def pool(self) -> Pool:
        pairs = [({"x": i}, x) for i, x in enumerate(self.env.inputs)]
        pairs += [({"v": j}, v) for j, v in enumerate(self.env.nodes)]
        return Pool(pairs, len(self.graph.inputs), len(self.graph.state))

    def draw(self, form: Form) -> tuple[Node, Pool] | None:
        pool = self.pool()
        d = Draft(self.rng, pool, form)
        try:
            if form.kind == "module":
                node = self._module(d, form)
            elif form.kind in ("getitem", "getattr"):
                node = self._access(d, form)
            else:
                overloads = form.meta.get("overloads") or [("", form.params)]
                overload, params = self.rng.choice(overloads)
                args, kwargs = d.call(params)
                aten = form.kind == "aten"
                call = f"{form.call}.{overload or 'default'}" if aten else form.call
                node = Node(call, form.kind, args, kwargs, form.family)
        except Exception:  # Skip, or a rule that met values it did not expect
            return None
        first = (node.args or [None])[0]
        if checks.inplace(form) and not (isinstance(first, dict) and "v" in first):
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
            spec = TensorSpec(list(t.shape), dtype, d.seed(), profile)
            d.pool.new_state[f"{name}.{key}"] = spec
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
        single = len(items) == 1 and self.rng.random() < 0.5
        index = items[0] if single else {"tuple": items}
        return Node("getitem", "getitem", [ref, index], {}, form.family)

    def _trial_env(self, node: Node, pool: Pool, form: Form) -> tuple[Env, dict]:
        """The environment the new node runs in: the values so far (copied when the
        node writes in place) and the tensors and module it brings."""
        state = {**self.env.state, **{k: make(s) for k, s in pool.new_state.items()}}
        nodes = self.env.nodes
        if checks.inplace(form):
            nodes = [v.clone() if isinstance(v, torch.Tensor) else v for v in nodes]
        env = Env(
            self.env.inputs + [make(s) for s in pool.new_inputs], list(nodes), state
        )
        modules = dict(self.modules)
        if node.kind == "module":
            m = make_module(node)
            keys = m.state_dict()
            m.load_state_dict(
                {k: state[f"{node.module}.{k}"] for k in keys}, assign=True
            )
            modules[node.module] = m
        return env, modules

    def run_node(self, node: Node, env: Env, modules: dict, seed: int) -> Any:
        args = decode(node.args, env)
        kwargs = {k: decode(v, env) for k, v in node.kwargs.items()}
        saved = torch.get_rng_state()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.default_generator.manual_seed(seed)
                return call_node(node, args, kwargs, env, modules)
        finally:
            torch.set_rng_state(saved)

    def accept(
        self, node: Node, pool: Pool, form: Form
    ) -> tuple[Any, Env, dict] | None:
        """(the node's value, its environment, the modules) if the node is acceptable."""
        try:
            if checks.inplace(form) and checks.aliased(node, self.env):
                return (
                    None  # (the target is a value the graph computed: self.env has it)
                )
            env, modules = self._trial_env(node, pool, form)
            first = self.run_node(node, env, modules, 1)
            env2, _ = self._trial_env(node, pool, form)
            second = self.run_node(node, env2, modules, 2)
        except Exception:  # torch refused the draw: draw again
            return None
        if not checks.valid(first) or not checks.same(first, second):
            return None
        if checks.ties(node, env) or checks.order_dependent(node, env):
            return None
        if checks.nan_sign(node, env) or checks.paths_disagree(node, env):
            return None
        if checks.zero_sign_read(node, env, self.open_zero):
            return None
        if checks.meta_differs(node, env, first, form):
            return None
        return first, env, modules

    def commit(
        self, node: Node, pool: Pool, value: Any, env: Env, modules: dict, form: Form
    ) -> None:
        g = self.graph
        g.inputs += pool.new_inputs
        g.state.update(pool.new_state)
        g.nodes.append(node)
        if checks.opens_zero_sign(node, value, self.open_zero):
            self.open_zero.add(len(g.nodes) - 1)
            target = node.args[0] if node.args else None
            if checks.inplace(form) and isinstance(target, dict) and "v" in target:
                self.open_zero.add(target["v"])  # the written value holds them now
        if checks.inplace(form):  # writes may reach other values: recompute them all
            _, self.env, self.modules = _run(g, 1)
            return
        env.nodes.append(value)
        self.env, self.modules = env, modules

    def add(self) -> bool:
        form = self.rng.choice(self.table[self.rng.choice(self.names)])
        for _ in range(TRIES):
            drawn = self.draw(form)
            if drawn is None:
                continue
            got = self.accept(*drawn, form)
            if got is None:
                continue
            self.commit(drawn[0], drawn[1], *got, form)
            self._accessors(self.values[-1])
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
            if checks.opens_zero_sign(node, value[i], self.open_zero):
                self.open_zero.add(len(self.graph.nodes))
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
        gen.add_input(TensorSpec(shape, "float32", rng.randrange(2**31)))
    target = rng.randint(min_ops, max_ops)
    drawn = 0
    for _ in range(target * 8):
        if drawn >= target:
            break
        drawn += gen.add()
    gen.graph.outputs = gen.outputs()
    return gen.graph
