"""The eager backend: run the graph's generated Python code, nothing else.

Returning ``gm.forward`` (a plain bound method of the generated code) skips
``GraphModule.__call__`` and ``nn.Module.__call__`` hooks on the hot path.
"""
from __future__ import annotations

from typing import Callable

import torch


def eager(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable:
    """Return a callable that runs ``gm`` exactly as traced."""
    return gm.forward
