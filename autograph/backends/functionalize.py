"""What AOTAutograd (under the triton and inductor backends) cannot reproduce exactly.

Both backends functionalize the graph: writes to inputs become a functional
computation plus a copy back into the caller's tensor, which AOTAutograd does
right for data. Some effects it does not carry over to the caller's tensors, so a
graph with one of them runs as captured (its own FX code, eagerly), which is
exact; a log line on the ``backend`` channel (``autograph.kernels``) says why:

* autograd metadata changed in place (``requires_grad_``, ``detach_``, ``retain_grad``),
* sizes/strides/storage of a tensor changed in place (``t_``, ``resize_``,
  ``as_strided_``, ``set_``): AOTAutograd's replay of views of such an input is wrong,
* a collective (``dist.all_reduce``): its in-place effect on the caller's tensor is lost,
* inputs that share memory in a graph that writes one of them (capture guards the
  aliasing; the entry must serve any tensors with that aliasing, not one base layout).

Capture records these as ``node.meta["effects"]`` (``autograph/capture/core/effects.py``) and
``gm.meta["inputs_share_memory"]``.
"""
from __future__ import annotations

import logging

import torch

log = logging.getLogger("autograph.kernels")  # the ``backend`` log channel

_NOT_FUNCTIONALIZED = {
    "autograd": "changes autograd metadata in place",
    "metadata": "changes a tensor's sizes or strides in place",
    "collective": "runs a collective",
}


def reason_to_run_as_captured(gm: torch.fx.GraphModule) -> str | None:
    """Why ``gm`` must run as captured rather than through AOTAutograd (None: it need not)."""
    if gm.meta.get("inputs_share_memory"):
        return "tensor inputs share memory and the graph writes one of them"
    for node in gm.graph.nodes:
        for kind in node.meta.get("effects", ()):
            if kind == "metadata" and not node.meta.get("writes_input"):
                continue  # a tensor made inside the graph: AOTAutograd functionalizes it
            if kind in _NOT_FUNCTIONALIZED:
                where = node.meta.get("stack_trace") or ""
                line = where.strip().splitlines()[0].strip() if where.strip() else node.format_node()
                return f"{node.name} {_NOT_FUNCTIONALIZED[kind]} ({line})"
    return None


def run_as_captured(gm: torch.fx.GraphModule, backend: str):
    """``gm.forward`` when ``gm`` must not go through AOTAutograd, else None."""
    reason = reason_to_run_as_captured(gm)
    if reason is None:
        return None
    log.info("%s backend: graph runs as captured (eager), not compiled: %s", backend, reason)
    from autograph.backends.checkpoints import with_real_checkpoints
    return with_real_checkpoints(gm).forward
