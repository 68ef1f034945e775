"""A triage worker process: reads jobs (JSON lines) on stdin, captures each model and
writes `start` and `result` events (JSON lines) on its protocol stream.

Model code may print or write to fd 1, so the protocol gets a private duplicate of
stdout and fd 1 is pointed at stderr.
"""

from __future__ import annotations

import json
import os
import sys

from .collect import collect


def main() -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _warm_up()
    for line in sys.stdin:
        job = json.loads(line)
        _send(proto, {"event": "start", "index": job["index"]})
        record = collect(**job["collect"])
        _send(proto, {"event": "result", "index": job["index"], "record": record})
    return 0


def _warm_up() -> None:
    """Import torch and the frontends now, so a model's timeout covers its capture."""
    import torch  # noqa: F401
    import torch.export  # noqa: F401

    import cuvil.frontend  # noqa: F401


def _send(proto, event: dict) -> None:
    proto.write(json.dumps(event, default=str) + "\n")
    proto.flush()


if __name__ == "__main__":
    sys.exit(main())
