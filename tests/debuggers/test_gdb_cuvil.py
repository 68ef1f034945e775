"""``source gdb_scripts/cuvil.py``: the cuvil commands in real GDB, in batch mode.

Each scenario is one GDB session over tests/debuggers/cuvil_debuggee.py; the tests read
its output. Stops print ``cuvil: stopped before|after SYMBOL: ...`` (the script's own
line), so they are counted without depending on GDB's wording.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

import cuvil
from cuvil.runtime.manifest import live_manifest
from cuvil_debug import load_model

from .conftest import ROOT, find_debugger, run_batch

DEBUGGEE = Path(__file__).with_name("cuvil_debuggee.py")
SMALL = ROOT / "samples" / "models" / "small_cnn.py"
RESNET = ROOT / "samples" / "models" / "resnet18.py"
SCRIPT = ROOT / "gdb_scripts" / "cuvil.py"
PROLOGUE = [
    "set debuginfod enabled off",
    "set auto-solib-add off",
    "set pagination off",
    "set breakpoint pending on",
    f"source {SCRIPT}",
]
LOAD_LLVMLITE = ["catch load llvmlite", "run", "sharedlibrary llvmlite"]


def gdb(commands: list[str], debuggee: list[str], timeout: float = 300) -> str:
    argv = [find_debugger("gdb"), "-batch", "-nx"]
    for c in [*PROLOGUE, *commands]:
        argv += ["-ex", c]
    return run_batch(
        [*argv, "--args", sys.executable, str(DEBUGGEE), *debuggee], timeout
    )


def stops(out: str) -> list[tuple[str, str]]:
    """(before|after, kernel symbol) of each stop, in order."""
    return re.findall(r"^cuvil: stopped (before|after) (\S+): ", out, flags=re.M)


def stats_of(out: str, label: str) -> dict[str, float]:
    m = re.search(
        rf"^{re.escape(label)}.*?n=(\d+) min=(\S+) max=(\S+) mean=(\S+)", out, re.M
    )
    assert m, f"no statistics for {label}:\n{out}"
    return dict(zip(("n", "min", "max", "mean"), map(float, m.groups())))


def assert_stats_match(ours: dict, eager: dict) -> None:
    assert ours["n"] == eager["n"]
    scale = max(abs(eager["min"]), abs(eager["max"]), 1e-12)
    for key in ("min", "max", "mean"):
        assert abs(ours[key] - eager[key]) <= 1e-4 * scale, (key, ours, eager)


def manifest(model: Path, opt: str) -> dict:
    loaded = load_model(str(model))
    cm = cuvil.compile(
        loaded.model, loaded.inputs, options={"debug": True, "opt_level": opt}
    )
    return live_manifest(cm.jit)


def kernel_of(man: dict, node: str) -> str:
    return man["nodes"][node]["kernel"]


# ---- small_cnn at O0 and O3: value node, fused member, folded node -----------------
@pytest.fixture(scope="module", params=["O0", "O3"])
def small(request):
    opt = request.param
    commands = [
        "cuvil break block1_pool",  # a value node: its own kernel
        "cuvil break block1_bn",  # fused into the conv kernel
        "cuvil break block2_conv",  # folded (conv + bn) into the second conv kernel
        "cuvil break block1_relu --after",
        *LOAD_LLVMLITE,
    ]
    # per call: before k(block1_bn), after it, before k(block1_pool), before k(block2)
    per_call = [
        ["continue", "cuvil where", "cuvil kernels"],
        ["continue", "cuvil print block1_relu --stats", "cuvil where"],
        ["continue", "cuvil where", "bt 3"],
        ["continue", "cuvil print block1_pool --stats", "cuvil bt"],
    ]
    runs = 2
    for _ in range(runs):
        for stop in per_call:
            commands += stop
    commands.append("continue")
    debuggee = [str(SMALL), "--opt", opt, "--runs", str(runs), "--stats", "block1_relu"]
    return opt, manifest(SMALL, opt), gdb(commands, debuggee)


SPECS = [("block1_pool", "before"), ("block1_bn", "before"), ("block2_conv", "before")]
SPECS += [("block1_relu", "after")]


def expected_stops(man: dict, specs=SPECS) -> list[tuple[str, str]]:
    """The stops of one call, in call order (a kernel's before, then its after)."""
    calls = {k["symbol"]: k["call"] for k in man["kernels"]}
    events = {
        (calls[kernel_of(man, n)], w == "after", kernel_of(man, n)) for n, w in specs
    }
    return [("after" if a else "before", k) for _, a, k in sorted(events)]


def test_break_on_value_fused_and_folded_nodes_stops_once_per_call(small):
    opt, man, out = small
    if opt == "O3":  # fusion and folding happened: the test covers both
        assert man["nodes"]["block1_bn"]["status"] == "fused"
        assert man["nodes"]["block2_conv"]["status"] == "folded"
        fused, folded = kernel_of(man, "block1_bn"), kernel_of(man, "block2_conv")
        # where the fused and the folded node went is said when the breakpoint is set
        assert re.search(rf"block1_bn is fused into {fused}", out), out
        assert re.search(rf"block2_conv was folded into {folded}", out), out
    assert stops(out) == expected_stops(man) * 2, out
    assert "exited normally" in out, out


def test_print_stats_after_the_kernel_match_eager(small):
    opt, _, out = small
    eager = stats_of(out, "eager-stats block1_relu:")
    ours = stats_of(out, "stats:")
    assert_stats_match(ours, eager)
    assert "block1_relu = tensor<1x16x32x32xf32" in out, out


def test_kernels_lists_every_kernel_with_its_nodes(small):
    _, man, out = small
    for k in man["kernels"]:
        rows = [ln for ln in out.splitlines() if re.match(r"^\s+0x[0-9a-f]+ ", ln)]
        line = next((ln for ln in rows if f" {k['symbol']} " in ln), None)
        assert line is not None, f"{k['symbol']} missing:\n{out}"
        assert ",".join(k["nodes"]) in line, line


def test_where_names_node_op_ir_and_source(small):
    _, man, out = small
    fused = kernel_of(man, "block1_bn")
    relu = kernel_of(man, "block1_relu")
    nodes = man["nodes"]
    op = "cuvil.fused" if nodes["block1_relu"]["kernel"] == fused else "cuvil.relu"
    assert re.search(r"^node:\s+.*block1_relu$", out, re.M), out
    assert re.search(rf"^op:\s+{re.escape(op)}$", out, re.M), out
    assert re.search(rf"^ir:\s+%block1_relu = {re.escape(op)}\(", out, re.M), out
    assert re.search(r"^source:\s+\S*small_cnn\.py:16:\d+$", out, re.M), out
    assert re.search(rf"^kernel:\s+{relu}: .*\[after\]$", out, re.M), out


def test_frames_are_labelled_and_trampolines_hidden(small):
    _, man, out = small
    pool = kernel_of(man, "block1_pool")
    # GDB's own bt goes through the frame filter
    assert re.search(
        rf"^#0 .*{pool} \[block1_pool: cuvil\.max_pool2d <1x16x16x16 f32", out, re.M
    ), out
    # cuvil_main names the model line of the call (the inlined cuvil_call_<i> scope
    # around it is hidden by the filter)
    assert re.search(
        r"^#\d+\s+(0x[0-9a-f]+ in )?cuvil_main \(.*\) at small_cnn\.py:16$", out, re.M
    ), out
    assert "ctypes/libffi frames hidden" in out, out


# ---- a crash: explain names the node and the bad pointer ---------------------------
@pytest.mark.parametrize("opt", ["O0", "O3"])
def test_explain_on_a_crash_names_the_node_and_the_null_arena(opt):
    commands = [*LOAD_LLVMLITE, "continue", "cuvil where", "cuvil explain", "cuvil bt"]
    out = gdb(commands, [str(SMALL), "--opt", opt, "--crash", "null-arena"])
    assert "SIGSEGV" in out, out
    first = manifest(SMALL, opt)["kernels"][0]
    assert re.search(rf"^in {first['symbol']}: ", out, re.M), out
    assert "arena is NULL: cuvil_main was called without its" in out, out
    assert re.search(r"^output 0 \(\w+\) (is NULL|points into a NULL arena)", out, re.M)
    assert re.search(rf"^#0\s+{first['symbol']}: ", out, re.M), out


# ---- a recompile: the breakpoint follows the new code ------------------------------
def test_pending_breakpoint_survives_a_recompile():
    commands = ["cuvil break block1_pool", *LOAD_LLVMLITE]
    commands += ["continue", "cuvil print block1_relu --stats"] * 2 + ["continue"]
    debuggee = [str(SMALL), "--runs", "2", "--recompile", "--stats", "block1_relu"]
    out = gdb(commands, debuggee)
    hits = stops(out)
    assert len(hits) == 2 and all(k.endswith("block1_pool") for _, k in hits), out
    assert out.count("cuvil-run: ") == 2, out
    # both stops read the live code's tensors, not the freed module's
    eager = stats_of(out, "eager-stats block1_relu:")
    for m in re.finditer(r"^stats: .*$", out, re.M):
        assert_stats_match(stats_of(m.group(0), "stats:"), eager)
    assert "exited normally" in out, out


# ---- bad input: one line each, never a traceback ------------------------------------
BAD = [
    ("cuvil where", "cuvil: the program is not stopped"),
    ("cuvil kernels", "cuvil: no Cuvil code is loaded"),
    ("cuvil print block1_relu", "cuvil: no Cuvil code is loaded"),
    ("cuvil frobnicate", "cuvil: unknown command 'frobnicate'"),
    ("cuvil break", "cuvil: usage: cuvil break"),
    ("cuvil print", "cuvil: print: the following arguments are required"),
]
BAD_STOPPED = [
    ("cuvil print no_such_node", "cuvil: unknown tensor 'no_such_node'"),
    ("cuvil print block1_relu --slice 0,99", "cuvil: bad index '99' for dim 1"),
    ("cuvil break block1_rleu", "did you mean block1_relu"),
    ("cuvil print x --limit zz", "cuvil: print: argument --limit"),
]


def test_every_command_on_bad_input_prints_one_clear_line():
    before = [c for c, _ in BAD]
    stopped = [c for c, _ in BAD_STOPPED]
    commands = [
        *before,
        "cuvil break block1_pool",
        *LOAD_LLVMLITE,
        "continue",
        *stopped,
    ]
    out = gdb(commands + ["kill"], [str(SMALL)])
    assert "Traceback" not in out and "Python Exception" not in out, out
    for _, expected in BAD + BAD_STOPPED:
        lines = [ln for ln in out.splitlines() if expected in ln]
        assert lines, f"no '{expected}' in:\n{out}"
        assert lines[0].startswith("cuvil"), lines[0]


# ---- ResNet-18 at O0 and O3 ---------------------------------------------------------
RESNET_SPECS = [("layer2_0_relu", "after"), ("layer2_0_bn2", "before")]
RESNET_SPECS += [("layer3_0_conv1", "before")]


@pytest.mark.parametrize("opt", ["O0", "O3"])
def test_resnet18_break_and_print_match_eager(opt):
    man = manifest(RESNET, opt)
    if opt == "O3":
        assert man["nodes"]["layer2_0_bn2"]["status"] == "fused"
        assert man["nodes"]["layer3_0_conv1"]["status"] == "folded"
    expected = expected_stops(man, RESNET_SPECS)
    commands = [
        f"cuvil break {n}" + (" --after" if w == "after" else "")
        for n, w in RESNET_SPECS
    ]
    commands += LOAD_LLVMLITE
    for _ in expected:
        commands += ["continue", "cuvil print layer2_0_relu --stats", "bt 2"]
    debuggee = [str(RESNET), "--opt", opt, "--stats", "layer2_0_relu"]
    out = gdb(commands + ["continue"], debuggee)
    assert stops(out) == expected, out
    assert "exited normally" in out, out
    eager = stats_of(out, "eager-stats layer2_0_relu:")
    after = out.split("cuvil: stopped after", 1)[1]
    assert_stats_match(stats_of(after, "stats:"), eager)


# ---- cuvil bt with every library's symbols: kernel -> entry -> Python ---------------
def test_cuvil_bt_reads_kernel_then_entry_then_the_python_caller():
    commands = ["cuvil break block1_pool", "run", "cuvil bt", "kill"]
    argv = [find_debugger("gdb"), "-batch", "-nx"]
    for c in [p for p in PROLOGUE if "auto-solib-add" not in p] + commands:
        argv += ["-ex", c]
    out = run_batch([*argv, "--args", sys.executable, str(DEBUGGEE), str(SMALL)])
    lines = [ln for ln in out.splitlines() if re.match(r"^#\d+\s", ln)]
    assert re.match(
        r"^#0\s+cuvil_k\d+_block1_pool: block1_pool \[cuvil\.max_pool2d\]", lines[0]
    ), out
    assert re.match(r"^#\d+\s+cuvil_main \[Model\] at small_cnn\.py:16$", lines[1]), out
    assert "ctypes/libffi frames hidden" in out, out
    helper = Path(os.path.realpath(sys.executable) + "-gdb.py")
    if helper.is_file() or Path(sys.executable + "-gdb.py").is_file():
        # CPython's helpers load: the Python caller follows the entry
        assert re.match(r"^#\d+\s+\[python\]$", lines[2]), out
        assert re.search(r'File ".*compiled\.py", line \d+, in __call__', out), out
        assert re.search(r'File ".*run\.py", line \d+, in main', out), out


# ---- a saved bundle auto-loads the commands into GDB --------------------------------
def test_a_saved_bundle_auto_loads_the_cuvil_commands(tmp_path):
    bundle = tmp_path / "bundle"
    argv = [find_debugger("gdb"), "-batch", "-nx"]
    argv += ["-iex", f"add-auto-load-safe-path {bundle}"]  # the user trusts the folder
    for c in ["set debuginfod enabled off", "set breakpoint pending on"]:
        argv += ["-ex", c]
    for c in ["break cuvil_k2_block1_pool", "run", "cuvil where", "kill"]:
        argv += ["-ex", c]
    debuggee = [sys.executable, str(DEBUGGEE), str(SMALL), "--aot", str(bundle)]
    out = run_batch([*argv, "--args", *debuggee])
    assert (bundle / "model.so-gdb.py").is_file()
    assert re.search(r"^node:\s+block1_pool$", out, re.M), out
    assert 'Undefined command: "cuvil"' not in out, out


# ---- the diff's "watch it in GDB" command runs as printed ---------------------------
def test_the_diffs_debugger_command_stops_at_the_node():
    import shlex

    from cuvil_debug.diff.render.words import debugger_command

    argv = shlex.split(debugger_command(str(SMALL), "block1_relu"))
    assert argv[0] == "gdb"
    at = argv.index("--args")
    batch = [find_debugger("gdb"), "-batch", "-nx", *argv[1:at], "-ex", "kill"]
    out = run_batch([*batch, *argv[at:]])
    assert stops(out) and stops(out)[0][0] == "after", out
    assert "eager-stats block1_relu:" in out, out
