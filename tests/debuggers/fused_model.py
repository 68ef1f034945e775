"""A small model whose fused kernels have members on different lines (the DWARF tests).

Two residual blocks (convolution, batch norm, the residual add and ReLU each on a line
of their own: at O3 each block is one GEMM kernel with a fused epilogue), a pool and an
elementwise tail (one fused pointwise kernel over two lines).
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv(x)
        out = self.bn(out)
        out = out + x
        out = self.relu(out)
        return out


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.block1 = Block(16)
        self.block2 = Block(16)
        self.pool = nn.MaxPool2d(2)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                m.running_var.uniform_(0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.block2(self.block1(x)))
        y = x * 0.5
        y = torch.sigmoid(y)
        return y


def example_inputs() -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(0)
    return (torch.randn(1, 16, 8, 8, generator=generator),)
