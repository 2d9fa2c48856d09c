"""Delegate to torch's own compiler (TorchInductor) for users who ask for it."""
from __future__ import annotations

from typing import Callable

import torch


def inductor(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable:
    """Compile ``gm`` with ``torch._inductor.compile_fx.compile_fx``.

    Imported lazily: inductor is heavy and most users never pick it.
    """
    from torch._inductor.compile_fx import compile_fx

    from autograph.backends.functionalize import run_as_captured
    as_captured = run_as_captured(gm, "inductor")
    if as_captured is not None:
        return as_captured
    return compile_fx(gm, example_inputs)
