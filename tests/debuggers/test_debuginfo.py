"""The debug metadata Cuvil emits, checked in the LLVM IR (no debugger needed).

Debug builds carry full DWARF; release builds line tables only (a DISubprogram per
function, a DILocation per instruction) and nothing that changes the generated code.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import cuvil
from cuvil_debug import load_model

from .conftest import MODEL

FUSED_MODEL = Path(__file__).with_name("fused_model.py")


@pytest.fixture(scope="module")
def llvm_ir() -> dict[bool, str]:
    loaded = load_model(str(MODEL))
    return {
        debug: cuvil.compile(
            loaded.model, loaded.inputs, options={"debug": debug, "opt_level": "O0"}
        ).llvm_ir()
        for debug in (False, True)
    }


@pytest.fixture(scope="module")
def fused() -> cuvil.CompiledModule:
    """The fused sample at O3 with debug info: kernels whose members span lines."""
    loaded = load_model(str(FUSED_MODEL))
    options = {"debug": True, "opt_level": "O3"}
    return cuvil.compile(loaded.model, loaded.inputs, options=options)


def _metadata(text: str) -> dict[str, str]:
    """``!N`` -> its definition's text."""
    return dict(re.findall(r"^(![0-9]+) = (.*)$", text, flags=re.M))


def _functions(text: str) -> dict[str, tuple[str, str]]:
    """Defined function -> (its ``define`` line, its body)."""
    found = re.findall(
        r'^(define [^\n]*@"?([\w.]+)"?\(.*?)\n\{\n(.*?)\n\}', text, re.M | re.S
    )
    return {name: (head, body) for head, name, body in found}


def _field(md: str, name: str) -> str | None:
    m = re.search(rf"\b{name}: (\"[^\"]*\"|[^,)]+)", md)
    return m.group(1).strip('"') if m else None


def test_release_builds_carry_line_tables_only(llvm_ir):
    text = llvm_ir[False]
    assert "emissionKind: LineTablesOnly" in text and "FullDebug" not in text
    assert "!DISubprogram(" in text and "!DILocation(" in text
    for word in (
        "DILocalVariable",
        "@llvm.dbg",
        "volatile",
        "noinline",
        "disable-tail",
    ):
        assert word not in text, word  # nothing that could change the code


@pytest.mark.parametrize("debug", [False, True])
def test_every_function_and_instruction_has_a_location(llvm_ir, debug):
    """No frame without a file:line: kernels, cuvil_main, GEMM helpers, copies.
    (llvmlite prints no metadata on insertelement / extractelement.)"""
    functions = _functions(llvm_ir[debug])
    assert "cuvil_main" in functions and any("gemm" in n for n in functions)
    unprinted = ("llvm.dbg.declare", "insertelement", "extractelement")
    for name, (head, body) in functions.items():
        assert re.search(r"!dbg ![0-9]+$", head), name
        for line in body.splitlines():
            if line.startswith("  ") and not any(w in line for w in unprinted):
                located = "!dbg" in line or re.match(r"\s*%\S+ = alloca", line)
                spill = re.match(r'\s*store ptr %\S+, ptr %\S+\.addr"?$', line)
                assert located or spill, f"{name}: {line}"


def test_debug_info_uses_c99_and_dwarf_4(llvm_ir):
    text = llvm_ir[True]
    assert "language: DW_LANG_C99" in text  # trap 1: DW_LANG_Python hides variables
    assert '!"Dwarf Version", i32 4' in text  # trap 3: DWARF 5 breaks GDB 13 on cores
    assert "emissionKind: FullDebug" in text


def test_kernel_prologue_spills_carry_no_location(llvm_ir):
    """Trap 2: argument spills without !dbg, then a located volatile reload."""
    for name, (_, body) in _functions(llvm_ir[True]).items():
        if not name.startswith("cuvil_k"):
            continue
        entry = body.split("\n\n")[0].splitlines()
        spills = [i for i in entry if re.match(r"\s*store ptr %\S+, ptr %\S+\.addr", i)]
        reloads = [i for i in entry if "load volatile ptr" in i]
        assert spills and all("!dbg" not in i for i in spills), body
        assert reloads and all("!dbg" in i for i in reloads), body


def test_entry_arguments_are_variables_kept_alive(llvm_ir):
    """cuvil_main's four pointers are variables a debugger reads in any frame (or a
    core), and the debug entry keeps its frame (no tail call)."""
    text = llvm_ir[True]
    head, body = _functions(text)["cuvil_main"]
    assert '"disable-tail-calls"="true"' in head
    md = _metadata(text)
    declared = re.findall(
        r"llvm\.dbg\.declare\"\(metadata ptr %\S+, metadata (!\d+)", body
    )
    assert [_field(md[v], "name") for v in declared] == [
        "inputs",
        "outputs",
        "params",
        "arena",
    ]
    assert re.search(r'load volatile ptr, ptr %"arena\.addr"', body)


