"""A fuzz worker: one JSON request per stdin line, one JSON answer per stdout line.

A request is ``{"id", "configs", "seed", "min_ops", "max_ops"}`` (generate the graph of
`seed`) or ``{"id", "configs", "graph"}`` (run this graph: the shrinker's candidates), or
``{"id", "configs", "die": SIGNAL}`` (the pool's test: the worker kills itself).
The answer is runner.run_graph's record plus ``id`` and, when any configuration did not
end ``ok``, the ``graph`` itself. Before the first compile the worker writes
``{"id", "stage": "compile"}``: a worker that dies before it died in torch (drawing the
graph, running it eagerly), not in Cuvil. Run by pool.Pool; stdout carries nothing else (the
compiler's and torch's chatter goes to stderr).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import traceback
import warnings
from pathlib import Path


def _serve(workdir: Path, out) -> None:
    from .gen import generate
    from .graph import Graph
    from .runner import run_graph

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "die" in request:  # the pool's own test: a worker killed by a signal
            _die(request, out)
        try:
            if "graph" in request:
                graph = Graph.from_json(request["graph"])
            else:
                graph = generate(
                    request["seed"],
                    request.get("min_ops", 3),
                    request.get("max_ops", 25),
                )

            stage = json.dumps({"id": request.get("id"), "stage": "compile"}) + "\n"
            record = run_graph(
                graph,
                tuple(request["configs"]),
                workdir,
                lambda line=stage: (out.write(line), out.flush()),
            )
            if "invalid" in record or any(
                r["outcome"] != "ok" for r in record["results"].values()
            ):
                record["graph"] = graph.to_json()
        except Exception as e:  # the fuzzer's own failure: reported, never fatal
            record = {
                "seed": request.get("seed"),
                "error": "".join(traceback.format_exception(e))[-3000:],
            }
        record["id"] = request.get("id")
        out.write(json.dumps(record) + "\n")
        out.flush()


def _die(request: dict, out) -> None:
    """``{"die": "SIGSEGV", "stage": "compile"}``: what native code does to a worker,
    after the stage message if one is given (tests/fuzz/test_fuzz_graphs.py)."""
    if request.get("stage"):
        out.write(
            json.dumps({"id": request.get("id"), "stage": request["stage"]}) + "\n"
        )
        out.flush()
    os.kill(os.getpid(), getattr(signal, request["die"]))


def main() -> None:
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(
        sys.stderr.fileno(), sys.stdout.fileno()
    )  # prints from native code: not ours
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    import torch

    torch.set_num_threads(1)  # small tensors, two cores shared by the jobs
    workdir = Path(tempfile.mkdtemp(prefix="cuvil-fuzz-"))
    try:
        _serve(workdir, out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
