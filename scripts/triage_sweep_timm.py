"""Sweep tiny-config timm architectures (random weights) through the capture modes of
scripts/triage_sweep.py and record every failure with a normalised signature: the corpus
behind samples/failures/timm/ (see its README.md).

    .venv/bin/python scripts/triage_sweep_timm.py --out /tmp/timm_sweep          # all
    .venv/bin/python scripts/triage_sweep_timm.py --out /tmp/t --only vit,swin --modes fx
    .venv/bin/python scripts/triage_sweep_timm.py --summary /tmp/timm_sweep/results.jsonl
    .venv/bin/python scripts/triage_sweep_timm.py --check samples/failures/timm  # re-capture

Modes: fx, export, export-strict and dynamic as in triage_sweep.py (dynamic: export
non-strict with the file's DYNAMIC_SHAPES, a batch Dim on dim 0), plus dynamic-hw: the
same with Dim("height"/"width", min=64, max=256) on dims 2 and 3 and an example side of
at least 64 (min=32 and the side itself for models built with img_size=32): with a
32-pixel example the last stride-32 feature map is 1x1 and torch's own contiguity checks
specialise H and W. A sample from dynamic-hw is labelled frontend=export, dynamic=true. Capturing, signatures (innermost timm frame), the sweep loop,
the summary and the re-capture check are triage_sweep.py's; this file holds the timm
recipes, the model-file rendering and the worker.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import triage_sweep as ts  # noqa: E402

ts.LIB_PREFIXES = ("timm/",)  # a signature names the innermost timm frame
ROOT = ts.ROOT
SHIM = ROOT / "samples" / "failures" / "timm" / "_shim.py"
MODES = ("fx", "export", "export-strict", "dynamic", "dynamic-hw")

# ------------------------------------------------------------------------- recipes
L1 = (1, 1, 1, 1)
VIT = dict(img_size=32, patch_size=8, embed_dim=32, depth=1, num_heads=2)

# (case, family, timm model name, create_model kwargs, image side)
TIMM = [
    # ---- CNNs
    ("resnet18", "resnet", "resnet18", dict(layers=L1), 32),
    ("resnet26d", "resnet", "resnet26d", dict(layers=L1), 32),
    ("seresnext26t", "resnet", "seresnext26t_32x4d", dict(layers=L1), 32),
    ("resnetv2_18", "resnetv2", "resnetv2_18", dict(layers=L1), 32),
    ("legacy_seresnet18", "senet", "legacy_seresnet18", dict(layers=[1, 1, 1, 1]), 32),
    ("regnetx_002", "regnet", "regnetx_002", {}, 32),
    ("efficientnet_b0", "efficientnet", "efficientnet_b0", {}, 32),
    ("mixnet_s", "efficientnet", "mixnet_s", {}, 32),
    ("mobilenetv3_small", "mobilenetv3", "mobilenetv3_small_050", {}, 32),
    ("mobilenetv4_small", "mobilenetv4", "mobilenetv4_conv_small_035", {}, 32),
    ("mobilenetv4_hybrid", "mobilenetv4", "mobilenetv4_hybrid_medium", {}, 64),
    (
        "convnext_atto",
        "convnext",
        "convnext_atto",
        dict(depths=L1, dims=(16, 32, 64, 128)),
        32,
    ),
    (
        "convnextv2_atto",
        "convnext",
        "convnextv2_atto",
        dict(depths=L1, dims=(16, 32, 64, 128)),
        32,
    ),
    ("ghostnet_050", "ghostnet", "ghostnet_050", {}, 32),
    ("ghostnetv2_100", "ghostnet", "ghostnetv2_100", {}, 64),
    ("dla46_c", "dla", "dla46_c", {}, 32),
    ("dpn48b", "dpn", "dpn48b", {}, 32),
    ("densenet121", "densenet", "densenet121", dict(block_config=L1), 32),
    ("res2net50", "res2net", "res2net50_26w_4s", dict(layers=L1), 32),
    ("resnest14d", "resnest", "resnest14d", {}, 32),
    ("skresnet18", "sknet", "skresnet18", dict(layers=L1), 32),
    ("selecsls42b", "selecsls", "selecsls42b", {}, 32),
    ("hrnet_w18_small", "hrnet", "hrnet_w18_small", {}, 64),
    ("rexnet_100", "rexnet", "rexnet_100", dict(width_mult=0.5), 32),
    ("nf_regnet_b0", "nfnet", "nf_regnet_b0", {}, 32),
    ("cspresnet50", "cspnet", "cspresnet50", {}, 32),
    ("cs3darknet_s", "cspnet", "cs3darknet_s", {}, 32),
    ("ese_vovnet19b_slim_dw", "vovnet", "ese_vovnet19b_slim_dw", {}, 32),
    ("tresnet_m", "tresnet", "tresnet_m", dict(layers=L1), 64),
    ("inception_v3", "inception_v3", "inception_v3", {}, 80),
    ("inception_v4", "inception_v4", "inception_v4", {}, 96),
    ("xception41", "xception", "xception41", {}, 32),
    ("legacy_xception", "xception", "legacy_xception", {}, 64),
    ("nasnetalarge", "nasnet", "nasnetalarge", {}, 64),
    ("repvgg_a0", "byobnet", "repvgg_a0", {}, 32),
    ("mobileone_s0", "byobnet", "mobileone_s0", {}, 32),
    ("regnetz_005", "byobnet", "regnetz_005", {}, 32),
    ("botnet26t", "byoanet", "botnet26t_256", dict(img_size=64), 64),
    ("halonet26t", "byoanet", "halonet26t", dict(img_size=256), 256),
    ("lambda_resnet26t", "byoanet", "lambda_resnet26t", dict(img_size=64), 64),
    ("repghostnet_050", "repghost", "repghostnet_050", {}, 32),
    ("hgnetv2_b0", "hgnet", "hgnetv2_b0", {}, 32),
    ("efficientvit_b0", "efficientvit", "efficientvit_b0", {}, 32),
    ("efficientvit_m0", "efficientvit-msra", "efficientvit_m0", dict(img_size=64), 64),
    ("vgg11", "vgg", "vgg11", {}, 32),
    ("darknet17", "cspnet", "darknet17", {}, 32),
    ("convmixer", "convmixer", "convmixer_768_32", {}, 32),
    ("inception_next_atto", "inception_next", "inception_next_atto", {}, 32),
    ("rdnet_tiny", "rdnet", "rdnet_tiny", {}, 32),
    ("starnet_s050", "starnet", "starnet_s050", {}, 32),
    ("mambaout_femto", "mambaout", "mambaout_femto", {}, 32),
    ("fasternet_t0", "fasternet", "fasternet_t0", {}, 32),
    ("shvit_s1", "shvit", "shvit_s1", {}, 64),
    ("swiftformer_xs", "swiftformer", "swiftformer_xs", {}, 64),
    ("repvit_m0_9", "repvit", "repvit_m0_9", {}, 32),
    ("mobilevit_xxs", "mobilevit", "mobilevit_xxs", {}, 64),
    ("mobilevitv2_050", "mobilevit", "mobilevitv2_050", {}, 64),
    ("edgenext_xx_small", "edgenext", "edgenext_xx_small", {}, 64),
    ("fastvit_t8", "fastvit", "fastvit_t8", dict(layers=L1), 64),
    (
        "efficientformer_l1",
        "efficientformer",
        "efficientformer_l1",
        dict(depths=L1),
        224,
    ),
    (
        "efficientformerv2_s0",
        "efficientformer",
        "efficientformerv2_s0",
        dict(img_size=64),
        64,
    ),
    ("sequencer2d_s", "sequencer", "sequencer2d_s", dict(layers=L1), 32),
    ("nextvit_small", "nextvit", "nextvit_small", {}, 64),
    ("ghostnetv3_050", "ghostnet", "ghostnetv3_050", {}, 64),
    # ---- ViTs and hybrids
    ("vit", "vit", "vit_tiny_patch16_224", VIT, 32),
    ("vit_dinov2", "vit", "vit_small_patch14_reg4_dinov2", dict(VIT, patch_size=8), 32),
    ("vit_relpos", "vit-relpos", "vit_relpos_small_patch16_224", VIT, 32),
    (
        "vit_hybrid",
        "vit-hybrid",
        "vit_tiny_r_s16_p8_224",
        dict(img_size=64, depth=1),
        64,
    ),
    ("deit_distilled", "deit", "deit_tiny_distilled_patch16_224", VIT, 32),
    ("beit", "beit", "beit_base_patch16_224", VIT, 32),
    ("eva02", "eva", "eva02_tiny_patch14_224", VIT, 32),
    (
        "samvit",
        "vit-sam",
        "samvit_base_patch16",
        dict(VIT, img_size=64, window_size=4, global_attn_indexes=[0]),
        64,
    ),
    (
        "swin",
        "swin",
        "swin_tiny_patch4_window7_224",
        dict(img_size=32, window_size=4, embed_dim=16, depths=(1, 1), num_heads=(1, 2)),
        32,
    ),
    (
        "swinv2",
        "swinv2",
        "swinv2_tiny_window8_256",
        dict(img_size=32, window_size=4, embed_dim=16, depths=(1, 1), num_heads=(1, 2)),
        32,
    ),
    (
        "swinv2_cr",
        "swinv2-cr",
        "swinv2_cr_tiny_224",
        dict(img_size=32, window_size=4, embed_dim=16, depths=(1, 1), num_heads=(1, 2)),
        32,
    ),
    ("maxvit", "maxxvit", "maxvit_pico_rw_256", dict(img_size=64), 64),
    ("coatnet", "maxxvit", "coatnet_nano_rw_224", dict(img_size=64), 64),
    ("levit", "levit", "levit_128s", dict(img_size=64), 64),
    ("pvt_v2", "pvt_v2", "pvt_v2_b0", dict(depths=L1), 64),
    (
        "twins_svt",
        "twins",
        "twins_svt_small",
        dict(depths=L1, embed_dims=(16, 32, 64, 128), wss=(2, 2, 2, 2)),
        64,
    ),
    ("twins_pcpvt", "twins", "twins_pcpvt_small", dict(depths=L1), 64),
    ("xcit", "xcit", "xcit_nano_12_p16_224", dict(img_size=32, depth=1), 32),
    ("cait", "cait", "cait_xxs24_224", dict(VIT, depth_token_only=1), 32),
    ("crossvit", "crossvit", "crossvit_tiny_240", dict(img_size=120), 120),
    (
        "tnt",
        "tnt",
        "tnt_s_patch16_224",
        dict(
            img_size=32,
            patch_size=8,
            embed_dim=32,
            inner_dim=8,
            depth=1,
            num_heads_outer=2,
            num_heads_inner=2,
        ),
        32,
    ),
    ("pit", "pit", "pit_ti_224", dict(img_size=64, depth=[1, 1, 1]), 64),
    ("mvitv2", "mvitv2", "mvitv2_tiny", dict(img_size=64), 64),
    ("poolformer", "metaformer", "poolformer_s12", {}, 32),
    ("caformer", "metaformer", "caformer_s18", {}, 32),
    ("convit", "convit", "convit_tiny", dict(VIT, local_up_to_layer=1), 32),
    ("volo", "volo", "volo_d1_224", dict(img_size=64), 64),
    ("davit", "davit", "davit_tiny", dict(depths=L1, embed_dims=(24, 48, 96, 192)), 64),
    ("focalnet", "focalnet", "focalnet_tiny_srf", {}, 64),
    ("gcvit", "gcvit", "gcvit_xxtiny", dict(img_size=64), 64),
    ("nest", "nest", "nest_tiny", dict(img_size=32, patch_size=2), 32),
    ("tiny_vit", "tiny_vit", "tiny_vit_5m_224", dict(depths=L1), 64),
    ("hiera", "hiera", "hiera_tiny_224", dict(img_size=64, stages=L1), 64),
    ("vitamin", "vitamin", "vitamin_small_224", dict(img_size=64), 64),
    ("coat_lite", "coat", "coat_lite_tiny", dict(img_size=32, serial_depths=L1), 32),
    (
        "visformer",
        "visformer",
        "visformer_tiny",
        dict(img_size=64, depth=(1, 1, 1)),
        64,
    ),
    (
        "mixer",
        "mlp-mixer",
        "mixer_s16_224",
        dict(img_size=32),
        32,
    ),
    (
        "resmlp",
        "mlp-mixer",
        "resmlp_12_224",
        dict(img_size=32),
        32,
    ),
    (
        "gmlp",
        "mlp-mixer",
        "gmlp_ti16_224",
        dict(img_size=32),
        32,
    ),
]


def find(name: str):
    for r in TIMM:
        if r[0] == name:
            return r
    raise KeyError(name)


def family(name: str) -> str:
    return find(name)[1]


# ---------------------------------------------------------------- model-file rendering
HOW = {
    "fx": "torch.fx.Tracer().trace (plain fx leaves) then cuvil.frontend.lower(frontend='fx', gm=...)",
    "export": "torch.export.export(strict=False)",
    "export-strict": "torch.export.export(strict=True)",
    "dynamic": "torch.export.export(strict=False, dynamic_shapes=DYNAMIC_SHAPES)",
    "dynamic-hw": "torch.export.export(strict=False, dynamic_shapes=DYNAMIC_SHAPES)",
}


def render(name: str, mode: str) -> str:
    """The model file for one case: Model(), example_inputs() and, for the dynamic
    modes, DYNAMIC_SHAPES (batch; batch, height and width for dynamic-hw)."""
    _, fam, model, kw, side = find(name)
    lo = 32 if "img_size" in kw and side < 64 else 64
    if mode == "dynamic-hw":  # a 1x1 last feature map (side 32) specialises H and W
        side = max(side, lo)
    args = "".join(f", {k}={v!r}" for k, v in kw.items())
    dyn = ""
    if mode == "dynamic":
        dyn = '\nBATCH = Dim("batch", min=1, max=64)\nDYNAMIC_SHAPES = ({0: BATCH},)\n'
    elif mode == "dynamic-hw":
        dyn = (
            '\nBATCH = Dim("batch", min=1, max=64)\n'
            f'HEIGHT = Dim("height", min={lo}, max=256)\n'
            f'WIDTH = Dim("width", min={lo}, max=256)\n'
            "DYNAMIC_SHAPES = ({0: BATCH, 2: HEIGHT, 3: WIDTH},)\n"
        )
    return (
        f'"""timm {model} ({fam}), tiny config, random init, no weights; captured with {HOW[mode]}.\n'
        f'Generated by scripts/triage_sweep_timm.py (case {name}, mode {mode})."""\n\n'
        "import torch\n"
        + ("from torch.export import Dim\n" if mode.startswith("dynamic") else "")
        + "\nimport _shim  # noqa: F401,I001 -- torchvision C++ op schemas, before timm (it imports torchvision)\n"
        "import timm\n"
        f"{dyn}\n\n"
        "def Model():\n"
        "    torch.manual_seed(0)\n"
        f"    return timm.create_model({model!r}, pretrained=False, num_classes=10{args}).eval()\n\n\n"
        "def example_inputs():\n"
        "    g = torch.Generator().manual_seed(1)\n"
        f"    x = torch.randn(2, 3, {side}, {side}, generator=g)\n"
        "    return (x,)\n"
    )


