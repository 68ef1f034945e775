"""An attention layer with an Optional attention_mask defaulting to None."""

from typing import Optional

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def forward(
        self,
        x: torch.Tensor,
        attention_mask: Optional[torch.Tensor] = None,  # noqa: UP045
    ) -> torch.Tensor:
        q = self.q(x)
        scores = q @ q.transpose(-1, -2)
        if attention_mask is not None:
            scores = scores.masked_fill(attention_mask == 0, -1e9)
        return torch.softmax(scores, dim=-1)


def example_inputs():
    return (torch.randn(2, 4, 8),)
