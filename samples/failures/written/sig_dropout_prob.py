"""A token encoder taking its dropout probability as a forward() argument."""

import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, vocab=32, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.fc = nn.Linear(dim, dim)

    def forward(self, tokens, drop_prob=0.1, noise=True):
        h = self.emb(tokens)
        h = F.dropout(h, p=drop_prob, training=noise and self.training)
        return self.fc(h).mean(1)


def example_inputs():
    return (torch.randint(0, 32, (2, 5)),)
