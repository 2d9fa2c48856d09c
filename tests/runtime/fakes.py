"""A fake capture engine and the settings of runtime tests (no bytecode interpretation)."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from autograph.guards.check import GuardSet
from autograph.guards.model import global_state, tensor_match
from autograph.guards.sources import LocalSource
from autograph.settings import Settings


def runtime_settings(**changes: Any) -> Settings:
    """Real settings for runtime tests: the defaults with the eager backend, capturing on the
    first call (``compile_threshold`` has tests of its own), plus ``changes``."""
    return Settings().model_copy(update={"backend": "eager", "compile_threshold": 1, **changes})


@dataclass
class FakeResult:
    fn: Any
    guards: GuardSet
    transformed_code: Any = None
    graphs: list = field(default_factory=list)
    resumes: list = field(default_factory=list)
    breaks: list = field(default_factory=list)
    no_tensor_work: bool = False
    capture_seconds: float = 0.0
    compile_seconds: float = 0.0


class FakeCapture:
    """Guards every tensor positional argument by TENSOR_MATCH; the entry runs the original.

    ``sleep`` widens the race window for thread tests; ``error`` makes capture raise;
    ``no_tensor_work`` reports nothing worth compiling.
    """

    def __init__(self, sleep: float = 0.0, error: Exception | None = None, no_tensor_work: bool = False):
        self.sleep = sleep
        self.error = error
        self.no_tensor_work = no_tensor_work
        self.calls = 0
        self.settings_seen: list = []
        self._lock = threading.Lock()

    def __call__(self, fn, args, kwargs, settings, *, wrap_nested):
        with self._lock:
            self.calls += 1
        self.settings_seen.append(settings)
        if self.sleep:
            time.sleep(self.sleep)
        if self.error is not None:
            raise self.error
        import torch

        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        guards = [tensor_match(LocalSource(n), a) for n, a in zip(names, args) if isinstance(a, torch.Tensor)]
        guards += global_state(["grad_enabled"])
        marker = {"entry": self.calls}

        def entry_fn(*a, **k):
            return fn(*a, **k)

        entry_fn.marker = marker
        return FakeResult(fn=entry_fn, guards=GuardSet(fn, guards), no_tensor_work=self.no_tensor_work)
