"""The labelled corpus (samples/failures/): per-sample category and root cause, and
the acceptance thresholds of issue #6 over the whole corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuvil_debug.triage.categories import CATEGORIES
from cuvil_debug.triage.corpus import evaluate, fixed_labels, load_labels

CORPUS = Path(__file__).resolve().parents[3] / "samples" / "failures"
LABELS = json.loads((CORPUS / "labels.json").read_text())


def test_corpus_has_50_samples_covering_every_category():
    assert len(LABELS) >= 50
    assert {v["category"] for v in LABELS.values()} == set(CATEGORIES) - {"unknown"}


@pytest.mark.parametrize("name", sorted(LABELS))
def test_label_points_at_a_code_line(name):
    lines = (CORPUS / name).read_text().splitlines()
    line = lines[LABELS[name]["root_line"] - 1].strip()
    assert line and not line.startswith(("#", '"""'))


@pytest.mark.parametrize("name", sorted(load_labels(CORPUS)))  # less the fixed ones
def test_sample_is_triaged_to_its_label(name, corpus_records, corpus_labels):
    (outcome,) = evaluate({name: corpus_labels[name]}, {name: corpus_records[name]})
    assert outcome.got == outcome.expected
    assert outcome.root_ok, f"root line {outcome.root_expected} not in {outcome.roots}"


def test_corpus_accuracy_meets_the_acceptance_bar(corpus_records, corpus_labels):
    outcomes = evaluate(corpus_labels, corpus_records)
    top1 = sum(o.category_ok for o in outcomes) / len(outcomes)
    root3 = sum(o.root_ok for o in outcomes) / len(outcomes)
    assert top1 >= 0.95 and root3 >= 0.90, (top1, root3)


def test_heldout_set_written_before_tuning_stays_accurate(heldout_records):
    from cuvil_debug.triage.corpus import load_labels

    outcomes = evaluate(load_labels(CORPUS / "heldout"), heldout_records)
    assert sum(o.category_ok for o in outcomes) / len(outcomes) >= 0.8
    assert sum(o.root_ok for o in outcomes) / len(outcomes) >= 0.8


# ---- samples/failures/written: 53 failures by other patterns than the corpus's, one
# group per cause issue 16 lists (try/except, generators, isinstance on tensors, **
# splats, random, in-place ATen ops, module state, size arithmetic in __init__, eager
# failures, decorated forward, one-line signatures), written and labelled before triage
# ran on them (first run: 43/53 categories, 44/53 root lines) ------------------------
WRITTEN = CORPUS / "written"
WRITTEN_LABELS = json.loads((WRITTEN / "labels.json").read_text())


def test_every_cause_of_the_issue_has_written_failures():
    causes = {}
    for label in WRITTEN_LABELS.values():
        causes[label["cause"]] = causes.get(label["cause"], 0) + 1
    assert len(causes) == 11 and min(causes.values()) >= 4, causes


@pytest.mark.parametrize("name", sorted(WRITTEN_LABELS))
def test_written_failure_gets_its_category(name, written_records):
    (outcome,) = evaluate({name: WRITTEN_LABELS[name]}, {name: written_records[name]})
    assert outcome.got == outcome.expected, (outcome.got, outcome.confidence)


def test_written_failures_meet_the_acceptance_bar(written_records):
    outcomes = evaluate(WRITTEN_LABELS, written_records)
    top1 = sum(o.category_ok for o in outcomes) / len(outcomes)
    root3 = sum(o.root_ok for o in outcomes) / len(outcomes)
    assert top1 >= 0.95 and root3 >= 0.90, (top1, root3)


# ---- samples/failures/library: real capture failures of transformers and torchvision
# models (66, one per failure signature), split by architecture family into a
# development part (tuned on) and a held-out part (only measured); README.md there ----
LIBRARY = CORPUS / "library"
LIBRARY_LABELS = load_labels(LIBRARY)


