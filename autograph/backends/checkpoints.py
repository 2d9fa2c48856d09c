"""Running a graph's ``tag_activation_checkpoint`` nodes as the real ``checkpoint`` call.

Capture turns ``torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False)`` into one
``torch.ops.higher_order.tag_activation_checkpoint(subgraph, *operands, **options)`` node
(families/checkpoints.py), which AOTAutograd understands. Called eagerly, that op runs
``checkpoint`` with ``preserve_rng_state=False`` (inductor replays random ops its own way), so a
dropout recomputed in backward would draw a new mask. A graph that runs as captured (the eager
backend, `auto`'s eager phase; a graph AOTAutograd cannot take) calls :func:`run_checkpoint` instead: the real
``checkpoint`` with the options the user passed, so activations are freed and recomputed, and the
RNG state is replayed, exactly as in Python.
"""
from __future__ import annotations

from typing import Any

import torch
import torch.fx
import torch.utils.checkpoint

TAG = torch.ops.higher_order.tag_activation_checkpoint


def run_checkpoint(subgraph: torch.fx.GraphModule, *args: Any, **options: Any) -> Any:
    """What a ``tag_activation_checkpoint`` node means in Python: ``checkpoint`` of its subgraph."""
    return torch.utils.checkpoint.checkpoint(subgraph, *args, **options)


def with_real_checkpoints(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """``gm`` itself when it has no ``tag_activation_checkpoint`` node; else a copy (sharing its
    submodules and attributes) whose nodes call :func:`run_checkpoint`. ``gm`` is left as it is:
    another backend (inductor in the background) may still compile it."""
    if not any(node.target is TAG for node in gm.graph.nodes):
        return gm
    graph = torch.fx.Graph()
    output = graph.graph_copy(gm.graph, {})
    graph.output(output)
    for node in graph.nodes:
        if node.target is TAG:
            node.target = run_checkpoint
    return torch.fx.GraphModule(gm, graph)
