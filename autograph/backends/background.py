"""``auto`` on CPU: run the graph eagerly at once, compile it with inductor in the background, keep the faster.

The backend returns a :class:`SwappableGraph`: a callable whose ``fn`` is replaced as the graph
moves through its life, so whatever holds it (the capture's entry code, the shim's cache) never
changes. Its stages, each one a different ``fn``:

1. *warming*: the eager graph runs and its calls are timed; once it has run ``HOT_CALLS`` times
   and for ``HOT_SECONDS`` in all, a compile request goes to the compile worker
   (``compile_worker.py``, another process). A graph called a few times, or cheap, is never compiled.
   When an earlier run left the compiled file in the cache, it is loaded instead (stage 2), also
   only once the graph is hot: loading imports inductor (seconds in a fresh process, holding the
   GIL on the loader thread), which would otherwise slow down the program's first step.
2. *pending*, then *loading*: the eager graph runs; each call looks at one flag. When the worker
   has answered, the compiled file is loaded on a loader thread of the program (no compiling:
   inductor's imports and its CPU checks, seconds in a fresh process, tens of milliseconds after).
3. *trial*: the next calls alternate between the two versions, ``TRIAL_CALLS`` timed calls of
   each after one untimed warm-up call of each; each version's *lower quartile* decides. On a
   loaded machine another process only ever adds time to a call, and it may inflate most calls
   of a short trial: a median then compares the machine's load, not the versions (a trial of
   5 medians chose eager for a graph inductor runs 1.2x faster). The verdict must also hold on
   each half of the calls apart; while the halves disagree (the load changed, or the versions
   are too close to tell) the trial goes on, up to ``TRIAL_MAX_CALLS`` calls of each, and then
   the verdict of all its calls stands. Eager is kept unless the compiled graph is faster by
   more than ``MARGIN`` (it is the exact one). A compiled call
   that raises settles on eager; when the graph writes no input the same call then runs eagerly,
   so the program sees the eager outcome (otherwise the error propagates, as under ``inductor``).
   A call whose outputs require grad (a graph being trained) is timed forward *and* backward:
   hooks on the autograd nodes the call made time the graph's part of the backward pass, from
   its first node's start to its last node's end, so the engine's work between an eager graph's
   many nodes counts (``_BackwardTimer``), and such a call counts once its backward has run;
   inductor's backward may cost more than eager's even where its forward is faster. A graph
   whose backward never comes (a validation pass under grad) is decided on forward times after
   ``FORWARD_ONLY_AFTER`` calls of each version.
4. *settled*: ``fn`` is the chosen callable itself; a call costs one Python call more than it.

A failed compile (or a graph the worker cannot take: an unpicklable call) leaves the eager graph
in place; :meth:`SwappableGraph.describe` says which version runs and why, and ``graphs()``
lists every live one for the report. A compiled file already in the cache (a second run of the
program) is loaded on the loader thread once the graph is hot, and the trial starts when it is.
A graph inductor compiles but no file can be made of (torch saves nothing, or AOTAutograd's
cache refuses a function the graph calls) is compiled again in the program, on the loader
thread (``inductor_artifacts.compile_here``: a copy of the graph, under the grad mode and
autocast state it was captured under, since both are the thread's own), and goes to the trial
like a loaded file. A graph whose file cannot be made leaves that verdict in the cache
(``inductor_artifacts.write_verdict``), so the next run compiles it in the program once it is
hot, or keeps it eager at once, instead of asking the worker again; a damaged, stale or older
verdict is ignored.

A graph captured with symbolic sizes is compiled once for all sizes (``symbolic_inputs``): the
compiled version runs on the calls whose sizes satisfy the guards its compile relied on, the
eager graph on the others.

Loading on a thread is safe where compiling would not be: it runs no graph, takes no compile
lock the program waits on, and a call never waits for it (it reads one attribute).
"""
from __future__ import annotations

import logging
import os
import queue
import statistics
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("autograph.kernels")  # the ``backend`` log channel

HOT_CALLS = 3          # calls of the eager graph before a compile is asked for
HOT_SECONDS = 0.25    # ... and seconds spent in them, in all
TRIAL_CALLS = 8        # timed calls of each version in the trial, at least ...
TRIAL_MAX_CALLS = 40   # ... and at most, while its two halves disagree
MARGIN = 0.03          # the compiled version must be this much faster to be kept
FORWARD_ONLY_AFTER = 4 * (TRIAL_CALLS + 1)  # trial calls of each version without backward: decide on forward
REQUEST_DEFAULTS: dict = {}  # entries every request gets (tests name another compiler and loader)

