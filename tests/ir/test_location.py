"""Locations: text forms, human descriptions, fuse() flattening, and reading them back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from ir_strategies import weird_text

from cuvil.ir import UNKNOWN, FusedLoc, Loc, fuse
from cuvil.ir.location import quote
from cuvil.ir.parser import Parser

CONV = Loc(
    node="conv1", module="layer1.0.conv1", file="samples/resnet18.py", line=40, col=16
)
ADD = Loc(node="add_1", file="m.py", line=3, col=5)
RELU = Loc(node="relu", file="m.py", line=4, col=9)


def _read(text: str):
    return Parser(text, "<loc>").parse_loc()


def test_unknown_loc_prints_as_unknown():
    assert str(UNKNOWN) == "loc(unknown)"


def test_full_loc_prints_node_module_and_source():
    assert CONV.text() == '"conv1" in "layer1.0.conv1" at "samples/resnet18.py":40:16'


def test_source_only_loc_prints_bare_file_line_col():
    assert Loc(file="m.py", line=3, col=5).text() == '"m.py":3:5'


def test_file_without_line_prints_with_at_so_it_is_not_read_as_a_node():
    loc = Loc(file="m.py")
    assert loc.text() == 'at "m.py"'
    assert _read(str(loc)) == loc


def test_line_without_col_prints_col_zero():
    assert Loc(file="m.py", line=7).text() == '"m.py":7:0'


def test_line_without_file_counts_as_unknown():
    assert Loc(line=3, col=1).is_unknown
    assert str(Loc(line=3)) == "loc(unknown)"


def test_module_only_loc_prints_in_clause():
    assert Loc(module="encoder.fc").text() == 'in "encoder.fc"'


def test_quote_escapes_quotes_backslashes_and_newlines():
    assert quote('a"b\\c\nd\te\rf') == '"a\\"b\\\\c\\nd\\te\\rf"'


def test_source_gives_file_line_col_or_none():
    assert CONV.source() == "samples/resnet18.py:40:16"
    assert Loc(file="m.py", line=2).source() == "m.py:2"
    assert Loc(node="x").source() is None


def test_describe_names_source_fx_node_and_module():
    assert (
        CONV.describe()
        == "samples/resnet18.py:40:16 (FX node 'conv1', module 'layer1.0.conv1')"
    )
    assert Loc(node="x").describe() == "FX node 'x'"
    assert UNKNOWN.describe() == "unknown location"


def test_fused_loc_text_lists_its_parts():
    assert (
        FusedLoc((ADD, RELU)).text()
        == 'fused["add_1" at "m.py":3:5, "relu" at "m.py":4:9]'
    )


def test_fused_loc_source_is_the_first_part_with_a_file():
    assert FusedLoc((Loc(node="a"), RELU)).source() == "m.py:4:9"


def test_fused_loc_nodes_collects_every_part():
    assert FusedLoc((ADD, Loc(module="m"), RELU)).nodes == ("add_1", "relu")


def test_fuse_flattens_nested_fused_locs():
    assert fuse(FusedLoc((ADD, RELU)), CONV) == FusedLoc((ADD, RELU, CONV))


def test_fuse_drops_duplicates_keeping_first_order():
    assert fuse(ADD, RELU, ADD, FusedLoc((RELU, CONV))) == FusedLoc((ADD, RELU, CONV))


def test_fuse_drops_unknowns():
    assert fuse(UNKNOWN, ADD, FusedLoc(())) == ADD


def test_fuse_of_nothing_known_is_unknown():
    assert fuse() is UNKNOWN
    assert fuse(UNKNOWN, FusedLoc(())) is UNKNOWN


def test_fuse_of_one_loc_is_that_loc_not_a_fused_one():
    assert fuse(ADD, ADD) == ADD


def test_fused_loc_with_unknown_parts_reads_back_unchanged():
    loc = FusedLoc((UNKNOWN, ADD))
    assert _read(str(loc)) == loc


def test_missing_loc_reads_as_unknown():
    assert _read(")") is UNKNOWN


# A canonical Loc is one the text form holds exactly: a line only with a file, a col only
# with a line. Every canonical Loc and every FusedLoc of them reads back equal.
_canonical = st.builds(
    lambda node, module, src: Loc(node, module, *src),
    st.none() | weird_text,
    st.none() | weird_text,
    st.one_of(
        st.just((None, None, None)),
        st.tuples(weird_text, st.none(), st.none()),
        st.tuples(weird_text, st.integers(-5, 10**9), st.integers(0, 10**4)),
    ),
)


@settings(max_examples=150, deadline=None)
@given(_canonical)
def test_canonical_loc_reads_back_equal(loc: Loc):
    assert _read(str(loc)) == (UNKNOWN if loc.is_unknown else loc)


@settings(max_examples=50, deadline=None)
@given(st.lists(_canonical, max_size=4))
def test_fused_loc_reads_back_equal(parts):
    loc = FusedLoc(tuple(parts))
    assert _read(str(loc)) == loc