@pytest.fixture(scope="module")
def library_outcomes():
    pytest.importorskip("transformers")
    pytest.importorskip("torchvision")
    from cuvil_debug.triage.corpus import collect_corpus

    records = collect_corpus(LIBRARY, workers=2, timeout=300)
    assert not [n for n, r in records.items() if r["status"] == "timeout"]
    return {o.file: o for o in evaluate(LIBRARY_LABELS, records)}


def _part(outcomes: dict, split: str) -> tuple[float, float]:
    part = [o for n, o in outcomes.items() if LIBRARY_LABELS[n]["split"] == split]
    return (
        sum(o.category_ok for o in part) / len(part),
        sum(o.root_ok for o in part) / len(part),
    )


def test_library_split_is_by_family_and_decided_by_the_seed():
    import hashlib

    for label in LIBRARY_LABELS.values():
        digest = hashlib.sha256(f"cuvil-triage-split-2026:{label['family']}".encode())
        held = int(digest.hexdigest(), 16) % 5 < 2
        assert label["split"] == ("heldout" if held else "dev"), label["family"]


@pytest.mark.slow
def test_library_development_part_is_triaged_to_its_labels(library_outcomes):
    top1, root3 = _part(library_outcomes, "dev")
    assert top1 >= 0.95 and root3 >= 0.80, (top1, root3)


@pytest.mark.slow
def test_library_heldout_part_does_not_regress(library_outcomes):
    # first measured 21/27 categories and 23/27 root lines; 24/27 and 24/27 since the
    # rules its misses pointed at (so it is no longer unseen: samples/failures/timm is
    # the held-out measurement now, docs/TRIAGE.md). This floor guards a regression.
    top1, root3 = _part(library_outcomes, "heldout")
    assert top1 >= 0.85 and root3 >= 0.85, (top1, root3)


TIMM = CORPUS / "timm"
TIMM_LABELS = load_labels(TIMM)


@pytest.fixture(scope="module")
def timm_outcomes():
    pytest.importorskip("timm")
    from cuvil_debug.triage.corpus import collect_corpus

    records = collect_corpus(TIMM, workers=2, timeout=300)
    assert not [n for n, r in records.items() if r["status"] == "timeout"]
    return list(evaluate(TIMM_LABELS, records))


def _ece(outcomes) -> float:
    """Expected calibration error over benchmarks/calibrate_triage.py's bins."""
    bins = [(0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 1.01)]
    total = 0.0
    for lo, hi in bins:
        b = [o for o in outcomes if lo <= o.confidence < hi]
        if b:
            conf = sum(o.confidence for o in b) / len(b)
            total += abs(conf - sum(o.category_ok for o in b) / len(b)) * len(b)
    return total / len(outcomes)


@pytest.mark.slow
def test_timm_development_part_is_triaged_to_its_labels(timm_outcomes):
    # samples/failures/timm: 35 timm failures swept and labelled by someone who never
    # ran triage on them; measured once, unseen: top-1 28/35, root line 32/35, ECE
    # 0.058 (docs/TRIAGE.md); development data since (35/35 and 33/35; 22/22 and
    # 20/22 since 9 more of its dynamic samples compile as cuvil.compile captures them,
    # 1d5d903: the same two root misses over fewer samples).
    top1 = sum(o.category_ok for o in timm_outcomes) / len(timm_outcomes)
    root3 = sum(o.root_ok for o in timm_outcomes) / len(timm_outcomes)
    assert top1 >= 0.97 and root3 >= 20 / 22, (top1, root3)


def _library_set_scores(folder: Path, labels: dict, packages: tuple[str, ...]):
    """(top-1, root line in top 3, ECE) of a library corpus, captured now; skipped
    when one of its libraries is not installed."""
    import importlib.util

    for package in packages:  # found, not imported: some need the samples' shim first
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed (make setup installs it)")
    from cuvil_debug.triage.corpus import collect_corpus

    records = collect_corpus(folder, workers=2, timeout=300)
    assert not [n for n, r in records.items() if r["status"] == "timeout"]
    outcomes = list(evaluate(labels, records))
    top1 = sum(o.category_ok for o in outcomes) / len(outcomes)
    root3 = sum(o.root_ok for o in outcomes) / len(outcomes)
    return top1, root3, _ece(outcomes)


