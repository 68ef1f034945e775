"""The ``cuvil`` LLDB commands (lldb_scripts/cuvil.py) in the real LLDB 22, batch mode.

    lldb-22 -b -x -o 'command script import lldb_scripts/cuvil.py'
            -o 'cuvil break block1_pool --after' -o run -o 'cuvil print block1_pool --stats'
            ... -- python cuvil_debuggee.py samples/models/small_cnn.py --opt O3 ...

One LLDB session per scenario (module-scoped fixtures), over the shipped debuggee
(samples/debug/run.py): small_cnn at O0 and at O3 (a value node, a fused member, a
folded node; `cuvil print --stats` against eager PyTorch), a recompile (the code is freed
and compiled again: a pending breakpoint stops in both), an AOT library (armed at its
first call; --after through its PLT; `cuvil symbols`), a crash of a stripped JIT build
whose debug file is in a symbol store (tests/debuggers/crash_store.py), ResNet-18 at O3,
and bad input at every stage: one ``cuvil: ...`` line, no traceback.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import find_debugger

ROOT = Path(__file__).resolve().parents[2]
DEBUGGEE = Path(__file__).with_name("cuvil_debuggee.py")
SCRIPT = ROOT / "lldb_scripts" / "cuvil.py"
SMALL = "samples/models/small_cnn.py"
RESNET = "samples/models/resnet18.py"
STOP = re.compile(r"^cuvil: stopped (before|after) (\w+):", re.M)
# "stop reason = breakpoint 3.1" (one thread) or "... = breakpoint 3.1 4.1"
LLDB_STOP = re.compile(r"stop reason = breakpoint \d+\.\d+")


@pytest.fixture(scope="module")
def lldb() -> str:
    path = find_debugger("lldb-22", "lldb")
    probe = subprocess.run(
        [path, "-b", "-x", "-o", "script print('cuvil' + '-python-ok')"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    if "cuvil-python-ok" not in probe.stdout.replace("'cuvil' + '-python-ok'", ""):
        pytest.skip(f"{path} has no working Python scripting")
    return path


@dataclass
class Transcript:
    text: str

    def output(self, command: str, nth: int = 0) -> str:
        """What the `nth` run of `command` printed (up to the next command; -1: the
        last run)."""
        parts = self.text.split(f"(lldb) {command}\n")[1:]
        assert len(parts) > nth, f"'{command}' #{nth} did not run:\n{self.text}"
        return parts[nth].split("(lldb) ", 1)[0]

    def stops(self) -> list[tuple[str, str]]:
        """(before|after, kernel) of each stop the cuvil breakpoints made."""
        return STOP.findall(self.text)

    def eager(self, node: str) -> dict[str, float]:
        line = re.search(rf"^eager-stats {node}: (.*)$", self.text, re.M)
        assert line, f"the debuggee printed no statistics of {node}:\n{self.text}"
        return _numbers(line.group(1))


def _numbers(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"(\w+)=(\S+)", text)}


def run_lldb(
    lldb: str,
    commands: list[str],
    *args: str,
    crashed: list[str] = (),
    debuggee: Path = DEBUGGEE,
) -> Transcript:
    """LLDB in batch mode: `commands`, then (-k) `crashed` once the program crashes
    (batch mode runs no more -o commands after a crash)."""
    argv = [lldb, "-b", "-x", "-o", f"command script import {SCRIPT}"]
    for command in commands:
        argv += ["-o", command]
    for command in crashed:
        argv += ["-k", command]
    argv += ["--", sys.executable, str(debuggee), *args]
    skip = ("DEBUGINFOD_URLS", "CUVIL_SYMBOL_STORE")
    env = {k: v for k, v in os.environ.items() if k not in skip}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.run(
        argv,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )
    return Transcript(proc.stdout + proc.stderr)


def assert_stats_match(out: Transcript, command: str, node: str, nth: int = 0):
    text = out.output(command, nth)
    line = re.search(r"^stats: (.*)$", text, re.M)
    assert line, f"'{command}' printed no statistics:\n{out.text}"
    got, want = _numbers(line.group(1)), out.eager(node)
    assert got["n"] == want["n"], out.text
    for key in ("min", "max", "mean"):
        assert got[key] == pytest.approx(want[key], rel=1e-4, abs=1e-6), (key, text)


def assert_clean(out: Transcript) -> None:
    assert "Traceback" not in out.text, out.text
    assert "internal error" not in out.text, out.text
    assert "exited with status = 0" in out.text, out.text


def assert_one_line(out: Transcript, command: str, expect: str, nth: int = 0):
    lines = [ln for ln in out.output(command, nth).splitlines() if ln.strip()]
    mine = [ln for ln in lines if ln.startswith("cuvil")]
    assert len(mine) == 1 and mine[0].startswith("cuvil:"), (command, lines)
    assert expect in mine[0], (command, mine[0])


def kernel_table(text: str) -> dict[str, tuple[str, ...]]:
    """`cuvil kernels` rows: symbol -> its nodes."""
    rows = [ln.split() for ln in text.splitlines() if ln.startswith("  0x")]
    return {r[1]: tuple(r[3].split(",")) for r in rows}


@dataclass
class Manifest:
    """What cuvil.compile reports for (model, opt): its kernels, and each node's."""

    kernels: dict[str, tuple[str, ...]]  # symbol -> FX nodes (program.kernels)
    calls: dict[str, int]  # symbol -> its call index
    nodes: dict[str, dict]  # the manifest's "nodes" map

    def stops(self, *specs: tuple[str, str]) -> list[tuple[str, str]]:
        """The stops of one call for specs (node, before|after), in call order."""
        sites = [(phase, self.nodes[node]["kernel"]) for node, phase in specs]
        return sorted(sites, key=lambda s: self.calls[s[1]])


