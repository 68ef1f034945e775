"""Small models for the backend tests, and two ops Cuvil cannot know (custom ops, as a
user's extension would define them): one pure, one writing its input in place."""

from __future__ import annotations

import torch
from torch import nn


@torch.library.custom_op("cuviltest::shift", mutates_args=())
def shift(x: torch.Tensor) -> torch.Tensor:
    return x.roll(1, -1) + 0.5


@shift.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("cuviltest::bump_first_", mutates_args=("x",))
def bump_first_(x: torch.Tensor, v: float) -> None:
    x[..., 0] += v


@bump_first_.register_fake
def _(x, v):
    return None


class Mlp(nn.Module):
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc1, self.fc2 = nn.Linear(8, width), nn.Linear(width, 4)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


class ConvBn(nn.Module):
    """conv -> batch norm -> relu -> pool -> linear: the weights fold (BN into conv)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 5)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        y = self.bn(self.conv(x)).relu()
        return self.fc(y.mean((2, 3)))


class Refusing(nn.Module):
    """Two ops Cuvil refuses, between ops it compiles."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b, self.c = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 4)

    def forward(self, x):
        y = self.a(x).relu()
        y = torch.ops.cuviltest.shift(y)  # LINE_SHIFT
        z = self.b(y) * 2
        w = torch.bucketize(z, torch.tensor([-1.0, 0.0, 1.0])).float()  # LINE_BUCKET
        return self.c(z + w) + y.sum(-1, keepdim=True)


class Writes(nn.Module):
    """Eager in-place writes between compiled ops: the regions must see them in order."""

    def __init__(self, variant: str) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.variant = variant
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x):
        y = self.a(x)
        before = y * 1.5  # read before the write
        view = y[:, 2:]  # a view taken before the write, read after
        if self.variant == "setitem":
            y[:, 0] = 7.0
        else:
            torch.ops.cuviltest.bump_first_(y, 3.0)
        after = self.b(y) + view.sum(-1, keepdim=True)
        if self.variant == "then_inplace":
            after = after.masked_fill_(after > 0.5, 0.5)
        return after + before[:, :1] + y


class Buffers(nn.Module):
    """Weights indexed by buffers and sliced (Swin's relative position table, BERT's
    position ids): constants under the backend, indexed at compile time."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Parameter(torch.randn(10, 4))
        self.register_buffer("index", torch.randint(0, 10, (8,)))
        self.register_buffer("pos", torch.arange(32).view(1, 32))

    def forward(self, x):
        bias = self.table[self.index]  # (8, 4)
        return x @ bias + self.pos[:, : x.shape[0], None]


class Stateful(nn.Module):
    """Buffers the forward updates: a counter and batch norm's running statistics (in
    training mode); they must not become constants, nor be updated twice."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("count", torch.zeros(1))
        self.fc, self.bn = nn.Linear(4, 4), nn.BatchNorm1d(4)

    def forward(self, x):
        self.count.add_(1)
        return self.bn(self.fc(x)) * self.count
