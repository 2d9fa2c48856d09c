"""Delegate to torch's own compiler (TorchInductor) for users who ask for it."""
from __future__ import annotations

from typing import Callable

import torch


def inductor(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable:
    """Compile ``gm`` with ``torch._inductor.compile_fx.compile_fx``.

    Imported lazily: inductor is heavy and most users never pick it.
    """
    from torch._inductor.compile_fx import compile_fx

    return compile_fx(gm, example_inputs)