_graphs: "weakref.WeakSet[SwappableGraph]" = weakref.WeakSet()
_UNSUPPORTED = ("Unsupported: ", "UnsupportedHere: ")  # how the worker's answer begins
# when the compiler refused the graph (not a failure)
_REMEMBERED = ("Unsupported: ",)  # ... and those true of the graph whatever its example values
# when inductor compiles the graph but no file can be made of it: it is compiled in the program instead
_COMPILE_HERE = ("NothingSaved: ", "NotCacheable: ")


class SwappableGraph:
    """A compiled graph whose implementation is swapped while the program runs; ``describe()`` says which."""

    __slots__ = ("fn", "eager", "compiled", "state", "reason", "request", "job", "calls", "eager_seconds",
                 "trial", "timers", "loaded_from", "loaded", "load_pid", "rerunnable", "compile_here", "_lock",
                 "_cache_dir", "__weakref__")

    def __init__(self, eager: Callable[..., Any], request: dict | None, cache_dir: Path | None,
                 reason: str | None = None) -> None:
        self.eager = eager
        self.compiled: Callable[..., Any] | None = None
        self.request = request
        self._cache_dir = cache_dir
        self.job: Any = None
        self.calls = 0
        self.eager_seconds = 0.0
        self.trial: dict[str, list[_Sample]] = {"compiled": [], "eager": []}
        self.timers: list[_BackwardTimer] = []  # backward timers of trial calls not yet through backward
        self.loaded_from: str | None = None
        self.loaded: Any = None   # what the loader thread made: the compiled callable or the error
        self.load_pid = _pid()
        self.rerunnable = False  # the graph writes no input: a failed compiled call can run again eagerly
        self.compile_here: str | None = None  # why inductor compiles this graph in the program (no file)
        self._lock = threading.Lock()
        if request is None:
            self.state, self.reason, self.fn = "eager", reason or "not compiled in the background", eager
        else:
            self.state, self.reason, self.fn = "warming", None, self._warming
        _graphs.add(self)

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    def replace_eager(self, eager: Callable[..., Any]) -> None:
        """Use ``eager`` as the eager version (capture's copy of it that names the user's lines)."""
        with self._lock:
            if self.fn is self.eager:
                self.fn = eager
            self.eager = eager

    def describe(self) -> str:
        """Which version runs, and why, in one line."""
        if self.state == "warming":
            return f"eager (not hot yet: {self.calls} calls, {self.eager_seconds * 1e3:.1f} ms)"
        if self.state == "pending":
            return "eager (inductor compiling in the background)"
        if self.state == "loading" and self.loaded_from is None:
            return f"eager (inductor compiling in this process: {self.reason})"
        if self.state == "loading":
            return f"eager (loading the compiled graph: {self.reason})"
        if self.state == "trial":
            return "trial (timing eager against inductor on real calls)"
        return f"{self.state} ({self.reason})"

    # ---- the stages

    def _warming(self, *args: Any) -> Any:
        t0 = time.perf_counter()
        out = self.eager(*args)
        self.eager_seconds += time.perf_counter() - t0
        self.calls += 1
        if self.calls >= HOT_CALLS and self.eager_seconds >= HOT_SECONDS:
            self._submit()
        return out

    def _submit(self) -> None:
        from autograph.backends.compile_worker import client

        with self._lock:
            if self.state != "warming":
                return
            if self.compile_here is not None:  # no file can be made (remembered): compile here at once
                self._queue_load(None, self.compile_here)
                return
            path = self.request.get("path")
            if self.loaded_from is None and path and Path(path).is_file():  # made by an earlier run
                self._queue_load(path, "loaded from the cache")
                return
            self.job = client().submit(self.request, prepare=_serialize)
            self.state, self.fn = "pending", self._pending
        log.info("background compile of a %d-input graph asked for", len(self.request["specs"]))

    def _pending(self, *args: Any) -> Any:
        job = self.job
        if job.done:
            with self._lock:
                if self.state == "pending" and self.job is job:
                    if job.error is not None and job.error.startswith(_COMPILE_HERE):
                        why = job.error.partition(": ")[2]
                        self.compile_here = f"compiled in this process, its file cannot be made: {why}"
                        _remember(self.request, why, compile_here=True)
                        self._queue_load(None, self.compile_here)
                        log.info("no compiled file can be made; inductor compiles the graph in the program: %s", why)
                    elif job.error is not None and job.error.startswith(_UNSUPPORTED):
                        why = job.error.partition(": ")[2]
                        self._settle("eager", f"inductor's compiled file cannot be made: {why}")
                        log.info("background compile not possible; the graph stays eager: %s", why)
                        if job.error.startswith(_REMEMBERED):
                            _remember(self.request, why)
                    elif job.error is not None:
                        self._settle("eager", f"the background compile failed: {job.error}")
                        log.warning("background compile failed; the graph stays eager: %s", job.error)
                    else:
                        self._queue_load(job.path, f"compiled in the background in {job.seconds:.1f} s")
        elif job.pid != _pid():  # a forked child: the parent's worker answers the parent
            self._restart_after_fork()
        return self.eager(*args)

    def _queue_load(self, path: str | None, origin: str) -> None:
        """Load ``path`` on the loader thread (imports and the CPU checks take seconds in a fresh
        process), or (``path`` None) compile the graph there, in this process (a graph no file can
        be made of); calls run eagerly meanwhile. Called with the lock held."""
        self.loaded, self.reason, self.loaded_from, self.load_pid = None, origin, path, _pid()
        self.state, self.fn = "loading", self._loading
        _loader().put((weakref.ref(self), path, _pid()))

    def _loading(self, *args: Any) -> Any:
        loaded = self.loaded
        if loaded is not None:
            with self._lock:
                if self.state == "loading" and self.loaded is loaded:
                    if isinstance(loaded, BaseException) and self.loaded_from is None:  # compiled here
                        self._settle("eager", "inductor's compile in this process failed: "
                                              f"{type(loaded).__name__}: {loaded}")
                        log.warning("inductor's compile in this process failed; the graph stays eager: %s: %s",
                                    type(loaded).__name__, loaded)
                    elif isinstance(loaded, BaseException) and self.job is None:  # the cache's file
                        log.info("cached compiled graph %s not used (%s: %s); compiling again",
                                 self.loaded_from, type(loaded).__name__, loaded)
                        self.state, self.fn, self.loaded = "warming", self._warming, None
                        self.reason = f"the cached file was not usable ({type(loaded).__name__}: {loaded})"
                    elif isinstance(loaded, BaseException):
                        self._settle("eager", "the compiled file could not be loaded: "
                                              f"{type(loaded).__name__}: {loaded}")
                    else:
                        self._start_trial(loaded)
        elif self.load_pid != _pid():
            self._restart_after_fork()
        return self.eager(*args) if self.fn == self._loading else self.fn(*args)

    def _load_now(self, path: str | None) -> None:
        """On the loader thread: load (or compile, ``path`` None), and leave the outcome for the
        next call to pick up."""
        try:
            with _compile_lock():  # inductor's globals: no compile or load of the program's meanwhile
                self.loaded = _load(path, self.request) if path is not None else _compile_here(self.request)
        except Exception as exc:  # noqa: BLE001 - a file we cannot load leaves eager in place
            self.loaded = exc

    def _restart_after_fork(self) -> None:
        with self._lock:
            if self.state in ("pending", "loading"):
                if self.job is None:  # it was loading the cache's file: the child loads it again
                    self.loaded_from = None
                self.state, self.fn, self.job, self.loaded = "warming", self._warming, None, None

    def _start_trial(self, compiled: Callable[..., Any]) -> None:
        if hasattr(compiled, "accepts"):  # compiled for symbolic sizes: only where its size guards hold
            compiled = self._within_guards(compiled)
        self.compiled, self.loaded = compiled, None
        self.trial = {"compiled": [], "eager": []}
        self.state, self.fn = "trial", self._trial_call

    def _within_guards(self, guarded: Any) -> Callable[..., Any]:
        """``guarded`` where its size guards hold for the call's inputs, the eager graph elsewhere."""
        def compiled(*args: Any) -> Any:
            if guarded.accepts(args):
                return guarded(*args)
            return self.eager(*args)
        return compiled

    def _trial_call(self, *args: Any) -> Any:
        compiled, eager = self.compiled, self.eager
        runs = self.trial
        which = "compiled" if len(runs["compiled"]) <= len(runs["eager"]) else "eager"
        fn = compiled if which == "compiled" else eager
        sync = _synchronizer(args)
        sync()
        first_node = _BackwardTimer.sequence_number()
        t0 = time.perf_counter()
        try:
            out = fn(*args)
        except Exception as exc:
            if which != "compiled":
                raise
            with self._lock:
                if self.state == "trial":
                    self._settle("eager", f"the compiled graph raised {type(exc).__name__}: {exc}")
            if not self.rerunnable:
                raise
            return eager(*args)  # nothing was written: the eager graph's outcome is the program's
        sync()
        sample = _Sample(time.perf_counter() - t0)
        runs[which].append(sample)
        timer = _BackwardTimer.attach(out, first_node, sample, self._backward_timed)
        if timer is not None:
            sample.backward = None  # counts once its backward has run
            self.timers.append(timer)
        self._decide_when_ready()
        return out

    def _backward_timed(self, timer: "_BackwardTimer") -> None:
        """A trial call's backward has run (called in the backward pass)."""
        try:
            self.timers.remove(timer)
        except ValueError:
            pass
        self._decide_when_ready()

    def _decide_when_ready(self) -> None:
        runs = self.trial
        complete = {k: [s for s in v[1:] if s.backward is not None] for k, v in runs.items()}  # 1st: warm-up
        calls = min(len(c) for c in complete.values())
        if calls >= TRIAL_CALLS:
            paired = {k: c[:calls] for k, c in complete.items()}
            timed = "forward and backward" if any(s.backward for c in paired.values() for s in c) else "forward"
            if calls >= TRIAL_MAX_CALLS or _halves_agree(paired):
                self._decide(paired, timed)
        elif all(len(v) > FORWARD_ONLY_AFTER for v in runs.values()):
            forward = {k: [_Sample(s.forward, 0.0) for s in v[1:]] for k, v in runs.items()}
            self._decide(forward, "forward only: the backward of the trial calls did not run")

    def _decide(self, samples: "dict[str, list[_Sample]]", timed: str) -> None:
        with self._lock:
            if self.state != "trial":
                return
            compiled, eager = _lower_quartile(samples["compiled"]), _lower_quartile(samples["eager"])
            medians = f"inductor {statistics.median(s.total for s in samples['compiled']) * 1e3:.3f} ms, " \
                      f"eager {statistics.median(s.total for s in samples['eager']) * 1e3:.3f} ms"
            times = f"lower quartile of {len(samples['compiled'])} interleaved calls each, {timed}: " \
                    f"inductor {compiled * 1e3:.3f} ms, eager {eager * 1e3:.3f} ms (median of them: {medians}); " \
                    f"{self.reason}"
            if _compiled_wins(compiled, eager):
                self._settle("inductor", f"{eager / compiled:.2f}x faster than eager; {times}")
            else:
                self._settle("eager", f"inductor is not faster; {times}")

    def _settle(self, version: str, reason: str) -> None:
        self.state, self.reason = version, reason
        self.fn = self.compiled if version == "inductor" else self.eager
        if version != "inductor":
            self.compiled = None
        self.trial = {"compiled": [], "eager": []}
        timers, self.timers = self.timers, []
        for timer in timers:  # trial calls whose backward never ran: their hooks go
            timer.remove()

    def __del__(self) -> None:
        job = getattr(self, "job", None)
        if job is not None and not job.done:
            try:
                from autograph.backends.compile_worker import client
                client().cancel(job)
            except Exception:  # noqa: BLE001 - at interpreter exit modules may be gone
                pass


