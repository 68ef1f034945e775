"""Random straight-line programs over (4, 8) tensors that mix ops Cuvil compiles, ops it
refuses (custom ops, bucketize) and in-place writes through aliases: the backend's split
must compute what eager computes (test_backend_split_random.py)."""

from __future__ import annotations

import torch
from backend_models import bump_first_, shift  # noqa: F401  (registers the custom ops)
from torch import nn

OPS = (
    "linear",
    "relu",
    "mul",
    "add",
    "shift",
    "bucketize",
    "setitem",
    "bump",
    "add_",
    "view",
    "masked_fill_",
    "cat_half",
    "zeros_setitem",
    "view_then_write",
)


class Program(nn.Module):
    """Runs `steps`: (op, i, j) over the list of values (index 0 = the input); each op
    appends its result (in-place ones append the written tensor)."""

    def __init__(self, steps: tuple) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.steps = steps
        self.lin = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x):
        vs = [x * 1.0]  # (the input itself is never written)
        for k, (op, i, j) in enumerate(self.steps):
            a, b = vs[i % len(vs)], vs[j % len(vs)]
            vs.append(self.apply(k, op, a, b))
        return torch.stack([v.sum() for v in vs[-3:]]) + vs[-1].mean(0).sum()

    def apply(self, k: int, op: str, a, b):
        if op == "linear":
            return self.lin[k % 3](a)
        if op == "relu":
            return a.relu()
        if op == "mul":
            return a * b
        if op == "add":
            return a + b
        if op == "shift":
            return torch.ops.cuviltest.shift(a)
        if op == "bucketize":
            return torch.bucketize(a, torch.tensor([-0.5, 0.5])).float()
        if op == "setitem":
            a[:, k % 8] = 0.25 * k
            return a
        if op == "bump":
            torch.ops.cuviltest.bump_first_(a, 1.5)
            return a
        if op == "add_":
            return a.add_(b)
        if op == "view":
            return a.view(8, 4).view(4, 8)
        if op == "masked_fill_":
            return a.masked_fill_(a > 0.3, 0.3)
        if op == "zeros_setitem":  # a compile-time tensor, written eagerly
            z = torch.zeros(4, 8)
            z[:, k % 8] = a[:, 0]
            return z + b
        if op == "view_then_write":  # a view taken before an eager write, read after
            v = a[:, 2:]
            a[:, 3] = -1.0
            return torch.cat([v, b[:, :2]], 1)
        return torch.cat([a[:, :4], b[:, 4:]], 1)
