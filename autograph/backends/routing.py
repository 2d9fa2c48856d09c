"""Which device a captured graph computes on, and what a backend ran it with (for reports).

The backend lookup steers ``auto`` by device (``registry.lookup(device_hint=...)``): a graph of
CPU tensors on a machine with a GPU must not go to Triton's interpreter, and a graph with no
tensor inputs (factory calls only) computes on the device its tensors are created on.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import torch


def _tensor_devices(values: Iterable[Any]) -> set[str]:
    return {v.device.type for v in values if isinstance(v, torch.Tensor)}


def graph_device(gm: torch.fx.GraphModule, example_inputs: Iterable[Any]) -> str | None:
    """``"cuda"`` when the graph's tensors are on a CUDA device, ``"cpu"`` when they are all on
    the CPU, None when the graph holds no tensor at all.

    The inputs decide; a graph without tensor inputs is judged by the tensors its nodes make
    (their recorded example values).
    """
    devices = _tensor_devices(example_inputs)
    if not devices:
        for node in gm.graph.nodes:
            val = node.meta.get("example_value", node.meta.get("val"))
            devices |= _tensor_devices(val if isinstance(val, (tuple, list)) else (val,))
    if not devices:
        return None
    return "cuda" if "cuda" in devices else sorted(devices)[0]


def ran_as(name: str, compiled: Callable) -> str:
    """``name``, plus what actually ran when a backend ran some of its graphs with aten instead
    (the Triton backend records why on ``compiled.graphs``)."""
    graphs = getattr(compiled, "graphs", None) or ()
    fallbacks = [g for g in graphs if getattr(g, "fallback_reason", None)]
    if not fallbacks:
        return name
    return f"{name} ({len(fallbacks)} of {len(graphs)} graphs ran with aten: {fallbacks[0].fallback_reason})"