def _lower_quartile(samples: "list[_Sample]") -> float:
    """The time a quarter of the calls beat: what a call costs when the machine lets it run
    (load only adds time), yet not one lucky call."""
    times = sorted(s.total for s in samples)
    return times[(len(times) - 1) // 4]


def _compiled_wins(compiled: float, eager: float) -> bool:
    return compiled < eager * (1 - MARGIN)


def _halves_agree(samples: "dict[str, list[_Sample]]") -> bool:
    """Whether the first and the second half of the trial's calls reach the same verdict as all of them."""
    n = len(samples["compiled"])
    parts = [(0, n), (0, n // 2), (n // 2, n)]
    verdicts = {_compiled_wins(_lower_quartile(samples["compiled"][a:b]), _lower_quartile(samples["eager"][a:b]))
                for a, b in parts}
    return len(verdicts) == 1


class _Sample:
    """One trial call's seconds: forward, and backward (None while its backward is awaited)."""

    __slots__ = ("forward", "backward")

    def __init__(self, forward: float, backward: float | None = 0.0) -> None:
        self.forward, self.backward = forward, backward

    @property
    def total(self) -> float:
        return self.forward + (self.backward or 0.0)


class _BackwardTimer:
    """Times a graph call's share of the backward pass: from the start of the first of the call's
    autograd nodes (those reached from its outputs with a sequence number from the call) to the
    end of the last, so the autograd engine's work between them counts: an eager graph's backward
    is one node per operation, a compiled graph's one node, and summing only the nodes' own times
    left out the engine's per-node work (half of an eager llama's backward). The engine runs the
    ready node with the highest sequence number first, so every later node of the pass runs
    before the call's first node starts and no earlier one runs before its last ends; only
    gradient accumulation into leaves (which always goes first) runs in between. Hooks go on the
    nodes that can start the call's backward (no node of the call feeds them) and on those that
    can end it (they feed no node of the call); they only observe (they return None) and are
    removed once the backward has run, or when the trial ends without it."""

    __slots__ = ("sample", "done", "first_start", "last_end", "started", "handles", "__weakref__")

    def __init__(self, sample: _Sample, done: Callable[["_BackwardTimer"], None]) -> None:
        self.sample, self.done, self.started = sample, done, False
        self.first_start: float | None = None
        self.last_end: float | None = None
        self.handles: list[Any] = []

    @staticmethod
    def sequence_number() -> int:
        """The sequence number the next autograd node of this thread gets."""
        import torch
        return torch._C._autograd._get_sequence_nr()

    @classmethod
    def attach(cls, out: Any, first: int, sample: _Sample,
               done: Callable[["_BackwardTimer"], None]) -> "_BackwardTimer | None":
        """A timer on the backward of the call that made ``out`` (its nodes are numbered from
        ``first``); None when the call made no autograd node (no grad: nothing to time)."""
        import torch

        if not torch.is_grad_enabled():
            return None
        last = cls.sequence_number()
        outputs = out if isinstance(out, (tuple, list)) else (out,)
        todo = [t.grad_fn for t in outputs if isinstance(t, torch.Tensor) and t.grad_fn is not None]
        nodes: dict[int, Any] = {}
        while todo:
            node = todo.pop()
            if node is None or id(node) in nodes or not first <= node._sequence_nr() < last:
                continue
            nodes[id(node)] = node
            todo.extend(next_node for next_node, _ in node.next_functions)
        if not nodes:
            return None
        fed = {id(n) for node in nodes.values() for n, _ in node.next_functions if n is not None and id(n) in nodes}
        timer = cls(sample, done)
        for key, node in nodes.items():
            if key not in fed:  # no node of the call feeds it: it may start the call's backward
                timer.handles.append(node.register_prehook(timer._node_starts))
            if not any(n is not None and id(n) in nodes for n, _ in node.next_functions):  # it may end it
                timer.handles.append(node.register_hook(timer._node_ends))
        return timer

    def _node_starts(self, grad_outputs: Any) -> None:
        if not self.started:
            self.started = True
            import torch
            torch.autograd.Variable._execution_engine.queue_callback(self._backward_ended)
        if self.first_start is None:
            self.first_start = time.perf_counter()

    def _node_ends(self, grad_inputs: Any, grad_outputs: Any) -> None:
        self.last_end = time.perf_counter()

    @property
    def seconds(self) -> float:
        """From the call's first node's start to its last node's end (0 when none ran)."""
        if self.first_start is None or self.last_end is None:
            return 0.0
        return max(0.0, self.last_end - self.first_start)

    def _backward_ended(self) -> None:
        self.sample.backward = self.seconds
        self.remove()
        self.done(self)

    def remove(self) -> None:
        handles, self.handles = self.handles, []
        for handle in handles:
            handle.remove()


_loader_queue: "queue.Queue | None" = None
_loader_lock = threading.Lock()


def _loader() -> "queue.Queue":
    """The queue of the thread that loads compiled files (started on first use, one per process)."""
    global _loader_queue
    with _loader_lock:
        if _loader_queue is None:
            _loader_queue = queue.Queue()
            threading.Thread(target=_load_forever, args=(_loader_queue,), name="autograph-graph-loader",
                             daemon=True).start()
        return _loader_queue


def _load_forever(jobs: "queue.Queue") -> None:
    while True:
        ref, path, _ = jobs.get()
        holder = ref()
        if holder is not None:
            holder._load_now(path)
        del holder


def _forget_loader_after_fork() -> None:
    global _loader_queue
    _loader_queue = None


os.register_at_fork(after_in_child=_forget_loader_after_fork)


def _pid() -> int:
    return os.getpid()


def _serialize(request: dict) -> dict:
    from autograph.backends.inductor_artifacts import serialize
    return serialize(request)


def _load(path: str, request: dict) -> Callable[..., Any]:
    from autograph.backends.compile_worker import import_object
    return import_object(request["loader"])(path, request)


def _compile_lock() -> Any:
    from autograph.backends.inductor_artifacts import compile_lock
    return compile_lock()


def _compile_here(request: dict) -> Callable[..., Any]:
    """The graph compiled by inductor in this process, on the loader thread: a graph no file can be
    made of (``inductor_artifacts.compile_here``: a copy of the graph, under the request's grad
    mode and autocast state, not the loader thread's). Holds the GIL for much of the compile, so
    the program's calls run slower meanwhile; the worker's compile of the same graph left
    inductor's own caches warm, which shortens it."""
    from autograph.backends.compile_worker import import_object
    from autograph.backends.inductor_artifacts import serialize

    sent = request if "graph" in request else serialize(request)
    return import_object(request["compiler_here"])(sent)


def _remember(request: dict | None, why: str, compile_here: bool = False) -> None:
    """Write the verdict that no compiled file can be made of this graph: it stays eager, or
    (``compile_here``) inductor compiles it in the program (``inductor_artifacts.write_verdict``)."""
    if request is None or "verdict" not in request:
        return
    from autograph.backends.inductor_artifacts import write_verdict
    if not write_verdict(Path(request["verdict"]), request["key"], why, compile_here):
        log.info("the verdict for %s could not be written; the next run asks the worker again", request["key"])


def _remembered(request: dict) -> Any:
    """The verdict an earlier run left in the cache for this graph (``inductor_artifacts.Verdict``);
    None when there is none, or when the file is damaged or stale (then the graph is compiled as usual)."""
    if "verdict" not in request:
        return None
    from autograph.backends.inductor_artifacts import read_verdict
    try:
        return read_verdict(Path(request["verdict"]), request["key"])
    except (OSError, ValueError) as exc:
        log.info("verdict file not used (%s: %s); the graph is compiled as usual", type(exc).__name__, exc)
        return None


def _no_sync() -> None:
    return None


def _synchronizer(args: tuple) -> Callable[[], None]:
    """What makes a timing honest: the device's synchronize when an input is on CUDA."""
    for a in args:
        device = getattr(a, "device", None)
        if device is not None and device.type == "cuda":
            import torch
            return torch.cuda.synchronize
    return _no_sync


def graphs() -> list[SwappableGraph]:
    """Every live background-compiled graph."""
    return list(_graphs)


def make_background_backend(cache_dir: Path | None) -> Callable[..., Callable]:
    """The ``auto`` backend on CPU: eager now, inductor later (see the module docstring)."""

    def background(gm: Any, example_inputs: list) -> Callable:
        from autograph.backends.functionalize import reason_to_run_as_captured
        from autograph.backends.inductor_artifacts import Unsupported, request

        from autograph.backends.checkpoints import with_real_checkpoints

        eager = with_real_checkpoints(gm).forward
        why_not = reason_to_run_as_captured(gm)
        if why_not is not None:
            return SwappableGraph(eager, None, None, f"runs as captured: {why_not}")
        directory = cache_dir if cache_dir is not None else _default_cache_dir()
        try:
            req = request(gm, example_inputs, directory, symbolic=True)
        except Unsupported as exc:
            return SwappableGraph(eager, None, None, f"not compiled in the background: {exc}")
        except Exception as exc:  # noqa: BLE001 - never fail a capture for the optional compile
            return SwappableGraph(eager, None, None, "not compiled in the background: cannot describe the "
                                                     f"graph ({type(exc).__name__}: {exc})")
        req.update(REQUEST_DEFAULTS)
        holder = SwappableGraph(eager, req, directory)
        holder.rerunnable = not any(n.meta.get("writes_input") or n.meta.get("mutates") for n in gm.graph.nodes)
        if not Path(req["path"]).is_file():  # (a file made by an earlier run is loaded once the graph is hot)
            remembered = _remembered(req)
            if remembered is not None and remembered.compile_here:  # compiled here once hot, not asked for
                holder.compile_here = ("compiled in this process, its file cannot be made (remembered from an "
                                       f"earlier run): {remembered.reason}")
            elif remembered is not None:  # an earlier run found no file can be made: do not ask again
                with holder._lock:
                    holder._settle("eager", "inductor's compiled file cannot be made (remembered from an "
                                            f"earlier run): {remembered.reason}")
        return holder

    background.__name__ = "background"
    return background


def _default_cache_dir() -> Path:
    from autograph.settings import Settings
    return Settings().cache_path()
