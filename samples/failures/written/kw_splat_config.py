"""A conditioning block whose FiLM parameters arrive as a dict and are splatted in."""

import torch
from torch import nn


class FiLM(nn.Module):
    def forward(self, h, gamma, beta, eps=1e-5):
        return h * (1 + gamma) + beta


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.film = FiLM()

    def forward(self, x, cond):
        return self.film(self.fc(x), **cond)


def example_inputs():
    return (
        torch.randn(2, 8),
        {"gamma": torch.randn(2, 8), "beta": torch.randn(2, 8), "eps": 1e-6},
    )
