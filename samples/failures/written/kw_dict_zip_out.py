"""A multi-task head returning a dict built with zip over the task logits."""

import torch
from torch import nn


class MultiTaskHead(nn.Module):
    def __init__(self, dim, tasks):
        super().__init__()
        self.tasks = tasks
        self.fc = nn.Linear(dim, len(tasks))

    def forward(self, h):
        logits = self.fc(h)
        return dict(zip(self.tasks, logits.unbind(-1)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 16), nn.ReLU())
        self.head = MultiTaskHead(16, ("toxicity", "sentiment", "topic"))

    def forward(self, x):
        out = self.head(self.body(x))
        return out["toxicity"], out["sentiment"]


def example_inputs():
    return (torch.randn(4, 10),)
