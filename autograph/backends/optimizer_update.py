"""``opt.step()`` of torch's SGD, Adam and AdamW compiled by the function's backend (issues 26, 27).

Under the hook ``opt.step()`` is one opaque call at the user's line (a break, or a call made after
the graph: capture/engine/deferred_breaks.py): torch's eager kernels. ``torch.compile`` traces
``Optimizer.step`` as a frame of its own, and inductor fuses the update (102 against 32 µs for
``tests/programs/eval_loop``'s Adam). Under ``backend: inductor`` or ``auto`` the transformed code
calls :class:`OptimizerStep` instead of the method (capture's codegen, for a ``step`` method of an
object of one of these exact classes); it runs, per optimizer, one of two versions:

* the **real step**, ``opt.step(*args)`` exactly as the code called it before, or
* the **compiled update**: the optimizer class's own step body (below torch's
  ``profile_hook_step`` and ``_use_grad_for_differentiable`` wrappers) traced by
  ``make_fx(tracing_mode="real")``, then compiled. It is traced on a *shadow* of the optimizer:
  an object of the same class whose param groups and state hold copies of its tensors (the
  parameters with their grads, the state, the tensor hyperparameters), passed to make_fx as
  the arguments. make_fx tracks tensors by identity, so the body's reads through
  ``param_groups``/``state`` hit the placeholders, and the graph takes the real tensors in the
  same order. It is traced as TorchDynamo traces it (``OptimizerVariable``): the shadow's groups
  ``capturable`` (the step stays a tensor, no ``.item()``), under ``no_grad`` and torch's compile
  session (``torch.compiler.is_compiling()``). The call that traces makes the real step (the
  trace steps the copies), so no step is made twice, skipped or undone.

When: the first call of each optimizer runs the real step; a trace is tried once a real step
left the state's structure as it was, or made state for every parameter with a grad (the
optimizer's first step makes it). A trace is refused when its body changed the shadow's Python
state (a replay would not repeat it), or when the graph holds a tensor constant sharing memory
with one the optimizer or its shadow reaches. ``inductor`` compiles the graph in the program,
at once, as it compiles graphs (``compile_fx``). ``auto`` (on CPU) runs the real step until it is
hot (``background.HOT_CALLS`` calls, ``HOT_SECONDS`` in all), then traces and hands the graph to
the background compile (``background.SwappableGraph``) whose *eager* version is the real step:
the program's results stay those of plain Python until the trial on real calls picks the
compiled update (and only if it is faster).

Each call checks, in Python (a few microseconds), that the compiled update still stands for
``opt.step()``: the class step chain is the traced one (``type(opt).step`` torch's wrapper; no
``step`` on the instance other than an LR scheduler's ``_wrapped_by_lr_sched`` wrapper around
it, whose ``opt._opt_called = True`` is repeated), no step pre/post hooks (global or the
instance's), no arguments (no closure), the autograd profiler off (``record_function`` would
record), no ``grad_scale``/``found_inf`` attributes (GradScaler's fused path), the same param
groups and parameters with grads, the same state tensor objects with the same memory, grads with
the dtype, device, shape, stride and layout traced, not views and not sharing memory with a
parameter or state, and hyperparameters equal to the traced ones (floats are constants of the
graph; tensors the same objects). Where one fails the real step runs (and the check that failed
is remembered for the report). A changed structure traces again, at most ``MAX_TRACES`` times per
optimizer. Changed hyperparameters run the real step, and trace again only if the next call finds
them unchanged since: hyperparameters that change on every step (an LR scheduler: OneCycleLR
changes ``lr`` and ``betas``) settle the optimizer on the real step after one compile, with the
reason. A compiled call that raises settles the optimizer on the real step and re-raises (as a
graph under ``inductor`` does). After the update, ``opt._optimizer_step_code()`` runs (the
profiler's entry point), as the wrapper runs it.

``describe()`` says which version runs for an optimizer, and why; :func:`updates` lists them
for the report (one line each, ``optimizer step ...``); the ``backend`` log channel
(``autograph.kernels``) logs each decision.
"""
from __future__ import annotations

import collections
import logging
import operator
import threading
import time
import weakref
from typing import Any, Callable

import torch

log = logging.getLogger("autograph.kernels")  # the ``backend`` log channel

