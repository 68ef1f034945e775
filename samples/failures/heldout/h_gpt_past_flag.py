"""GPT-style block with use_cache flag."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.Linear(8, 8)

    def forward(self, hidden_states, use_cache=True):
        out = self.attn(hidden_states)
        present = (out, out) if use_cache else None
        return out, present


def example_inputs():
    return (torch.randn(2, 4, 8),)
