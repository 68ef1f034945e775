"""torch.export runs forward() on fake tensors: a model that keeps a tensor on itself
(`self.cached_penc = emb`, `self.attention_bias_cache[key] = bias`) holds a FakeTensor
afterwards, which its next eager call returns and the next export reads back as a
constant it cannot guard on. The exports Cuvil runs on a user's model leave its
Python state as they found it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

__all__ = ["preserved_state", "functorch_kept"]


@contextlib.contextmanager
def functorch_kept() -> Iterator[None]:
    """Leave functorch's layer stack as deep as it was. A graph (or a capture) that
    fails between entering `torch.func.vmap` and leaving it leaves vmap's layer on the
    stack (s5-pytorch): every later op of the process then runs inside vmap (a random
    op refuses, the user's next model does not build)."""
    stack = torch._C._functorch
    depth = stack.get_dynamic_layer_stack_depth()
    try:
        yield
    finally:
        if stack.get_dynamic_layer_stack_depth() > depth:
            stack.pop_dynamic_layer_stack_and_undo_to_depth(depth)


@contextlib.contextmanager
def preserved_state(model: torch.nn.Module) -> Iterator[None]:
    """Restore every submodule's attributes (and the contents of the dicts and lists
    they hold: a cache filled in forward()), parameters, buffers and children on exit
    (the objects, not their data: an export does not write real tensors)."""
    saved = [(m, dict(vars(m))) for m in model.modules()]
    # _parameters, _buffers and _modules are dicts among the attributes too
    held = [
        (value, _copy(value))
        for _, attrs in saved
        for value in attrs.values()
        if isinstance(value, dict | list)
    ]
    try:
        yield
    finally:
        for m, attrs in saved:
            vars(m).clear()
            vars(m).update(attrs)
        for live, kept in held:
            if _changed(live, kept):  # a frozen config dict is left alone
                base = dict if isinstance(live, dict) else list
                base.clear(live)
                (dict.update if base is dict else list.extend)(live, kept)


def _copy(held: dict | list) -> dict | list:
    return dict(held) if isinstance(held, dict) else list(held)


def _changed(live: dict | list, kept: dict | list) -> bool:
    if len(live) != len(kept):
        return True
    if isinstance(live, dict):
        return any(k not in live or live[k] is not v for k, v in kept.items())
    return any(a is not b for a, b in zip(live, kept))
