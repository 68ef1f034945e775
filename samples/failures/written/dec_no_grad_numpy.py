"""An inference-only scorer whose forward is decorated with torch.no_grad()."""

import numpy as np
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 1)

    @torch.no_grad()
    def forward(self, x):
        logits = self.fc(x).squeeze(-1)
        calibrated = np.tanh(logits / 2.0)
        return (calibrated + 1) / 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 8)
        self.scorer = Scorer(8)

    def forward(self, x):
        return self.scorer(torch.relu(self.enc(x)))


def example_inputs():
    return (torch.randn(3, 8),)
