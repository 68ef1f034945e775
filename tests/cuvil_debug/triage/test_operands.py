"""Hand-written failures for the mechanisms written from zoo6's misses (docs/TRIAGE.md):
what the failing Python was applied to (a shape read, a value passed through a helper's
parameter, an unfed Optional), module state written inside forward(), torch's own
guard frames, dynamo tracing numpy or skipping a function, a tuple input under export,
and a model that lives in a single-file module of site-packages. Each is captured for
real and classified; the root line is asserted too."""

from __future__ import annotations

import textwrap

import pytest
from triage_cases import capture_cases, check_case

HEAD = "import numpy as np\nimport torch\nfrom torch import nn\n\n\n"
INPUTS = "\n\ndef example_inputs():\n    return (torch.randn(2, 3, 4),)\n"

CASES = [
    # (name, frontend, model source, category, text of a root line)
    # `list(x.shape)` walks a traced size
    (
        "list_of_shape",
        "fx",
        """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                size = list(x.shape)
                size[-1] = 2
                return self.fc(x).reshape(size)
        """,
        "dynamic-shape",
        "size = list(x.shape)",
    ),
    # a shape slice passed to a helper that branches on it: the parameter passes the
    # size on unchanged, so the branch is on a size
    (
        "shape_through_a_parameter",
        "fx",
        """
        def with_cls(token, dims):
            if not dims:
                raise ValueError("no batch dims")
            return token.expand(*dims, 1, -1)


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.token = nn.Parameter(torch.randn(4))

            def forward(self, x):
                cls = with_cls(self.token, x.shape[:-1])
                return torch.cat([cls, x], dim=-2)
        """,
        "dynamic-shape",
        "with_cls(self.token, x.shape[:-1])",
    ),
    # the walked shape is x's; the unfed Optional packed beside it is not the operand
    (
        "shape_beside_an_optional",
        "fx",
        """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, mask=None):
                batch, seq, keep = *x.shape[:2], mask
                h = self.fc(x)
                return h if keep is None else h * keep.view(batch, seq, 1)
        """,
        "dynamic-shape",
        "*x.shape[:2], mask",
    ),
    # ... but when the walked shape is the unfed Optional's own (a Proxy under fx, so
    # `is not None` holds), the parameter is the cause
    (
        "optional_shape_walked",
        "fx",
        """
        def resize(mask, size):
            assert len(mask.shape[2:]) == len(size)
            return mask


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x, mask=None):
                if mask is not None:
                    mask = resize(mask.view(x.shape[0], 1, -1), x.shape[1:])
                return self.fc(x)
        """,
        "non-tensor-argument",
        "def forward(self, x, mask=None)",
    ),
]

STATE = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("mask", torch.ones(4, 4).tril())

    def forward(self, x):
        self.fc.weight.data = self.fc.weight.data * self.mask
        return self.fc(x)
