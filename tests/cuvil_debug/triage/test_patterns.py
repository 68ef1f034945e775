"""The declarative tables: AST facts of a line, and that every category has patterns,
root facts, a hint and a section in docs/TRIAGE.md."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cuvil_debug.triage.categories import CATEGORIES
from cuvil_debug.triage.patterns import PATTERNS, ROOT_FACTS, line_facts
from cuvil_debug.triage.source import _header

DOC = Path(__file__).resolve().parents[3] / "docs" / "TRIAGE.md"


def facts(code: str) -> set[str]:
    stmt = ast.parse(code).body[0]
    return line_facts(stmt, _header(stmt))


@pytest.mark.parametrize(
    ("code", "fact"),
    [
        ("if n > 0:\n    pass", "branch"),
        ("n = x.sum()", "reduction"),
        ("k = int(x.max())", "item"),
        ("v = x.mean().item()", "item"),
        ("for row in x:\n    pass", "iterate"),
        ("a, b = x", "iterate"),
        ("y = np.sqrt(x)", "numpy"),
        ("y = math.exp(x)", "numpy"),
        ("x.add_(1)", "inplace"),
        ("x[0] = 1", "inplace"),
        ("s = f'{x:.3f}'", "format"),
        ("idx = x.nonzero()", "data-size"),
        ("t = x[x > 0]", "data-size"),
        ("t = x[~mask].view(n, -1)", "data-size"),
        ("t = x[:, a & b]", "data-size"),
        ("n = x.size(1)", "shape-read"),
        ("i = x.long()", "dtype-set"),
        ("z = torch.zeros(3, dtype=torch.float64)", "dtype-set"),
        ("self.fc = nn.Linear(4, 8)", "module-init"),
        ("c = KVCache(k, v)", "object-construct"),
        ("if v.device.type != 'meta':\n    pass", "tensor-meta"),
        ("if x.dtype == torch.float16:\n    pass", "tensor-meta"),
    ],
)
def test_line_facts_recognise_the_pattern(code, fact):
    assert fact in facts(code)


def test_a_range_loop_is_not_proxy_iteration():
    assert "iterate" not in facts("for i in range(3):\n    pass")


def test_if_header_facts_ignore_the_body():
    assert "reduction" not in facts("if flag:\n    y = x.sum()")


def test_assert_facts_ignore_its_message():
    """The message runs only once the test failed: under fx the test fails first
    (neuralop's `assert x.ndim in [2, 3], f"... shape={x.shape}"` is a rank test)."""
    got = facts('assert x.ndim in [2, 3], f"got {x.shape}"')
    assert {"branch", "rank-read"} <= got and "shape-read" not in got


def test_a_conditional_on_the_rank_is_a_rank_test(tmp_path):
    """fx fails on the conditional's test: a size read in an arm is not what failed
    (hippynn's `(1,) if x.ndimension() == 1 else x.shape[1:]`)."""
    from cuvil_debug.triage.failing import _facts_at

    src = tmp_path / "m.py"
    src.write_text(
        "a = (1,) if x.ndimension() == 1 else x.shape[1:]\n"
        "b = x.shape[1:] if x.shape[0] == 1 else (1,)\n"
    )
    assert "rank-only-test" in _facts_at((str(src), 1))
    assert "rank-only-test" not in _facts_at((str(src), 2))


def test_every_category_has_patterns_root_facts_and_a_hint():
    # `unknown` is what no pattern gives: the result when nothing is strong
    assert {p.category for p in PATTERNS} == set(CATEGORIES) - {"unknown"}
    assert set(ROOT_FACTS) == set(CATEGORIES) - {"unknown"}
    assert all(c.hint and c.title and c.scope for c in CATEGORIES.values())


def test_every_pattern_names_the_set_it_was_written_from():
    """scripts/triage_loso.py scores a set without the rows written from it."""
    sets = {"failures", "written", "library", "timm"} | {
        f"zoo{n}" for n in ("", 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, *range(15, 28))
    }
    assert {p.origin for p in PATTERNS} <= sets


def test_cuvil_refusing_to_slice_a_symbolic_dim_is_its_own_bug():
    """Cuvil lowers slicing for static sizes; refusing it because a dim became
    symbolic is a Cuvil bug (zeros of a symbolic size stay an unsupported op)."""
    from cuvil_debug.triage.classify import _score
    from cuvil_debug.triage.evidence import _message_signals

    def category(op: str) -> str:
        message = f"m.py:3:4 (FX node 'n'): error: unsupported op '{op}' (FX node 'n')"
        record = {"error": {"chain": [{"message": message}]}}
        signals = _message_signals(record) | {"exc:UnsupportedOpError", "eager:ok"}
        scores, _ = _score(signals)
        return max(scores, key=scores.get)

    assert category("slicing a dim of symbolic size") == "compiler-internal-error"
    assert category("aten.zeros with a symbolic size") == "unsupported-op"


def test_a_tensors_truth_value_is_read_from_torchs_guard_frames():
    """sym_node's guard_bool without SymBool.__bool__: `if t.all():`, not a size."""
    from cuvil_debug.triage.evidence import _guard_kind

    def frames(*funcs):
        return {"frames": [{"file": "/t/sym_node.py", "func": f} for f in funcs]}

    assert _guard_kind(frames("guard_bool", "evaluate")) == {"guard:tensor-bool"}
    assert _guard_kind(frames("bool_", "guard_bool")) == set()
    assert _guard_kind(frames("int_", "guard_int")) == set()


def test_every_category_is_documented_with_example_and_fix():
    text = DOC.read_text()
    for cid in CATEGORIES:
        section = text.split(f"### `{cid}`", 1)[1].split("\n### ", 1)[0]
        assert "```python" in section and "Fix:" in section, cid


def test_message_signals_read_only_the_messages_own_head():
    from cuvil_debug.triage.evidence import message_head

    overloads = (
        "clip() received an invalid combination of arguments - got (float, float, "
        "out=NoneType), but expected one of:\n * (Tensor min = None, Tensor max = None)\n"
        " * (Number min = None, Number max = None)\n"
    )
    assert message_head(overloads).startswith("clip() received")
    assert "Tensor min" not in message_head(overloads)
    quoted = 'boom\n  File "m.py", line 3, in forward\n    x = x.to(dtype=torch.half)'
    assert message_head(quoted) == "boom"
    # Cuvil's advice below its error is no part of what went wrong ("dtypes")
    advised = (
        "failed to run: TypeError: boom\n  hint: check the inputs' shapes and dtypes"
    )
    assert message_head(advised) == "failed to run: TypeError: boom"


def test_no_strong_evidence_is_unknown_with_the_best_guess(write_model):
    from cuvil_debug.triage.classify import classify
    from cuvil_debug.triage.collect import collect

    path = write_model(
        "odd.py",
        "if torch.fx._symbolic_trace.is_fx_tracing():\n"
        "    raise RuntimeError('the flux capacitor is not charged')\n"
        "return self.fc(x)",
    )
    d = classify(collect(str(path), "fx"))
    assert d.category == "unknown" and d.confidence == 0.0
    assert d.alternatives[0][0] == "capture-limitation"  # the guess: eager runs
    assert d.failing[1] == 12 and d.signals  # the evidence stays in the report


@pytest.mark.parametrize(
    "signals, category",
    [
        # a dynamo graph break in a **kwargs forward: export passes kwargs' values
        # themselves, so the parameter is no Proxy and this is no non-tensor-argument
        (
            "fe:export exc:Unsupported eager:ok flow:param-kwargs flow:param-container",
            "capture-limitation",
        ),
        ("fe:fx msg:proxy-setitem flow:param-kwargs", "non-tensor-argument"),
        # export fails at the branch on an .item() value: the branch is the problem
        (
            "fe:export exc:GuardOnDataDependentSymNode msg:data-dependent ast:branch "
            "flow:item",
            "data-dependent-control-flow",
        ),
        # ... but a guard on a size a boolean mask made is a dynamic shape
        (
            "fe:export exc:GuardOnDataDependentSymNode msg:data-dependent ast:branch "
            "flow:item msg:unbacked-size ast:shape-read",
            "dynamic-shape",
        ),
        # ... and an .item() value used as a size is the number itself
        (
            "fe:export exc:GuardOnDataDependentSymNode msg:data-dependent "
            "msg:specialize-int ast:item",
            "data-dependent-python-value",
        ),
        # fx: int(math.sqrt(T)) on a T unpacked from x.shape is size arithmetic
        (
            "fe:fx exc:TypeError msg:proxy-as-value ast:item ast:numpy flow:item "
            "near:shape-read near:iterate flow:shape-read",
            "dynamic-shape",
        ),
        # ... while math.exp of a reduction is a non-torch call
        (
            "fe:fx exc:TypeError msg:proxy-as-value ast:numpy near:reduction",
            "non-torch-call",
        ),
        # fx: `if mask is not None` on an unfed Optional parameter took the real-mask
        # path; what failed inside it (a len()) is a consequence
        (
            "fe:fx msg:proxy-iter eager:ok flow:param-optional flow:is-none-test "
            "sig:defaults-traced",
            "non-tensor-argument",
        ),
        # ... under export the None is a None, and the iteration is the failure
        (
            "fe:export msg:proxy-iter eager:ok flow:param-optional flow:is-none-test",
            "proxy-iteration",
        ),
        # fx: a branch on a Proxy's device / dtype is what fx cannot capture
        (
            "fe:fx msg:proxy-control-flow eager:ok ast:branch ast:tensor-meta "
            "ast:tensor-compare flow:shape-read",
            "capture-limitation",
        ),
        # torch's own assertion while it checked a dynamic Dim's constraints
        ("fe:export exc:AssertionError eager:ok raise:guard-solve", "dynamic-shape"),
        # fx: walking a size (`for d in x.shape[2:]`, `len(t.shape)`) is size logic,
        # not iteration of a tensor ...
        (
            "fe:fx exc:TraceError msg:proxy-iter ast:iterate ast:shape-read "
            "ast:shape-iterate eager:ok",
            "dynamic-shape",
        ),
        # ... but `len(x)` of the tensor itself is
        (
            "fe:fx exc:TraceError msg:proxy-iter ast:shape-read eager:ok",
            "proxy-iteration",
        ),
        # ... and a size of an unfed Optional parameter is that parameter's problem
        (
            "fe:fx msg:proxy-iter ast:shape-iterate eager:ok flow:param-optional "
            "operand:param-optional flow:is-none-test sig:defaults-traced",
            "non-tensor-argument",
        ),
        # ... not when the Optional is only upstream, not the tensor whose shape is
        # walked (`batch, seq, keep = *x.shape[:2], mask`)
        (
            "fe:fx msg:proxy-iter ast:shape-iterate eager:ok flow:param-optional "
            "sig:defaults-traced sig:kwargs-traced",
            "dynamic-shape",
        ),
        # ... and so is unpacking a name read from a shape (`*shape, self.heads`)
        (
            "fe:fx exc:TraceError msg:proxy-iter ast:unpack near:shape-attr eager:ok",
            "dynamic-shape",
        ),
        # fx: `assert x.shape[1] == c` branches on a size
        (
            "fe:fx msg:proxy-control-flow ast:branch ast:shape-attr flow:tensor-compare",
            "dynamic-shape",
        ),
        # numpy on a traced size (np.array(x.shape[2:]))
        ("fe:fx exc:ValueError msg:numpy ast:numpy near:shape-read", "dynamic-shape"),
        # torch.jit.isinstance on a Proxy branches on the traced value
        (
            "fe:fx msg:proxy-control-flow ast:branch ast:type-check eager:ok "
            "flow:tensor-compare",
            "unsupported-python-construct",
        ),
        # nonzero's data-dependent size, refused by Cuvil under export
        (
            "fe:export exc:UnsupportedOpError msg:unsupported-op "
            "exc:DynamicOutputShapeException op:torch",
            "dynamic-shape",
        ),
        # an unsupported op is that op even when an .item() is somewhere upstream
        (
            "fe:export exc:UnsupportedOpError msg:unsupported-op op:torch flow:item",
            "unsupported-op",
        ),
    ],
)
def test_the_frontend_and_the_failing_statement_decide(signals, category):
    from cuvil_debug.triage.classify import _score

    scores, _ = _score(set(signals.split()))
    assert max(scores, key=scores.get) == category


def test_the_draft_guard_export_names_comes_first():
    """A constraint violation names its guard only as an expression; of
    draft_export's guards the one with the same numbers and operators is the line."""
    from cuvil_debug.triage.evidence import _drafted

    message = (
        "Constraints violated (seq)!\n  - Not all values of seq = "
        "L['input_ids'].size()[1] in the specified range seq <= 32 satisfy the "
        "generated guard (((-1) + 2*L['input_ids'].size()[1]) % "
        "L['input_ids'].size()[1]) != 0.\n"
    )
    drafts = [
        {"expr": expr, "frames": [{"file": "m.py", "line": line}]}
        for expr, line in [
            ("Eq(s53, s70)", 10),
            ("Eq(((s53**2)//s53), 8)", 20),
            ("Ne(Mod(2*s53 - 1, s53), 0)", 30),
        ]
    ]
    record = {"error": {"chain": [{"message": message}]}, "draft": drafts}
    assert [d["frames"][0]["line"] for d in _drafted(record)] == [30, 20, 10]
    # a size specialised to a constant is an Eq of a lone symbol
    record["error"]["chain"][0]["message"] = (
        "  - You marked seq as dynamic but your code specialized it to be a "
        "constant (8)."
    )
    record["draft"] = [
        {"expr": "Eq(8*s43, 8*s72)", "frames": [{"line": 1}]},
        {"expr": "Eq(s70, 8)", "frames": [{"line": 2}]},
    ]
    assert _drafted(record)[0]["frames"][0]["line"] == 2


@pytest.mark.parametrize(
    "line, walks",
    [
        ("for d in x.shape[2:]: pass", True),
        ("n = len(t.shape)", True),
        ("b, c = x.shape", True),
        ("b, n, h = *x.shape[:2], self.heads", True),
        ("s = np.array(x.size()[2:])", True),
        ("n = len(x)", False),  # the tensor itself: proxy-iteration's
        ("b = x.shape[0]", False),  # a read, not a walk
    ],
)
def test_walking_a_size_is_a_line_fact(line, walks):
    import ast

    from cuvil_debug.triage.linefacts import line_facts

    stmt = ast.parse(line).body[0]
    assert ("shape-iterate" in line_facts(stmt, [stmt])) == walks


def test_tensor_utility_packages_are_not_where_a_root_cause_is():
    # einops / einx rearrange what the model hands them: the line to change is the
    # model's call, not einops' backend lookup
    from cuvil_debug.triage.evidence import _is_code

    assert not _is_code({"package": "einops", "file": "e.py", "user": False}, ())
    assert _is_code({"package": "vit_pytorch", "file": "v.py", "user": False}, ())
