"""A multi-task head that returns its task name with the logits."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.task = "sentiment"
        self.head = nn.Linear(8, 2)

    def pack(self, logits):
        return {"logits": logits, "task": self.task}

    def forward(self, x):
        return self.pack(self.head(x))


def example_inputs():
    return (torch.randn(2, 8),)
