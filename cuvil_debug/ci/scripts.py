"""The shell steps both workflow files run (POSIX sh: GitLab's image may have no bash;
`|| rc=$?` keeps `set -e` shells going so every report is still written)."""

from __future__ import annotations

__all__ = ["TRIAGE", "reports", "DIFF", "install"]

# the globs in $CUVIL_MODELS are triage's to expand (one meaning here and locally)
TRIAGE = """\
set -f
baseline=""
if [ -f "$CUVIL_BASELINE" ]; then baseline="--baseline $CUVIL_BASELINE"; fi
triage_rc=0
cuvil-debug triage $CUVIL_MODELS --skip-non-models $baseline \\
  --format json -o cuvil-triage.json --force || triage_rc=$?
set +f
echo "cuvil-debug triage: exit $triage_rc (1: new failures; see the reports)"
"""

# the models triage captured, at most $CUVIL_DIFF_LIMIT; a divergence listed in
# $CUVIL_DIFF_KNOWN is reported and does not fail the job
DIFF = """\
mkdir -p cuvil-diff
cuvil-debug ci report cuvil-triage.json --format ok-models \\
  -o cuvil-diff/models.txt --force
head -n "$CUVIL_DIFF_LIMIT" cuvil-diff/models.txt > cuvil-diff/run.txt
printf '## Cuvil diff\\n\\n' > cuvil-diff/summary.md
diff_rc=0
while IFS= read -r model; do
  name=$(printf '%s' "$model" | tr '/:' '__')
  rc=0
  cuvil-debug diff "$model" --format html -o "cuvil-diff/$name.html" --force || rc=$?
  if [ "$rc" = 0 ]; then
    echo "- \\`$model\\`: no divergence" >> cuvil-diff/summary.md
  elif [ -f "$CUVIL_DIFF_KNOWN" ] && grep -qxF "$model" "$CUVIL_DIFF_KNOWN"; then
    echo "- \\`$model\\`: exit $rc, known (in $CUVIL_DIFF_KNOWN)" >> cuvil-diff/summary.md
  else
    echo "- \\`$model\\`: **exit $rc** (cuvil-diff/$name.html)" >> cuvil-diff/summary.md
    diff_rc=1
  fi
done < cuvil-diff/run.txt
cat cuvil-diff/summary.md
"""


def reports(formats: dict[str, str]) -> str:
    """`ci report` once per format (format -> file); markdown gets the baseline."""
    lines = [
        'baseline=""',
        'if [ -f "$CUVIL_BASELINE" ]; then baseline="--baseline $CUVIL_BASELINE"; fi',
    ]
    for fmt, path in formats.items():
        base = " $baseline" if fmt == "markdown" else ""
        lines.append(
            f"cuvil-debug ci report cuvil-triage.json{base} --format {fmt} "
            f"-o {path} --force"
        )
    return "\n".join(lines) + "\n"


def install(spec: str, torch_version: str) -> str:
    """torch from PyTorch's CPU index first (PyPI's default build pulls CUDA)."""
    return (
        "python -m pip install --index-url https://download.pytorch.org/whl/cpu "
        f"torch=={torch_version}\n"
        f"python -m pip install '{spec}'\n"
        "cuvil-debug --version\n"
    )
