"""torch.export runs forward() on fake tensors: a model that keeps a tensor on itself
(`self.cached_penc = emb`) holds a FakeTensor afterwards, which its next eager call
returns and the next export reads back as a constant it cannot guard on. The exports
Cuvil runs on a user's model leave its Python state as they found it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

__all__ = ["preserved_state"]


@contextlib.contextmanager
def preserved_state(model: torch.nn.Module) -> Iterator[None]:
    """Restore every submodule's attributes, parameters, buffers and children (the
    objects, not their data: an export does not write real tensors) on exit."""
    saved = [
        (m, dict(vars(m)), dict(m._parameters), dict(m._buffers), dict(m._modules))
        for m in model.modules()
    ]
    try:
        yield
    finally:
        for m, attrs, params, buffers, children in saved:
            vars(m).clear()
            vars(m).update(attrs)
            for live, kept in (
                (m._parameters, params),
                (m._buffers, buffers),
                (m._modules, children),
            ):
                live.clear()
                live.update(kept)
