"""Hand-written failures for the checks a model (or a library it calls) makes on the
value torch.fx hands it: a type test the Proxy fails, a branch on the rank, a module
built inside forward(), a sortedness check, a boolean mask under export, a size held
in a name. Each is captured for real and classified; the root line is asserted too."""

from __future__ import annotations

import pytest

HELPER = """
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
