"""`--shard K/N`: which of the models one of N CI jobs triages (or diffs: `diff` over
many models uses this split too, diff/sweep.py), and the record of it each shard's
report carries so that `cuvil-debug report merge` can rebuild the
unsharded report.

The models (after folders are expanded) are sorted by their spec text, `/`-separated,
and dealt round-robin: the r-th model of that order goes to shard ``r % N + 1``. The
same spec list gives the same shards on any machine (no hash seed, no file system
order); shards differ in size by one model at most. K is 1-based: ``1/3 2/3 3/3``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Shard", "shard_spec", "select", "shard_meta", "SHARD_KEY"]

SHARD_KEY = "cuvilShard"  # the SARIF run property; JSON reports use doc["shard"]


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_spec(text: str) -> Shard:
    """argparse type: `K/N` with 1 <= K <= N."""
    head, sep, tail = text.partition("/")
    try:
        index, count = int(head), int(tail)
    except ValueError:
        index = count = 0
    if not sep or count < 1 or not 1 <= index <= count:
        raise argparse.ArgumentTypeError(
            f"expected K/N with 1 <= K <= N (shard K of N, e.g. 2/4), got {text!r}"
        )
    return Shard(index, count)


def select(specs: Sequence[str], shard: Shard) -> list[int]:
    """The positions in `specs` of the models of `shard`, in `specs` order."""
    order = sorted(range(len(specs)), key=lambda i: (specs[i].replace("\\", "/"), i))
    mine = {i for rank, i in enumerate(order) if rank % shard.count == shard.index - 1}
    return sorted(mine)


def shard_meta(shard: Shard, total: int, positions: list[int]) -> dict:
    """What a shard's report records: which shard, how many models in all, and where
    each of its results stands in the unsharded report."""
    return {
        "index": shard.index,
        "count": shard.count,
        "total": total,
        "positions": positions,
    }
