"""CUDA graphs for compiled inference graphs (opt-in, ``TritonBackend(cuda_graphs=True)``).

What ``torch.compile(mode="reduce-overhead")`` does, in its simplest safe form: after a first,
ordinary call (it compiles and autotunes the kernels) the next call records the compiled
wrapper into a ``torch.cuda.CUDAGraph``; later calls replay it, so the whole graph costs one
launch from Python. Inputs are copied into the recording's own buffers, except parameters,
which the recording reads in place (a later in-place update, such as an optimizer step, is
seen; a parameter that moved to another address makes the call run without the graph).
Outputs are handed out as fresh copies: nothing a caller keeps is overwritten by a later
replay (Inductor's cudagraph trees hand out the recording's own buffers instead, and track
their liveness).

Only graphs whose replay is the same computation are recorded: static sizes, every tensor
on one CUDA device, no operation mutating its inputs, no random operation, and outputs that
share no memory with the inputs or with each other. Anything else, and any failure while
recording, leaves the ordinary compiled call in place.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

import torch
import torch.fx

log = logging.getLogger("autograph.backends.triton")


def cuda_graph_refusal(gm: torch.fx.GraphModule, example_inputs: list) -> str | None:
    """Why this aten graph must not be recorded into a CUDA graph, or None when it may."""
    devices = set()
    for value in example_inputs:
        if isinstance(value, torch.SymInt):
            return "an input is a symbolic size"
        if isinstance(value, torch.Tensor):
            if any(isinstance(s, torch.SymInt) for s in (*value.shape, *value.stride())):
                return "an input has symbolic sizes"
            devices.add(value.device)
    if not devices:
        return "no tensor input"
    if len(devices) > 1 or next(iter(devices)).type != "cuda":
        return f"inputs on {sorted(str(d) for d in devices)}, not all on one CUDA device"
    for node in gm.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if node.target._schema.is_mutable:
            return f"{node.target} mutates a tensor"
        if torch.Tag.nondeterministic_seeded in node.target.tags:
            return f"{node.target} draws random numbers"
    return None


def _share_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


class CudaGraphCall:
    """The boxed call of one compiled graph, replayed from a CUDA graph after its first call."""

    _boxed_call = True

    def __init__(self, call: Callable, kind: str):
        self.call = call
        self.kind = kind
        self.calls = 0
        self.graph: Any = None
        self.disabled_reason: str | None = None
        self.replays = 0

    def __call__(self, args: list) -> list:
        self.calls += 1
        if self.disabled_reason is not None or self.calls == 1:
            return self.call(args)  # the first call compiles and autotunes: it cannot be recorded
        if self.graph is None:
            try:
                self._record(args)
            except Exception as exc:  # noqa: BLE001 - the ordinary call stays correct
                self._disable(f"recording failed: {type(exc).__name__}: {exc}")
                return self.call(args)
        return self._replay(args)

    def _disable(self, why: str) -> None:
        self.disabled_reason = why
        self.graph = self.static_inputs = self.static_outputs = None
        log.info("triton backend: %s graph runs without a CUDA graph: %s", self.kind, why)

    def _record(self, args: list) -> None:
        in_place = [isinstance(a, torch.nn.Parameter) for a in args]
        static = [a if keep or not isinstance(a, torch.Tensor) else a.clone() for a, keep in zip(args, in_place)]
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # warm-up on a side stream, as torch.cuda.graph asks
            self.call(list(static))
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            outputs = self.call(list(static))
        tensors_in = [a for a in static if isinstance(a, torch.Tensor)]
        tensors_out = [o for o in outputs if isinstance(o, torch.Tensor)]
        for i, o in enumerate(tensors_out):
            if any(_share_memory(o, t) for t in tensors_in) or any(_share_memory(o, p) for p in tensors_out[:i]):
                raise RuntimeError("an output shares memory with an input or another output")
        self.graph, self.static_inputs, self.static_outputs = graph, static, outputs
        self.in_place = in_place
        self.addresses = [a.data_ptr() if keep else None for a, keep in zip(static, in_place)]

    def _replay(self, args: list) -> list:
        static = self.static_inputs
        for i, a in enumerate(args):
            if self.in_place[i]:
                if a.data_ptr() != self.addresses[i]:
                    return self.call(args)  # a parameter moved: the recording reads the old address
            elif isinstance(a, torch.Tensor):
                static[i].copy_(a)
            elif a != static[i]:
                return self.call(args)
        self.graph.replay()
        self.replays += 1
        return [o.clone() if isinstance(o, torch.Tensor) else o for o in self.static_outputs]


def maybe_cuda_graph(call: Callable, gm: torch.fx.GraphModule, example_inputs: list, kind: str) -> Callable:
    """``call`` replayed from a CUDA graph when the graph allows it (logged when it does not)."""
    why = cuda_graph_refusal(gm, example_inputs)
    if why is not None:
        log.info("triton backend: %s graph runs without a CUDA graph: %s", kind, why)
        return call
    return CudaGraphCall(call, kind)