@pytest.fixture(scope="module")
def manifest():
    import cuvil
    from cuvil.runtime.manifest import live_manifest
    from cuvil_debug import load_model

    cache: dict = {}

    def get(model: str, opt: str) -> Manifest:
        if (model, opt) not in cache:
            loaded = load_model(str(ROOT / model))
            cm = cuvil.compile(
                loaded.model.eval(),
                list(loaded.inputs),
                options={"debug": True, "opt_level": opt},
            )
            kernels = cm.program.kernels
            cache[model, opt] = Manifest(
                {k.symbol: tuple(k.nodes) for k in kernels},
                {k.symbol: k.call_index for k in kernels},
                live_manifest(cm.jit)["nodes"],
            )
        return cache[model, opt]

    return get


# ---- O0: a value node before and after; bad input before, during and after the run --
NOT_LOADED = {  # command -> what its one line says, before the program runs
    "cuvil kernels": "no Cuvil code is loaded",
    "cuvil builds": "no Cuvil code is loaded",
    "cuvil where": "the program is not stopped",
    "cuvil explain": "the program is not stopped",
    "cuvil bt": "no frames",
    "cuvil print block1_relu": "no Cuvil code is loaded",
    "cuvil symbols": "no Cuvil code is loaded",
    "cuvil delete x": "usage: cuvil delete",
    "cuvil frobnicate": "unknown command 'frobnicate'",
    "cuvil break": "usage: cuvil break",
    "cuvil print": "print: the following arguments are required",
}
STOPPED = {  # ... and while stopped in a kernel
    "cuvil print no_such_node": "unknown tensor 'no_such_node'",
    "cuvil print block1_relu --slice zz": "bad index 'zz'",
    "cuvil break x": "x is an input of the model",
    "cuvil print block1_conv --limit": "print: argument --limit",
}
EXITED = {
    "cuvil where": "the program is not stopped",
    "cuvil print block1_relu": "no Cuvil code is loaded",
    "cuvil kernels": "no Cuvil code is loaded",
}


@pytest.fixture(scope="module")
def o0(lldb) -> Transcript:
    commands = [
        *NOT_LOADED,
        "cuvil break block2_bn",
        "cuvil break block1_relu --after",
        "run",
        "cuvil where",
        "cuvil print block1_relu --stats",
        "cuvil kernels",
        *STOPPED,
        "cuvil break no_such_node",
        "cuvil delete 3",
        "continue",
        "cuvil where",
        "cuvil explain",
        "cuvil bt",
        "continue",
        "continue",
        "continue",
        *EXITED,
    ]
    args = (SMALL, "--opt", "O0", "--runs", "2", "--stats", "block1_relu")
    return run_lldb(lldb, commands, *args)


