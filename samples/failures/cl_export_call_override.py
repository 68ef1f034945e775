"""Cross-attention that defaults its memory to the query: `__call__` fills `memory`,
so `model(q)` runs, but torch.export binds the inputs to forward()'s own signature,
where `memory` is required."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_q = nn.Linear(16, 16)
        self.attn_kv = nn.Linear(16, 32)

    def __call__(self, query, memory=None, **options):
        return super().__call__(query, query if memory is None else memory, **options)

    def forward(self, query, memory, *, temperature=1.0):
        q = self.attn_q(query)
        k, v = self.attn_kv(memory).chunk(2, dim=-1)
        w = torch.softmax(q @ k.transpose(-1, -2) / temperature, dim=-1)
        return w @ v


def example_inputs():
    return (torch.randn(2, 5, 16),)
