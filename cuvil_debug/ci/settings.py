"""What a generated workflow needs to know: the models, how to install Cuvil, and the
paths the jobs share (docs/CI.md)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cuvil import __version__

__all__ = ["Settings", "BASELINE", "DIFF_KNOWN", "CACHE_DIR", "install_spec", "GLOB"]

BASELINE = ".cuvil/triage-baseline.json"  # a `triage --format json` report, committed
DIFF_KNOWN = ".cuvil/diff-known.txt"  # models whose diff is known to diverge
CACHE_DIR = (
    ".cuvil-cache"  # CUVIL_CACHE_DIR inside the checkout (GitLab caches only that)
)
DIFF_LIMIT = 10  # diff runs tens of seconds per model: the first N triage captured
# space-separated globs of plain path characters: they are written into YAML and
# expanded by triage itself (the shell is told not to)
GLOB = re.compile(r"^[\w./*?\[\]\- ]+$")


@dataclass(frozen=True)
class Settings:
    models: str  # space-separated globs, relative to the repository root
    install: str  # the pip requirement that installs Cuvil
    version: str = __version__


def install_spec(root: Path) -> str:
    """`.` in Cuvil's own repository (its pyproject names the project cuvil), else
    the released version of the Cuvil that writes the workflow."""
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return f"cuvil=={__version__}"
    return "." if project.get("name") == "cuvil" else f"cuvil=={__version__}"
