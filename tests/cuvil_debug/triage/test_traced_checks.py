"""Hand-written failures for the checks a model (or a library it calls) makes on the
value torch.fx hands it: a type test the Proxy fails, a branch on the rank, a module
built inside forward(), a sortedness check, a boolean mask under export, a size held
in a name. Each is captured for real and classified; the root line is asserted too."""

from __future__ import annotations

import pytest

HELPER = """
import numpy as np


def check_tensor(v):
    if not isinstance(v, torch.Tensor):
        raise TypeError(f"expected a tensor, got {type(v)}")
    return v


def pair(v):
    if isinstance(v, tuple):
        return v
    elif isinstance(v, torch.Tensor):
        return v, v
    raise ValueError("pair() takes a tensor or a pair of tensors")
"""


CASES = [
    # (name, frontend, forward body, category, text of the root line)
    # a check helper raising on the Proxy: the test, then its call in forward()
    (
        "type_check_helper",
        "fx",
        "x = check_tensor(x)\nreturn self.fc(x)",
        "upc",
        "if not isinstance",
    ),
    # an if/elif chain that returns for tensors falls through to the raise
    (
        "elif_fall_through",
        "fx",
        "a, b = pair(x)\nreturn self.fc(a) + b",
        "upc",
        "elif isinstance",
    ),
    # `if x.ndim == 3:` branches on the rank: tensor metadata, not a size
    (
        "rank_branch",
        "fx",
        "if x.ndim == 3:\n    x = x.flatten(1)\nreturn self.fc(x)",
        "capture-limitation",
        "if x.ndim",
    ),
    # a module built inside forward() is no submodule fx can name
    (
        "module_in_forward",
        "fx",
        "x = nn.ZeroPad2d((1, 0, 0, 0))(x)\nreturn x[:, 1:]",
        "capture-limitation",
        "nn.ZeroPad2d",
    ),
    # a Python `if` on a reduced comparison: the data decides
    (
        "sorted_check",
        "fx",
        "if not torch.all(x[:-1] <= x[1:]):\n    x = x.sort(0).values\nreturn self.fc(x)",
        "data-dependent-control-flow",
        "if not torch.all",
    ),
    # a boolean mask under export: the row count depends on the values
    (
        "bool_mask_rows",
        "export",
        "keep = x.sum(-1) > 0\nreturn self.fc(x[keep])",
        "dynamic-shape",
        "x[keep]",
    ),
    # `len()` of a name holding the shape: Python logic on a size
    (
        "len_of_shape_name",
        "fx",
        "dims = x.shape[:2]\nif len(dims) != 2:\n    raise ValueError('2-D')\n"
        "return self.fc(x)",
        "dynamic-shape",
        "if len(dims)",
    ),
]

CASES += [
    # an item assignment into a traced tensor: fx records none, whatever it came from
    (
        "setitem_traced",
        "fx",
        "y = self.fc(x)\ny[:, 0] = 0.0\nreturn y",
        "inplace-mutation",
        "y[:, 0] = 0.0",
    ),
    # a list built from the rank, then assigned into: the list is a Proxy of x.dim()
    (
        "rank_list_setitem",
        "fx",
        "shape = [1] * x.dim()\nshape[0] = -1\nreturn self.fc(x).view(*shape)",
        "capture-limitation",
        "shape = [1] * x.dim()",
    ),
    # numpy on a size: Python logic on the traced batch dim
    (
        "numpy_on_size",
        "fx",
        "n = int(np.ceil(x.shape[0] / 2))\nreturn self.fc(x).chunk(n, 0)[0]",
        "dynamic-shape",
        "np.ceil",
    ),
    # a number taken out of a reduction and used as a size
    (
        "int_of_max_size",
        "export",
        "n = int(x.argmax()) + 1\nreturn self.fc(x).new_zeros(n, 4)",
        "data-dependent-python-value",
        "int(x.argmax())",
    ),
]

SHORT = {"upc": "unsupported-python-construct"}


@pytest.mark.parametrize(
    "name, frontend, forward, category, root", CASES, ids=[c[0] for c in CASES]
)
def test_a_traced_check_is_named_with_its_line(
    write_model, name, frontend, forward, category, root
):
    from cuvil_debug.triage.classify import classify
    from cuvil_debug.triage.collect import collect

    path = write_model(f"{name}.py", forward)
    text = path.read_text()
    text = text.replace("\n\nclass Model", HELPER + "\n\nclass Model", 1)
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if root in t)
    record = collect(str(path), frontend)
    assert record["status"] == "failed", record.get("status")
    d = classify(record)
    assert d.category == SHORT.get(category, category), (d.category, d.signals)
    assert line in [c.line for c in d.roots], (
        root,
        [(c.line, c.text) for c in d.roots],
    )


def test_a_size_helper_meeting_a_traced_int_is_no_type_check_failure(tmp_path):
    """`def pad(n: int)` testing `isinstance(n, torch.Tensor)` expects a number: the
    test is not what sent a tensor down the wrong path."""
    from cuvil_debug.triage.failing import type_guard

    path = tmp_path / "pad.py"
    path.write_text(
        "import torch\n\n\ndef pad(n: int, k: int):\n"
        "    if isinstance(n, torch.Tensor):\n        return n % k\n"
        "    return max(k - n % k, 0)\n\n\n"
        "def check(v):\n    if isinstance(v, torch.Tensor):\n        return v\n"
        "    raise TypeError('no')\n"
    )
    assert type_guard((str(path), 7)) is None
    assert type_guard((str(path), 13)) == (str(path), 11)


def test_a_scalar_example_input_under_export_is_a_non_tensor_input(tmp_path):
    """export keeps a float argument as a placeholder: no Proxy is involved, so it is
    a non-tensor among the inputs, and the example input is a root candidate."""
    from cuvil_debug.triage.classify import classify
    from cuvil_debug.triage.collect import collect

    path = tmp_path / "scale_arg.py"
    path.write_text(
        "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 4)\n\n"
        "    def forward(self, x, scale):\n        return self.fc(x) * scale\n\n\n"
        "def example_inputs():\n    return (torch.randn(2, 4), 0.5)\n"
    )
    d = classify(collect(str(path), "export"))
    assert d.category == "unsupported-io-type", (d.category, d.signals)
    assert {10, 15} <= {c.line for c in d.roots}, [(c.line, c.text) for c in d.roots]
