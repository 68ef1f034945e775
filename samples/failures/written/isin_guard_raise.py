"""Audio frontend that validates its input type in a helper before framing."""

import torch
from torch import nn


def check_waveform(wav):
    if not isinstance(wav, torch.Tensor):
        raise TypeError(f"expected a waveform tensor, got {type(wav).__name__}")
    if wav.dim() != 2:
        raise ValueError("waveform must be (batch, samples)")
    return wav


class Frontend(nn.Module):
    def __init__(self, frame=16, dim=32):
        super().__init__()
        self.frame = frame
        self.proj = nn.Linear(frame, dim)

    def forward(self, wav):
        wav = check_waveform(wav)
        frames = wav.reshape(wav.shape[0], -1, self.frame)
        return self.proj(frames)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = Frontend()
        self.head = nn.Linear(32, 5)

    def forward(self, wav):
        return self.head(self.frontend(wav).mean(1))


def example_inputs():
    return (torch.randn(2, 64),)
