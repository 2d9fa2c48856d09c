"""The eager backend: run the graph's generated Python code, nothing else.

Returning ``gm.forward`` (a plain bound method of the generated code) skips
``GraphModule.__call__`` and ``nn.Module.__call__`` hooks on the hot path. A graph holding
activation-checkpoint nodes runs them as the real ``checkpoint`` call (``checkpoints.py``).
"""
from __future__ import annotations

from typing import Callable

import torch

from autograph.backends.checkpoints import with_real_checkpoints


def eager(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable:
    """Return a callable that runs ``gm`` exactly as traced."""
    return with_real_checkpoints(gm).forward
