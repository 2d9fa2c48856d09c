"""Count torch calls made inside vs outside compiled graphs (the run report's share column).

Two pieces, shared with ``autograph.testing.coverage``:

* a thread-local "inside a graph" flag, set by :func:`flagged` around a compiled graph;
* a ``TorchFunctionMode`` that sees every torch-function call of the thread.

The report counter (:func:`start`) is opt-in: it is installed only when
``settings.report`` is on, so an ordinary run never has the mode on the stack and
the runtime's hit path is unchanged. When on, each torch call is attributed to the
innermost running instrumented function, found by walking the Python frames to the
nearest code object the runtime knows: an original function or resume function
(``autograph.runtime.stats`` keys its records by code object) or the transformed
code of one of its cache entries (registered here by an entry listener, miss path
only). A frame walk needs no hook on any call path, which is why it was chosen over
a stack pushed by the shims. Inside a graph, the eager backend's torch calls pass
through the mode and are counted one by one; other backends run kernels the mode
never sees, so each run of their graph counts the graph's op count instead.

Not counted: tensor metadata reads (properties, ``size()``, ``stride()``: not ops, and
the C guard check makes them too), calls made while capturing, autograph's own
Python guard checks and runtime code, calls made
outside every instrumented function, and calls in threads other than the one that
started the counter (a torch-function mode is per thread).
"""
from __future__ import annotations

import os
import sys
import threading
import types
from typing import Any, Callable

_state = threading.local()
_GUARDS_CHECK = "/".join(("autograph", "guards", "check.py"))
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # autograph's own calls


def in_graph() -> bool:
    """True while this thread runs a compiled graph wrapped by :func:`flagged`."""
    return getattr(_state, "depth", 0) > 0


def from_guards(frame: types.FrameType) -> bool:
    """A tensor query made by autograph's own guard check (not by the user's code)."""
    name = frame.f_code.co_filename
    if name.startswith("<autograph guards") or name.endswith(_GUARDS_CHECK):
        return True
    native = _c_path()()  # the C path evaluates guards without a Python frame of its own
    return native is not None and hasattr(native, "in_guards") and native.in_guards()


_C_PATH: list = []  # [guards.extension.c_path], imported once: the report asks it on every torch call


def _c_path() -> Callable[[], Any]:
    if not _C_PATH:
        from autograph.guards.extension import c_path
        _C_PATH.append(c_path)
    return _C_PATH[0]


def flagged(compiled: Callable, on_done: Callable[[int], None] | None = None,
            by_mode: bool = True) -> Callable:
    """``compiled`` marking the thread as 'inside a graph' while it runs.

    ``by_mode``: whether the graph's own torch calls reach the mode (eager backend).
    ``on_done(calls_seen)`` is called after each run with the torch calls the mode saw inside.
    """

    def run(*args: Any) -> Any:
        depth = getattr(_state, "depth", 0)
        outer_seen = getattr(_state, "seen", 0)
        outer_by_mode = getattr(_state, "by_mode", True)
        _state.depth, _state.seen, _state.by_mode = depth + 1, 0, by_mode
        try:
            return compiled(*args)
        finally:
            seen = _state.seen
            _state.depth, _state.seen, _state.by_mode = depth, outer_seen, outer_by_mode
            if on_done is not None:
                on_done(seen)

    run.__wrapped__ = compiled  # type: ignore[attr-defined]
    return run


def note_call() -> bool:
    """For a mode: record one torch call; True when it was made inside a graph."""
    if getattr(_state, "depth", 0) > 0:
        _state.seen = getattr(_state, "seen", 0) + 1
        return True
    return False


# ------------------------------------------------------------ the report counter

class Counts:
    """Torch calls of one instrumented function: inside compiled graphs and in all."""

    __slots__ = ("inside", "outside")

    def __init__(self) -> None:
        self.inside = 0
        self.outside = 0

    @property
    def total(self) -> int:
        return self.inside + self.outside


_counts: dict[int, tuple[Any, Counts]] = {}       # id(FunctionStats) -> (stats, counts)
_transformed: dict[int, tuple[types.CodeType, Any]] = {}  # id(transformed code) -> (code, stats)
_mode: Any = None


def counts_for(stats: Any) -> Counts | None:
    """The counts of one ``FunctionStats`` record, or None when nothing was counted for it."""
    item = _counts.get(id(stats))
    return item[1] if item is not None and item[0] is stats else None


def _counts_of(stats: Any) -> Counts:
    item = _counts.get(id(stats))
    if item is None or item[0] is not stats:
        item = _counts[id(stats)] = (stats, Counts())
    return item[1]


def _owner(frame: types.FrameType | None, stats_of_code: Callable[[types.CodeType], Any]) -> Any:
    """The stats record of the innermost instrumented function running ``frame``."""
    transformed = _transformed
    while frame is not None:
        code = frame.f_code
        item = transformed.get(id(code))
        if item is not None and item[0] is code:
            return item[1]
        stats = stats_of_code(code)
        if stats is not None:
            return stats
        frame = frame.f_back
    return None


