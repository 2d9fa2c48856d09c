"""einops's pattern caches (families/cached_calls.py: library ``lru_cache`` functions called at
capture on constant or identity-hashed arguments, re-checked by the guards)."""
from __future__ import annotations

import pytest
import torch

from tests.capture.checks import check

einops = pytest.importorskip("einops")


def split_heads(x):
    return einops.rearrange(x, "b (h d) t -> b h t d", h=2).sum(-1)


def tile(x):
    return einops.repeat(x, "b d -> b n d", n=3) + einops.reduce(x, "b d -> b", "max")[:, None, None]


@pytest.mark.parametrize("fn", [split_heads, tile])
def test_einops_patterns_are_read_from_its_caches_in_one_graph(fn):
    """einops parses a pattern once (``lru_cache``) and keys a second cache by the parsed recipe
    (an object hashed by identity): both are library caches, called at capture and re-checked by
    the guards; ``repeat``/``reduce`` run their ops inside einops's ``try`` (their errors depend on
    sizes only). Before: an unsupported-call break per cached call, a tensor-op-in-try break."""
    h = check(fn, lambda: (torch.randn(2, 6, 3) if fn is split_heads else torch.randn(2, 4),))
    assert h.breaks == [], [b.reason for b in h.breaks]
    hits = einops.einops._prepare_transformation_recipe.cache_info().hits
    compiled = h.compile(fn)
    x = torch.randn(2, 6, 3) if fn is split_heads else torch.randn(2, 4)
    compiled(x)
    assert h.captures == 1 and einops.einops._prepare_transformation_recipe.cache_info().hits > hits
