"""Parses `.cuvilir` text into a Module. Errors name file:line:col and show the line with a caret.

The grammar is what printer.py writes; in addition a file may hold bare ``param`` and
``func`` declarations without the ``module @name { ... }`` wrapper, and ``loc(...)`` may be
left out (unknown location). ``//`` starts a comment.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import torch

from ..errors import IRParseError
from .attributes import SymbolRef
from .core import Function, Module, Operation, Value, lookup_op, suggest_op
from .lexer import Lexer, Token, unquote
from .location import UNKNOWN, AnyLoc, FusedLoc, Loc
from .types import LAYOUTS, DType, SymDim, TensorType

__all__ = ["parse_module", "parse_file", "parse_type", "DEFAULT_MAX_CONSTANT_BYTES"]

# The largest dense<...> constant a file may hold (its tensor's bytes); a bigger one is
# a located parse error before anything is allocated (--max-constant-bytes raises it).
DEFAULT_MAX_CONSTANT_BYTES = 256 << 20

_TYPE_BODY = re.compile(
    r"((?:(?:\d+|\?|\[[A-Za-z_][A-Za-z0-9_]*\])x)*)([a-z]+[0-9]*)(?:\s*,\s*([a-z0-9_]+))?"
)


def _clip(text: str, most: int = 60) -> str:
    """`text`, cut to `most` characters for an error message."""
    return text if len(text) <= most else text[: most - 3] + "..."


class Parser(Lexer):
    """The grammar of printer.py's output, on the token cursor of `Lexer`."""

    max_constant_bytes: int = DEFAULT_MAX_CONSTANT_BYTES

    # ---- types ---------------------------------------------------------------------------
    def parse_type(self) -> TensorType:
        start = self.tok.pos
        if self.tok.text != "tensor":
            raise self.error(f"expected a tensor type, found {self.tok}")
        end = self.text.find(">", start)
        lt = self.text.find("<", start)
        if lt != start + len("tensor") or end < 0:
            raise self.error("malformed tensor type: expected 'tensor<...>'", start)
        body = self.text[lt + 1 : end]
        t = self._type_body(body, lt + 1)
        self.pos = end + 1
        self.tok = self._next()
        return t

    def _type_body(self, body: str, base: int) -> TensorType:
        m = _TYPE_BODY.fullmatch(body.strip())
        if m is None:
            raise self.error(
                f"malformed tensor type 'tensor<{_clip(body)}>'",
                base,
                hint="write dims as 2x?x[batch]x then the element type, e.g. tensor<2x3xf32>",
            )
        dims_text, dtype_text, layout = m.groups()
        try:
            dtype = DType(dtype_text)
        except ValueError:
            known = ", ".join(d.value for d in DType)
            raise self.error(
                f"unknown element type '{dtype_text}' (known: {known})", base
            ) from None
        if layout is not None and layout not in LAYOUTS:
            raise self.error(
                f"unknown layout '{layout}' (known: {', '.join(LAYOUTS)})", base
            )
        dims = [self._dim(d, base) for d in dims_text.split("x")[:-1]]
        return TensorType(tuple(dims), dtype, layout or "contiguous")

    def _dim(self, text: str, pos: int):
        if text == "?":
            return SymDim()
        if text.startswith("["):
            return SymDim(text[1:-1])
        return self._to_int(text, pos)

    def _to_int(self, text: str, pos: int) -> int:
        try:
            return int(text)
        except ValueError:  # Python refuses to convert integers of over 4300 digits
            raise self.error(
                f"integer of {len(text)} digits is too large", pos
            ) from None

    # ---- locations ------------------------------------------------------------------------
    def parse_loc(self) -> AnyLoc:
        if not self.at("loc"):
            return UNKNOWN
        self.advance()
        self.expect("(")
        loc = self._loc_body()
        self.expect(")", "to close loc(...)")
        return loc

    def _loc_body(self) -> AnyLoc:
        if self.accept("unknown"):
            return UNKNOWN
        if self.accept("fused"):
            self.expect("[")
            parts = self.comma_list("]", self._plain_loc)
            return FusedLoc(tuple(parts))
        return self._plain_loc()

    def _plain_loc(self) -> Loc:
        if self.accept("unknown"):
            return UNKNOWN
        fields: dict[str, Any] = {}
        if self.tok.kind == "string" and not self._string_then_colon():
            fields["node"] = unquote(self.advance().text)
        if self.accept("in"):
            fields["module"] = unquote(
                self.expect_kind("string", "a module path string").text
            )
        if self.accept("at") or (not fields and self.tok.kind == "string"):
            fields.update(self._source())
        if not fields:
            raise self.error(f"expected a location, found {self.tok}")
        return Loc(**fields)

    def _string_then_colon(self) -> bool:
        rest = self.text[self.tok.pos + len(self.tok.text) :].lstrip(" \t")
        return rest.startswith(":")

    def _source(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": unquote(self.expect_kind("string", "a file name string").text)
        }
        if self.accept(":"):
            out["line"] = self._int("a line number")
            self.expect(":")
            out["col"] = self._int("a column number")
        return out

    def _int(self, what: str) -> int:
        tok = self.expect_kind("number", what)
        if not re.fullmatch(r"-?\d+", tok.text):
            raise self.error(f"expected {what}, found {tok}", tok.pos)
        return self._to_int(tok.text, tok.pos)

    # ---- attributes -----------------------------------------------------------------------
    def parse_attrs(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        if not self.accept("{"):
            return attrs

        def item():
            key = self.expect_kind("ident", "an attribute name")
            if key.text in attrs:
                raise self.error(f"attribute '{key.text}' given twice", key.pos)
            self.expect("=")
            attrs[key.text] = self.parse_attr_value()

        self.comma_list("}", item)
        return attrs

    def parse_attr_value(self) -> Any:
        tok = self.tok
        if tok.kind == "number" or tok.text in ("nan", "true", "false"):
            return self._scalar()
        if tok.kind == "string":
            return unquote(self.advance().text)
        if tok.kind == "symbol":
            text = self.advance().text[1:]
            return SymbolRef(unquote(text) if text.startswith('"') else text)
        if self.accept("["):
            return tuple(self.comma_list("]", self._list_elem))
        if tok.text == "dense":
            return self._dense()
        if tok.kind == "ident" and tok.text in DType._value2member_map_:
            return DType(self.advance().text)
        raise self.error(f"expected an attribute value, found {tok}")

    def _scalar(self) -> Any:
        tok = self.advance()
        if tok.text in ("true", "false"):
            return tok.text == "true"
        if tok.text == "nan":
            return math.nan
        if tok.kind != "number":
            raise self.error(f"expected a number, found {tok}", tok.pos)
        if re.fullmatch(r"-?\d+", tok.text):
            return self._to_int(tok.text, tok.pos)
        return float(tok.text)

    def _list_elem(self) -> Any:
        if self.accept("?"):
            return SymDim()
        if self.accept("["):
            name = self.expect_kind("ident", "a dim symbol name")
            self.expect("]")
            return SymDim(name.text)
        return self._scalar()

    def _dense(self) -> torch.Tensor:
        start = self.advance().pos
        self.expect("<", "after 'dense'")
        splat = not self.accept("[")
        values = [self._scalar()] if splat else self.comma_list("]", self._scalar)
        self.expect(">", "to close dense<...>")
        self.expect(":", "and the type of the dense value")
        t = self.parse_type()
        if not t.is_static:
            raise self.error(f"a dense value needs a static type, got {t}", start)
        numel = t.numel()
        self._check_size(t, numel, start)
        if not splat and len(values) != numel:
            raise self.error(
                f"dense value has {len(values)} elements but {t} needs {numel}", start
            )
        try:
            data = torch.tensor(values, dtype=t.dtype.torch)
        except (TypeError, ValueError, RuntimeError, OverflowError) as e:
            raise self.error(f"dense value does not fit {t}: {e}", start) from None
        if not t.dtype.is_float:
            self._check_exact(values, data, t, start)
        if splat:  # one element, broadcast: no list of numel Python values
            return data.reshape(()).expand(t.shape).contiguous()
        return data.reshape(t.shape)

    def _check_size(self, t: TensorType, numel: int, pos: int) -> None:
        """Refuse a constant over `max_constant_bytes` before allocating it."""
        size = numel * t.dtype.torch.itemsize
        if size > self.max_constant_bytes:
            raise self.error(
                f"dense constant {t} is {size} bytes, over the limit of "
                f"{self.max_constant_bytes} bytes",
                pos,
                hint="raise the limit with --max-constant-bytes (or "
                "max_constant_bytes=) if the file is trusted",
            )

    def _check_exact(
        self, values: list, data: torch.Tensor, t: TensorType, pos: int
    ) -> None:
        """Integer and i1 elements must be stored exactly: torch would truncate or wrap."""
        for want, got in zip(values, data.tolist(), strict=True):
            if isinstance(want, float) or want != got:
                raise self.error(f"dense element {want} does not fit {t}", pos)

    # ---- functions and ops ----------------------------------------------------------------
    def parse_module(self, default_name: str) -> Module:
        wrapped = self.accept("module")
        module = Module(default_name)
        if wrapped:
            module.name = self._symbol("a module name")
            self.expect("{")
        while not (self.tok.kind == "eof" if not wrapped else self.at("}")):
            if self.tok.kind == "eof":
                raise self.error(
                    "unexpected end of input: expected '}' to close the module"
                )
            self._toplevel(module)
        if wrapped:
            self.expect("}")
            if self.tok.kind != "eof":
                raise self.error(f"unexpected {self.tok} after the end of the module")
        return module

    def _symbol(self, what: str) -> str:
        text = self.expect_kind("symbol", what).text[1:]
        return unquote(text) if text.startswith('"') else text

    def _toplevel(self, module: Module) -> None:
        if self.accept("param"):
            pos = self.tok.pos
            name = self._symbol("a param name")
            if name in module.params:
                raise self.error(f"param @{name} declared twice", pos)
            self.expect(":")
            module.params[name] = self.parse_type()
        elif self.at("func"):
            module.add_function(self.parse_function(module))
        else:
            raise self.error(f"expected 'param' or 'func', found {self.tok}")

    def parse_function(self, module: Module) -> Function:
        self.expect("func")
        pos = self.tok.pos
        fn = Function(self._symbol("a function name"))
        if module.lookup(fn.name):
            raise self.error(f"function @{fn.name} defined twice", pos)
        scope: dict[str, Value] = {}
        self.expect("(")
        self.comma_list(")", lambda: self._arg(fn, scope))
        self.expect("->")
        self.expect("(")
        fn.result_types = self.comma_list(")", self.parse_type)
        self.expect("{")
        while not self.at("return"):
            if self.tok.kind == "eof":
                raise self.error(
                    "unexpected end of input inside a function: expected 'return'"
                )
            fn.append(self.parse_op(scope))
        self.advance()
        if not self.at("}"):
            fn.outputs = [self._use(scope)]
            while self.accept(","):
                fn.outputs.append(self._use(scope))
        self.expect("}", "to close the function")
        return fn

    def _arg(self, fn: Function, scope: dict[str, Value]) -> None:
        tok = self.expect_kind("value", "an argument name (%name)")
        self.expect(":")
        v = fn.add_arg(self.parse_type(), tok.text[1:], self.parse_loc())
        self._define(scope, tok, v)

    def _define(self, scope: dict[str, Value], tok: Token, v: Value) -> None:
        if tok.text in scope:
            raise self.error(
                f"value {tok.text} is defined twice (SSA values are defined once)",
                tok.pos,
            )
        scope[tok.text] = v

    def _use(self, scope: dict[str, Value]) -> Value:
        tok = self.expect_kind("value", "a value (%name)")
        if tok.text not in scope:
            raise self.error(f"use of undefined value {tok.text}", tok.pos)
        return scope[tok.text]

    def parse_op(self, scope: dict[str, Value]) -> Operation:
        start = self.tok.pos
        results = [self.expect_kind("value", "an op result (%name = ...) or 'return'")]
        while self.accept(","):
            results.append(self.expect_kind("value", "a result name"))
        self.expect("=")
        name_tok = self.expect_kind("ident", "an op name")
        cls = lookup_op(name_tok.text)
        if cls is None:
            raise self.error(
                f"unknown op '{name_tok.text}'{suggest_op(name_tok.text)}", name_tok.pos
            )
        self.expect("(")
        use_toks: list[Token] = []
        operands = self.comma_list(
            ")", lambda: (use_toks.append(self.tok), self._use(scope))[1]
        )
        attrs = self.parse_attrs()
        self.expect(":", "and the op's type signature")
        self.expect("(")
        in_types = self.comma_list(")", self.parse_type)
        self.expect("->")
        out_types = (
            self.comma_list(")", self.parse_type)
            if self.accept("(")
            else [self.parse_type()]
        )
        self._check_uses(operands, use_toks, in_types, name_tok)
        if len(out_types) != len(results):
            raise self.error(
                f"'{name_tok.text}' declares {len(out_types)} result types for "
                f"{len(results)} results",
                start,
            )
        loc = self.parse_loc()
        op = cls(
            operands,
            cls.with_defaults(attrs),
            out_types,
            loc,
            [r.text[1:] for r in results],
        )
        op.src_pos = (self.file, *self.position(start))
        for tok, v in zip(results, op.results, strict=True):
            self._define(scope, tok, v)
        return op

    def _check_uses(self, operands, toks, types, name_tok: Token) -> None:
        if len(types) != len(operands):
            raise self.error(
                f"'{name_tok.text}' has {len(operands)} operands but its signature "
                f"lists {len(types)} types",
                name_tok.pos,
            )
        for v, tok, t in zip(operands, toks, types, strict=True):
            if v.type != t:
                raise self.error(
                    f"{tok.text} has type {v.type} but is used as {t}", tok.pos
                )


def parse_module(
    text: str, file: str = "<string>", *, max_constant_bytes: int | None = None
) -> Module:
    """Parse `.cuvilir` text. Raises IRParseError (file:line:col, line and caret);
    a dense constant over `max_constant_bytes` (default DEFAULT_MAX_CONSTANT_BYTES)
    is one too."""
    parser = Parser(text, file)
    if max_constant_bytes is not None:
        parser.max_constant_bytes = max_constant_bytes
    return parser.parse_module(Path(file).stem if file != "<string>" else "module")


def parse_file(path: str | Path, *, max_constant_bytes: int | None = None) -> Module:
    """Read and parse a `.cuvilir` file; undecodable bytes are a parse error, not a crash."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        prefix = data[: e.start].decode("utf-8", "replace")
        line = prefix.count("\n") + 1
        col = len(prefix) - (prefix.rfind("\n") + 1) + 1
        raise IRParseError(
            f"invalid UTF-8 byte {data[e.start]:#04x}; .cuvilir files are UTF-8 text",
            file=str(path),
            line=line,
            col=col,
        ) from None
    return parse_module(text, str(path), max_constant_bytes=max_constant_bytes)


def parse_type(text: str) -> TensorType:
    p = Parser(text, "<type>")
    t = p.parse_type()
    if p.tok.kind != "eof":
        raise p.error(f"unexpected {p.tok} after the type")
    return t
