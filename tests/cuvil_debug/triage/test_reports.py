"""Report formats: JSON schema version, SARIF 2.1.0 valid against the OASIS schema,
JUnit XML that parses, markdown for CI summaries, and the rich terminal report."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from rich.console import Console

from cuvil_debug.triage.api import report_doc, triage
from cuvil_debug.triage.report_junit import to_junit
from cuvil_debug.triage.report_markdown import to_markdown
from cuvil_debug.triage.report_sarif import to_sarif
from cuvil_debug.triage.report_terminal import print_report


@pytest.fixture(scope="module")
def doc(request) -> dict:
    from pathlib import Path

    data = Path(__file__).resolve().parent / "data"
    specs = [str(data / n) for n in ("ok_model.py", "shape_model.py", "no_model.py")]
    return report_doc(triage(specs, isolate=False), "fx")


def test_json_report_is_versioned_and_summarised(doc):
    assert doc["schema"] == "cuvil-triage/1"
    assert doc["summary"] == {
        "total": 3,
        "ok": 1,
        "failed": 1,
        "error": 1,
        "timeout": 0,
        "crash": 0,
    }
    failed = doc["results"][1]
    assert failed["category"] == "shape-mismatch"
    assert failed["location"]["text"] == "self.fc2 = nn.Linear(256, 10)"
    json.dumps(doc)


def test_sarif_validates_against_the_sarif_2_1_0_schema(doc, data_dir):
    schema = json.loads((data_dir / "sarif-schema-2.1.0.json").read_text())
    sarif = to_sarif(doc)
    jsonschema.Draft4Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["shape-mismatch", "model-load-error"]
    first = results[0]
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == 11
    assert first["relatedLocations"] and first["codeFlows"]
    rule_ids = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert rule_ids[first["ruleIndex"]] == "shape-mismatch"


def test_junit_has_one_testcase_per_model(doc):
    root = ET.fromstring(to_junit(doc))
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 3
    assert cases[0].find("failure") is None and cases[0].find("error") is None
    assert cases[1].find("failure").get("type") == "shape-mismatch"
    assert cases[2].find("error").get("type") == "error"


def test_markdown_lists_failures_with_their_root_cause(doc):
    md = to_markdown(doc)
    assert "| Model | Category | Root cause | Confidence |" in md
    assert "`shape-mismatch`" in md and "shape_model.py:11`" in md


def test_terminal_report_renders_chain_and_hint(doc):
    console = Console(record=True, width=300)
    print_report(doc, console)
    text = console.export_text()
    assert "shape-mismatch" in text and "self.fc2 = nn.Linear(256, 10)" in text
    assert "defines no model" in text


HF_MODEL = """
import torch
from transformers import BertConfig, BertModel


def Model():
    torch.manual_seed(0)
    return BertModel(BertConfig(num_hidden_layers=1, hidden_size=32,
        num_attention_heads=2, intermediate_size=64, vocab_size=64,
        max_position_embeddings=16))


def example_inputs():
    return (torch.randint(0, 64, (1, 8)),)
"""


@pytest.fixture(scope="module")
def hf_doc(tmp_path_factory):
    """A transformers model under torch.fx: the root cause is in the library."""
    pytest.importorskip("transformers")
    import importlib.util
    import sys
    from pathlib import Path

    zoo = Path(__file__).resolve().parents[2] / "zoo" / "models.py"
    spec = importlib.util.spec_from_file_location("_zoo_models", zoo)
    zoo_models = importlib.util.module_from_spec(spec)
    sys.modules["_zoo_models"] = zoo_models  # its dataclasses look themselves up
    spec.loader.exec_module(zoo_models)
    zoo_models.shim_torchvision_ops()  # transformers imports torchvision
    path = tmp_path_factory.mktemp("hf") / "bert_fx.py"
    path.write_text(HF_MODEL)
    results = triage([str(path)], "fx", isolate=False)
    return report_doc(results, "fx")


def test_a_library_root_cause_names_its_package(hf_doc):
    (r,) = hf_doc["results"]
    assert r["status"] == "failed", r
    loc = r["location"]
    assert loc["package"] == "transformers" and loc["version"]
    assert loc["path"].startswith("transformers/models/bert/modeling_bert.py")
    assert "(not your code)" in to_markdown(hf_doc)
    # the fix is how to capture a transformers model, not an edit of the library
    assert "transformers.utils.fx.symbolic_trace" in r["hint"]


def test_sarif_for_a_library_root_cause_is_valid_and_points_into_the_repo(
    hf_doc, data_dir
):
    schema = json.loads((data_dir / "sarif-schema-2.1.0.json").read_text())
    sarif = to_sarif(hf_doc)
    jsonschema.Draft4Validator(schema).validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    primary = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert "uriBaseId" not in primary and primary["uri"].endswith("bert_fx.py")
    assert "transformers" in result["message"]["text"]
    related = [
        loc["physicalLocation"]["artifactLocation"]
        for loc in result.get("relatedLocations", [])
    ]
    assert any(a.get("uriBaseId") == "SITE_PACKAGES" for a in related), related
    base = sarif["runs"][0]["originalUriBaseIds"]["SITE_PACKAGES"]["uri"]
    assert base.startswith("file:///") and base.endswith("/site-packages/")
