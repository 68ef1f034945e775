"""A core of a crashed AOT library saved with split_debug=True: stock GDB and LLDB show
``at mlp.py:N`` with the symbol store (a folder, or ``cuvil-debug symbols serve``) and
without it do not.

The bundle is saved with ``split_debug=True``, filed with ``cuvil-debug symbols add``
and shipped without model.debug; a fresh process loads the shipped copy and calls
its entry with a NULL arena. Commands (batch, no init files)::

    gdb -batch -nx -iex 'set debug-file-directory STORE' -iex 'set auto-solib-add off'
        -ex 'sharedlibrary model' -ex bt python core
    DEBUGINFOD_URLS=URL gdb ... -iex 'set debuginfod enabled on' ...
    lldb -b -x -O 'settings set target.debug-file-search-paths STORE' -c core python
         -o bt
    lldb -b -x -O 'settings set plugin.symbol-locator.debuginfod.server-urls URL' ...
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

import cuvil
from cuvil_debug import load_model
from cuvil_debug.cli import main as cli

from .conftest import MODEL, ROOT
from .store_helpers import (
    assert_symbolised,
    gdb_core,
    kernel_frames,
    keys,
    lldb_core,
    located_frames,
    make_core,
    through_server,
)


@pytest.fixture(scope="module")
def crash(tmp_path_factory):
    """(core, store, debug key, {kernel symbol: model line}) of one crash."""
    tmp = tmp_path_factory.mktemp("store-aot")
    loaded = load_model(str(MODEL))
    options = {"opt_level": "O2", "debug": True}
    compiled = cuvil.compile(loaded.model.eval(), loaded.inputs, options=options)
    bundle = cuvil.save(compiled, tmp / "bundle", split_debug=True)
    store = tmp / "store"
    assert cli(["symbols", "add", str(bundle), "--store", str(store)]) == 0
    shipped = tmp / "shipped"
    shipped.mkdir()
    for name in ("model.so", "model.json", "params.pt"):  # not model.debug
        shutil.copy(bundle / name, shipped / name)
    folder = tmp / "run"
    folder.mkdir()
    core, out = make_core(["aot", str(shipped)], folder)
    meta = json.loads((bundle / "model.json").read_text())
    assert keys(out)["aot"] == meta["debug_key"], out
    lines = {
        k["symbol"]: int(k["source"].split(":")[1])
        for k in meta["kernels"]
        if k["source"] and k["source"].split(":")[0].endswith(MODEL.name)
    }
    yield core, store, meta["debug_key"], lines
    core.unlink()


def _assert_not_symbolised(out: str) -> None:
    assert kernel_frames(out), f"the crashing kernel is not in the backtrace\n{out}"
    assert not located_frames(out, MODEL.name), out


GDB_CUVIL = [
    f"source {ROOT / 'gdb_scripts' / 'cuvil.py'}",
    "cuvil where",
    "cuvil explain",
]
LLDB_CUVIL = [f"command script import {ROOT / 'lldb_scripts' / 'cuvil.py'}"]
LLDB_CUVIL += ["cuvil where", "cuvil explain"]


def assert_where_and_explain(out: str) -> None:
    """The commands name the crashing kernel's node and the NULL arena."""
    assert re.search(r"^kernel:\s+cuvil_k0_\w+: ", out, re.M), out
    assert "arena is NULL: cuvil_main was called without its" in out, out
    assert "Traceback" not in out, out


def test_gdb_without_the_store_shows_no_model_line(crash):
    core, _, _, _ = crash
    out = gdb_core(core, [*GDB_CUVIL, "bt 4"], solibs="model")
    _assert_not_symbolised(out)
    # the stripped library keeps its symbols and manifest: the kernel is named, but
    # the pointers (and the line) need the DWARF the store holds
    assert re.search(r"^kernel:\s+cuvil_k0_\w+: ", out, re.M), out
    assert "pointer arguments are not readable here" in out, out


def test_gdb_with_the_store_folder_shows_the_model_line(crash):
    core, store, _, lines = crash
    out = gdb_core(core, [*GDB_CUVIL, "bt 4"], store=store, solibs="model")
    assert_symbolised(out, lines, MODEL.name)
    assert_where_and_explain(out)


def test_gdb_fetches_from_the_debuginfod_server(crash, tmp_path):
    core, store, key, lines = crash

    def run(url):
        commands = [*GDB_CUVIL, "bt 4"]
        return gdb_core(core, commands, url=url, cache=tmp_path, solibs="model")

    out = through_server(store, key, run)
    assert_symbolised(out, lines, MODEL.name)
    assert_where_and_explain(out)


def test_lldb_without_the_store_shows_no_model_line(crash):
    core, _, _, _ = crash
    _assert_not_symbolised(lldb_core(core, ["bt 4"]))


def test_lldb_with_the_store_folder_shows_the_model_line(crash):
    core, store, _, lines = crash
    out = lldb_core(core, [*LLDB_CUVIL, "bt 4"], store=store)
    assert_symbolised(out, lines, MODEL.name)
    assert_where_and_explain(out)


def test_lldb_fetches_from_the_debuginfod_server(crash, tmp_path):
    core, store, key, lines = crash

    def run(url):
        return lldb_core(core, [*LLDB_CUVIL, "bt 4"], url=url, cache=tmp_path)

    out = through_server(store, key, run)
    assert_symbolised(out, lines, MODEL.name)
    assert_where_and_explain(out)
