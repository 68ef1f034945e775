"""The mechanisms written from zoo7's misses (docs/TRIAGE.md, "zoo7 as development
data"), in their general forms: Python arithmetic, casts and torch size utilities on a
traced size; a sequence of sizes handed on and walked; the truth of a tensor's
metadata; a cast of configuration (not of a tensor); torch's structured signals for a
data-dependent Python value, a stdlib random draw under strict export and the capture
binding forward()'s signature. The corpus samples that pin each one (samples/failures/
dyn_fx_*, cl_*, ddpv_export_torch_equal, upc_strict_random_roll,
inp_export_buffer_reassign) run in test_corpus.py; the cases here are other spellings
of the same mechanisms, captured for real, with their root line."""

from __future__ import annotations

import ast
import textwrap

import pytest
from triage_cases import capture_cases, check_case

from cuvil_debug.triage.patterns import line_facts
from cuvil_debug.triage.source import _header


def facts(code: str) -> set[str]:
    stmt = ast.parse(textwrap.dedent(code)).body[0]
    return line_facts(stmt, _header(stmt))


@pytest.mark.parametrize(
    ("code", "fact"),
    [
        ("s = 1.0 / float(k.size(-1)) ** 0.5", "shape-math"),
        ("a, b = divmod(x.shape[1], p)", "shape-math"),
        ("n = int(math.ceil(x.shape[-1] / hop))", "shape-math"),
        ("n = round(x.size(1) / 2)", "shape-math"),
        ("s = torch.broadcast_shapes(a.shape, b.shape)", "shape-math"),
        ("s = torch.Size(x.shape[:-1])", "shape-math"),
        ("s = x.shape[:-1]", "shape-seq"),
        ("p = helper(t, x.shape[:-1])", "shape-seq"),
        ("d = base.expand(c.shape[:-1])", "shape-seq"),
        ("if x.requires_grad or flag:\n    pass", "meta-test"),
        ("if self.training and x.is_leaf:\n    pass", "meta-test"),
        ("live = [o for o in outs if o.requires_grad]", "meta-test"),
        ("ps = tuple(filter(lambda p: p.requires_grad, ps))", "meta-test"),
        ("if not x.is_floating_point():\n    pass", "meta-test"),
        ("y = x if x.is_contiguous() else x.contiguous()", "meta-test"),
        ("if x.is_floating_point():\n    pass", "tensor-meta"),
        ("k = int(t)", "item"),
        ("k = int(x.max())", "item"),
    ],
)
def test_value_facts_recognise_the_operand(code, fact):
    assert fact in facts(code)


@pytest.mark.parametrize(
    ("code", "fact"),
    [
        # a size is not a value out of the tensor's data; configuration neither
        ("s = float(k.size(-1))", "item"),
        ("limit = int(self.rate * self.seconds)", "item"),
        ("n = int(4)", "item"),
        # one size is not a sequence of them; a reshape's sizes are not walked
        ("h = x.view(x.shape[0], 4, -1)", "shape-seq"),
        # the flag is asked first: the metadata after it may never be read
        ("if flag or x.requires_grad:\n    pass", "meta-test"),
        ("if x.dtype is None:\n    pass", "shape-math"),
        ("n = len(x)", "shape-math"),
    ],
)
def test_value_facts_leave_other_operands_alone(code, fact):
    assert fact not in facts(code)


HEAD = "import math\nimport random\n\nimport torch\nfrom torch import nn\n\n\n"
INPUTS = "\n\ndef example_inputs():\n    return (torch.randn(2, 6, 4),)\n"
MODEL = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
{body}
"""

CASES = [
    # (name, frontend, forward body, category, text of a root line)
    # round() of a traced size under fx
    (
        "round_half_length",
        "fx",
        "half = round(x.size(1) / 2)\nreturn self.fc(x[:, :half])",
        "dynamic-shape",
        "half = round(x.size(1) / 2)",
    ),
    # the leaf-ness of the input is tensor metadata, whatever flag comes after it
    (
        "is_leaf_branch",
        "fx",
        "if x.is_leaf and self.training:\n    x = x * 2\nreturn self.fc(x)",
        "capture-limitation",
        "if x.is_leaf",
    ),
    # random.random() decides a drop under strict export: a Python draw dynamo
    # would have to make an input
    (
        "random_drop",
        "export-strict",
        "keep = random.random() > 0.25\nreturn self.fc(x) * float(keep)",
        "unsupported-python-construct",
        "keep = random.random()",
    ),
]


@pytest.fixture(scope="module")
def case_records(tmp_path_factory) -> dict:
    def text(body: str) -> str:
        forward = textwrap.indent(body, " " * 8)
        return HEAD + MODEL.format(body=forward).strip() + "\n" + INPUTS

    return capture_cases(tmp_path_factory.mktemp("value_operands"), CASES, text)


@pytest.mark.parametrize(
    "name, frontend, body, category, root", CASES, ids=[c[0] for c in CASES]
)
def test_the_value_decides_the_category(
    case_records, name, frontend, body, category, root
):
    check_case(case_records, name, category, root)


def test_the_capture_binding_forward_signature_is_its_own_signal():
    """torch.export binds the inputs with inspect.Signature.bind: an error raised
    there is the capture's (raise:signature-bind), not the model's call."""
    from cuvil_debug.triage.evidence import _raise_signals

    frame = {"file": "/usr/lib/python3.11/inspect.py", "func": "_bind", "line": 1}
    chain = [{"frames": [frame], "module": "builtins"}]
    assert "raise:signature-bind" in _raise_signals(chain, ())
    frame = {"file": "/m/model.py", "func": "forward", "line": 3, "user": True}
    chain = [{"frames": [frame], "module": "builtins"}]
    assert "raise:signature-bind" not in _raise_signals(chain, ())
