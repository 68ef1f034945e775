"""The def-use graph: walking back from a failing line across locals, helpers,
methods, `self.attr` set in __init__, and constructor arguments."""

from __future__ import annotations

import textwrap

from cuvil_debug.triage.rootcause import DefUseGraph, rank_roots
from cuvil_debug.triage.source import index_file

SOURCE = """\
class Block:
    def __init__(self, dim):
        self.fc = Linear(dim, dim)

    def forward(self, x):
        return self.fc(x)


class Model:
    def __init__(self):
        self.block = Block(64)
        self.register_buffer("scale", torch.ones(4, dtype=torch.float64))

    def score(self, x):
        return x.abs().sum()

    def forward(self, x):
        n = self.score(x)
        m = n * 2
        if m > 0:
            return self.block(x) * self.scale
        return x
"""


def graph(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(SOURCE))
    index = index_file(str(path))
    return DefUseGraph([index]), str(path)


def lines(paths) -> set[int]:
    return {key[1] for key in paths}  # a parameter's node is (file, line, name)


def test_walk_back_crosses_locals_and_helper_returns(tmp_path):
    g, f = graph(tmp_path)
    reached = lines(g.walk_back((f, 20)))
    assert {19, 18, 15} <= reached  # m = ..., n = self.score(x), return x.abs().sum()


def test_self_attributes_lead_to_init_and_register_buffer(tmp_path):
    g, f = graph(tmp_path)
    reached = lines(g.walk_back((f, 21)))
    assert {11, 12} <= reached


def test_constructor_arguments_lead_to_the_call_site(tmp_path):
    g, f = graph(tmp_path)
    assert 11 in lines(
        g.walk_back((f, 6))
    )  # Block.forward -> self.fc -> dim -> Block(64)


def test_ranking_prefers_the_reduction_for_control_flow(tmp_path):
    g, f = graph(tmp_path)
    paths = g.walk_back((f, 20))
    best = rank_roots(g, (f, 20), paths, "data-dependent-control-flow")[0]
    assert best.line == 15
    assert [line for _, line in best.chain] == [15, 18, 19, 20]
    assert 0 < best.confidence <= 1


def test_ranking_prefers_the_dtype_line_for_dtype_mismatch(tmp_path):
    g, f = graph(tmp_path)
    paths = g.walk_back((f, 21))
    assert rank_roots(g, (f, 21), paths, "dtype-mismatch")[0].line == 12


CALLS = """\
def pad(size, k, flag=False):
    return max(size - k, 0)


class Model:
    def feats(self, x, mask=None, causal=False):
        return pad(x.shape[-1], 3)

    def forward(self, x, mask=None, causal=False):
        h = x * 2
        return self.feats(h, mask=mask, causal=causal)
"""


def test_a_parameter_leads_only_to_the_argument_bound_to_it(tmp_path):
    """`feats(h, mask=mask)`: walking back from feats' `x` reaches `h`'s line, not
    forward()'s `mask`; `pad`'s never-passed `flag` has no call-site edge at all."""
    path = tmp_path / "m.py"
    path.write_text(CALLS)
    g = DefUseGraph([index_file(str(path))])
    f = str(path)
    reached = g.walk_back((f, 7))
    assert 10 in lines(reached)  # h = x * 2, through the argument bound to x
    params = {k[2] for k in reached if len(k) == 3 and k[1] == 9}
    assert params == {"x"}  # forward()'s x, but not its mask / causal
    pad = next(fn for fn in g.funcs if fn.name == "pad")
    assert not list(g.g.successors(g._param_node(pad, pad.params[2])))


def test_a_frame_on_a_class_statement_inside_a_function_does_not_crash(tmp_path):
    """A library frame can stand on a `class` statement inside a function (brevitas's
    QuantLSTM under strict export, zoo10: a wrapper class made in a method): the
    walk from it reaches no parameter, where it raised networkx's "node not in the
    digraph"."""
    path = tmp_path / "m.py"
    path.write_text(
        "class Model:\n"
        "    def wrap(self, x):\n"
        "\n"
        "        class _Inner:\n"
        "            pass\n"
        "        return x\n"
        "\n"
        "    def forward(self, x):\n"
        "        n = self.wrap(x)\n"
        "        return n\n"
    )
    f = str(path)
    g = DefUseGraph([index_file(f)])
    g.add_stack([(f, 9), (f, 4)])  # forward's call, then the class statement
    assert (f, 9) in g.g