# ---- the library sets (samples/failures/zoo*), each swept and labelled by someone
# who never ran triage on it (README there), with the floor its scores must keep:
# (set, part, the packages it needs, top-1 floor, root-line-in-top-3 floor). A
# held-out set's floor is its one unseen measurement; a development set's allows about
# one sample of slack below its score after the round written from its misses
LIBRARY_SETS = [
    # ---- samples/failures/zoo: 44 diffusers 0.42.1 / MONAI 1.6.1 capture failures, swept
    # and labelled by someone who never ran triage on them (README there). Measured once,
    # unseen: top-1 30/44, root line 37/44, ECE 0.225 (docs/TRIAGE.md); development data
    # since (41/44 and 38/44) ------------------------------------------------------------
    ("zoo", "development", ("diffusers", "monai"), 0.90, 0.84),
    # ---- samples/failures/zoo3: 37 vit-pytorch / x-transformers / segmentation-models-
    # pytorch / open_clip capture failures, swept and labelled by someone who never ran
    # triage on them (README there). Measured once, unseen: top-1 29/37, root line 28/37,
    # ECE 0.113 (docs/TRIAGE.md); development data since (35/37 and 33/37) --------------
    (
        "zoo3",
        "development",
        ("vit_pytorch", "x_transformers", "segmentation_models_pytorch"),
        0.91,
        0.86,
    ),
    # ---- samples/failures/zoo4: 44 torch-geometric / kornia / efficientnet-pytorch /
    # pretrainedmodels capture failures, swept and labelled by someone who never ran triage
    # on them (README there). Measured once, unseen: top-1 30/44, root line 34/44, ECE
    # 0.148 (docs/TRIAGE.md); development data since (43/44 and 42/44) ------------------
    (
        "zoo4",
        "development",
        ("torch_geometric", "kornia", "efficientnet_pytorch"),
        0.95,
        0.93,
    ),
    # ---- samples/failures/zoo5: 41 segment-anything / fair-esm / openai-whisper /
    # pytorch-tabnet / e3nn capture failures, swept and labelled by someone who never ran
    # triage on them (README there). Measured once, unseen: top-1 33/41, root line 31/41,
    # ECE 0.095 (docs/TRIAGE.md); development data since (41/41 and 37/41, one of them by
    # a relabel to the category definitions; 39/39 and 35/39 once two Cuvil bugs among them
    # were fixed: see "fixed" below; 30/30 and 26/30 once 8 dynamic samples compile as
    # cuvil.compile captures them, 1d5d903: the same root misses over fewer samples) ------
    (
        "zoo5",
        "development",
        ("segment_anything", "esm", "whisper", "pytorch_tabnet", "e3nn"),
        0.97,
        26 / 30,
    ),
    # ---- samples/failures/zoo6: 32 neuraloperator / compressai / hiera-transformer /
    # stable-baselines3 / rtdl-revisiting-models capture failures, swept and labelled by
    # someone who never ran triage on them (README there). Measured once, unseen: top-1
    # 22/32, root line 23/32, ECE 0.072 (docs/TRIAGE.md); development data since (32/32
    # and 28/32; two of the 32 by relabels to the category definitions) -----------------
    (
        "zoo6",
        "development",
        (
            "neuralop",
            "compressai",
            "hiera",
            "stable_baselines3",
            "rtdl_revisiting_models",
        ),
        0.96,
        0.84,
    ),
    # ---- samples/failures/zoo7: 43 zuko / snntorch / demucs / pytorch-tcn / gpytorch
    # capture failures, swept and labelled by someone who never ran triage on them (README
    # there; a second blind labeller agreed on 42/43 categories). Measured once, unseen,
    # at f67a116 (after zoo6's rules and the refit): top-1 33/43, root line 37/43
    # (docs/TRIAGE.md). Development data since the zoo7 round of issue 16 (rules written
    # from its misses' mechanisms, each pinned by hand-written samples in samples/failures/):
    # 43/43 and 38/43 on the recorded captures; the floor keeps the first-sight root line
    # and guards the category well above its first sight ---------------------------------
    (
        "zoo7",
        "development",
        ("zuko", "snntorch", "demucs", "pytorch_tcn", "gpytorch"),
        0.93,
        0.83,
    ),
    # ---- samples/failures/zoo8: 41 mambapy / torchani / nnAudio / pytorch-crf / pfrl
    # capture failures, swept and labelled by someone who never ran triage on them (README
    # there). Measured once, unseen, at 995b921 (after the zoo7 round's value facts): top-1
    # 36/41, root line in the top 3 39/41; one of the misses was a Cuvil bug fixed that day
    # (marked `fixed`), so 36/40 and 39/40 on the 40 that still fail (docs/TRIAGE.md).
    # Development data since the sixth round of issue 16 (general facts written from its
    # misses, pinned by test_zoo8_mechanisms.py): 39/40 and 40/40; the floor allows one
    # sample of slack on each ------------------------------------------------------------
    (
        "zoo8",
        "development",
        ("mambapy", "torchani", "nnAudio", "torchcrf", "pfrl"),
        0.95,
        0.95,
    ),
    # ---- samples/failures/zoo9: 38 ncps / entmax / nflows / deepctr-torch /
    # pytorch-metric-learning capture failures, swept and labelled by someone who never ran
    # triage on them (README there). Measured once, unseen, at 4d3cf0e (after the sixth
    # round: zoo8's facts and the two-level confidence): top-1 31/38, root line in the top
    # 3 33/38, ECE 0.021 (docs/TRIAGE.md). Development data since the seventh round of
    # issue 16 (general mechanisms written from its misses, pinned by
    # test_zoo9_mechanisms.py): 37/38 and 34/38; the floor allows one sample of slack on
    # each -------------------------------------------------------------------------------
    (
        "zoo9",
        "development",
        ("ncps", "entmax", "nflows", "deepctr_torch", "pytorch_metric_learning"),
        36 / 38,
        33 / 38,
    ),
    # ---- samples/failures/zoo10: 43 pyro-ppl / kymatio / opacus / brevitas / auraloss
    # capture failures, swept and labelled by someone who never ran triage on them (README
    # there). Measured once, unseen, at a8aacae (after the seventh round: zoo9's
    # mechanisms): top-1 31/43, root line in the top 3 36/43, ECE 0.042, one of the misses
    # a triage crash (a frame on a class statement inside a function), fixed at once
    # (test_rootcause.py): 32/43 and 37/43 (docs/TRIAGE.md). Development data since the
    # eighth round of issue 16 (general mechanisms written from its misses, pinned by
    # test_zoo10_mechanisms.py): 43/43 and 42/43; the floor allows one sample of slack on
    # each -------------------------------------------------------------------------------
    (
        "zoo10",
        "development",
        ("pyro", "kymatio", "opacus", "brevitas", "auraloss"),
        42 / 43,
        41 / 43,
    ),
    # ---- samples/failures/zoo12: 49 torch-kmeans / diffsort / mpc / torchkbnufft /
    # torchsr capture failures, swept and labelled by someone who never ran triage on them
    # (README there). Measured once, unseen, at 03ea13e: top-1 31/49, root line in the top
    # 3 40/49, ECE 0.092 (docs/TRIAGE.md). Development data since the tenth round (general
    # mechanisms written from its misses, 1d5d903): 46/49 and 47/49; the floor allows one
    # sample of slack on each ------------------------------------------------------------
    (
        "zoo12",
        "development",
        ("torch_kmeans", "diffsort", "mpc", "torchkbnufft", "torchsr"),
        45 / 49,
        46 / 49,
    ),
    # ---- samples/failures/zoo13: 50 torch-hd / cliffordlayers / pypose / hypll / e2cnn
    # capture failures, swept and labelled by someone who never ran triage on them (README
    # there). Measured once, unseen, at beb0043 (after zoo12's mechanisms): top-1 37/50,
    # root line in the top 3 40/50, ECE 0.084 (docs/TRIAGE.md). Development data since the
    # eleventh round: 49/50 and 47/50; the floor allows one sample of slack on each ------
    (
        "zoo13",
        "development",
        ("torchhd", "cliffordlayers", "pypose", "hypll", "e2cnn"),
        48 / 50,
        46 / 50,
    ),
    # ---- samples/failures/zoo14: 50 tensorkrowch / tensorly-torch / torch-rechub /
    # asteroid-filterbanks / torchcvnn capture failures, swept and labelled by someone who
    # never ran triage on them (README there). Measured once, unseen, at 197c183 (after
    # zoo12's and zoo13's mechanisms): top-1 40/50, root line in the top 3 41/50, ECE
    # 0.015 (docs/TRIAGE.md). Held out: nothing was tuned on it; this floor keeps it from
    # losing ground to later rounds ------------------------------------------------------
    (
        "zoo14",
        "heldout",
        (
            "tensorkrowch",
            "tltorch",
            "torch_rechub",
            "asteroid_filterbanks",
            "torchcvnn",
        ),
        40 / 50,
        41 / 50,
    ),
    # ---- samples/failures/zoo15: 51 facenet-pytorch / julius / unfoldNd / pytorch-nlp /
    # fft-conv-pytorch capture failures, swept and labelled by someone who never ran triage
    # on them (README there). Measured once, unseen, at e09486c (the classifier zoo14 was
    # measured with): top-1 35/51, root line in the top 3 32/51, ECE 0.005
    # (docs/TRIAGE.md). Development data since (the mechanisms written from its misses,
    # test_zoo15_mechanisms.py): 49/51 and 46/51; the floor allows one sample of slack ---
    (
        "zoo15",
        "development",
        ("facenet_pytorch", "julius", "unfoldNd", "torchnlp", "fft_conv_pytorch"),
        48 / 51,
        45 / 51,
    ),
    # ---- samples/failures/zoo16: 53 snac / pytorch-ood / easyfsl / positional-encodings /
    # nbeats-pytorch capture failures, swept and labelled by someone who never ran triage
    # on them (README there). Measured once, unseen, at c1ad0b3 (after zoo15's round):
    # top-1 43/53, root line in the top 3 47/53, ECE 0.084 (docs/TRIAGE.md); two of the
    # misses were a Cuvil bug (fixed, 2e87ca1), so 43/51 and 47/51 on the 51 that still
    # fail. Development data since (the mechanisms written from its misses,
    # test_zoo16_mechanisms.py): 49/51 and 49/51; the floor allows one sample of slack ----
    (
        "zoo16",
        "development",
        ("snac", "pytorch_ood", "easyfsl", "positional_encodings", "nbeats_pytorch"),
        48 / 51,
        48 / 51,
    ),
    # ---- samples/failures/zoo17: 51 geotorch / torchnmf / torch-cubic-spline-grids / FrEIA /
    # unet capture failures, swept and labelled by someone who never ran triage on them
    # (README there). Measured once, unseen, at 4dc7729 (after zoo16's round): top-1
    # 43/51, root line in the top 3 34/51, ECE 0.087 (docs/TRIAGE.md). Development data
    # since (the mechanisms written from its misses, test_zoo17_mechanisms.py): 49/51 and
    # 46/51; the floor allows one sample of slack -----------------------------------------
    (
        "zoo17",
        "development",
        ("geotorch", "torchnmf", "torch_cubic_spline_grids", "FrEIA", "unet"),
        48 / 51,
        45 / 51,
    ),
    # ---- samples/failures/zoo18: 49 nnts / dynamic-network-architectures / skrl /
    # torchgan / pytorchcv capture failures, swept and labelled by someone who never ran
    # triage on them (README there). Measured once, unseen, at aeb1542 (after zoo17's
    # round): top-1 40/49, root line in the top 3 39/49, ECE 0.031 (docs/TRIAGE.md).
    # Development data since (the mechanisms written from its misses,
    # test_zoo18_mechanisms.py): 44/49 and 42/49; the floor allows one sample of slack ------
    (
        "zoo18",
        "development",
        ("nnts", "dynamic_network_architectures", "skrl", "torchgan", "pytorchcv"),
        43 / 49,
        41 / 49,
    ),
    # ---- samples/failures/zoo19: 42 pythae / fastmri / xlstm / pyod / diffwave capture
    # failures, swept and labelled by someone who never ran triage on them (README there).
    # Measured once, unseen, at a767021 (after zoo18's round): top-1 39/42, root line in
    # the top 3 38/42, ECE 0.093 (docs/TRIAGE.md). Development data since (the
    # mechanisms written from its misses, test_zoo19_mechanisms.py): 40/42 and 42/42;
    # the floor allows one sample of slack ---------------------------------------------
    (
        "zoo19",
        "development",
        ("pythae", "fastmri", "xlstm", "pyod", "diffwave"),
        39 / 42,
        41 / 42,
    ),
    # ---- samples/failures/zoo20: 31 pytorch-frame / tabm / rtdl_num_embeddings capture
    # failures, swept and labelled by someone who never ran triage on them (README
    # there). Measured once, unseen, at ab9b012: top-1 21/31, root line 28/31, ECE 0.239;
    # seven labels contradicted categories.py's written rules (x.ndim, len(t)) and were
    # corrected after it (`relabelled`): 27/31 and 28/31. Development data since (with
    # zoo19's round): 31/31 and 30/31; the floor allows one sample of slack -----------
    (
        "zoo20",
        "development",
        ("torch_frame", "tabm", "rtdl_num_embeddings"),
        30 / 31,
        29 / 31,
    ),
    # ---- samples/failures/zoo21: 42 geffnet / a-unet / pytorch-pretrained-vit / torchbnn /
    # alias-free-torch capture failures, swept and labelled by someone who never ran
    # triage on them (README there). Measured once, unseen, at 970cc72 (after zoo19's and
    # zoo20's round): top-1 29/42, root line in the top 3 33/42, ECE 0.028
    # (docs/TRIAGE.md). Development data since (the mechanisms written from its misses,
    # test_zoo21_mechanisms.py): 38/42 and 34/42; the floor allows one sample of slack -
    (
        "zoo21",
        "development",
        (
            "geffnet",
            "a_unet",
            "pytorch_pretrained_vit",
            "torchbnn",
            "alias_free_torch",
        ),
        37 / 42,
        33 / 42,
    ),
    # ---- samples/failures/zoo22: 55 flowtorch / sb3-contrib / hippynn / allRank / lightly
    # capture failures, swept and labelled by someone who never ran triage on them
    # (README there). Measured once, unseen, at 34fcbf2 (after zoo21's round): top-1
    # 46/55, root line in the top 3 51/55, ECE 0.007 (docs/TRIAGE.md). Development data
    # since (the mechanisms written from its misses, test_zoo22_mechanisms.py): 50/55
    # and 53/55; the floor allows one sample of slack on each --------------------------
    (
        "zoo22",
        "development",
        ("flowtorch", "sb3_contrib", "hippynn", "allrank", "lightly"),
        49 / 55,
        52 / 55,
    ),
    # ---- samples/failures/zoo23: 50 torchsynth / pytorch-msssim / spandrel capture
    # failures, swept and labelled by someone who never ran triage on them (README
    # there). Measured once, unseen, at 7b726fa (after zoo22's round): top-1 39/50, root
    # line in the top 3 45/50, ECE 0.073 (docs/TRIAGE.md). Development data since (the
    # mechanisms written from its misses, test_zoo23_mechanisms.py): 44/50 and 45/50; the
    # floor allows one sample of slack on each -----------------------------------------
    (
        "zoo23",
        "development",
        ("torchsynth", "pytorch_msssim", "spandrel"),
        43 / 50,
        44 / 50,
    ),
    # ---- samples/failures/zoo24: 57 dall-e / pygod / microsoft-aurora / rl-games /
    # wavenet_vocoder capture failures, swept and labelled by someone who never ran
    # triage on them (README there). Measured once, unseen, at 55b8086 (after zoo23's
    # round): top-1 53/57, root line in the top 3 51/57, ECE 0.108 (docs/TRIAGE.md).
    # Development data since (the mechanisms written from its misses,
    # test_zoo24_mechanisms.py): 55/57 and 53/57; the floor allows one sample of slack -
    (
        "zoo24",
        "development",
        ("dall_e", "pygod", "aurora", "rl_games", "wavenet_vocoder"),
        54 / 57,
        52 / 57,
    ),
    # ---- samples/failures/zoo25: 47 deepod / torchfm / cached_conv / torch-dct capture
    # failures, swept and labelled by someone who never ran triage on them (README
    # there). Measured once, unseen, at 4a47bd0 (after zoo24's round): top-1 42/47, root
    # line in the top 3 47/47, ECE 0.070 (docs/TRIAGE.md); development data since zoo26's
    # round (no rule from its misses, all arguable labels); the floor allows one sample
    # of slack ------------------------------------------------------------------------
    (
        "zoo25",
        "development",
        ("deepod", "torchfm", "cached_conv", "torch_dct"),
        41 / 47,
        46 / 47,
    ),
    # ---- samples/failures/zoo26: 42 fightingcv-attention / auto-esn / akita-torch
    # capture failures, swept and labelled by someone who never ran triage on them
    # (README there). Measured once, unseen, at 378c716: top-1 38/42, root line in the
    # top 3 36/42, ECE 0.130 (docs/TRIAGE.md); development data since (the mechanisms
    # written from its misses, test_zoo26_mechanisms.py): 40/42 and 41/42; the floor
    # allows one sample of slack ------------------------------------------------------
    (
        "zoo26",
        "development",
        ("fightingcv_attention", "auto_esn", "akita_torch"),
        39 / 42,
        40 / 42,
    ),
    # ---- samples/failures/zoo27: 40 dnc / ttach / torchdistill / torchlayers-nightly
    # capture failures, swept and labelled by someone who never ran triage on them
    # (README there). Measured once, unseen, at 1ca942e: top-1 34/40, root line in the
    # top 3 35/40, ECE 0.024 (docs/TRIAGE.md); development data since (the mechanisms
    # written from its misses, test_zoo27_mechanisms.py): 38/40 and 35/40; the floor
    # allows one sample of slack ------------------------------------------------------
    (
        "zoo27",
        "development",
        ("dnc", "ttach", "torchdistill", "torchlayers"),
        37 / 40,
        34 / 40,
    ),
    # ---- samples/failures/zoo28: 31 deel-torchlip / torch-activation / elegantrl / mup
    # capture failures, swept and labelled by someone who never ran triage on them
    # (README there). Measured once, unseen, at e71e7d7: top-1 28/31, root line in the
    # top 3 27/31, ECE 0.027 (docs/TRIAGE.md). Held out; this floor keeps it from
    # losing ground -----------------------------------------------------------------
    (
        "zoo28",
        "heldout",
        ("deel", "torch_activation", "elegantrl", "mup"),
        28 / 31,
        27 / 31,
    ),
    # ---- samples/failures/zoo29: 30 antialiased-cnns / torchensemble /
    # yet-another-retnet / s5-pytorch capture failures, swept and labelled by someone
    # who never ran triage on them (README there). Measured once, unseen, at c1c5fbf:
    # 21/30, 16/30 with five samples broken by a vmap leak of an earlier one; 26/30 and
    # 21/30, ECE 0.057 after 8a24c39 fixed the leak (docs/TRIAGE.md). Held out; this
    # floor keeps it from losing ground -----------------------------------------------
    (
        "zoo29",
        "heldout",
        ("antialiased_cnns", "torchensemble", "yet_another_retnet", "s5"),
        26 / 30,
        21 / 30,
    ),
    # ---- samples/failures/zoo11: 40 loralib / piq / geomloss / blitz-bayesian-pytorch /
    # torchkge capture failures, swept and labelled by someone who never ran triage on
    # them (README there). Measured once, unseen, at 38a04ad (after the eighth round: zoo10
    # as development data): top-1 35/40, root line in the top 3 37/40, ECE 0.075
    # (docs/TRIAGE.md). Held out: nothing was tuned on it; this floor keeps it from losing
    # ground to later rounds -----------------------------------------------------------
    (
        "zoo11",
        "heldout",
        ("loralib", "piq", "geomloss", "blitz", "torchkge"),
        35 / 40,
        37 / 40,
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, part, packages, top1_floor, root_floor",
    LIBRARY_SETS,
    ids=[row[0] for row in LIBRARY_SETS],
)
def test_library_set_keeps_its_floor(name, part, packages, top1_floor, root_floor):
    """Captured now and triaged: top-1 and root line no lower than the set's floor
    (a development set is triaged to its labels; a held-out one does not regress)."""
    folder = CORPUS / name
    top1, root3, ece = _library_set_scores(folder, load_labels(folder), packages)
    assert top1 >= top1_floor and root3 >= root_floor, (part, top1, root3, ece)


# ---- fixed: samples that were Cuvil's own bugs (compiler-internal-error) or refusals
# (unsupported-op) and compile since the commit their label's `fixed` names; they leave
# the triage scores and stay as regression samples --------------------------------
FIXED_FOLDERS = [CORPUS] + [
    CORPUS / f for f in ("heldout", "library", "timm", "zoo", "zoo3")
]
FIXED_FOLDERS += [CORPUS / f for f in ("zoo4", "zoo5")]
FIXED_FOLDERS += [CORPUS / f for f in ("zoo6", "zoo7", "zoo8", "zoo9")]
FIXED_FOLDERS += [
    CORPUS / f
    for f in (
        "zoo10",
        "zoo11",
        "zoo12",
        "zoo13",
        "zoo14",
        "zoo15",
        "zoo16",
        "zoo17",
        "zoo18",
        "zoo19",
        "zoo20",
        "zoo21",
        "zoo22",
        "zoo23",
        "zoo24",
        "zoo25",
        "zoo26",
        "zoo27",
        "zoo28",
        "zoo29",
    )
]


def test_fixed_samples_say_what_fixed_them():
    fixed = {
        f.name + "/" + n: lab
        for f in FIXED_FOLDERS
        for n, lab in fixed_labels(f).items()
    }
    assert fixed, "no fixed sample: drop this test and FIXED_FOLDERS' use"
    for name, lab in fixed.items():
        # a Cuvil bug, or an op Cuvil refused and lowers now
        assert lab["category"] in ("compiler-internal-error", "unsupported-op"), name
        assert len(lab["fixed"].split()) >= 3, name  # a commit and what it did


@pytest.mark.slow
def test_fixed_samples_compile_now():
    import importlib.util

    from cuvil_debug.triage.corpus import collect_corpora

    folders = [f for f in FIXED_FOLDERS if fixed_labels(f)]
    for lab in (lab for f in folders for lab in fixed_labels(f).values()):
        root = lab.get("root", [""])[0]  # PACKAGE/... for a library's line
        package = root.split("/")[0] if "/" in root else None
        if package and importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed (make setup installs it)")
    records = collect_corpora(folders, workers=2, timeout=300, labels=fixed_labels)
    broken = {
        f"{f.name}/{n}": r.get("signature") or r["status"]
        for f in folders
        for n, r in records[f].items()
        if r["status"] != "ok"
    }
    assert not broken, broken
