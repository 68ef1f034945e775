"""The quant report as text (a ranked table) or JSON."""

from __future__ import annotations

import dataclasses
import json
import math

from .measure import LayerRow, Metrics, QuantReport

__all__ = ["render_text", "render_json"]


def _db(x: float | None) -> str:
    if x is None:
        return "-"
    return "exact" if math.isinf(x) else f"{x:.1f} dB"


def _m(m: Metrics) -> str:
    return f"SQNR {_db(m.sqnr_db)}  max abs {m.max_abs:.3g}  cosine {m.cosine:.6f}"


def _native(row: LayerRow) -> str:
    if row.native_steps is not None:
        return "exact" if row.native_steps == 0 else f"{row.native_steps} step(s)"
    return _db(row.native.sqnr_db) if row.native is not None else "-"


def _verdict(r: QuantReport) -> str:
    """A bug shows as a kernel that, fed the fake-quant model's inputs, misses its
    value by more than a rounding tie (one int8 step) or by a float32 rounding."""
    checked = [row for row in r.layers if row.native_steps is not None or row.native]
    bad = [
        row.name
        for row in checked
        if (row.native_steps or 0) > 1 or (row.native and row.native.sqnr_db < 80)
    ]
    if bad:
        return (
            f"kernel(s) {', '.join(bad[:3])} miss the fake-quant model by more than "
            "rounding: a bug, not quantization (cuvil-debug diff)"
        )
    if not checked:
        return "no kernel checked (--no-native-layers)"
    return (
        "the error is quantization's: each kernel reproduces the fake-quant model "
        "within one rounding tie"
    )


def render_text(r: QuantReport) -> str:
    o = r.info.options
    mode = "dynamic int8" if o.dynamic else o.mode
    if o.mode == "int8" and not o.dynamic:
        mode += f" static ({o.calibration} calibration, {o.activations} activations)"
    agree, rows = r.top1
    lines = [
        f"quant   {r.model}: {mode}, isa {o.isa} (CPU: {', '.join(r.info.features) or '-'})",
        f"data    {r.calib} generated calibration batches, {r.evals} evaluation batches",
        f"output  int8 vs float:        {_m(r.output)}".replace("int8", o.mode, 1),
        f"        fake-quant vs float:  {_m(r.fake_quant)}",
        f"        native vs fake-quant: {_m(r.native_vs_fake)}",
        f"        top-1 agreement {agree}/{rows} ({agree / max(rows, 1):.1%})",
        f"verdict {_verdict(r)}",
        "",
        "layers, costliest first (alone: the model output's SQNR with only that layer "
        "quantized)",
    ]
    head = (
        "#",
        "layer",
        "kind",
        "status",
        "alone",
        "layer SQNR",
        "max abs",
        "cosine",
        "native",
    )
    body = []
    for i, row in enumerate(r.layers, 1):
        lm = row.layer
        body.append(
            (
                str(i),
                row.name,
                row.kind,
                row.status,
                _db(row.alone.sqnr_db if row.alone else None),
                _db(lm.sqnr_db) if lm else "-",
                f"{lm.max_abs:.3g}" if lm else "-",
                f"{lm.cosine:.5f}" if lm else "-",
                _native(row),
            )
        )
    lines += _table(head, body)
    floats = [row for row in r.layers if row.status == "float"]
    lines += [f"float   {row.name}: {row.reason}" for row in floats]
    worst = next((row for row in r.layers if row.status != "float"), None)
    if worst is not None:
        lines.append(
            f'hint    --skip {worst.name} (quantize={{"{o.mode}": True, "skip": '
            f'["{worst.name}"]}}) leaves the costliest layer in float32'
        )
    return "\n".join(lines) + "\n"


def _table(head: tuple, body: list[tuple]) -> list[str]:
    rows = [head, *body]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    left = {1, 2, 3}
    return [
        "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _clean(x):
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean(v) for v in x]
    return x


def render_json(r: QuantReport) -> str:
    data = {
        "model": r.model,
        "quantization": r.info.to_dict(),
        "calibration_batches": r.calib,
        "evaluation_batches": r.evals,
        "output": dataclasses.asdict(r.output),
        "fake_quant": dataclasses.asdict(r.fake_quant),
        "native_vs_fake_quant": dataclasses.asdict(r.native_vs_fake),
        "top1": {"agree": r.top1[0], "rows": r.top1[1]},
        "layers": [dataclasses.asdict(row) for row in r.layers],
    }
    return json.dumps(_clean(data), indent=1) + "\n"
