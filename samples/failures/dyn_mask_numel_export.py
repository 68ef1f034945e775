"""Boxes kept by a score mask, then a Python check on how many were kept."""

import torch
from torch import nn


class Keep(nn.Module):
    def forward(self, scores, boxes):
        keep = scores > 0.5
        kept = boxes[keep]
        if kept.numel() == 0:
            return boxes[:1]
        return kept


def Model():
    return Keep()


def example_inputs():
    return [torch.rand(10), torch.rand(10, 4)]
