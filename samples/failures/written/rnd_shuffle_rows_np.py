"""Token shuffling augmentation that permutes ranked token ids with numpy."""

import numpy as np
import torch
from torch import nn


class TokenShuffle(nn.Module):
    def __init__(self, keep):
        super().__init__()
        self.keep = keep

    def forward(self, h, scores):
        order = torch.argsort(scores, dim=-1, descending=True)[:, : self.keep]
        order = np.random.permutation(order)
        idx = torch.as_tensor(order).unsqueeze(-1).expand(-1, -1, h.shape[-1])
        return torch.gather(h, 1, idx)


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.shuffle = TokenShuffle(keep=3)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        s = self.score(x).squeeze(-1)
        return self.out(self.shuffle(x, s))


def example_inputs():
    return (torch.randn(2, 6, 8),)
