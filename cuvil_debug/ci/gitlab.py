"""The GitLab CI job: triage (Code Quality and JUnit reports for the merge request,
JSON/Markdown/SARIF as artifacts), diff on what triage captured, the compile cache
kept between pipelines; it fails only on new failures. Written as a file to
`include:` so an existing .gitlab-ci.yml is never rewritten."""

from __future__ import annotations

import textwrap

from . import scripts
from .settings import BASELINE, CACHE_DIR, DIFF_KNOWN, DIFF_LIMIT, Settings

__all__ = ["PATH", "ROOT_PATH", "gitlab_ci", "gitlab_root"]

PATH = ".gitlab/cuvil.gitlab-ci.yml"
ROOT_PATH = ".gitlab-ci.yml"
REPORTS = {
    "markdown": "cuvil-triage.md",
    "sarif": "cuvil-triage.sarif",
    "junit": "cuvil-triage.junit.xml",
    "codequality": "cuvil-codequality.json",
}


def _block(text: str, indent: int = 6) -> str:
    return textwrap.indent(text.rstrip("\n"), " " * indent)


def gitlab_root(s: Settings) -> str:
    """A .gitlab-ci.yml for a project that has none: it includes the job."""
    return f"""\
# Written by `cuvil-debug ci init` (Cuvil {s.version}); see Cuvil's docs/CI.md.
include:
  - local: {PATH}
"""


def gitlab_ci(s: Settings, torch_version: str) -> str:
    return f"""\
# Written by `cuvil-debug ci init` (Cuvil {s.version}); see Cuvil's docs/CI.md.
# Include it from .gitlab-ci.yml:   include: [{{local: {PATH}}}]
# The job fails only on failures not in {BASELINE} (a `cuvil-debug triage
# --format json` report you commit); without that file every failure counts.
cuvil:
  stage: test
  image: python:3.11
  variables:
    CUVIL_MODELS: '{s.models}'
    CUVIL_BASELINE: {BASELINE}
    CUVIL_DIFF_KNOWN: {DIFF_KNOWN}
    CUVIL_DIFF_LIMIT: "{DIFF_LIMIT}"
    CUVIL_CACHE_DIR: $CI_PROJECT_DIR/{CACHE_DIR}
    PIP_CACHE_DIR: $CI_PROJECT_DIR/.cache/pip
  cache:
    - key: cuvil-compile-cache-{s.version}
      paths:
        - {CACHE_DIR}/
      when: always
    - key: pip-cuvil-{s.version}
      paths:
        - .cache/pip/
  script:
    - |
{_block(scripts.install(s.install, torch_version))}
    - |
{_block(scripts.TRIAGE)}
{_block(scripts.reports(REPORTS))}
      cat cuvil-triage.md
{_block(scripts.DIFF)}
      if [ "$triage_rc" != 0 ] || [ "$diff_rc" != 0 ]; then exit 1; fi
  artifacts:
    when: always
    expire_in: 30 days
    paths:
      - cuvil-triage.json
      - cuvil-triage.md
      - cuvil-triage.sarif
      - cuvil-diff/
    reports:
      codequality: cuvil-codequality.json
      junit: cuvil-triage.junit.xml
"""
