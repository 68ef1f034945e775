"""The mutations of a saved bundle that tests/runtime/test_bundle_tampering.py tries.

`mutations(ctx)` gives (name, apply, must_refuse): `apply(bundle)` edits a fresh copy
in place; `must_refuse` says that loading it must be refused (a path out of the bundle,
a symlink, a foreign library), not just "refused or correct". `ctx` holds what some
need: ``other`` (a bundle of another model with the same inputs and outputs), ``wide``
(one with other param shapes), ``small`` (one with other inputs), ``ctor`` (a library
whose constructor writes a marker file) and ``outside`` (a folder beside the bundles).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import torch
from bundle_harness import read_meta, update_digests, write_meta

Mutation = tuple[str, Callable[[Path], None], bool]


def _field(path: tuple, value) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        meta = read_meta(bundle)
        node = meta
        for key in path[:-1]:
            node = node[key]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value(node[path[-1]]) if callable(value) else value
        write_meta(bundle, meta)

    return apply


_DELETE = object()


def _meta_mutations() -> list[Mutation]:
    f = _field
    rows = [
        ("arena_bytes=0", f(("arena_bytes",), 0)),
        ("arena_bytes=1", f(("arena_bytes",), 1)),
        ("arena_bytes-8", f(("arena_bytes",), lambda v: max(v - 8, 0))),
        ("arena_bytes/2", f(("arena_bytes",), lambda v: v // 2)),
        ("arena_bytes=-1", f(("arena_bytes",), -1)),
        ("arena_bytes=2**62", f(("arena_bytes",), 2**62)),
        ("arena_bytes=str", f(("arena_bytes",), "64")),
        ("arena_bytes=null", f(("arena_bytes",), None)),
        ("arena_bytes missing", f(("arena_bytes",), _DELETE)),
        ("input shape 1x4", f(("inputs", 0, "shape"), [1, 4])),
        ("input shape 1x64", f(("inputs", 0, "shape"), [1, 64])),
        ("input shape 64x8", f(("inputs", 0, "shape"), [64, 8])),
        ("input shape []", f(("inputs", 0, "shape"), [])),
        ("input shape -1", f(("inputs", 0, "shape"), [-1, 8])),
        ("input shape str", f(("inputs", 0, "shape"), "1x8")),
        ("input dtype f64", f(("inputs", 0, "dtype"), "f64")),
        ("input dtype f16", f(("inputs", 0, "dtype"), "f16")),
        ("input dtype i64", f(("inputs", 0, "dtype"), "i64")),
        ("input dtype bogus", f(("inputs", 0, "dtype"), "f99")),
        ("input layout nhwc", f(("inputs", 0, "layout"), "nhwc")),
        ("input renamed", f(("inputs", 0, "name"), "y")),
        ("input removed", f(("inputs",), [])),
        ("input doubled", f(("inputs",), lambda v: v + v)),
        ("inputs=null", f(("inputs",), None)),
        ("output shape 1x64", f(("outputs", 0, "shape"), [1, 64])),
        ("output shape 1x2", f(("outputs", 0, "shape"), [1, 2])),
        ("output shape 1024x1024", f(("outputs", 0, "shape"), [1024, 1024])),
        ("output dtype f64", f(("outputs", 0, "dtype"), "f64")),
        ("output dtype i8", f(("outputs", 0, "dtype"), "i8")),
        ("output added", f(("outputs",), lambda v: v + v)),
        ("outputs removed", f(("outputs",), [])),
        ("outputs=dict", f(("outputs",), {"shape": [1, 4]})),
        ("output_spec garbage", f(("output_spec",), "not a spec")),
        ("output_spec tuple", f(("output_spec",), _TUPLE_SPEC)),
        ("params reversed", f(("params", "names"), lambda v: v[::-1])),
        ("params renamed", f(("params", "names"), lambda v: ["x"] + v[1:])),
        ("params dropped", f(("params", "names"), lambda v: v[1:])),
        ("params doubled", f(("params", "names"), lambda v: v + v)),
        ("params names=[]", f(("params", "names"), [])),
        ("entry=cuvil_step_0", f(("entry",), "cuvil_step_0")),
        ("entry=abort", f(("entry",), "abort")),
        ("entry missing symbol", f(("entry",), "no_such_symbol")),
        ("entry=int", f(("entry",), 7)),
        ("debug_key changed", f(("debug_key",), "0" * 40)),
        ("ir_sha256 changed", f(("ir_sha256",), "0" * 64)),
        ("format changed", f(("format",), "cuvil-aot-0")),
        ("options opt_level", f(("options",), lambda v: {**v, "opt_level": "O3"})),
        ("options=list", f(("options",), [])),
        ("kernels emptied", f(("kernels",), [])),
        ("target cpu", f(("target", "cpu"), "i386")),
        ("library sha256 zero", f(("library", "sha256"), "0" * 64)),
        ("params sha256 zero", f(("params", "sha256"), "0" * 64)),
        ("library=dict missing", f(("library",), {})),
        ("params file=null", f(("params", "file"), None)),
    ]
    return [(name, apply, False) for name, apply in rows]


_TUPLE_SPEC = (
    '[1, {"type": "builtins.tuple", "context": "null", "children_spec": '
    '[{"type": null, "context": null, "children_spec": []}, '
    '{"type": null, "context": null, "children_spec": []}]}]'
)


def _raw_meta(text: bytes) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        (bundle / "model.json").write_bytes(text)

    return apply


def _json_mutations() -> list[Mutation]:
    rows = [
        ("model.json empty", b""),
        ("model.json []", b"[]"),
        ("model.json null", b"null"),
        ("model.json not utf-8", b"\xff\xfe{}"),
        ("model.json nested 100000", b"[" * 100000 + b"]" * 100000),
        ("model.json huge number", b'{"format": 1e999999}'),
    ]
    out = [(name, _raw_meta(text), False) for name, text in rows]

    def truncate(bundle: Path) -> None:
        data = (bundle / "model.json").read_bytes()
        (bundle / "model.json").write_bytes(data[: len(data) // 2])

    out.append(("model.json truncated", truncate, False))
    out.append(("model.json sparse 65 MiB", _sparse("model.json", 65 << 20), False))
    out.append(("params.pt sparse 17 GiB", _sparse("params.pt", 17 << 30), False))
    return out


def _sparse(name: str, size: int) -> Callable[[Path], None]:
    """`name` grown to `size` bytes without writing them (a file system hole)."""

    def apply(bundle: Path) -> None:
        with open(bundle / name, "r+b") as f:
            f.truncate(size)

    return apply


def _path_mutations(ctx: dict) -> list[Mutation]:
    outside: Path = ctx["outside"]

    def point(field: str, target: str | Callable[[Path], str], stage=None):
        def apply(bundle: Path) -> None:
            if stage is not None:
                stage(bundle)
            meta = read_meta(bundle)
            meta[field]["file"] = target(bundle) if callable(target) else target
            write_meta(bundle, meta)

        return apply

    def stage_outside(name: str):
        def stage(bundle: Path) -> None:
            outside.mkdir(exist_ok=True)
            shutil.copy(bundle / name, outside / name)

        return stage

    def rel_lib(bundle: Path) -> str:
        return os.path.relpath(outside / "model.so", bundle)

    def rel_params(bundle: Path) -> str:
        return os.path.relpath(outside / "params.pt", bundle)

    rows = [
        ("library ../ path", point("library", rel_lib, stage_outside("model.so"))),
        ("params ../ path", point("params", rel_params, stage_outside("params.pt"))),
        (
            "library absolute path",
            point("library", str(outside / "model.so"), stage_outside("model.so")),
        ),
        (
            "params absolute path",
            point("params", str(outside / "params.pt"), stage_outside("params.pt")),
        ),
        ("library /etc/passwd", point("library", "/etc/passwd")),
        ("params /etc/passwd", point("params", "/etc/passwd")),
        ("library in subdir", point("library", "sub/model.so", _into_subdir)),
        ("library = .", point("library", ".")),
        ("library = ''", point("library", "")),
        ("library = model.so/", point("library", "model.so/")),
        ("params = params.pt/.", point("params", "params.pt/.")),
        ("library NUL in name", point("library", "model.so\x00x")),
    ]
    return [(name, apply, True) for name, apply in rows]


def _into_subdir(bundle: Path) -> None:
    (bundle / "sub").mkdir()
    shutil.copy(bundle / "model.so", bundle / "sub" / "model.so")


def _symlink_mutations(ctx: dict) -> list[Mutation]:
    outside: Path = ctx["outside"]

    def link(name: str, inside: bool = False):
        def apply(bundle: Path) -> None:
            if inside:
                target = bundle / f".{name}.real"
            else:
                outside.mkdir(exist_ok=True)
                target = outside / f"{name}.linked"
            shutil.move(bundle / name, target)
            os.symlink(target, bundle / name)

        return apply

    def link_to_ctor(bundle: Path) -> None:
        (bundle / "model.so").unlink()
        os.symlink(ctx["ctor"], bundle / "model.so")
        update_digests(bundle)

    rows = [
        ("model.so symlink outside", link("model.so")),
        ("params.pt symlink outside", link("params.pt")),
        ("model.json symlink outside", link("model.json")),
        ("model.so symlink inside", link("model.so", inside=True)),
        ("params.pt symlink inside", link("params.pt", inside=True)),
        ("model.so symlink to constructor lib", link_to_ctor),
    ]
    return [(name, apply, True) for name, apply in rows]


def _flip(name: str, at: float, digest: bool) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        data = bytearray((bundle / name).read_bytes())
        data[min(int(len(data) * at), len(data) - 1)] ^= 0x5A
        (bundle / name).write_bytes(bytes(data))
        if digest:
            update_digests(bundle)

    return apply


def _truncate(name: str, keep: float, digest: bool) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        data = (bundle / name).read_bytes()
        (bundle / name).write_bytes(data[: int(len(data) * keep)])
        if digest:
            update_digests(bundle)

    return apply


def _file_mutations() -> list[Mutation]:
    out: list[Mutation] = []
    spots = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99)
    for name in ("model.so", "params.pt"):
        for digest in (False, True):
            tag = " +digest" if digest else ""
            for at in spots:
                out.append((f"{name} flip@{at}{tag}", _flip(name, at, digest), False))
            for keep in (0.0, 0.1, 0.5, 0.999):
                apply = _truncate(name, keep, digest)
                out.append((f"{name} truncated {keep}{tag}", apply, False))
    return out


def _replace(name: str, source: Callable[[], Path], digest=True):
    def apply(bundle: Path) -> None:
        (bundle / name).unlink()
        shutil.copy(source(), bundle / name)
        if digest:
            update_digests(bundle)

    return apply


def _swap_files(bundle: Path) -> None:
    so, pt = bundle / "model.so", bundle / "params.pt"
    so.rename(bundle / "tmp")
    pt.rename(so)
    (bundle / "tmp").rename(pt)
    update_digests(bundle)


def _params_file(tensors: Callable[[dict], object]) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        params = torch.load(bundle / "params.pt", weights_only=True)
        torch.save(tensors(params), bundle / "params.pt")
        update_digests(bundle)

    return apply


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def _with_other_meta(ctx: dict, fields: tuple[str, ...]):
    def apply(bundle: Path) -> None:
        _replace("model.so", lambda: ctx["other"] / "model.so")(bundle)
        meta, theirs = read_meta(bundle), read_meta(ctx["other"])
        for field in fields:
            meta[field] = theirs[field]
        write_meta(bundle, meta)
        update_digests(bundle)

    return apply


def _replacement_mutations(ctx: dict) -> list[Mutation]:
    def lib(key):
        return lambda: ctx[key] / "model.so"

    def params(key):
        return lambda: ctx[key] / "params.pt"

    def ctor():
        return ctx["ctor"]

    def ctor_with_abi():
        return ctx["ctor_abi"]

    key_fields = ("debug_key", "ir_sha256", "kernels", "options")
    rows = [
        ("model.so from other model +digest", _replace("model.so", lib("other")), 1),
        ("model.so from other model", _replace("model.so", lib("other"), False), 0),
        ("model.so from wide model +digest", _replace("model.so", lib("wide")), 1),
        ("model.so from small model +digest", _replace("model.so", lib("small")), 1),
        ("model.so + its key fields", _with_other_meta(ctx, key_fields), 1),
        ("params.pt from other +digest", _replace("params.pt", params("other")), 1),
        ("params.pt from wide +digest", _replace("params.pt", params("wide")), 1),
        ("params.pt from small +digest", _replace("params.pt", params("small")), 1),
        ("model.so constructor lib +digest", _replace("model.so", ctor), 1),
        ("model.so constructor lib", _replace("model.so", ctor, False), 1),
        ("constructor lib with copied ABI", _replace("model.so", ctor_with_abi), 1),
        ("model.so <-> params.pt +digest", _swap_files, 1),
        ("params zeroed +digest", _params_file(_zeroed), 0),
        (
            "params one dropped +digest",
            _params_file(lambda p: dict(list(p.items())[1:])),
            0,
        ),
        ("params one reshaped +digest", _params_file(_reshaped), 0),
        ("params one f64 +digest", _params_file(_as_f64), 0),
        ("params list +digest", _params_file(lambda p: list(p.values())), 0),
        ("params pickle reduce +digest", _params_file(lambda p: {"x": _Evil()}), 0),
    ]
    return [(name, apply, bool(must)) for name, apply, must in rows]


def _zeroed(params: dict) -> dict:
    return {k: torch.zeros_like(v) for k, v in params.items()}


def _reshaped(params: dict) -> dict:
    first = next(iter(params))
    return {**params, first: params[first].reshape(-1)[:-1].clone()}


def _as_f64(params: dict) -> dict:
    first = next(iter(params))
    return {**params, first: params[first].double()}


def _remove(name: str) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        (bundle / name).unlink()

    return apply


def _as_fifo(name: str) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        (bundle / name).unlink()
        os.mkfifo(bundle / name)

    return apply


def _as_dir(name: str) -> Callable[[Path], None]:
    def apply(bundle: Path) -> None:
        (bundle / name).unlink()
        (bundle / name).mkdir()

    return apply


def _missing_mutations() -> list[Mutation]:
    rows = [
        ("model.so missing", _remove("model.so")),
        ("params.pt missing", _remove("params.pt")),
        ("model.json missing", _remove("model.json")),
        ("model.so is a directory", _as_dir("model.so")),
        ("params.pt is a directory", _as_dir("params.pt")),
        ("model.so is a FIFO", _as_fifo("model.so")),
        ("params.pt is a FIFO", _as_fifo("params.pt")),
        ("model.json is a FIFO", _as_fifo("model.json")),
    ]
    return [(name, apply, True) for name, apply in rows]


def whole_swaps(ctx: dict) -> list[Mutation]:
    """Every file replaced by another bundle's, consistently: a different model that is
    a valid bundle, so only a signature tells it apart (unsigned, it loads as the other
    model). `must_refuse` is for the signed run."""

    def take(names: tuple[str, ...]):
        def apply(bundle: Path) -> None:
            for name in names:
                (bundle / name).unlink()
                shutil.copy(ctx["other"] / name, bundle / name)

        return apply

    every = ("model.so", "model.json", "params.pt", "model.so-gdb.py")
    return [
        ("model.so + model.json + params.pt of another bundle", take(every), True),
    ]


def mutations(ctx: dict) -> list[Mutation]:
    return [
        *_meta_mutations(),
        *_json_mutations(),
        *_path_mutations(ctx),
        *_symlink_mutations(ctx),
        *_file_mutations(),
        *_replacement_mutations(ctx),
        *_missing_mutations(),
    ]
