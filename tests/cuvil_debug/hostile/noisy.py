"""Prints to stdout and stderr at import and in forward(); otherwise well-behaved."""

import sys

import torch
from torch import nn

print('{"noisy": "stdout at import"}')
print("noisy: stderr at import", file=sys.stderr)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        print('{"noisy": "stdout in forward"}')
        sys.stdout.flush()
        print("noisy: stderr in forward", file=sys.stderr)
        return torch.relu(self.fc(x))


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 4),)
