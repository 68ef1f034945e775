"""load_model: the happy paths, and one clear FrontendError per user mistake."""

import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torch import nn

from cuvil.errors import CuvilError, FrontendError
from cuvil_debug.loader import LoadedModel, ModelLoadError, load_model

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"

GOOD = """
import torch
from torch import nn

class Model(nn.Module):
    def forward(self, x):
        return x * 2

def make_model():
    return Model()

def example_inputs():
    return (torch.ones(2, 3),)
"""


def write(tmp_path: Path, text: str, name: str = "model.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def load_error(spec: str, entry: str | None = None) -> ModelLoadError:
    with pytest.raises(ModelLoadError) as info:
        load_model(spec, entry)
    err = info.value
    assert isinstance(err, FrontendError) and isinstance(err, CuvilError)
    assert "\n" not in str(err), "a loader error is one line"
    return err


# ---- what loads ----------------------------------------------------------------------


def test_sample_loads_in_eval_mode_with_tensor_inputs():
    loaded = load_model(str(SAMPLES / "mlp.py"))
    assert isinstance(loaded, LoadedModel)
    assert not loaded.model.training
    assert all(isinstance(t, torch.Tensor) for t in loaded.inputs)
    assert loaded.name == "mlp" and loaded.source.endswith("mlp.py")


def test_entry_may_be_a_factory_function(tmp_path):
    loaded = load_model(write(tmp_path, GOOD), entry="make_model")
    assert type(loaded.model).__name__ == "Model"


def test_entry_may_follow_the_path_after_a_colon(tmp_path):
    loaded = load_model(write(tmp_path, GOOD) + ":make_model")
    assert isinstance(loaded.model, nn.Module) and loaded.source.endswith("model.py")


def test_module_attr_spec_imports_from_sys_path(tmp_path, monkeypatch):
    pkg = tmp_path / "cuvil_test_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    write(pkg, GOOD, "models.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = load_model("cuvil_test_pkg.models:Model")
    assert loaded.name == "models" and loaded.source == "cuvil_test_pkg.models:Model"


def test_single_tensor_from_example_inputs_becomes_a_tuple(tmp_path):
    spec = write(tmp_path, GOOD.replace("(torch.ones(2, 3),)", "torch.ones(2, 3)"))
    assert len(load_model(spec).inputs) == 1


def test_each_load_is_a_fresh_module_and_sys_path_is_restored(tmp_path):
    spec = write(tmp_path, GOOD)
    before = list(sys.path)
    first, second = load_model(spec), load_model(spec)
    assert type(first.model) is not type(second.model)
    assert sys.path == before


def test_model_file_may_import_a_sibling_module(tmp_path):
    write(tmp_path, "import torch\nSCALE = torch.ones(1)\n", "helper.py")
    spec = write(tmp_path, "from helper import SCALE\n" + GOOD)
    assert load_model(spec).model is not None


# ---- user mistakes -------------------------------------------------------------------


def test_missing_file_says_it_does_not_exist(tmp_path):
    err = load_error(str(tmp_path / "nope.py"))
    assert "does not exist" in str(err)


def test_directory_is_refused(tmp_path):
    assert "is a directory" in str(load_error(str(tmp_path)))


def test_non_python_file_is_refused(tmp_path):
    err = load_error(write(tmp_path, "hello", "model.txt"))
    assert "not a Python file" in str(err)


def test_undecodable_bytes_are_not_python(tmp_path):
    path = tmp_path / "model.py"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert "not Python source" in str(load_error(str(path)))


def test_syntax_error_points_at_file_line_col(tmp_path):
    spec = write(tmp_path, "import torch\n\ndef broken(:\n    pass\n")
    err = load_error(spec)
    assert err.where == f"{spec}:3:12"
    assert str(err).startswith(f"{spec}:3:12: error: syntax error")


def test_failing_import_points_at_the_import_line(tmp_path):
    spec = write(tmp_path, "import torch\nimport no_such_module_for_cuvil_tests\n")
    err = load_error(spec)
    assert err.where == f"{spec}:2"
    assert "No module named 'no_such_module_for_cuvil_tests'" in str(err)
    assert "install the missing package" in str(err)


def test_error_inside_a_sibling_points_at_the_model_files_import_line(tmp_path):
    write(tmp_path, "raise RuntimeError('helper is broken')\n", "helper2.py")
    spec = write(tmp_path, "import torch\n\nimport helper2\n")
    err = load_error(spec)
    assert err.where == f"{spec}:3" and "helper is broken" in str(err)


def test_failed_import_leaves_no_module_behind(tmp_path):
    names = set(sys.modules)
    load_error(write(tmp_path, "raise ValueError('boom')\n"))
    assert not any(n.startswith("cuvil_user_model") for n in set(sys.modules) - names)


def test_missing_model_lists_the_modules_the_file_defines(tmp_path):
    err = load_error(
        write(
            tmp_path,
            GOOD.replace("class Model", "class Net").replace(
                "return Model()", "return Net()"
            ),
        )
    )
    assert "defines no 'Model'" in str(err)
    assert "--entry NAME" in str(err) and "(it defines: Net)" in str(err)


def test_unknown_entry_is_named(tmp_path):
    err = load_error(write(tmp_path, GOOD), entry="Nope")
    assert "defines no 'Nope'" in str(err) and "Model" in str(err)


def test_entry_that_is_not_callable_is_refused(tmp_path):
    err = load_error(write(tmp_path, GOOD + "\nNUMBER = 3\n"), entry="NUMBER")
    assert "is a int, not an nn.Module subclass" in str(err)


def test_factory_returning_a_non_module_is_refused(tmp_path):
    err = load_error(write(tmp_path, GOOD + "\ndef bad():\n    return 42\n"), "bad")
    assert "returned a int, not an nn.Module" in str(err)


def test_model_constructor_error_points_at_its_line(tmp_path):
    text = GOOD.replace(
        "class Model(nn.Module):",
        "class Model(nn.Module):\n    def __init__(self):\n"
        "        raise ValueError('bad size')\n",
    )
    spec = write(tmp_path, text)
    err = load_error(spec)
    line = (
        textwrap.dedent(text).splitlines().index("        raise ValueError('bad size')")
    )
    assert err.where == f"{spec}:{line + 1}"
    assert "Model() failed: ValueError: bad size" in str(err)


def test_missing_example_inputs_says_how_to_add_it(tmp_path):
    err = load_error(write(tmp_path, GOOD.replace("def example_inputs", "def inputs")))
    assert "defines no 'example_inputs'" in str(err)
    assert "def example_inputs() -> tuple[torch.Tensor, ...]" in str(err)


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        ("(1, 'a')", "element #0 is int, #1 is str"),
        ("()", "returned an empty sequence"),
        ("None", "returned NoneType"),
    ],
)
def test_example_inputs_must_return_tensors(tmp_path, returned, message):
    spec = write(tmp_path, GOOD.replace("(torch.ones(2, 3),)", returned))
    assert message in str(load_error(spec))


def test_example_inputs_error_points_at_its_line(tmp_path):
    spec = write(tmp_path, GOOD.replace("return (torch.ones(2, 3),)", "return 1 / 0"))
    err = load_error(spec)
    assert err.where.startswith(f"{spec}:") and "ZeroDivisionError" in str(err)


def test_module_spec_that_cannot_be_imported(tmp_path):
    err = load_error("no_such_package_for_cuvil.models:Model")
    assert "cannot import module 'no_such_package_for_cuvil.models'" in str(err)
    assert "PYTHONPATH" in str(err)


def test_entry_given_twice_is_refused(tmp_path):
    err = load_error(write(tmp_path, GOOD) + ":Model", entry="make_model")
    assert "already names the entry 'Model'" in str(err)
