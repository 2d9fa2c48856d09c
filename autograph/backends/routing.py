"""Which device a captured graph computes on, which graphs only eager can run, and what a
backend ran a graph with (for reports).

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


# torch's fused RNN ops (``nn.LSTM``/``GRU``/``RNN`` forward): AOTAutograd cannot trace them in
# torch 2.13 (on CPU ``mkldnn_rnn_layer`` saves None for backward, and inductor's fallback kernel
# for it fails its output checks), which is why TorchDynamo leaves RNN modules out of its graphs
# (``allow_rnn=False``); the eager backend runs them as the plain call does
_RNN_OPS = frozenset({torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu})


def eager_only(gm: torch.fx.GraphModule) -> str | None:
    """Why ``gm`` must run with the eager backend whatever the chosen one (None: it need not)."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in _RNN_OPS:
            return (f"the graph holds torch.{node.target.__name__} (an RNN module), "
                    "which AOTAutograd-based compilers cannot trace")
    return None


def ran_as(name: str, compiled: Callable) -> str:
    """``name``, plus what actually ran when a backend ran some of its graphs with aten instead
    (the Triton backend records why on ``compiled.graphs``)."""
    graphs = getattr(compiled, "graphs", None) or ()
    fallbacks = [g for g in graphs if getattr(g, "fallback_reason", None)]
    if not fallbacks:
        return name
    return f"{name} ({len(fallbacks)} of {len(graphs)} graphs ran with aten: {fallbacks[0].fallback_reason})"
