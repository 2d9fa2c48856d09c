"""How much of a model autograph captured, measured (not assumed).

For one model and mode (``eval`` under ``no_grad``, or ``train`` with a backward
pass) this compiles the model with ``autograph.compile`` and reports: graphs,
graph breaks (reason, file:line, source line), the share of torch calls that ran
inside compiled graphs, correctness against an eager copy, cold first-call time,
whether a second call compiled anything, and the steady-state time ratio.

Torch calls are counted with a ``TorchFunctionMode``: once over an eager run, and
once over a warm compiled run where only the calls made *outside* compiled graphs
count (a wrapping backend sets a thread-local flag while a graph runs). The
tensor queries of autograph's own guard checks are not the model's calls and are
not counted. The flag and the guard-frame test live in ``autograph.explain.torch_calls``
(shared with the run report).
"""
from __future__ import annotations

import contextlib
import copy
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode

from autograph.explain import torch_calls
from autograph.testing.compare import flatten, same

class _CountTorchCalls(TorchFunctionMode):
    """Counts torch-function calls made outside compiled graphs (all of them in an eager run)."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if not torch_calls.note_call() and not torch_calls.from_guards(sys._getframe(1)):
            self.calls += 1
        return func(*args, **(kwargs or {}))


def flagging_backend(inner: Any = "eager") -> Callable:
    """A backend that compiles with ``inner`` and marks the thread as 'inside a graph' while it runs."""
    from autograph.backends.registry import lookup

    graphs: list[torch.fx.GraphModule] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: list) -> Callable:
        graphs.append(gm)
        return torch_calls.flagged(lookup(inner)(gm, example_inputs))

    backend.graphs = graphs  # type: ignore[attr-defined]
    return backend


@dataclass
class BreakInfo:
    reason: str
    filename: str
    lineno: int
    line: str


@dataclass
class Coverage:
    model: str
    mode: str
    graphs: int = 0
    breaks: list[BreakInfo] = field(default_factory=list)
    torch_calls_eager: int = 0
    torch_calls_outside: int = 0
    coverage: float = 0.0
    correct: bool = False
    detail: str = ""
    cold_seconds: float = 0.0
    capture_seconds: float = 0.0
    second_call_compiles: int = 0
    eager_ms: float = 0.0
    compiled_ms: float = 0.0
    ratio: float = 0.0
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _loss(out: Any) -> torch.Tensor:
    leaves = [x for x in flatten(out) if isinstance(x, torch.Tensor) and x.is_floating_point() and x.requires_grad]
    return sum(x.float().pow(2).mean() for x in leaves)


def _call(model, inputs, mode: str, seed: int, counter: _CountTorchCalls | None = None):
    torch.manual_seed(seed)  # dropout draws the same numbers in both runs
    with torch.no_grad() if mode == "eval" else contextlib.nullcontext():
        with counter if counter is not None else contextlib.nullcontext():  # counts the model's calls only
            return model(**inputs)


def measure(name: str, factory: Callable[[], tuple[torch.nn.Module, dict]], mode: str = "eval", *,
            steady_iters: int = 20, clock: Callable[[], float] = time.process_time) -> Coverage:
    """Measure one model in one mode (``eval`` or ``train``).

    Steady-state times use ``clock``: process CPU time by default, which other
    processes on a shared machine disturb far less than wall-clock time."""
    import autograph
    from autograph.runtime import shim

    cov = Coverage(name, mode)
    model, inputs = factory()
    reference = copy.deepcopy(model)
    for m in (model, reference):
        m.train(mode == "train")
    backend = flagging_backend()
    results: list = []
    from autograph.capture.engine.api import capture as real_capture

    def recording_capture(*args: Any, **kwargs: Any):
        result = real_capture(*args, **kwargs)
        results.append(result)
        return result

    base = shim._settings_provider
    previous = shim.configure(settings_provider=lambda: shim._with_overrides(base(), {"backend": backend}),
                              capture=recording_capture)
    autograph.reset()
    try:
        compiled = autograph.compile(model, backend=backend)
        ref_out = _call(reference, inputs, mode, 0)
        t0 = time.perf_counter()
        out = _call(compiled, inputs, mode, 0)
        cov.cold_seconds = time.perf_counter() - t0
        cov.correct, cov.detail = same(ref_out, out)
        if mode == "train":
            _loss(ref_out).backward()
            _loss(out).backward()
            for (pname, p), (_, q) in zip(reference.named_parameters(), model.named_parameters()):
                if (p.grad is None) != (q.grad is None) or (p.grad is not None and not same(p.grad, q.grad)[0]):
                    cov.correct, cov.detail = False, f"gradient of {pname} differs"
                    break
            model.zero_grad(set_to_none=True)
            reference.zero_grad(set_to_none=True)
        captures = len(results)
        second = _call(compiled, inputs, mode, 1)
        cov.second_call_compiles = len(results) - captures
        ok2, detail2 = same(_call(reference, inputs, mode, 1), second)
        if not ok2 and cov.correct:
            cov.correct, cov.detail = False, f"second call: {detail2}"
        cov.graphs = len(backend.graphs)
        cov.capture_seconds = sum(getattr(r, "capture_seconds", 0.0) + getattr(r, "compile_seconds", 0.0)
                                  for r in results)
        cov.breaks = [BreakInfo(b.reason, b.filename, b.lineno, b.source_line) for r in results for b in r.breaks]
        counter = _CountTorchCalls()
        _call(reference, inputs, mode, 2, counter)
        cov.torch_calls_eager = counter.calls
        # an active torch-function mode is global state autograph guards on: warm that entry first
        _call(compiled, inputs, mode, 2, _CountTorchCalls())
        counter = _CountTorchCalls()
        _call(compiled, inputs, mode, 2, counter)
        cov.torch_calls_outside = counter.calls
        cov.coverage = 1.0 - cov.torch_calls_outside / max(cov.torch_calls_eager, 1)
        eager_t, compiled_t = [], []
        for i in range(steady_iters):  # interleaved, same process
            for target, times in ((reference, eager_t), (compiled, compiled_t)):
                t0 = clock()
                _call(target, inputs, mode, 3 + i)
                times.append(clock() - t0)
        cov.eager_ms = statistics.median(eager_t) * 1e3
        cov.compiled_ms = statistics.median(compiled_t) * 1e3
        cov.ratio = cov.compiled_ms / cov.eager_ms if cov.eager_ms else 0.0
    except Exception as exc:  # noqa: BLE001 - reported in the table, never hidden
        cov.error = f"{type(exc).__name__}: {exc}"
    finally:
        shim.restore(previous)
        autograph.reset()
    return cov
