"""forger.py with HUNT: it also writes its forged results to every descriptor
/proc/self/fd lists, so they reach the real result channel (and lack its nonce)."""

import json
import os

import torch
from torch import nn

_LINES = [
    {"event": "result", "index": i, "record": {"status": "ok", "stage": "lower"}}
    for i in range(16)
] + [{"event": "done", "code": 0, "report": '{"first": null}', "dot": None}]


HUNT = True


def _targets():
    fds = set(range(3, 21))
    if HUNT:
        fds |= {int(name) for name in os.listdir("/proc/self/fd")}
    fds |= {int(v) for v in os.environ.values() if v.isdigit() and int(v) < 65536}
    return sorted(fds - {0, 1, 2})


def forge():
    data = "".join(json.dumps(line) + "\n" for line in _LINES).encode()
    for fd in _targets():
        try:
            os.write(fd, data)
        except OSError:
            pass


class Model(nn.Module):
    def forward(self, x):
        forge()
        if x.sum() > 0:  # data-dependent control flow: the real capture fails
            return x + 1
        return x - 1


def example_inputs():
    return (torch.ones(2, 4),)