def test_o0_value_node_stops_once_per_call_before_and_after(o0, manifest):
    once = manifest(SMALL, "O0").stops(
        ("block1_relu", "after"), ("block2_bn", "before")
    )
    assert o0.stops() == once * 2, o0.text
    assert len(LLDB_STOP.findall(o0.text)) == 4, o0.text
    assert "[after]" in o0.output("cuvil where", 1), o0.text
    assert "[before]" in o0.output("cuvil where", 2), o0.text
    assert_clean(o0)


def test_o0_print_stats_after_the_kernel_matches_eager(o0):
    assert_stats_match(o0, "cuvil print block1_relu --stats", "block1_relu")


def test_o0_kernels_lists_every_kernel_with_its_nodes(o0, manifest):
    table = kernel_table(o0.output("cuvil kernels", 1))
    assert table == manifest(SMALL, "O0").kernels, o0.text


def test_o0_explain_and_bt_in_a_kernel(o0, manifest):
    kernel = manifest(SMALL, "O0").nodes["block2_bn"]["kernel"]
    assert "every pointer is where its slot says" in o0.output("cuvil explain", 1)
    bt = o0.output("cuvil bt", 1).splitlines()
    assert bt[0].startswith(f"#0   {kernel}: block2_bn [cuvil.batch_norm]"), bt
    assert any(re.match(r"#\d+ +cuvil_main \[Model\]", ln) for ln in bt[1:4]), bt
    assert any("ctypes/libffi frames hidden" in ln for ln in bt), bt


@pytest.mark.parametrize("command", list(NOT_LOADED))
def test_bad_input_before_the_run_is_one_line(o0, command):
    assert_one_line(o0, command, NOT_LOADED[command])


@pytest.mark.parametrize("command", list(STOPPED))
def test_bad_input_while_stopped_is_one_line(o0, command):
    assert_one_line(o0, command, STOPPED[command])


@pytest.mark.parametrize("command", list(EXITED))
def test_bad_input_after_exit_is_one_line(o0, command):
    assert_one_line(o0, command, EXITED[command], nth=-1)


def test_break_on_an_unknown_node_says_so_and_stays_pending(o0):
    text = o0.output("cuvil break no_such_node")
    assert "'no_such_node' is not a node" in text and "pending" in text, text
    assert "deleted 1 breakpoint" in o0.output("cuvil delete 3"), o0.text


# ---- O3: a fused member, a folded node and a value node ------------------------------
@pytest.fixture(scope="module")
def o3(lldb) -> Transcript:
    commands = [
        "cuvil break block1_bn",  # fused into the block1 conv kernel
        "cuvil break block2_conv",  # folded into the block2 conv kernel
        "cuvil break block1_pool --after",  # a value of its own
        "run",
        "cuvil kernels",
        "cuvil break block2_bn",  # loaded now: the notes say what fused/folded means
        "cuvil break block1_conv",
        "cuvil delete 4 5",
        "continue",
        "cuvil print block1_pool --stats",
        "cuvil where",
        "continue",
        "cuvil bt",
        "frame variable",
        *["continue"] * 4,
    ]
    args = (SMALL, "--opt", "O3", "--runs", "2", "--stats", "block1_pool")
    return run_lldb(lldb, commands, *args)


def test_o3_fused_folded_and_value_nodes_stop_once_per_call(o3, manifest):
    m = manifest(SMALL, "O3")
    assert m.nodes["block1_bn"]["status"] == "fused", m.nodes
    assert m.nodes["block2_conv"]["status"] == "folded", m.nodes
    specs = ("block1_bn", "before"), ("block2_conv", "before"), ("block1_pool", "after")
    once = m.stops(*specs)
    assert len({k for _, k in once}) == 3, once  # three kernels: one stop each
    assert o3.stops() == once * 2, o3.text
    assert len(LLDB_STOP.findall(o3.text)) == 6, o3.text
    fused, folded = (
        o3.output("cuvil break block2_bn"),
        o3.output("cuvil break block1_conv"),
    )
    assert "block2_bn is fused into" in fused, fused
    assert "block1_conv was folded into" in folded, folded
    assert "deleted 2 breakpoint(s)" in o3.output("cuvil delete 4 5"), o3.text
    assert_clean(o3)