MAX_TRACES = 3  # traces (each a compile) of one optimizer before it settles on the real step
BACKENDS = ("inductor", "auto")  # the function backends under which ``opt.step()`` is compiled

_updates: "weakref.WeakKeyDictionary[Any, CompiledUpdate]" = weakref.WeakKeyDictionary()
# every update made, the freed optimizers' too (the report at exit names them): the most recent ones
_history: "collections.deque[CompiledUpdate]" = collections.deque(maxlen=64)
_lock = threading.Lock()


def supported_classes() -> tuple[type, ...]:
    """The optimizer classes whose step is compiled (exact classes: a subclass's step is its own)."""
    return (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW)


def compiles_step(obj: Any, backend: Any) -> bool:
    """Whether a call ``obj.step()`` made by code compiled for ``backend`` goes through
    :class:`OptimizerStep` (capture's codegen asks this with the real object of the call)."""
    return isinstance(backend, str) and backend in BACKENDS and type(obj) in supported_classes()


class OptimizerStep:
    """What the transformed code calls for ``opt.step(*args)``: the optimizer's compiled update
    where it still applies, else ``fallback(opt, *args)``, the call the code made before."""

    __slots__ = ("fallback", "backend")

    def __init__(self, fallback: Callable[..., Any], backend: str) -> None:
        self.fallback = fallback
        self.backend = backend

    def __call__(self, opt: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or type(opt) not in supported_classes():
            return self.fallback(opt, *args, **kwargs)
        update = _updates.get(opt)
        if update is None:
            with _lock:
                update = _updates.get(opt)
                if update is None:
                    update = _updates[opt] = CompiledUpdate(type(opt).__name__, self.backend)
                    _history.append(update)
                    weakref.finalize(opt, update.release)
        return update.step(opt, self.fallback)


def forget() -> None:
    """Drop every optimizer's compiled update (``autograph.reset()``): the next step traces anew."""
    with _lock:
        _updates.clear()
        _history.clear()


def updates() -> "list[CompiledUpdate]":
    """The optimizers' updates, freed optimizers' included (for the report; the last 64)."""
    return list(_history)


def update_of(opt: Any) -> "CompiledUpdate | None":
    """The update of ``opt``, None when no compiled code called its step."""
    return _updates.get(opt)


class CompiledUpdate:
    """One optimizer's step: real or compiled, and why (``describe``)."""

    def __init__(self, name: str, backend: str) -> None:
        self.name, self.backend = name, backend
        self.compiled: Callable[..., Any] | None = None
        self.plan: _Plan | None = None
        self.settled: str | None = None   # why it runs the real step for good
        self.reason = "first step runs for real (it initialises the optimizer's state)"
        self.traces = 0
        self.changed_hyper: list | None = None  # the hyperparameters a call found changed (then the real step ran)
        self.ready = False                # a real step left the state's structure as it was
        self.compiled_calls = 0
        self.real_calls = 0
        self.compile_seconds = 0.0
        self.freed = ""  # what it ran, once the optimizer is freed
        self.real_seconds = 0.0  # ``auto``: time in timed real steps before the trace
        # ``auto``: the update compiled in the background (backends/background.py), its eager
        # version the real step; the call it makes now: (opt, fallback, grad mode)
        self.swappable: Any = None
        self._call: tuple | None = None
        self._in_real = False

    def release(self) -> None:
        """The optimizer was freed: what the update held of it goes (its tensors, the compiled code)."""
        self.freed = self._describe() + " (optimizer freed)"
        self.compiled = self.plan = self.swappable = self._call = None

    def describe(self) -> str:
        """Which version runs, and why, in one line."""
        return self.freed or self._describe()

    def _describe(self) -> str:
        if self.settled is not None:
            return f"{self.name}.step: real step ({self.settled})"
        if self.swappable is not None:
            return f"{self.name}.step: {self.swappable.describe()} (the eager version is the real step; {self.reason})"
        if self.compiled is not None:
            return (f"{self.name}.step: compiled update ({self.backend}, {self.compiled_calls} compiled calls, "
                    f"{self.real_calls} real; {self.reason})")
        return f"{self.name}.step: real step ({self.reason})"

    # ---- one call

    def step(self, opt: Any, fallback: Callable[..., Any]) -> Any:
        if self.settled is not None:
            return self._real(opt, fallback)
        why = _why_not_compiled(opt)
        if why is not None:
            self.reason = why
            return self._real(opt, fallback)
        if self.plan is not None:
            flat, why = self.plan.inputs(opt)
            if flat is not None:
                return self._compiled(opt, flat, fallback)
            self.reason, self.compiled, self.plan, self.swappable = why, None, None, None
            if why.startswith(_HYPER):  # traced again only if the next call finds them as they are now
                walked = _walk(opt)
                self.changed_hyper = walked.hyper if not isinstance(walked, str) else None
                return self._real(opt, fallback, learn=True)
        if self.changed_hyper is not None:
            walked, seen = _walk(opt), self.changed_hyper
            self.changed_hyper = None
            if isinstance(walked, str) or len(walked.hyper) != len(seen) \
                    or not all(map(_same_hyper, walked.hyper, seen)):
                return self._settle(opt, fallback, f"hyperparameters change between steps ({self.reason}); "
                                                   "the update would be compiled again on every step")
        if not self.ready:
            return self._real(opt, fallback, learn=True)
        if self.backend == "auto" and not self._hot():
            return self._real(opt, fallback, timed=True)
        if self.traces >= MAX_TRACES:
            return self._settle(opt, fallback, f"traced {self.traces} times (the last change: {self.reason})")
        return self._trace(opt, fallback)

    def _hot(self) -> bool:
        """``auto``: whether the real step has run long enough to be worth a trace and a background
        compile (as ``auto``'s graphs: ``background.HOT_CALLS`` calls and ``HOT_SECONDS`` in all)."""
        from autograph.backends import background
        return self.real_calls >= background.HOT_CALLS and self.real_seconds >= background.HOT_SECONDS

    def _real(self, opt: Any, fallback: Callable[..., Any], learn: bool = False, timed: bool = False) -> Any:
        self.real_calls += 1
        if timed:
            t0 = time.perf_counter()
            out = fallback(opt)
            self.real_seconds += time.perf_counter() - t0
            return out
        if not learn:
            return fallback(opt)
        before = _structure(opt)
        out = fallback(opt)
        after = _structure(opt)
        with_grad = {id(p) for g in opt.param_groups for p in g["params"] if p.grad is not None}
        self.ready = after == before or with_grad <= {key for key, _ in after}
        return out

    def _settle(self, opt: Any, fallback: Callable[..., Any], why: str) -> Any:
        self.settled, self.compiled, self.plan, self.swappable = why, None, None, None
        log.info("optimizer update: %s runs the real step from now on: %s", self.name, why)
        return self._real(opt, fallback)

    def _compiled(self, opt: Any, flat: list, fallback: Callable[..., Any]) -> Any:
        _lr_wrapper_effect(opt)
        prev = torch.is_grad_enabled()
        self._call = (opt, fallback, prev)
        torch._C._set_grad_enabled(False)
        try:
            out = self.compiled(*flat)
        except BaseException as exc:
            if self._in_real:  # ``auto``'s eager version, the real step, raised: as in plain Python
                raise
            self.settled = f"the compiled update raised {type(exc).__name__}: {exc}"
            self.compiled = self.plan = self.swappable = None
            log.warning("optimizer update: %s's compiled update raised %s: %s; the real step runs from now on",
                        self.name, type(exc).__name__, exc)
            raise
        finally:
            torch._C._set_grad_enabled(prev)
            self._call, self._in_real = None, False
        if self.swappable is not None and out is _REAL:
            return None  # the real step ran (its wrappers did what the lines around do)
        self.compiled_calls += 1
        opt._optimizer_step_code()
        return None

    def _eager_step(self, *_flat: Any) -> Any:
        """``auto``'s eager version of the update: the real step, under the caller's grad mode."""
        opt, fallback, grad = self._call
        self.real_calls += 1
        self._in_real = True
        with torch.set_grad_enabled(grad):
            fallback(opt)
        self._in_real = False
        return _REAL

    # ---- tracing

    def _trace(self, opt: Any, fallback: Callable[..., Any]) -> Any:
        """Trace the step on a shadow of the optimizer (copies of its tensors), run this call's
        real step, then compile the graph for the real tensors."""
        self.traces += 1
        walked = _walk(opt)
        if isinstance(walked, str):
            return self._settle(opt, fallback, walked)
        t0 = time.perf_counter()
        try:
            shadow, shadow_walked = _shadow(opt)
            before = _identities(shadow)
            gm = _traced(shadow, _raw_step(type(opt)), _unique(shadow_walked.flat()))
            changed = _identities(shadow) != before
        except Exception as exc:  # noqa: BLE001 - nothing real ran: the real step decides the outcome
            return self._settle(opt, fallback, f"the step cannot be traced ({type(exc).__name__}: {exc})")
        out = self._real(opt, fallback)  # this call's step: the real one, once
        if changed:  # a replay would not repeat what the body did in Python
            self.ready = False
            self.reason = "the traced step changed the optimizer's Python state; traced again later"
            log.info("optimizer update: %s: %s", self.name, self.reason)
            return out
        shared = _constant_sharing_memory(gm, walked.flat() + shadow_walked.flat())
        if shared is not None:
            self.settled = f"the graph holds a tensor constant ({shared}) sharing memory with the optimizer's"
            return out
        example = _unique(shadow_walked.flat())
        if self.backend == "auto":
            return self._in_background(opt, gm, example, walked, out)
        try:
            compiled = _compile(gm, example, self.backend)
        except Exception as exc:  # noqa: BLE001 - the real step ran; it runs from now on
            self.settled = f"{self.backend} failed to compile the update: {type(exc).__name__}: {exc}"
            log.warning("optimizer update: %s: %s", self.name, self.settled)
            return out
        seconds = time.perf_counter() - t0
        self.compile_seconds += seconds
        self.compiled, self.plan = compiled, _Plan(opt, walked)
        self.reason = (f"traced ({len(gm.graph.nodes)} nodes) and compiled in {seconds:.1f} s"
                       + (f", trace {self.traces}" if self.traces > 1 else ""))
        log.info("optimizer update: %s: %s", self.name, self.reason)
        return out

    def _in_background(self, opt: Any, gm: torch.fx.GraphModule, example: list, walked: "_Walked", out: Any) -> Any:
        """``auto``: the real step now; inductor compiles the update in the background (a CPU
        optimizer: on CUDA ``auto`` is Triton, which compiles no optimizer update), and a trial
        on real calls keeps the faster of the two (backends/background.py)."""
        from autograph.backends.registry import auto_choice
        devices = {p.device.type for p in walked.params}
        if devices != {"cpu"} or auto_choice("cpu")[0] != "eager":
            self.settled = f"auto compiles no optimizer update for tensors on {sorted(devices)}"
            return out
        holder = _background_holder(gm, example, self._eager_step)
        self.swappable, self.compiled, self.plan = holder, holder, _Plan(opt, walked)
        self.reason = f"traced ({len(gm.graph.nodes)} nodes)"
        log.info("optimizer update: %s: traced; inductor compiles it in the background", self.name)
        return out


_HYPER = "hyperparameter"


def _why_not_compiled(opt: Any) -> str | None:
    """Why this call must run the real step whatever was traced (None: nothing stops it)."""
    codes = _CODES or _wrapper_codes()
    optimizer_module, profiler = _MODULES
    step = type(opt).step
    if getattr(step, "__code__", None) is not codes[0]:
        return "the class's step is not torch's profiling wrapper"
    own = opt.__dict__.get("step")
    if own is not None and not (getattr(own, "_wrapped_by_lr_sched", False) and
                                getattr(own, "__wrapped__", None) is step):
        return "the instance has a step of its own"
    if optimizer_module._global_optimizer_pre_hooks or optimizer_module._global_optimizer_post_hooks \
            or opt._optimizer_step_pre_hooks or opt._optimizer_step_post_hooks:
        return "step hooks are registered"
    if profiler._is_profiler_enabled or torch._C._autograd._profiler_enabled():
        return "the profiler is on (record_function records the step)"
    own = opt.__dict__
    if "grad_scale" in own or "found_inf" in own:
        return "grad_scale/found_inf are set (GradScaler's fused step)"
    return None


def _lr_wrapper_effect(opt: Any) -> None:
    """What an LR scheduler's wrapper of ``opt.step`` does before the step."""
    own = opt.__dict__.get("step")
    if own is not None and getattr(own, "_wrapped_by_lr_sched", False):
        opt._opt_called = True


_CODES: tuple | None = None
_MODULES: tuple = ()  # torch.optim.optimizer and torch.autograd.profiler (read on every call)


def _wrapper_codes() -> tuple:
    """The code of torch's ``profile_hook_step`` wrapper and of ``_use_grad_for_differentiable``'s."""
    global _CODES, _MODULES
    if _CODES is None:
        import torch.autograd.profiler as profiler
        import torch.optim.optimizer as optimizer_module
        from torch.optim.optimizer import Optimizer, _use_grad_for_differentiable

        _MODULES = (optimizer_module, profiler)

        def probe(self: Any) -> None:
            return None
        _CODES = (Optimizer.profile_hook_step(probe).__code__, _use_grad_for_differentiable(probe).__code__)
    return _CODES


def _raw_step(cls: type) -> Callable[..., Any]:
    """The class's own step body below torch's two wrappers."""
    profile, use_grad = _wrapper_codes()
    step = cls.step
    inner = getattr(step, "__wrapped__", None)
    body = getattr(inner, "__wrapped__", None)
    if step.__code__ is not profile or getattr(inner, "__code__", None) is not use_grad or body is None \
            or getattr(body, "__qualname__", None) not in {f"{k.__name__}.step" for k in cls.__mro__}:
        raise TypeError(f"{cls.__name__}.step is not torch's wrapped step")
    return body


class _Walked:
    """What one step reads: per group its params with grads; their grads, state tensors, tensor
    hyperparameters; and the structure around them."""

    __slots__ = ("params", "grads", "state", "hyper_tensors", "hyper", "layout")

    def __init__(self) -> None:
        self.params: list = []
        self.grads: list = []
        self.state: list = []
        self.hyper_tensors: list = []
        self.hyper: list = []   # per group: ((key, value), ...) without "params"
        self.layout: list = []  # per group: indices of params with a grad; per param: state keys

    def flat(self) -> list:
        return self.params + self.grads + self.state + self.hyper_tensors


def _walk(opt: Any) -> "_Walked | str":
    """The step's tensors and structure, or why the step is not compiled for this optimizer."""
    w = _Walked()
    state = opt.state
    for group in opt.param_groups:
        if group.get("differentiable"):
            return "a param group is differentiable"
        hyper = tuple((k, v) for k, v in group.items() if k != "params")
        for _, v in hyper:
            for t in (v if isinstance(v, tuple) else (v,)):
                if isinstance(t, torch.Tensor):
                    w.hyper_tensors.append(t)
        w.hyper.append(hyper)
        with_grad = []
        for i, p in enumerate(group["params"]):
            g = p.grad
            if g is None:
                continue
            if g.is_sparse or p.is_complex():
                return "sparse gradients or complex parameters"
            with_grad.append(i)
            w.params.append(p)
            w.grads.append(g)
            s = state.get(p, {}) if hasattr(state, "get") else {}
            keys = []
            for k, v in s.items():
                keys.append((k, isinstance(v, torch.Tensor)))
                if isinstance(v, torch.Tensor):
                    if v.device != p.device:
                        return f"state {k!r} is on {v.device}, its parameter on {p.device}"
                    w.state.append(v)
            w.layout.append(tuple(keys))
        w.layout.append(tuple(with_grad))
    return w


def _unique(tensors: list) -> list:
    seen: set[int] = set()
    out = []
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out


def _structure(opt: Any) -> tuple:
    """The optimizer state's structure: which params have state, and its keys."""
    return tuple((id(p), tuple(s)) for p, s in opt.state.items())


def _identities(opt: Any) -> tuple:
    """Every object the optimizer's Python state holds, by identity: a traced step must leave it so."""
    groups = tuple((id(g), tuple((k, id(v)) for k, v in g.items()), id(g["params"]), tuple(map(id, g["params"])))
                   for g in opt.param_groups)
    state = tuple((id(p), id(s), tuple((k, id(v)) for k, v in s.items())) for p, s in opt.state.items())
    attrs = tuple((k, id(v)) for k, v in opt.__dict__.items() if k != "_opt_called")
    return id(opt.param_groups), groups, id(opt.state), state, attrs


def _shadow(opt: Any) -> "tuple[Any, _Walked]":
    """An optimizer like ``opt`` whose param groups and state hold copies of its tensors (the
    parameters with their grads, the state, the tensor hyperparameters; one copy per tensor, with
    its strides), and what a walk of it finds: the trace runs on it, so it steps the copies, and
    its graph takes the real tensors in the same order."""
    from collections import defaultdict

    copies: dict[int, torch.Tensor] = {}

    def copy(t: torch.Tensor) -> torch.Tensor:
        if id(t) not in copies:
            c = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device)
            c.copy_(t.detach())
            if t.requires_grad:
                c.requires_grad_(True)
            copies[id(t)] = c
        return copies[id(t)]

    def hyper(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return copy(v)
        return tuple(hyper(x) for x in v) if type(v) is tuple else v

    with torch.no_grad():
        groups = []
        for g in opt.param_groups:
            group = {k: hyper(v) for k, v in g.items() if k != "params"}
            group["params"] = [copy(p) for p in g["params"]]
            if "capturable" in group:  # traced as TorchDynamo traces it (SGD has no step counter)
                group["capturable"] = True
            for p, c in zip(g["params"], group["params"]):
                if p.grad is not None:
                    c.grad = copy(p.grad)
            groups.append(group)
        state = defaultdict(dict)
        for p, s in opt.state.items():
            state[copy(p)] = {k: copy(v) if isinstance(v, torch.Tensor) else v for k, v in s.items()}
    shadow = object.__new__(type(opt))
    shadow.__dict__.update(opt.__dict__)
    shadow.param_groups, shadow.state = groups, state
    walked = _walk(shadow)
    if isinstance(walked, str):
        raise TypeError(walked)
    return shadow, walked


def _traced(opt: Any, body: Callable[..., Any], flat: list) -> torch.fx.GraphModule:
    """make_fx's graph of ``body(opt)`` over ``flat`` (the tensors it reads, by identity), run for
    real (on a shadow: it steps the copies) under no_grad and torch's compile session."""
    from torch.fx.experimental.proxy_tensor import make_fx

    def update(*_tensors: Any) -> None:
        body(opt)
        return None

    with torch.no_grad(), torch.compiler._compile_session_context():
        return make_fx(update, tracing_mode="real")(*flat)


def _constant_sharing_memory(gm: torch.fx.GraphModule, reachable: list) -> str | None:
    """The name of a tensor the graph holds that shares memory with one the optimizer reaches."""
    storages = {t.untyped_storage().data_ptr() for t in reachable if t.device.type != "meta"}
    for name, value in list(gm.named_buffers()) + list(gm.named_parameters()) + \
            [(n, v) for n, v in vars(gm).items() if isinstance(v, torch.Tensor)]:
        if value.untyped_storage().data_ptr() in storages:
            return name
    return None


def _compile(gm: torch.fx.GraphModule, flat: list, backend: str) -> Callable[..., Any]:
    """The update compiled now, in the program (as the ``inductor`` backend compiles graphs)."""
    from torch._inductor.compile_fx import compile_fx

    from autograph.backends.inductor_artifacts import compile_lock
    with compile_lock(), torch.no_grad():
        return compile_fx(gm, list(flat))


_REAL = object()  # what ``auto``'s eager version returns: the real step ran


def _background_holder(gm: torch.fx.GraphModule, example: list, eager: Callable[..., Any]) -> Any:
    """``auto``'s :class:`~autograph.backends.background.SwappableGraph` of the update, its eager
    version ``eager`` (the real step); a compiled call that raises is not run again (it writes)."""
    from autograph.backends.background import make_background_backend
    from autograph.settings import current_settings

    try:
        directory = current_settings().cache_path()
    except Exception:  # noqa: BLE001 - settings that do not load: the default cache
        directory = None
    with torch.no_grad():  # the request records the grad mode its graph is compiled under
        holder = make_background_backend(directory)(gm, example)
    holder.replace_eager(eager)
    holder.rerunnable = False
    return holder


class _Plan:
    """What a compiled update was traced for, checked on each call (in a few microseconds: the
    lists are compared by identity and ``==`` in C, the grads by their metadata)."""

    __slots__ = ("groups", "state", "group_dicts", "values", "params", "positions", "with_grad", "state_dicts",
                 "state_values", "state_tensors", "tensor_values", "hyper_tensors", "grad_meta", "written", "ptrs", "ptr_set")

    def __init__(self, opt: Any, walked: _Walked) -> None:
        self.groups, self.state = opt.param_groups, opt.state
        self.group_dicts = list(opt.param_groups)
        self.values = [list(g.values()) for g in opt.param_groups]
        self.tensor_values = [(g, k, v) for g in opt.param_groups for k, v in g.items()
                              if k != "params" and _holds_tensor(v)]
        self.params = [p for g in opt.param_groups for p in g["params"]]
        index = {id(p): i for i, p in enumerate(self.params)}
        self.positions = [index[id(p)] for p in walked.params]
        self.with_grad = walked.params
        self.state_dicts = [opt.state.get(p) for p in walked.params]
        self.state_values = [list(d.values()) if d is not None else [] for d in self.state_dicts]
        self.state_tensors = walked.state
        self.hyper_tensors = _unique(walked.hyper_tensors)
        self.grad_meta = [_meta(g) for g in walked.grads]
        self.written = walked.params + walked.state
        self.ptrs = [t.data_ptr() for t in self.written]
        self.ptr_set = set(self.ptrs)

    def inputs(self, opt: Any) -> tuple[list | None, str]:
        """The compiled update's arguments for this call, or why it does not apply."""
        groups = opt.param_groups
        if groups is not self.groups or opt.state is not self.state or len(groups) != len(self.group_dicts) \
                or not all(map(operator.is_, groups, self.group_dicts)):
            return None, "the param groups or the state were replaced"
        for i, (g, values) in enumerate(zip(groups, self.values)):
            now = list(g.values())
            try:
                same = now == values
            except RuntimeError:  # a tensor of several elements compared
                same = False
            if not same:
                changed = next((k for k, v, w in zip(g, now, values) if not _same_value(v, w)), "a key")
                return None, f"{_HYPER} {changed!r} of group {i} changed"
        for g, key, value in self.tensor_values:  # equal is not enough: the same tensors
            if not _same_if_tensor(g.get(key), value):
                return None, f"{_HYPER} {key!r} (a tensor) was replaced"
        params = [p for g in groups for p in g["params"]]
        if len(params) != len(self.params) or not all(map(operator.is_, params, self.params)):
            return None, "the parameters changed"
        grads = [p.grad for p in params]
        with_grad = [grads[i] for i in self.positions]
        if sum(g is not None for g in grads) != len(with_grad) or any(g is None for g in with_grad):
            return None, "a different set of parameters has grads"
        state = self.state
        for p, d, values in zip(self.with_grad, self.state_dicts, self.state_values):
            if state.get(p) is not d or (d is not None and (len(d) != len(values)
                                                            or not all(map(operator.is_, d.values(), values)))):
                return None, "the state tensors changed"
        if [t.data_ptr() for t in self.written] != self.ptrs:
            return None, "a parameter's or state's memory changed"
        ptrs = self.ptr_set
        for g, meta in zip(with_grad, self.grad_meta):
            if g._base is not None or _meta(g) != meta or g.data_ptr() in ptrs:
                return None, "a grad's dtype, device, shape, stride or memory changed"
        return self.with_grad + with_grad + self.state_tensors + self.hyper_tensors, ""


def _holds_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor) or type(value) is tuple and any(map(_holds_tensor, value))


def _same_if_tensor(a: Any, b: Any) -> bool:
    """Tensors (also in a tuple) the same objects; other values are compared with ``==``."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return a is b
    if type(a) is tuple:
        return type(b) is tuple and len(a) == len(b) and all(map(_same_if_tensor, a, b))
    return True


def _meta(t: torch.Tensor) -> tuple:
    return t.dtype, t.device, t.shape, t.stride(), t.layout, t.requires_grad


def _same_hyper(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(k == j and _same_value(v, w) for (k, v), (j, w) in zip(a, b))


def _same_value(a: Any, b: Any) -> bool:
    """Equal as a graph constant: tensors by identity, numbers of the same type and value."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return a is b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and (a == b or a != a and b != b)
