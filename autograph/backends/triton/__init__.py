"""autograph's Triton-lowering backend (aten graph -> loop IR -> fused Triton kernels)."""
from __future__ import annotations

from typing import Callable


def make_triton_backend(cache_dir: str | None = None) -> Callable:
    """Return a backend ``(gm, example_inputs) -> callable`` writing kernels under ``cache_dir``."""
    from autograph.backends.triton.backend import TritonBackend

    return TritonBackend(cache_dir=cache_dir)
