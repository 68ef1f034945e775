"""A small CNN for 3x32x32 images: (conv-bn-relu-maxpool) x2, global average pool, linear."""

import torch
from torch import nn


class ConvBlock(nn.Module):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(self.relu(self.bn(self.conv(x))))


class Model(nn.Module):
    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.block1 = ConvBlock(3, 16)
        self.block2 = ConvBlock(16, 32)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)
        _randomize_batchnorm(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.block1(x)
        x = self.block2(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


def _randomize_batchnorm(model: nn.Module) -> None:
    # Fresh BatchNorm layers are the identity in eval mode (mean 0, var 1, weight 1,
    # bias 0); non-trivial statistics make the sample exercise BN folding for real.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            nn.init.uniform_(m.weight, 0.5, 1.5)
            nn.init.normal_(m.bias, std=0.1)
            m.running_mean.normal_(std=0.1)
            m.running_var.uniform_(0.5, 1.5)


def example_inputs() -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(0)
    return (torch.randn(1, 3, 32, 32, generator=generator),)
