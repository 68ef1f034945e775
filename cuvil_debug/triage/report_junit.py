"""JUnit XML: one testcase per model; a failure carries the category, an error the
load / timeout / crash message."""

from __future__ import annotations

import xml.etree.ElementTree as ET

__all__ = ["to_junit"]


def to_junit(doc: dict) -> str:
    results = doc["results"]
    suite = ET.Element(
        "testsuite",
        name="cuvil-triage",
        tests=str(len(results)),
        failures=str(sum(r["status"] == "failed" for r in results)),
        errors=str(sum(r["status"] in ("error", "timeout", "crash") for r in results)),
        time=f"{sum(r.get('duration_s') or 0 for r in results):.3f}",
    )
    for r in results:
        suite.append(_case(r))
    root = ET.Element("testsuites", name="cuvil-triage")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _case(r: dict) -> ET.Element:
    case = ET.Element(
        "testcase",
        classname=f"cuvil.triage.{r.get('frontend') or 'fx'}",
        name=r["model"],
        time=f"{r.get('duration_s') or 0:.3f}",
    )
    if r["status"] == "failed":
        fail = ET.SubElement(case, "failure", type=r["category"], message=r["message"])
        fail.text = _details(r)
    elif r["status"] != "ok":
        err = ET.SubElement(
            case, "error", type=r["status"], message=r.get("message", "")
        )
        err.text = r.get("message", "")
    return case


def _details(r: dict) -> str:
    lines = [f"category: {r['category']} ({r['confidence']:.0%})", f"hint: {r['hint']}"]
    for i, root in enumerate(r.get("root_causes") or [], 1):
        loc = root["location"]
        lines.append(
            f"root cause #{i} ({root['confidence']:.0%}): "
            f"{loc['file']}:{loc['line']}: {loc['text']}"
        )
    return "\n".join(lines)
