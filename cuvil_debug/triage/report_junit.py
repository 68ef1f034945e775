"""JUnit XML: one testcase per model; a failure carries the category, an error the
load / timeout / crash message."""

from __future__ import annotations

import xml.etree.ElementTree as ET

__all__ = ["to_junit", "suite_element", "document", "shard_properties", "SUITE"]

SUITE = "cuvil-triage"


def to_junit(doc: dict) -> str:
    results = doc["results"]
    suite = suite_element(
        tests=len(results),
        failures=sum(r["status"] == "failed" for r in results),
        errors=sum(r["status"] in ("error", "timeout", "crash") for r in results),
        time=sum(r.get("duration_s") or 0 for r in results),
    )
    if doc.get("shard"):  # where each testcase goes back (cuvil-debug report merge)
        suite.append(shard_properties(doc["shard"]))
    for r in results:
        suite.append(_case(r))
    return document(suite)


def suite_element(
    tests: int, failures: int, errors: int, time: float, name: str = SUITE
) -> ET.Element:
    return ET.Element(
        "testsuite",
        name=name,
        tests=str(tests),
        failures=str(failures),
        errors=str(errors),
        time=f"{time:.3f}",
    )


def document(suite: ET.Element) -> str:
    """The XML text of `suite` inside <testsuites> (of the suite's name)."""
    root = ET.Element("testsuites", name=suite.get("name", SUITE))
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def shard_properties(meta: dict) -> ET.Element:
    """The shard record as JUnit <properties> (the schema's place for such facts)."""
    props = ET.Element("properties")
    for name, value in (
        ("cuvil.shard", f"{meta['index']}/{meta['count']}"),
        ("cuvil.total", str(meta["total"])),
        ("cuvil.positions", " ".join(map(str, meta["positions"]))),
    ):
        ET.SubElement(props, "property", name=name, value=value)
    return props


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
