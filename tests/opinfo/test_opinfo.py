"""The OpInfo tier: PyTorch's own samples of every op, compiled by Cuvil, against eager.

A sample may be refused (a clean UnsupportedOpError or other CuvilError); it may never
give a wrong result or an internal error. The default tier runs the first ``QUICK``
samples of a fixed half of the ops (``SHARD``, by a hash of the name) through
torch.export at O0, to stay within the suite's time; the slow tier runs ``FULL`` samples through
both frontends at O0, and the quick samples again at O3 (the pass pipeline and LLVM's
optimizations on every op Cuvil lowers). scripts/opinfo_report.py prints the pass rates.
"""

from __future__ import annotations

import zlib

import pytest
from harness import model_ops, op_id, run_sample, samples

QUICK, FULL = 1, 8
OPS = model_ops()
SHARD = [info for info in OPS if zlib.crc32(op_id(info).encode()) % 2 == 0]
# a sample generator finished by the garbage collector inside a tracer reports an
# error that is not the test's (harness.samples closes the ones it can reach)
pytestmark = pytest.mark.filterwarnings(
    "ignore::pytest.PytestUnraisableExceptionWarning"
)


def _failures(info, limit: int, frontends: tuple[str, ...], opt: str) -> list[str]:
    bad = []
    for i, sample in enumerate(samples(info, limit)):
        for frontend in frontends:
            o = run_sample(info, sample, i, frontend, opt)
            if o.kind in ("wrong", "internal"):
                bad.append(f"sample {i} ({frontend}, {opt}): {o.kind}: {o.detail}")
    return bad


@pytest.mark.parametrize("info", SHARD, ids=op_id)
def test_opinfo_samples_are_right_or_refused(info):
    assert not _failures(info, QUICK, ("export",), "O0")


@pytest.mark.slow
@pytest.mark.parametrize("info", OPS, ids=op_id)
def test_opinfo_all_samples_both_frontends(info):
    assert not _failures(info, FULL, ("export", "fx"), "O0")


@pytest.mark.slow
@pytest.mark.parametrize("info", OPS, ids=op_id)
def test_opinfo_samples_at_o3(info):
    assert not _failures(info, QUICK, ("export",), "O3")