def test_o3_print_stats_after_the_kernel_matches_eager(o3):
    assert_stats_match(o3, "cuvil print block1_pool --stats", "block1_pool")
    assert "[after]" in o3.output("cuvil where"), o3.text


def test_o3_kernels_lists_every_kernel_with_its_nodes(o3, manifest):
    assert kernel_table(o3.output("cuvil kernels")) == manifest(SMALL, "O3").kernels


def test_o3_kernel_arguments_have_tensor_summaries(o3, manifest):
    """At a kernel's first instruction the summary also gives the ABI value."""
    kernel = manifest(SMALL, "O3").nodes["block2_conv"]["kernel"]
    shown = o3.output("frame variable")
    assert re.search(
        r"^\(float \*\) block2_relu = 0x[0-9a-f]{16} <1x32x16x16 f32 nhwc> \(entry\)$",
        shown,
        re.M,
    ), shown
    bt = o3.output("cuvil bt")
    assert bt.startswith(f"#0   {kernel}: block2_relu [cuvil.fused"), bt


# ---- a recompile: freed and compiled again, the pending breakpoints stop in both ------
@pytest.fixture(scope="module")
def recompiled(lldb) -> Transcript:
    commands = [
        "cuvil break fc",
        "cuvil break block1_pool --after",
        "run",
        "continue",
        "continue",  # the first module is freed, the second compiled: its first stop
        "cuvil builds",
        "cuvil print block1_pool --stats",
        "continue",
        "continue",
    ]
    args = (SMALL, "--opt", "O3", "--runs", "2", "--recompile")
    return run_lldb(lldb, commands, *args, "--stats", "block1_pool")


def test_recompile_hits_each_pending_breakpoint_twice(recompiled, manifest):
    once = manifest(SMALL, "O3").stops(("block1_pool", "after"), ("fc", "before"))
    assert recompiled.stops() == once * 2, recompiled.text
    assert_stats_match(recompiled, "cuvil print block1_pool --stats", "block1_pool")
    assert_clean(recompiled)


def test_recompile_forgets_the_freed_build(recompiled):
    builds = recompiled.output("cuvil builds").splitlines()
    assert len([b for b in builds if " jit@0x" in b]) == 1, recompiled.text


# ---- an AOT library: armed at its first call, --after through its PLT ----------------
@pytest.fixture(scope="module")
def aot(lldb, tmp_path_factory) -> Transcript:
    root = tmp_path_factory.mktemp("lldb_aot")
    bundle, store = root / "bundle", root / "store"
    file_it = (
        f"{sys.executable} -m cuvil_debug.cli symbols add {bundle} --store {store}"
    )
    commands = [
        "cuvil break block1_pool --after",
        "cuvil break block2_conv",
        "run",
        "cuvil print block1_pool --stats",
        "cuvil builds",
        f"cuvil symbols --store {root / 'empty'}",
        f"platform shell {file_it}",  # saved by now: file it in the store
        f"cuvil symbols --store {store}",
        "continue",
        "continue",
    ]
    args = (SMALL, "--opt", "O3", "--aot", str(bundle), "--stats", "block1_pool")
    return run_lldb(lldb, commands, *args)


def test_aot_library_pending_breakpoints_stop_before_and_after(aot, manifest):
    specs = ("block1_pool", "after"), ("block2_conv", "before")
    assert aot.stops() == manifest(SMALL, "O3").stops(*specs), aot.text
    assert_stats_match(aot, "cuvil print block1_pool --stats", "block1_pool")
    assert re.search(
        r"^Model: \d+ kernels, key [0-9a-f]{40}, \S+/model\.so$",
        aot.output("cuvil builds"),
        re.M,
    ), aot.text
    assert_clean(aot)


def test_aot_symbols_loads_the_debug_file_from_the_store(aot):
    missing = [ln for ln in aot.text.splitlines() if " is not in " in ln]
    assert len(missing) == 1 and missing[0].startswith("Model: "), aot.text
    assert re.search(r"^Model: loaded \S+/\.build-id/../\w+\.debug$", aot.text, re.M)