def _write(folder: Path, name: str, mode: str) -> Path:
    """Write (and ruff-format, so the kept sample is byte-for-byte the file that ran)."""
    path = folder / f"{name}__{mode.replace('-', '_')}.py"
    path.write_text(render(name, mode))
    ruff = Path(sys.executable).parent / "ruff"
    if ruff.exists():
        subprocess.run([str(ruff), "format", "-q", str(path)], check=False)
    return path


def worker(name: str, modes: list[str], out: Path, timeout: int) -> None:
    """One architecture, every mode; one JSON line per case on stdout."""
    sys.path.insert(0, str(SHIM.parent))
    import _shim  # noqa: F401

    cases = out / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    (cases / "_shim.py").write_text(ts.SHIM.read_text())  # the library shim itself
    try:
        ts.load_file(_write(cases, name, "export")).Model()
    except Exception as e:  # noqa: BLE001
        print(
            json.dumps(
                {"name": name, "mode": "build", "status": "build-error"}
                | ts.describe(e)
            ),
            flush=True,
        )
        return
    for mode in modes:
        path = _write(cases, name, mode)
        r = ts.run_case(
            path, "dynamic" if mode.startswith("dynamic") else mode, timeout
        )
        r.update(name=name, mode=mode)
        print(json.dumps(r), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/timm_sweep"))
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--timeout", type=int, default=60, help="seconds per capture")
    ap.add_argument("--list", action="store_true")
    ap.add_argument(
        "--check", type=Path, help="re-capture the labelled samples in this folder"
    )
    ap.add_argument(
        "--summary", type=Path, nargs="+", help="print counts of results.jsonl files"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--check-one", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    modes = a.modes.split(",")
    here = Path(__file__).resolve()
    if a.worker:
        worker(a.worker, modes, a.out, a.timeout)
        return 0
    if a.check_one:
        sys.path.insert(0, str(a.check_one.parent))
        import _shim  # noqa: F401

        print(json.dumps(ts.run_case(a.check_one, modes[0], a.timeout)))
        return 0
    if a.summary:
        ts.summary(a.summary, family_of=family, modes=MODES)
        return 0
    if a.check:
        return ts.check(a.check, a.timeout, script=here)
    names = a.only.split(",") if a.only else [r[0] for r in TIMM]
    if a.list:
        print("\n".join(names))
        return 0
    ts.sweep(names, modes, a.out, a.timeout, script=here, family_of=family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