def test_each_entry_call_sits_in_an_inlined_site_at_the_op_line(fused):
    """``bt`` shows cuvil_main at the op's model line (the site's call line), yet all of
    cuvil_main's rows are in the generated file: no model line breaks in cuvil_main."""
    text = fused.llvm_ir()
    md = _metadata(text)
    head, body = _functions(text)["cuvil_main"]
    main = re.search(r"!dbg (!\d+)$", head).group(1)
    assert _field(md[_field(md[main], "file")], "filename") == "<cuvil-generated>"
    calls = re.findall(r'call void @"(cuvil_k\w+)"\(.*!dbg (!\d+)$', body, re.M)
    lines = {k.symbol: int(k.source.split(":")[1]) for k in fused.program.kernels}
    assert [symbol for symbol, _ in calls] == [k.symbol for k in fused.program.kernels]
    for i, (symbol, loc) in enumerate(calls):
        site, at = md[_field(md[loc], "scope")], md[_field(md[loc], "inlinedAt")]
        assert _field(site, "name") == f"cuvil_call_{i}"
        assert _field(site, "file") == _field(md[main], "file")
        assert int(_field(at, "line")) == lines[symbol]
    for loc in re.findall(r"!dbg (!\d+)$", body, re.M):
        if loc not in dict(calls).values():
            assert _field(md[loc], "scope") == main, md[loc]


def _line_of(md: dict[str, str], ref: str) -> int:
    return int(_field(md[ref], "line"))


def test_fused_members_carry_their_own_lines(fused):
    """A fused pointwise kernel: each member's instructions at its own line, and the
    prologue reloads once more at the second member's line, after the first's."""
    text = fused.llvm_ir()
    md = _metadata(text)
    kernel = next(k for k in fused.program.kernels if k.nodes == ("mul", "sigmoid"))
    entry, loop = _functions(text)[kernel.symbol][1].split("br label", 1)
    refs = re.findall(r"load volatile.*!dbg (!\d+)", entry)
    mul = int(kernel.source.split(":")[1])
    assert [_line_of(md, r) for r in refs] == [mul] * 3 + [mul + 1]
    used = {_line_of(md, r) for r in re.findall(r"!dbg (!\d+)", loop)}
    assert {mul, mul + 1} <= used  # fmul at the mul's line, the exp at the sigmoid's


def test_folded_and_fused_lines_have_prologue_markers(fused):
    """GEMM kernels with an epilogue: one located reload per member line (conv, bn,
    add, relu), so each line has an address in the kernel, before any loop."""
    text = fused.llvm_ir()
    md = _metadata(text)
    kernel = fused.program.kernels[1]
    assert kernel.nodes == ("block1_conv", "block1_bn", "add", "block1_relu")
    entry = _functions(text)[kernel.symbol][1].split("br label", 1)[0]
    refs = re.findall(r"load volatile.*!dbg (!\d+)", entry)
    lines = list(dict.fromkeys(_line_of(md, r) for r in refs))
    first = int(kernel.source.split(":")[1])
    assert lines == [first, first + 1, first + 2, first + 3]


def _code(obj: bytes) -> dict[str, object]:
    """The sections that hold code and data, relocations by symbol name."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection

    elf = ELFFile(io.BytesIO(obj))
    symbols = elf.get_section_by_name(".symtab")
    found: dict[str, object] = {}
    for s in elf.iter_sections():
        if ".debug" in s.name or s.name in (".symtab", ".strtab"):
            continue
        if isinstance(s, RelocationSection):
            found[s.name] = [
                (
                    r["r_offset"],
                    r["r_info_type"],
                    r["r_addend"],
                    symbols.get_symbol(r["r_info_sym"]).name,
                )
                for r in s.iter_relocations()
            ]
        else:
            found[s.name] = s.data()
    return found


def test_release_line_tables_leave_the_code_unchanged():
    """The same release build with its debug metadata stripped compiles at O3 to the
    same code and data: line tables cost no speed."""
    import llvmlite.binding as llvm

    from cuvil.codegen.target import init_llvm, optimize, target_machine

    loaded = load_model(str(FUSED_MODEL))
    options = {"opt_level": "O3"}
    text = cuvil.compile(loaded.model, loaded.inputs, options=options).llvm_ir()
    stripped = re.sub(r",? !dbg !\d+", "", text)
    stripped = re.sub(r"^!llvm\.dbg\.cu = .*$", "", stripped, flags=re.M)
    assert "!dbg" not in stripped and "!dbg" in text

    def emit(ir_text: str) -> bytes:
        init_llvm()
        mod = llvm.parse_assembly(ir_text)
        optimize(mod, 3)
        return target_machine(3).emit_object(mod)

    assert _code(emit(text)) == _code(emit(stripped))
