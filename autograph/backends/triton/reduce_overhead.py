"""``autograph.compile(..., mode="reduce-overhead")``: CUDA graphs for the Triton backend.

As in ``torch.compile``, the mode asks for CUDA graphs. The compile's backend spec (given, or
the settings' ``backend`` at compile time) is wrapped in :class:`ReduceOverhead`, a backend
callable: a graph whose tensors are on CUDA and which the spec sends to the Triton backend
compiles with ``TritonBackend(cuda_graphs=True)`` (static-shape inference graphs are then
replayed from a CUDA graph, see ``cudagraphs.py``); any other graph compiles as the spec alone
would, and on a machine without a GPU a log line says once that CUDA graphs need one.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

log = logging.getLogger("autograph.backends.triton")

_said_no_gpu = False


def _note_no_gpu() -> None:
    global _said_no_gpu
    if not _said_no_gpu:
        _said_no_gpu = True
        log.warning("mode='reduce-overhead': CUDA graphs need a GPU; graphs on CPU compile without them")


def graph_device(example_inputs: list) -> str:
    """"cuda" when the graph's tensor inputs are all on CUDA, else "cpu"."""
    import torch

    devices = {t.device.type for t in example_inputs if isinstance(t, torch.Tensor)}
    return "cuda" if devices == {"cuda"} else "cpu"


class ReduceOverhead:
    """A backend: ``spec`` (a backend spec; None = the settings' backend) with CUDA graphs."""

    def __init__(self, spec: Any = None):
        self.spec = spec
        self.__qualname__ = self.__name__ = f"{spec if isinstance(spec, str) else 'settings backend'} (reduce-overhead)"
        self._backends: dict[tuple[str, str], Callable] = {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReduceOverhead) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(("reduce-overhead", repr(self.spec)))

    def __repr__(self) -> str:
        return f"ReduceOverhead({self.spec!r})"

    def backend_for(self, device: str) -> tuple[str, Callable]:
        """``(name, backend)`` the spec resolves to for graphs on ``device``, with CUDA graphs
        when that is the Triton backend on CUDA."""
        from autograph.backends import registry
        from autograph.backends.triton import make_triton_backend
        from autograph.settings import current_settings

        settings = current_settings()
        spec = settings.backend if self.spec is None else self.spec
        key = (repr(spec), device)
        if key not in self._backends:
            triton = isinstance(spec, str) and spec not in registry._REGISTRY and (
                spec == "triton" or (spec == "auto" and registry.auto_choice(device)[0] == "triton"))
            if triton and device == "cuda":
                self._backends[key] = ("triton", make_triton_backend(cache_dir=settings.cache_path(), cuda_graphs=True))
            else:
                self._backends[key] = registry._resolve(spec, device, settings)
        return self._backends[key]

    def __call__(self, gm, example_inputs: list) -> Callable:
        device = graph_device(example_inputs)
        if device != "cuda":
            _note_no_gpu()
        _, backend = self.backend_for(device)
        return backend(gm, example_inputs)
