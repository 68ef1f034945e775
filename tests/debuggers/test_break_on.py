"""``break_on``: a debugger trap at the start of the kernel that computes a node.

    options={"break_on": ["block2_relu"]}      (CLI: --break-on NODE, repeatable)

The kernel computing each named FX node (its own, a fused member's or a folded
node's; a view's data) or every kernel of a named op (``cuvil.conv2d``) starts with
``llvm.debugtrap`` after its prologue, so ``gdb -batch -ex run`` stops there once per
call with no breakpoint set (numba.gdb_breakpoint()'s use). The GDB sessions use the
fast prologue of test_gdb.py, so that GDB knows the JIT interface.
"""

from __future__ import annotations

import argparse
import re

import pytest

import cuvil
from cuvil.args import CompileArgs
from cuvil.errors import CuvilError
from cuvil_debug import load_model

from .conftest import find_debugger
from .dwarf_session import GDB_LOADED, GDB_PROLOGUE, MODELS, SIGTRAP, run

SMALL_CNN = MODELS / "small_cnn.py"


@pytest.fixture(scope="module")
def cnn():
    loaded = load_model(str(SMALL_CNN))
    return loaded.model, loaded.inputs


def _trapped(cnn, names, debug=False) -> dict[str, str]:
    """Kernel symbol -> its body, for the kernels that contain a trap."""
    model, inputs = cnn
    options = {"opt_level": "O3", "break_on": names, "debug": debug}
    text = cuvil.compile(model, inputs, options=options).llvm_ir()
    bodies = re.findall(
        r'^define [^\n]*@"(cuvil_\w+)"\(.*?\n\{\n(.*?)\n\}', text, re.M | re.S
    )
    return {name: body for name, body in bodies if '@"llvm.debugtrap"' in body}


@pytest.mark.parametrize(
    "names, kernels",
    [
        (["block2_relu"], ["cuvil_k3_block2_conv"]),  # a fused member
        # folded into the conv: its kernel, not the relayout made for it (k0)
        (["block1_bn"], ["cuvil_k1_block1_conv"]),
        (["fc"], ["cuvil_k6_fc"]),  # a kernel's own node
        (["flatten"], ["cuvil_k5_avgpool"]),  # a view: where its data is computed
        (["cuvil.max_pool2d"], ["cuvil_k2_block1_pool", "cuvil_k4_block2_pool"]),
        # an op name (fused members too) and a node
        (
            ["cuvil.relu", "fc"],
            ["cuvil_k1_block1_conv", "cuvil_k3_block2_conv", "cuvil_k6_fc"],
        ),
    ],
)
def test_break_on_traps_in_the_kernel_that_computes_the_node(cnn, names, kernels):
    assert sorted(_trapped(cnn, names)) == kernels


@pytest.mark.parametrize("debug", [False, True])
def test_the_trap_comes_once_at_the_start_after_the_prologue(cnn, debug):
    (body,) = _trapped(cnn, ["block2_relu"], debug).values()
    entry = body.split("br label")[0]
    assert body.count("llvm.debugtrap") == 1 and "llvm.debugtrap" in entry
    if debug:  # after the argument reloads that end the debug prologue
        assert entry.rindex("load volatile") < entry.index("llvm.debugtrap")


@pytest.mark.parametrize(
    "name, guess", [("block2_rel", "'block2_relu'"), ("cuvil.conv", "'cuvil.conv2d'")]
)
def test_an_unknown_name_is_an_error_with_close_matches(cnn, name, guess):
    with pytest.raises(CuvilError) as info:
        _trapped(cnn, [name])
    assert f"'{name}'" in info.value.message and guess in info.value.message
    assert "FX node names" in info.value.hint


def test_the_cli_compile_group_takes_break_on():
    group = CompileArgs(native=True)
    parser = argparse.ArgumentParser()
    group.add_to(parser)
    args = parser.parse_args(["--break-on", "fc", "--break-on", "cuvil.relu"])
    assert group.parse(args).break_on == ("fc", "cuvil.relu")
    assert group.parse(parser.parse_args([])).break_on == ()


@pytest.fixture(scope="module", params=["release", "debug"])
def trapped_run(request) -> tuple[str, str]:
    """``gdb -batch -ex run`` over small_cnn at O3 with break_on, two calls."""
    gdb = find_debugger("gdb")
    commands = [
        *GDB_PROLOGUE,
        *GDB_LOADED,
        "bt 1",
        "bt",
        "continue",
        "bt 1",
        "continue",
    ]
    argv = ["--break-on", "block2_relu", "--calls", "2"]
    return request.param, run(
        [gdb, "-batch", "-nx"], commands, SMALL_CNN, request.param, *argv
    )


def test_gdb_stops_with_sigtrap_in_the_nodes_kernel_once_per_call(trapped_run):
    build, out = trapped_run
    assert len(SIGTRAP.findall(out)) == 2, out
    frames = re.findall(
        r"^#0\s+(?:0x[0-9a-f]+ in )?(\w+) \(.*\) at (\S+):(\d+)$", out, re.M
    )
    # bt 1, bt, bt 1 (a release build's kernel is an inlined frame: still named)
    assert frames == [("cuvil_k3_block2_conv", "small_cnn.py", "16")] * 3, out
    assert re.search(r"^#2\s+cuvil_main \(.*\) at small_cnn\.py:16$", out, re.M), out
    assert f"cuvil-run: O3 {build}" in out and "exited normally" in out, out


def test_diff_break_on_traps_in_its_native_build_and_reduce_refuses_it(capsys):
    """`gdb --args cuvil-debug diff MODEL --break-on NODE` stops in the node's kernel
    of the build the diff runs; bisect and reduce, which compile many variants, say so."""
    import sys

    from cuvil_debug.cli import main

    from .conftest import ROOT, find_debugger, run_batch

    model = str(ROOT / "samples" / "models" / "small_cnn.py")
    argv = [find_debugger("gdb"), "-batch", "-nx"]
    for c in ("set debuginfod enabled off", "run", "bt 1", "kill"):
        argv += ["-ex", c]
    cli = [sys.executable, "-m", "cuvil_debug.cli", "diff", model]
    out = run_batch([*argv, "--args", *cli, "--break-on", "block1_pool"])
    assert "SIGTRAP" in out and "cuvil_k2_block1_pool" in out, out
    assert main(["reduce", model, "--break-on", "block1_pool"]) == 2
    assert "--break-on is for cuvil-debug diff" in capsys.readouterr().err
