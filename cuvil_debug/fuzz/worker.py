"""A fuzz worker: one JSON request per stdin line, one JSON answer per stdout line.

A request is ``{"id", "configs", "seed", "min_ops", "max_ops"}`` (generate the graph of
`seed`) or ``{"id", "configs", "graph"}`` (run this graph: the shrinker's candidates).
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
