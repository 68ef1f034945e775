"""The mechanisms written from zoo8's misses (docs/TRIAGE.md, "zoo8 as development
data"), in their general forms and in other spellings than the libraries' (pfrl,
pytorch-crf, torchani), captured for real, with their root line: a parameter the code
hands to `torch.cat`/`torch.stack` is a container of tensors (fx traces it as one
Proxy); torch's own Python asking the truth of a traced tensor (torch.distributions'
argument validation) under fx; dynamo's fake-tensor run refusing an op that eager
runs. (The fourth, the captured model's own forward() parameter ranked over other
forward()s' as a non-tensor argument's root, is pinned by zoo8's
ani_all_pairs_fx_float_cutoff in the slow corpus test.)"""

from __future__ import annotations

import ast
import textwrap

from triage_cases import mechanism_tests

HEAD = "import torch\nfrom torch import nn\n\n\n"

CASES = [
    # (name, frontend, source after HEAD, category, text of a root line)
    # a pair handed to a helper that stacks it: len() of the pair under fx is the
    # container argument's Proxy, not iteration over a tensor
    (
        "pair_stack",
        "fx",
        """
def merge(parts):
    if len(parts) != 2:
        raise ValueError("two parts")
    return torch.stack(parts, 0).sum(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, pair):
        return self.fc(merge(pair))


def example_inputs():
    return ((torch.randn(2, 4), torch.randn(2, 4)),)
""",
        "non-tensor-argument",
        "def forward(self, pair):",
    ),
    # a Bernoulli built in forward() validates its probabilities under fx: torch's
    # own `if not torch._is_all_true(valid)` asks a traced tensor's truth
    (
        "bernoulli_validate",
        "fx",
        """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        probs = torch.sigmoid(self.fc(x))
        dist = torch.distributions.Bernoulli(probs=probs)
        return dist.mean


def example_inputs():
    return (torch.randn(2, 4),)
""",
        "data-dependent-control-flow",
        "dist = torch.distributions.Bernoulli(probs=probs)",
    ),
    # a uint8 condition eager only warns about; strict export's fake kernel refuses it
    (
        "uint8_where",
        "export-strict",
        """
class Model(nn.Module):
    def forward(self, x):
        keep = (x > 0).to(torch.uint8)
        return torch.where(keep, x, -x)


def example_inputs():
    return (torch.randn(2, 4),)
""",
        "capture-limitation",
        "return torch.where(keep, x, -x)",
    ),
]


case_records, test_zoo8_mechanism_is_triaged = mechanism_tests(
    "zoo8", CASES, lambda src: HEAD + textwrap.dedent(src).lstrip(), top=None
)


def test_a_parameter_handed_to_torch_cat_is_a_container():
    from cuvil_debug.triage.astbits import tensor_seq_param

    fn = ast.parse("def f(xs, y):\n    return torch.cat(xs, -1) + y\n").body[0]
    assert tensor_seq_param(fn, "xs") == {"param-seq"}
    assert tensor_seq_param(fn, "y") == set()
    fn = ast.parse("def f(a, b):\n    return torch.cat([a, b])\n").body[0]
    assert tensor_seq_param(fn, "a") == set()  # an element, not the sequence
