"""An MLP-Mixer whose token-mixing layer assumes 16 patches."""

import torch
from torch import nn


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.token_mix = nn.Linear(tokens, tokens)
        self.channel_mix = nn.Linear(dim, dim)

    def forward(self, x):
        x = x + self.token_mix(x.transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mix(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = MixerBlock(16, 8)

    def forward(self, x):
        return self.block(x)


def example_inputs():
    return (torch.randn(2, 9, 8),)
