"""A core of a crashed release JIT build with ``keep_symbols``: the object MCJIT ran
has no DWARF; its full object is in the store under its debug key (its build-id).

- registration policy: the core's GDB JIT list (``maint info jit``) holds the object
  compiled with ``keep_symbols`` and not the plain release one compiled before it;
- without the store GDB names the kernel but no model line;
- by hand, as the debugger scripts do: read the registered image, take its debug key
  and section addresses (``cuvil/runtime/elfinfo.py``, loaded in GDB's own Python),
  ``add-symbol-file STORE/.build-id/xx/rest.debug -s .ltext ADDR ...``: ``at mlp.py:N``;
- the same in LLDB: ``target modules add FILE``, ``target modules load --file FILE
  .ltext ADDR ...`` with the addresses GDB's session read;
- GDB also finds the debug file by itself through the object's build-id note, from
  ``-iex 'set debug-file-directory STORE'`` and from ``cuvil-debug symbols serve``.
"""

from __future__ import annotations

import re

import pytest

from cuvil.runtime.manifest import read_manifest
from cuvil.runtime.symbols import SymbolStore

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

ELFINFO = ROOT / "compiler" / "runtime" / "elfinfo.py"
BY_HAND = """\
import importlib.util, re, sys
spec = importlib.util.spec_from_file_location("cuvil_elfinfo", {elfinfo!r})
elfinfo = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = elfinfo
spec.loader.exec_module(elfinfo)
table = gdb.execute("maint info jit", to_string=True)
for addr, size in re.findall(r"^0x[0-9a-f]+\\s+(0x[0-9a-f]+)\\s+(\\d+)", table, re.M):
    image = bytes(gdb.selected_inferior().read_memory(int(addr, 16), int(size)))
    key = elfinfo.image_key(image)
    print(f"cuvil-image: {{key}} dwarf={{elfinfo.Elf(image).has_dwarf()}}")
    path = f"{store}/.build-id/{{key[:2]}}/{{key[2:]}}.debug"
    pairs = elfinfo.symbol_file_args(image)
    print("cuvil-sections: " + " ".join(f"{{n}} {{a:#x}}" for n, a in pairs))
    gdb.execute(f"add-symbol-file {{path}} " + " ".join(f"-s {{n}} {{a:#x}}" for n, a in pairs))
"""


@pytest.fixture(scope="module")
def crash(tmp_path_factory):
    """(core, store, {"plain": key, "kept": key}, {kernel symbol: model line})."""
    tmp = tmp_path_factory.mktemp("store-jit")
    store, folder = tmp / "store", tmp / "run"
    folder.mkdir()
    core, out = make_core(["jit", str(MODEL), str(store)], folder)
    built = keys(out)
    assert set(built) == {"plain", "kept"} and built["plain"] != built["kept"], out
    debug = SymbolStore(store).find(built["kept"])
    assert debug is not None, f"the kept build is not in the store\n{out}"
    lines = {
        k["symbol"]: int(k["source"].split(":")[1])
        for k in read_manifest(debug)["kernels"]
        if k["source"] and k["source"].split(":")[0].endswith(MODEL.name)
    }
    yield core, store, built, lines
    core.unlink()


@pytest.fixture(scope="module")
def by_hand(crash, tmp_path_factory) -> tuple[str, str]:
    """GDB without the store: (bt before, output after add-symbol-file by hand)."""
    core, store, _, _ = crash
    script = tmp_path_factory.mktemp("by-hand") / "add_symbols.py"
    script.write_text(BY_HAND.format(elfinfo=str(ELFINFO), store=str(store)))
    out = gdb_core(core, ["bt 4", "echo cuvil-by-hand\\n", f"source {script}", "bt 4"])
    before, _, after = out.partition("cuvil-by-hand\n")
    return before, after


def test_only_the_build_with_a_store_is_registered(crash, by_hand):
    _, _, built, _ = crash
    images = re.findall(r"^cuvil-image: ([0-9a-f]+) dwarf=(\w+)$", by_hand[1], re.M)
    assert images == [(built["kept"], "False")], by_hand[1]  # registered, stripped


def test_without_the_store_gdb_names_the_kernel_but_no_line(by_hand):
    before, _ = by_hand
    assert kernel_frames(before), before
    assert not located_frames(before, MODEL.name), before


def test_add_symbol_file_by_hand_at_the_registered_addresses(crash, by_hand):
    _, _, _, lines = crash
    assert_symbolised(by_hand[1], lines, MODEL.name)


def test_lldb_loads_the_debug_file_by_hand_at_the_same_addresses(crash, by_hand):
    core, store, built, lines = crash
    [pairs] = re.findall(r"^cuvil-sections: (.*)$", by_hand[1], re.M)
    key = built["kept"]
    path = store / ".build-id" / key[:2] / f"{key[2:]}.debug"
    commands = [
        "settings set plugin.jit-loader.gdb.enable on",
        "bt 4",
        "script print('cuvil-by-hand')",
        f"target modules add {path}",
        f"target modules load --file {path} {pairs}",
        "bt 4",
    ]
    before, _, after = lldb_core(core, commands).partition("cuvil-by-hand\n")
    assert kernel_frames(before) and not located_frames(before, MODEL.name), before
    assert_symbolised(after, lines, MODEL.name)


def test_gdb_finds_the_debug_file_in_the_store_folder(crash):
    core, store, _, lines = crash
    assert_symbolised(gdb_core(core, ["bt 4"], store=store), lines, MODEL.name)


def test_gdb_fetches_the_debug_file_from_the_debuginfod_server(crash, tmp_path):
    core, store, built, lines = crash

    def run(url):
        return gdb_core(core, ["bt 4"], url=url, cache=tmp_path)

    assert_symbolised(through_server(store, built["kept"], run), lines, MODEL.name)


# ---- the cuvil commands: `cuvil symbols` loads the store's file itself --------------
def test_cuvil_symbols_loads_the_jit_debug_file_from_the_store(crash):
    core, store, built, lines = crash
    commands = [
        "source gdb_scripts/cuvil.py",
        "cuvil builds",
        "echo cuvil-before\\n",
        "bt 3",
        f"cuvil symbols --store {store}",
        "bt 4",
        "cuvil where",
    ]
    out = gdb_core(core, commands)
    assert f"key {built['kept']}" in out, out
    before, _, after = out.partition("cuvil-before\n")
    assert not located_frames(before.split("cuvil symbols")[0], MODEL.name), out
    assert re.search(r"^\w+: loaded \S+\.debug$", after, re.M), out
    assert_symbolised(after, lines, MODEL.name)
    assert re.search(r"^kernel:\s+cuvil_k\d+_\w+: ", after, re.M), out
