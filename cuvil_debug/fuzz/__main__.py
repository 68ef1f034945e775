"""``python -m cuvil_debug.fuzz``: the random-graph differential run (docs/FUZZ.md).

    python -m cuvil_debug.fuzz --graphs 10000 --jobs 2 --log run.jsonl --failures fails/

Graph ``i`` is the graph of seed ``--seed + i``; every ``--backend-every``-th graph also
goes through ``torch.compile(backend="cuvil")``. Prints the outcome table (report.py),
writes every record to ``--log`` as it arrives (JSON lines), and with ``--failures DIR``
shrinks each distinct crash or wrong result (``--shrink-max`` per kind) and writes it as
a model file there. Exit status: 0 when no graph crashed or was wrong, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from cuvil.argtypes import count, folder_path, positive_float, positive_int

from .pool import Pool
from .report import Tally
from .runner import CONFIGS

__all__ = ["main", "requests"]


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m cuvil_debug.fuzz", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--graphs", type=positive_int, default=100, help="how many graphs (default 100)"
    )
    ap.add_argument(
        "--seed", type=count, default=0, help="the first graph's seed (default 0)"
    )
    ap.add_argument(
        "--jobs", type=positive_int, default=1, help="worker processes (default 1)"
    )
    ap.add_argument("--min-ops", type=positive_int, default=3)
    ap.add_argument("--max-ops", type=positive_int, default=25)
    ap.add_argument(
        "--configs",
        default=",".join(c for c in CONFIGS if not c.startswith("backend")),
        help="FRONTEND:OPT list (default fx/export at O0 and O3)",
    )
    ap.add_argument(
        "--backend-every",
        type=count,
        default=8,
        metavar="K",
        help="every K-th graph also through torch.compile(backend='cuvil') (0: never)",
    )
    ap.add_argument(
        "--timeout",
        type=positive_float,
        default=900.0,
        help="seconds per graph before its worker is killed",
    )
    ap.add_argument(
        "--log", type=Path, help="append every record to this JSON-lines file"
    )
    ap.add_argument("--summary", type=Path, help="write the summary as JSON here")
    ap.add_argument(
        "--failures",
        type=folder_path,
        help="shrink failures and write them here as model files",
    )
    ap.add_argument(
        "--shrink-max",
        type=count,
        default=2,
        help="failures shrunk per kind (default 2)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    return _checked(ap, ap.parse_args(argv))


def _checked(ap: argparse.ArgumentParser, args: argparse.Namespace):
    """What one option's type cannot check: names and the options' relations."""
    unknown = [c for c in args.configs.split(",") if c and c not in CONFIGS]
    if unknown:
        ap.error(f"--configs: unknown {unknown[0]!r} (one of {', '.join(CONFIGS)})")
    if args.min_ops > args.max_ops:
        ap.error(f"--min-ops {args.min_ops} is above --max-ops {args.max_ops}")
    for path in (args.log, args.summary):
        if path is not None and path.is_dir():
            ap.error(f"{path} is a folder: give a file path")
    if args.failures is not None:
        args.failures = Path(args.failures)
    return args


def requests(args: argparse.Namespace):
    configs = [c for c in args.configs.split(",") if c]
    for i in range(args.graphs):
        seed = args.seed + i
        extra = (
            ["backend:O3"]
            if args.backend_every and seed % args.backend_every == 0
            else []
        )
        yield {
            "id": i,
            "seed": seed,
            "configs": configs + extra,
            "min_ops": args.min_ops,
            "max_ops": args.max_ops,
        }


def _progress(tally: Tally, start: float, total: int) -> None:
    s = tally.summary()["graph_outcomes"]
    rate = tally.graphs / max(time.monotonic() - start, 1e-9)
    print(
        f"[{tally.graphs}/{total}] "
        + " ".join(f"{k} {v}" for k, v in s.items())
        + f"  ({rate:.2f} graphs/s)",
        file=sys.stderr,
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    tally, start = Tally(), time.monotonic()
    log = args.log.open("a") if args.log else None
    try:
        with Pool(args.jobs, timeout=args.timeout) as pool:
            for record in pool.map(requests(args)):
                tally.add(record)
                if log:
                    log.write(json.dumps(record) + "\n")
                    log.flush()
                if not args.quiet and tally.graphs % 25 == 0:
                    _progress(tally, start, args.graphs)
    finally:
        if log:
            log.close()
    print(tally.text())
    if args.summary:
        args.summary.write_text(json.dumps(tally.summary(), indent=1) + "\n")
    if args.failures:
        from .shrink import save_failures

        for path in save_failures(tally, args.failures, args.shrink_max, args.jobs):
            print(f"saved {path}")
    return 1 if tally.by_graph["crash"] or tally.by_graph["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
