"""A tiny runtime for driving ``capture`` directly: per-function caches, resume
functions wrapped the same way, and a recording backend (graphs compiled, runs)."""
from __future__ import annotations

import types

import torch

from autograph.capture.engine.api import capture
from autograph.settings import Settings


class Recorder:
    """A ``torch.compile``-signature backend that records every graph it compiles."""

    def __init__(self):
        self.graphs: list[torch.fx.GraphModule] = []
        self.example_inputs: list[list] = []
        self.runs = 0
        self.in_graph = False

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        self.example_inputs.append(example_inputs)

        def run(*args):
            self.runs += 1
            self.in_graph = True
            try:
                return gm.forward(*args)
            finally:
                self.in_graph = False
        return run

    def targets(self, i: int | None = None) -> list:
        gms = self.graphs if i is None else [self.graphs[i]]
        return [n.target for gm in gms for n in gm.graph.nodes if n.op in ("call_function", "call_method")]


def settings(backend=None, **kw) -> Settings:
    """Real settings for direct captures: errors raise; ``backend`` may be a callable (as with compile)."""
    return Settings().model_copy(update={"backend": backend or "eager", "on_error": "raise", **kw})


class Harness:
    """Caches capture results per function like the runtime shim does."""

    def __init__(self, backend=None, **kw):
        self.backend = backend if backend is not None else Recorder()
        self.settings = settings(self.backend, **kw)
        self.results = []      # every CaptureResult, in order
        self._shims = {}

    def compile(self, fn):
        return self.wrap(fn)

    def wrap(self, fn):
        if fn not in self._shims:
            self._shims[fn] = _MiniShim(self, fn)
        return self._shims[fn]

    @property
    def captures(self) -> int:
        return len(self.results)

    @property
    def breaks(self):
        return [b for r in self.results for b in r.breaks]


class _MiniShim:
    def __init__(self, h: Harness, fn):
        self.h = h
        self.fn = fn
        self.entries = []

    def __call__(self, *args, **kwargs):
        for guards, run in self.entries:
            if guards.check(*args, **kwargs):
                return run(*args, **kwargs)
        result = capture(self.fn, args, kwargs, self.h.settings, wrap_nested=self.h.wrap)
        self.h.results.append(result)
        run = self.fn if result.no_tensor_work else result.fn
        self.entries.append((result.guards, run))
        return run(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)