_METADATA: frozenset = frozenset()


def _is_metadata_query(func: Any) -> bool:
    """A tensor metadata read (a property, ``size()``, ``stride()``...): not an op, not counted.

    Graphs hold no such reads (their op count is compute only), and the runtime's C guard
    check makes exactly these reads when it checks a call's tensors.
    """
    return func in _METADATA or getattr(func, "__name__", None) == "__get__"


def active() -> bool:
    """Whether the report counter is installed."""
    return _mode is not None


def start() -> None:
    """Install the counter (idempotent): the mode on this thread's stack, the entry listener."""
    global _mode, _METADATA
    if _mode is not None:
        return
    import torch
    from torch.overrides import TorchFunctionMode

    base = torch._C.TensorBase
    _METADATA = frozenset(getattr(base, name) for name in
                          ("size", "stride", "is_contiguous", "dim", "storage_offset", "numel", "element_size"))

    from autograph.capture.engine.python_methods import PythonMethodCall
    from autograph.runtime import shim
    from autograph.runtime.stats import stats_of_code

    forwarder = PythonMethodCall.__call__.__code__  # a method call the transformed code makes at a break

    class CountTorchCalls(TorchFunctionMode):
        """Attributes each torch call to the innermost instrumented function, inside or outside a graph."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if torch.compiler.is_compiling():  # TorchDynamo traces modes: it must see a plain call
                return func(*args, **(kwargs or {}))
            if not shim.is_capturing() and not _is_metadata_query(func):
                if note_call():
                    graph_counts = getattr(_state, "counts", None)
                    if _state.by_mode and graph_counts is not None:
                        graph_counts.inside += 1
                else:
                    frame = sys._getframe(1)
                    if frame.f_code is forwarder:
                        frame = frame.f_back
                    if not from_guards(frame) and not frame.f_code.co_filename.startswith(_OWN_DIR):
                        owner = _owner(frame, stats_of_code)
                        if owner is not None:
                            _counts_of(owner).outside += 1
            return func(*args, **(kwargs or {}))

    _mode = CountTorchCalls()
    _mode.__enter__()
    shim.add_entry_listener(_on_new_entry)


def stop() -> None:
    """Remove the counter (the counts stay until :func:`reset`)."""
    global _mode
    if _mode is None:
        return
    from autograph.runtime import shim

    shim.remove_entry_listener(_on_new_entry)
    mode, _mode = _mode, None
    try:
        mode.__exit__(None, None, None)
    except Exception:  # noqa: BLE001 - another mode was pushed above ours and left open
        pass


def reset() -> None:
    _counts.clear()
    _transformed.clear()


def _on_new_entry(shim_obj: Any, entry: Any) -> None:
    """Register the entry's transformed code and flag its graphs (miss path, report mode only)."""
    stats = shim_obj.stats
    fn = entry.fn
    code = getattr(fn, "__code__", None)
    if code is not None and code is not shim_obj.fn.__code__:
        _transformed[id(code)] = (code, stats)
        tail = getattr(getattr(fn, "__autograph_tail__", None), "__code__", None)  # what the shim runs
        if tail is not None:
            _transformed[id(tail)] = (tail, stats)
    namespace = getattr(fn, "__globals__", None)
    result = getattr(entry, "result", None)
    if namespace is None or result is None:
        return
    by_mode = _eager_backend(shim_obj)
    counts = _counts_of(stats)
    for graph in getattr(result, "graphs", ()) or ():
        compiled = namespace.get(graph.name)
        if compiled is None or getattr(compiled, "__autograph_counted__", False):
            continue
        namespace[graph.name] = _counted_graph(compiled, counts, by_mode, graph.op_count)


def _counted_graph(compiled: Callable, counts: Counts, by_mode: bool, op_count: int) -> Callable:
    def on_done(seen: int) -> None:
        if not by_mode:
            counts.inside += op_count

    inner = flagged(compiled, on_done, by_mode)

    def run(*args: Any) -> Any:
        outer = getattr(_state, "counts", None)
        _state.counts = counts
        try:
            return inner(*args)
        finally:
            _state.counts = outer

    run.__autograph_counted__ = True  # type: ignore[attr-defined]
    run.__wrapped__ = compiled  # type: ignore[attr-defined]
    return run


def _eager_backend(shim_obj: Any) -> bool:
    """Whether this shim's graphs run through the eager backend (their torch calls reach the mode)."""
    from autograph.runtime import shim

    spec = getattr(shim._with_overrides(shim._settings_provider(), shim_obj.overrides), "backend", "eager")
    if spec == "auto":
        from autograph.backends.registry import triton_usable

        spec = "triton" if triton_usable() else "eager"
    if callable(spec):
        from autograph.backends.eager import eager

        return getattr(spec, "__wrapped__", spec) is eager
    return spec == "eager"
