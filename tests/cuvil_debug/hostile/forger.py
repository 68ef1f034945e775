"""Writes forged results (JSON lines saying "ok", "no divergence") to every
descriptor from 3 to 20 and to any descriptor an environment variable names (with
HUNT, to every descriptor /proc/self/fd lists too), then fails its capture for real."""

import json
import os

import torch
from torch import nn

_LINES = [
    {"event": "result", "index": i, "record": {"status": "ok", "stage": "lower"}}
    for i in range(16)
] + [{"event": "done", "code": 0, "report": '{"first": null}', "dot": None}]


HUNT = False


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