# ---- a crashed JIT build whose object is stripped, its debug file in a symbol store ---
@pytest.fixture(scope="module")
def crashed(lldb, tmp_path_factory) -> Transcript:
    """crash_store.py: mlp compiled with keep_symbols=STORE (the registered object has
    no DWARF), then called without its arena: a SIGSEGV in its first kernel."""
    root = tmp_path_factory.mktemp("lldb_crash")
    store = root / "store"
    after_crash = [
        "bt 3",
        "cuvil builds",
        f"cuvil symbols --store {store}",
        "bt 3",
        "cuvil where",
        "cuvil explain",
        "cuvil bt",
        "process kill",
    ]
    args = ("jit", str(ROOT / "samples" / "models" / "mlp.py"), str(store))
    debuggee = Path(__file__).with_name("crash_store.py")
    return run_lldb(lldb, ["run"], *args, crashed=after_crash, debuggee=debuggee)


def test_crash_symbols_loads_the_stripped_jit_objects_debug_file(crashed):
    """No line until `cuvil symbols` loads the store's file at the object's section
    addresses (`target modules add` + `target modules load`)."""
    key = re.search(r"^cuvil-key: kept (\w+)$", crashed.text, re.M).group(1)
    assert f"key {key}, jit@" in crashed.output("cuvil builds"), crashed.text
    before, after = crashed.output("bt 3", 0), crashed.output("bt 3", 1)
    assert "cuvil_k0_fc1" in before and "mlp.py:" not in before, before
    assert re.search(r"`cuvil_k0_fc1(\(.*\))? at mlp\.py:17", after), after
    if "(fc1=" in after:  # a debug build's variables (a release one has only lines)
        assert "(fc1=0x0000000000000000 <1x512 f32>," in after, after
    assert re.search(rf"^Model: loaded \S+/{key[2:]}\.debug$", crashed.text, re.M)


def test_crash_where_explain_and_bt_name_the_kernel(crashed):
    assert "kernel: cuvil_k0_fc1: fc1 [cuvil.linear]" in crashed.output("cuvil where")
    explain = crashed.output("cuvil explain")
    assert explain.startswith("in cuvil_k0_fc1: fc1 [cuvil.linear]"), explain
    # with the kernel's variables (DWARF) it finds the culprit; a release build has none
    assert (
        "arena is NULL: cuvil_main was called without its" in explain
        or "pointer arguments are not readable here" in explain
    ), explain
    bt = crashed.output("cuvil bt").splitlines()
    assert any(ln.startswith("#1   cuvil_k0_fc1: fc1 [cuvil.linear]") for ln in bt), bt
    assert "Traceback" not in crashed.text and "internal error" not in crashed.text


# ---- ResNet-18 at O0 and O3: a value, a fused and a folded node ---------------------
# (in call order: at O3 layer2_0_bn2 is fused into the kernel layer2_0_relu_1 ends)
RESNET_SPECS = ("layer2_0_bn2", "before"), ("layer2_0_relu_1", "after")
RESNET_SPECS += (("layer3_0_conv1", "before"),)


@pytest.mark.slow
@pytest.mark.parametrize("opt", ["O0", "O3"])
def test_resnet18_break_and_print_stats_match_eager(lldb, manifest, opt):
    m = manifest(RESNET, opt)
    if opt == "O3":  # fusion and folding happened: the test covers both
        assert m.nodes["layer2_0_bn2"]["status"] == "fused", m.nodes
        assert m.nodes["layer3_0_conv1"]["status"] == "folded", m.nodes
    expected = m.stops(*RESNET_SPECS)
    node = RESNET_SPECS[1][0]
    commands = [
        f"cuvil break {n}" + (" --after" * (w == "after")) for n, w in RESNET_SPECS
    ]
    commands += ["run"] + [f"cuvil print {node} --stats", "continue"] * len(expected)
    out = run_lldb(lldb, commands, RESNET, "--opt", opt, "--stats", node)
    assert out.stops() == expected, out.text
    after = [i for i, (w, _) in enumerate(expected) if w == "after"][0]
    assert_stats_match(out, f"cuvil print {node} --stats", node, nth=after)
    assert_clean(out)