"""

CASES += [
    # module state written in forward(): export lifts the traced value into its
    # constants; strict export makes a grad-mode region of the `.data` write
    ("weight_data_export", "export", STATE, "inplace-mutation", "weight.data ="),
    ("weight_data_strict", "export-strict", STATE, "inplace-mutation", "weight.data ="),
    # torch.distributions checks its argument with a Python branch on the values
    (
        "distribution_validation",
        "export",
        """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)

            def forward(self, x):
                dist = torch.distributions.Categorical(logits=self.fc(x))
                return dist.probs
        """,
        "data-dependent-control-flow",
        "Categorical(logits=",
    ),
    # dynamo traces numpy on a module's arrays as tensors, then must branch on them
    (
        "numpy_branch_under_dynamo",
        "export-strict",
        """
        class Space:
            low = np.zeros(3)
            high = np.full(3, 255.0)


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.space = Space()

            def forward(self, x):
                scaled = np.any(self.space.low != 0) or np.any(self.space.high != 255)
                if scaled:
                    x = x / 255.0
                return self.fc(x)
        """,
        "non-torch-call",
        "np.any(self.space.low",
    ),
    # dynamo refuses to trace a function it marks as skipped
    (
        "dynamo_skipped_function",
        "export-strict",
        """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                if torch.cpu._is_avx2_supported():
                    x = x * 2
                return self.fc(x)
        """,
        "capture-limitation",
        "_is_avx2_supported",
    ),
]


@pytest.fixture(scope="module")
def case_records(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("operands")
    return capture_cases(
        folder, CASES, lambda src: HEAD + textwrap.dedent(src).strip() + "\n" + INPUTS
    )


@pytest.mark.parametrize(
    "name, frontend, source, category, root", CASES, ids=[c[0] for c in CASES]
)
def test_the_operand_decides_the_category(
    case_records, name, frontend, source, category, root
):
    check_case(case_records, name, category, root)


def test_a_tuple_of_ints_under_export_is_a_non_tensor_input(tmp_path):
    """export flattens the tuple into int placeholders: no Proxy is involved, so it is
    a non-tensor value among the inputs, whatever container it came in."""
    from cuvil_debug.triage.classify import classify
    from cuvil_debug.triage.collect import collect

    path = tmp_path / "int_tuple.py"
    path.write_text(
        HEAD + "class Model(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.token = nn.Parameter(torch.randn(4))\n\n"
        "    def forward(self, dims):\n        return self.token.expand(*dims, 1, -1)\n"
        "\n\ndef example_inputs():\n    return ((2, 3),)\n"
    )
    d = classify(collect(str(path), "export"))
    assert d.category == "unsupported-io-type", (d.category, d.signals)
    assert 16 in [c.line for c in d.roots], [(c.line, c.text) for c in d.roots]


def test_a_single_module_library_and_its_dependency(tmp_path, monkeypatch):
    """A model class in a top-level module of site-packages (`lonemod.py`) makes that
    file the model's code, not the whole folder (torch included): the failing line is
    the dependency's (`deppkg`), and the model module's call into it is a root."""
    from cuvil_debug.triage.classify import classify
    from cuvil_debug.triage.collect import collect

    site = tmp_path / "site-packages"
    (site / "deppkg").mkdir(parents=True)
    (site / "deppkg" / "__init__.py").write_text(
        "def first_rows(x):\n    head, *_ = x\n    return head\n"
    )
    (site / "lonemod.py").write_text(
        "import torch\nfrom torch import nn\n\nfrom deppkg import first_rows\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n"
        "        return first_rows(self.fc(x))\n"
    )
    model = tmp_path / "sample.py"
    model.write_text(
        "import torch\n\nfrom lonemod import Net\n\n\ndef Model():\n    return Net()\n"
        "\n\ndef example_inputs():\n    return (torch.randn(2, 4),)\n"
    )
    monkeypatch.syspath_prepend(str(site))
    d = classify(collect(str(model), "fx"))
    assert d.category == "proxy-iteration", (d.category, d.signals)
    files = {c.file for c in d.roots}
    assert all("site-packages/torch/" not in f for f in files), files
    assert (str((site / "lonemod.py").resolve()), 13) in {
        (c.file, c.line) for c in d.roots
    }, [(c.file, c.line) for c in d.roots]


def test_a_single_module_in_site_packages_is_its_own_code_root():
    """`site-packages/rtdl_revisiting_models.py` holds the model class: that file is
    the model's code (its package name drops `.py`), not every package beside it."""
    import sysconfig

    from cuvil_debug.triage.evidence import _user_roots
    from cuvil_debug.triage.frames import package_of

    site = sysconfig.get_paths()["purelib"]
    lone = f"{site}/lonemod.py"
    roots = _user_roots({"file": "/work/m/sample.py", "model": {"file": lone}})
    assert lone in roots and f"{site}/" not in roots, roots
    assert package_of(lone) == "lonemod"
    assert package_of("/x/site-packages/lonemod.py") == "lonemod"
