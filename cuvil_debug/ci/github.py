"""The GitHub Actions workflow: triage (SARIF to code scanning, Markdown to the job
summary, JUnit and JSON as artifacts), diff on what triage captured, the compile
cache kept between runs, and a job that fails only on new failures."""

from __future__ import annotations

import textwrap

from . import scripts
from .settings import BASELINE, CACHE_DIR, DIFF_KNOWN, DIFF_LIMIT, Settings

__all__ = ["PATH", "github_workflow"]

PATH = ".github/workflows/cuvil.yml"
REPORTS = {
    "markdown": "cuvil-triage.md",
    "sarif": "cuvil-triage.sarif",
    "junit": "cuvil-triage.junit.xml",
}


def _block(text: str, indent: int = 10) -> str:
    return textwrap.indent(text.rstrip("\n"), " " * indent)


def github_workflow(s: Settings, torch_version: str) -> str:
    return f"""\
# Written by `cuvil-debug ci init` (Cuvil {s.version}); see Cuvil's docs/CI.md.
# Triage fails the job only on failures not in {BASELINE} (a `cuvil-debug
# triage --format json` report you commit); without that file every failure counts.
name: cuvil

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

env:
  CUVIL_MODELS: '{s.models}'
  CUVIL_BASELINE: {BASELINE}
  CUVIL_DIFF_KNOWN: {DIFF_KNOWN}
  CUVIL_DIFF_LIMIT: "{DIFF_LIMIT}"
  CUVIL_CACHE_DIR: ${{{{ github.workspace }}}}/{CACHE_DIR}

jobs:
  cuvil:
    runs-on: ubuntu-latest
    timeout-minutes: 60
    permissions:
      contents: read
      actions: read
      security-events: write  # upload-sarif
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Cuvil's compile cache and pip's downloads
        uses: actions/cache@v4
        with:
          path: |
            {CACHE_DIR}
            ~/.cache/pip
          key: cuvil-{s.version}-${{{{ runner.os }}}}-${{{{ github.run_id }}}}
          restore-keys: cuvil-{s.version}-${{{{ runner.os }}}}-
{_steps(s, torch_version)}"""


def _steps(s: Settings, torch_version: str) -> str:
    """The steps after checkout, Python and the cache."""
    return f"""\
      - name: Install Cuvil
        run: |
{_block(scripts.install(s.install, torch_version))}
      - name: Triage the models
        id: triage
        run: |
{_block(scripts.TRIAGE)}
          exit $triage_rc
        continue-on-error: true
      - name: Reports (job summary, SARIF, JUnit)
        if: always()
        run: |
{_block(scripts.reports(REPORTS))}
          cat cuvil-triage.md >> "$GITHUB_STEP_SUMMARY"
      - name: Upload SARIF to code scanning
        if: always()
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: cuvil-triage.sarif
          category: cuvil-triage
      - name: Diff the models triage captured
        id: diff
        if: always()
        run: |
{_block(scripts.DIFF)}
          cat cuvil-diff/summary.md >> "$GITHUB_STEP_SUMMARY"
          exit $diff_rc
        continue-on-error: true
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: cuvil-reports
          path: |
            cuvil-triage.*
            cuvil-diff/
      - name: Fail on new triage failures or diff divergences
        if: steps.triage.outcome == 'failure' || steps.diff.outcome == 'failure'
        run: |
          echo "::error::cuvil: triage ${{{{ steps.triage.outcome }}}}, diff ${{{{ steps.diff.outcome }}}} (see the job summary)"
          exit 1
"""
