"""Ops Cuvil has no rule for that lower through PyTorch's decomposition, each with a
small sample: the decomposition test checks them against eager, and
scripts/gen_ops_doc.py lists them in docs/OPS.md with the ATen ops they become."""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["CASES"]

aten = torch.ops.aten
M = (3, 4)

# name -> (the op as a model calls it, the shapes of its float32 inputs)
CASES = {
    "addcmul": (lambda x, y, z: torch.addcmul(x, y, z, value=0.5), [M] * 3),
    "addcdiv": (lambda x, y, z: torch.addcdiv(x, y, z.abs() + 1, value=0.5), [M] * 3),
    "lerp.Scalar": (lambda x, y: torch.lerp(x, y, 0.3), [M] * 2),
    "lerp.Tensor": (torch.lerp, [M] * 3),
    "logsumexp": (lambda x: torch.logsumexp(x, 1), [M]),
    "glu": (lambda x: F.glu(x, -1), [M]),
    "hardshrink": (F.hardshrink, [M]),
    "tanhshrink": (F.tanhshrink, [M]),
    "logit": (lambda x: torch.logit(x.sigmoid(), 1e-3), [M]),
    "rad2deg": (torch.rad2deg, [M]),
    "deg2rad": (torch.deg2rad, [M]),
    "mse_loss": (F.mse_loss, [M] * 2),
    "l1_loss": (F.l1_loss, [M] * 2),
    "smooth_l1_loss": (F.smooth_l1_loss, [M] * 2),
    "huber_loss": (F.huber_loss, [M] * 2),
    "threshold": (lambda x: F.threshold(x, 0.1, 2.0), [M]),
    "baddbmm": (
        lambda x, y, z: torch.baddbmm(x, y, z, beta=0.5, alpha=2),
        [(2, 3, 5), (2, 3, 4), (2, 4, 5)],
    ),
    "addmv": (lambda x, y, z: torch.addmv(x[:, 0], y, z[0]), [M, M, M]),
    "addr": (lambda x, y, z: torch.addr(x, y[0], z[0]), [M, (2, 3), (2, 4)]),
    "mv": (lambda y, z: torch.mv(y, z[:, 0]), [M, (4, 5)]),
    "dot": (lambda y, z: torch.dot(y[0], z[0]), [M] * 2),
    "outer": (lambda y, z: torch.outer(y[0], z[0]), [M] * 2),
    "softmin": (lambda x: F.softmin(x, 1), [M]),
    "sinc": (torch.sinc, [M]),
    "cross_entropy": (lambda x, y: F.cross_entropy(x, y.softmax(1)), [M] * 2),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), [(1, 8, 2, 2)]),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [(1, 2, 4, 4)]),
    "channel_shuffle": (lambda x: F.channel_shuffle(x, 2), [(1, 4, 2, 2)]),
    "sum_to_size": (lambda x: x.sum_to_size(1, 4), [M]),
    "diff": (torch.diff, [M]),
    "movedim": (lambda x: torch.movedim(x, 0, 1), [M]),
}
