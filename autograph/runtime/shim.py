"""The per-function shim: guard cache, hit path, miss path, recompile limit, thread safety.

Hit path (no lock): try the entries of this function in order, run the first
whose guards pass.  Miss path (per-code lock): re-check (another thread may
have just compiled), then ask ``autograph.capture.engine.api.capture`` for a new
entry, honouring ``mode``, ``recompile_limit`` and ``on_error``.  Exceptions
raised by the user's code inside an entry propagate unchanged.
"""
from __future__ import annotations

import functools
import logging
import threading
import sys
import time
import types
import warnings
import weakref
from typing import TYPE_CHECKING, Any, Callable

from autograph.guards import extension as _extension
from autograph.guards import native as _native
from autograph.runtime import dynamo as _dynamo
from autograph.runtime import stats as _stats
from autograph.runtime.cache import CacheEntry, code_state, own_code
from autograph.runtime.frames import TailCall, finish_tail
from autograph.settings import Settings, current_settings, on_settings_change

log = logging.getLogger("autograph.runtime")
breaks_log = logging.getLogger("autograph.breaks")
recompiles_log = logging.getLogger("autograph.recompiles")


_IMPORT_HINT = (" (autograph's capture could not import a module it needs: the installation is broken or "
                "incomplete; reinstall autograph and its dependencies, or set AUTOGRAPH=0 to run without it)")


class RecompileLimitWarning(UserWarning):
    """A function hit ``recompile_limit`` and now runs eagerly on cache misses."""


# ------------------------------------------------------------ injectable parts

def _default_capture() -> Callable[..., Any]:
    """capture's entry point, imported on the first miss (an ImportError there is a capture failure)."""
    from autograph.capture.engine.api import capture

    return capture


_settings_provider: Callable[[], Settings] = current_settings
_dispatch: Callable[[tuple, tuple, dict], int] = _native.runtime_dispatch()
_capture_provider: Callable[[], Callable[..., Any]] = _default_capture


def configure(*, settings_provider: Callable[[], Settings] | None = None,
              capture: Callable[..., Any] | None | types.EllipsisType = ...) -> tuple:
    """Replace the settings provider and/or the capture function (tests, embedding).

    Returns the previous ``(settings_provider, capture_provider)`` so callers can restore
    them with ``restore(previous)``.
    """
    global _settings_provider, _capture_provider
    previous = (_settings_provider, _capture_provider)
    if settings_provider is not None:
        _settings_provider = settings_provider
    if capture is not ...:
        _capture_provider = (lambda: capture) if capture is not None else _default_capture
    refresh()
    return previous


def restore(previous: tuple) -> None:
    global _settings_provider, _capture_provider
    _settings_provider, _capture_provider = previous
    refresh()


# ------------------------------------------------------------ capturing flag

_tls = threading.local()
_active_captures = 0   # captures in progress in any thread: lets the hit path skip the TLS read
_off = False           # settings mode "off": every shim calls the original


def is_capturing() -> bool:
    """True while this thread is inside a capture (nested shims then run the original)."""
    return getattr(_tls, "capturing", 0) > 0


class capturing:
    """Context manager marking this thread as capturing (re-entrant)."""

    def __enter__(self):
        global _active_captures
        with _counter_lock:
            _active_captures += 1
            _sync_flags()
        _tls.capturing = getattr(_tls, "capturing", 0) + 1

    def __exit__(self, *exc):
        global _active_captures
        _tls.capturing -= 1
        with _counter_lock:
            _active_captures -= 1
            _sync_flags()


def _sync_flags() -> None:
    """Mirror the switches into the C hit path (which hands calls to ``_PyHitPath`` off the C path)."""
    native = _extension.load()
    if native is not None:
        native.set_flags(_off, _active_captures, _extension.c_path() is None)


def _on_c_path_switch() -> None:
    """``extension.use_c_path`` flipped: new dispatcher, flags, and every shim's plans rebuilt."""
    global _dispatch
    _dispatch = _native.runtime_dispatch()
    _sync_flags()
    for shim in list(_all_shims):
        shim._rebuild_plans()


_counter_lock = threading.Lock()


def refresh() -> None:
    """Re-read the settings switch the hit path uses (call after settings change)."""
    global _off
    _off = _settings_provider().mode == "off"
    _sync_flags()


on_settings_change(refresh)
_extension.on_switch(_on_c_path_switch)


# ------------------------------------------------------------ the shim

def _with_overrides(settings: Settings, overrides: dict) -> Settings:
    """The process settings with a shim's per-compile overrides (``autograph.compile(f, backend=...)``)."""
    return settings.model_copy(update=overrides) if overrides else settings


def _where(fn: types.FunctionType) -> str:
    code = own_code(fn)
    return f"{code.co_filename}:{code.co_firstlineno}"


# Why a call ran the original function (the run report counts calls by reason).
EAGER_OFF = "autograph is off (mode: off)"
EAGER_CAPTURING = "called while this thread was capturing (the original runs)"
EAGER_RUN_ONLY = "mode run-only: nothing is compiled anew"
EAGER_NO_TENSOR = "no tensor in the call: nothing to compile"
EAGER_NO_TORCH = "torch is not (fully) imported yet: no tensor can be involved"


_torch_ready = _dynamo.torch_imported  # no tensor can exist before torch finished importing


def cold_reason(threshold: int) -> str:
    return f"cold, not compiled: below compile_threshold ({threshold})"


# Hotness is a function's own: it compiles on its compile_threshold-th call, whoever calls it (a
# loop in a cold main() compiles its train_step). One exception keeps one-off set-up code
# uncompiled: a callback that library code calls while a selected function runs cold
# (``self.apply(self._init_weights)`` in a model's ``__init__``, a hook) waits for
# COLD_NESTED_FACTOR times as many calls, so the n modules of a model do not compile their
# initialiser one type at a time.
COLD_NESTED_FACTOR = 16


def deferred_reason(threshold: int, caller: str = "library code") -> str:
    return (f"cold, not compiled: a callback run by {caller} inside a cold call of a selected function "
            f"(one-off set-up; compiled after {threshold * COLD_NESTED_FACTOR} such calls)")


_cold_runs = threading.local()  # .depth: cold calls running on this thread


def _cold_depth() -> int:
    return getattr(_cold_runs, "depth", 0)


def _runner(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What the shim calls for an entry's callable: a transformed entry's tail-calling twin, which
    the shim's callers resolve (``runtime/frames.py``); ``fn`` itself otherwise."""
    return getattr(fn, "__autograph_tail__", fn)


def _end_nested_run() -> None:
    nesting(-1)


def _end_cold_nested_run() -> None:
    _cold_runs.depth -= 1
    nesting(-1)


# Compiled code running inside compiled code in one thread (a chain of resume functions is
# one level per break); past MAX_NESTING a shim runs the original function, so no chain can
# exhaust the interpreter's recursion limit. Counted by the C hit path when it is built.
MAX_NESTING = 32
_py_nesting = threading.local()


def nesting(delta: int = 0) -> int:
    """This thread's nesting after adding ``delta``."""
    if _native_nesting is not None:
        return _native_nesting(delta)
    value = getattr(_py_nesting, "value", 0) + delta
    _py_nesting.value = value
    return value


class _PyHitPath:
    """Pure-Python twin of ``autograph._native.HitPath`` (used when the extension is missing)."""

    _table: tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]] = ((), (), ())
    _fast: bool = True
    _slow: Callable[[tuple, dict], Any]  # provided by _ShimLogic

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fast and not _off and not _active_captures and nesting() < MAX_NESTING \
                and _dynamo.callback() is None:
            entries, plans, fns = self._table
            try:
                i = _dispatch(plans, args, kwargs)
            except TypeError:
                return self._slow(args, kwargs)
            if i >= 0:
                entries[i].hits += 1
                nesting(1)
                try:
                    result = fns[i](*args, **kwargs)
                    return finish_tail(result) if type(result) is TailCall else result
                finally:
                    nesting(-1)
        return self._slow(args, kwargs)


class _ShimLogic:
    """Everything of a shim except the hit path (which is C or ``_PyHitPath``)."""

    _table: tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]
    _fast: bool
    if TYPE_CHECKING:
        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...  # the hit path's

    def __init__(self, fn: types.FunctionType, overrides: dict | None = None):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"autograph can only shim Python functions, got {type(fn).__name__}")
        self.fn = fn
        self.overrides = dict(overrides or {})
        self.state = code_state(own_code(fn))
        self.stats = _stats.stats_for(self.state.code, fn.__qualname__)
        # (entries, plans, fns): replaced as a whole when an entry is added, read without a lock
        self._table = ((), (), ())
        self._fast = True
        # compiled on purpose (autograph.compile, resume functions): captured even when called
        # without tensors; the import hook's shims run tensor-free calls eagerly (see _decide)
        self.explicit = False
        self._tensor_free_calls = 0
        # names only: copying ``fn.__dict__`` would overwrite the shim's own fields with the
        # function's attributes (``f.state = ...``); those are read through ``__getattr__``
        functools.update_wrapper(self, fn, updated=())
        _all_shims.add(self)  # type: ignore[arg-type]  # every _ShimLogic is a Shim
        if self.state.eager:
            self._install_eager_entry()

    # the C hit path hands calls to this when the C path is switched off (``extension.use_c_path``)
    _python_hit = _PyHitPath.__call__

    def __getattr__(self, name: str) -> Any:
        """Attributes the shim lacks are the wrapped function's, read live (``compiled.tag``)."""
        if name.startswith("__") and name.endswith("__") or name == "fn":
            raise AttributeError(name)
        return getattr(self.fn, name)

    @property
    def entries(self) -> tuple[CacheEntry, ...]:
        """The compiled entries (not the guard-free entry of a code marked eager)."""
        entries = self._table[0]
        if entries and entries[0].eager:
            return ()
        return entries

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return types.MethodType(self, obj)

    # -- everything that is not a clean hit -------------------------------------
    def _slow(self, args: tuple, kwargs: dict) -> Any:
        """The call in Python (the Python hit path, Dynamo regions): what ``_plan`` says, run here."""
        if _dynamo.callback() is not None:
            # inside a torch.compile region: Dynamo compiles and runs this frame itself (this
            # frame is marked "skip" for Dynamo, the original's frame is not); no Python call
            # before this line, or Dynamo would try to compile autograph's own code
            self.stats.torch_compile_calls += 1
            _dynamo.entered_region()
            return self.fn(*args, **kwargs)
        run, done = self._plan(args, kwargs)
        try:
            result = run(*args, **kwargs)
            return finish_tail(result) if type(result) is TailCall else result
        finally:
            if done is not None:
                done()

    def _plan(self, args: tuple, kwargs: dict) -> tuple[Callable[..., Any], Callable[[], None] | None]:
        """``(run, done)`` for a call the hit path did not take: the caller calls ``run(*args,
        **kwargs)`` (resolving a ``TailCall`` it returns), then ``done()`` when not None. The C hit
        path makes that call itself, so no frame of autograph's is on the stack while the user's
        code runs (``runtime/frames.py``); capturing happens here, before."""
        if _dynamo.callback() is not None:  # (the C path sends Dynamo regions to ``_slow``)
            self.stats.torch_compile_calls += 1
            _dynamo.entered_region()
            return self.fn, None
        if _off:
            refresh()  # settings may have been switched back on
        if _off or self.state.eager or is_capturing() or nesting() >= MAX_NESTING:
            self.stats.ran_eagerly(self._eager_why())
            return self.fn, None
        nesting(1)
        try:
            run, cold = self._slow_lookup(args, kwargs)
        except BaseException:
            nesting(-1)
            raise
        if cold:
            _cold_runs.depth = _cold_depth() + 1
            return run, _end_cold_nested_run
        return run, _end_nested_run
    def _eager_why(self) -> str:
        if _off:
            return EAGER_OFF
        if self.state.eager:
            return self.state.eager_reason or "marked eager"
        if is_capturing():
            return EAGER_CAPTURING
        return f"compiled code nested deeper than {MAX_NESTING} levels (the original runs)"

    def _slow_lookup(self, args: tuple, kwargs: dict) -> tuple[Callable[..., Any], bool]:
        """``(what to run, whether it is a cold run of the original)``."""
        for entry in self.entries:  # e.g. a capture runs in another thread
            try:
                ok = entry.check(*args, **kwargs) < 0
            except TypeError:
                return self.fn, False  # the call does not bind: let Python say why
            if ok:
                entry.hits += 1
                return _runner(entry.fn), False
        return self._miss(args, kwargs)

    def wrapt_wrapper(self, wrapped: Any, instance: Any, args: tuple, kwargs: dict) -> Any:
        """Wrapper for ``wrapt.FunctionWrapper``: re-inserts the bound ``self``/``cls``."""
        bound_to = getattr(wrapped, "__self__", None)
        if bound_to is not None and isinstance(wrapped, types.MethodType):
            return self(bound_to, *args, **kwargs)
        return self(*args, **kwargs)

    # -- miss path ------------------------------------------------------------
    def _miss(self, args: tuple, kwargs: dict) -> tuple[Callable[..., Any], bool]:
        global _off
        settings = _with_overrides(_settings_provider(), self.overrides)
        if settings.mode == "off":
            _off = True
            _sync_flags()
            self.stats.ran_eagerly(EAGER_OFF)
            return self.fn, False
        state = self.state
        if not self.explicit and self._cold(settings):
            return self.fn, True
        if not self.explicit and not _torch_ready():
            self.stats.ran_eagerly(EAGER_NO_TORCH)
            return self.fn, False
        if not self._binds(args, kwargs):
            return self.fn, False  # raises Python's own TypeError for this call
        with state.lock:
            for entry in self.entries:  # another thread may have compiled meanwhile
                if entry.check(*args, **kwargs) < 0:
                    entry.hits += 1
                    return _runner(entry.fn), False
            return _runner(self._decide(args, kwargs, settings)), False

    def _cold(self, settings: Settings) -> bool:
        """JIT warm-up (as HotSpot and PyPy count): an import-hook function runs its original until
        its code's ``compile_threshold``-th call, so code that runs once never pays for a capture.

        A callback that library code runs inside another selected function's cold call (and its
        misses of compiled code) waits for ``COLD_NESTED_FACTOR`` times as many: one-off set-up
        such as ``self.apply(self._init_weights)``. Counted on the miss path only (the hit path is untouched); per
        code object, from the last capture or ``reset()``. A count lost to a race between
        threads only moves the capture by a call.
        """
        state = self.state
        if state.eager or state.limit_reached:
            return False
        caller = None
        if _cold_depth() > 0:
            from autograph.runtime.outside import library_caller
            caller = library_caller(sys._getframe(1), settings)
        if state.captures and caller is None:
            return False  # compiled code that misses outside a cold callback recompiles at once
        state.warmup_calls += 1
        threshold = settings.compile_threshold
        if state.warmup_calls >= (threshold * COLD_NESTED_FACTOR if caller else threshold):
            return False
        st = self.stats
        st.ran_eagerly(deferred_reason(threshold, caller) if caller else cold_reason(threshold))
        st.cold_calls += 1
        st.compile_threshold = threshold
        return True

    def _binds(self, args: tuple, kwargs: dict) -> bool:
        """Whether the call binds to the function's parameters (checked before capturing)."""
        fn = self.fn
        defaults = (fn.__defaults__, fn.__kwdefaults__)  # replaced defaults bind differently
        cached = self.__dict__.get("_binder")
        if cached is None or cached[0] is not defaults[0] or cached[1] is not defaults[1]:
            from autograph.guards.check import GuardSet

            cached = self._binder = (*defaults, GuardSet(fn, []).index_fn)
        binder = cached[2]
        try:
            binder(*args, **kwargs)
        except TypeError:
            return False
        return True

    def _decide(self, args: tuple, kwargs: dict, settings: Settings) -> Callable[..., Any]:
        """Under the lock: return what to run for this missed call (capturing if allowed)."""
        state, st = self.state, self.stats
        st.misses += 1
        if state.eager or state.limit_reached:
            st.ran_eagerly(st.eager_reason or state.eager_reason or "marked eager")
            return self.fn
        if settings.mode == "run-only":
            st.ran_eagerly(EAGER_RUN_ONLY)
            return self.fn
        if not self.explicit and not self.entries and not holds_tensor(self.fn, args, kwargs):
            # a selected package's utility code (version checks, loggers, config helpers):
            # nothing to compile, as TorchDynamo skips frames without tensors
            st.ran_eagerly(EAGER_NO_TENSOR)
            self._tensor_free_calls += 1
            if self._tensor_free_calls >= TENSOR_FREE_CALLS_BEFORE_EAGER:
                _mark_eager(state, f"called {TENSOR_FREE_CALLS_BEFORE_EAGER} times without tensors: "
                                   "nothing to compile")
                st.eager_reason = state.eager_reason
            return self.fn
        entries = self.entries  # one snapshot: autograph.reset() may empty the table meanwhile
        failed = entries[-1].guards.first_failure(*args, **kwargs) if entries else None
        if failed is not None and state.captures >= settings.recompile_limit:
            state.limit_reached = True
            st.eager_reason = (f"recompile limit ({settings.recompile_limit}) reached; "
                               f"last failing guard: {failed.src}")
            self._warn_recompile_limit(failed, settings, args, kwargs)
            st.ran_eagerly(st.eager_reason)
            return self.fn
        t0 = time.perf_counter()
        try:
            capture = _capture_provider()
            from autograph.explain.progress import progress  # stdlib only; a no-op off a TTY
            with capturing(), progress(f"capturing {self.fn.__qualname__}"):
                from autograph.runtime.dynamic import capture_with_plan  # dynamic shapes decision
                result = capture_with_plan(capture, self, args, kwargs, settings, failed, self._wrap_nested,
                                           entries=entries)
        except Exception as exc:  # noqa: BLE001 - every capture failure is handled by on_error
            return self._capture_failed(exc, settings, time.perf_counter() - t0)
        st.capture_seconds += getattr(result, "capture_seconds", time.perf_counter() - t0)
        st.compile_seconds += getattr(result, "compile_seconds", 0.0)
        run_eagerly = getattr(result, "run_eagerly", None)  # capture found the function must run as Python
        if getattr(result, "no_tensor_work", False) or run_eagerly:
            reason = run_eagerly or "no tensor work: nothing worth compiling"
            _mark_eager(state, reason)
            st.eager_reason = reason
            st.ran_eagerly(reason)
            return self.fn
        st.backend = getattr(result, "backend", None) or st.backend
        if failed is not None:
            st.recompiles.append(_stats.Recompile(failed.src, failed.describe()))
            recompiles_log.info("recompiling %s (%s): guard failed: %s",
                                self.fn.__qualname__, _where(self.fn), failed.src)
        for b in getattr(result, "breaks", ()) or ():
            st.breaks += 1
            st.break_reasons.append(getattr(b, "reason", str(b)))
            st.break_kinds.append(getattr(b, "kind", "unsupported"))
        entry = CacheEntry.from_result(result)
        if settings.verify:
            from autograph.runtime.verify import attach  # the first calls also run the original on copies
            attach(self, entry, settings.verify_calls)
        self._add(entry)
        state.captures += 1
        state.warmup_calls = 0
        st.captures += 1
        return entry.fn

    def _warn_recompile_limit(self, failed: Any, settings: Settings, args: tuple, kwargs: dict) -> None:
        """One warning (at the function's own file:line) naming the guard, with advice for its kind."""
        from autograph.runtime.advice import recompile_advice

        code = own_code(self.fn)
        advice = recompile_advice(failed, self.fn, args, kwargs, settings)
        message = (f"{self.fn.__qualname__} ({_where(self.fn)}) was recompiled {settings.recompile_limit} times "
                   f"(recompile_limit); it now runs eagerly when no cached version matches. Last failing guard: "
                   f"{failed.src} ({failed.describe()}). What to do: {advice}")
        recompiles_log.info("%s", message)  # the recompiles channel, when on; the warning is the one print
        warnings.warn_explicit(message, RecompileLimitWarning, code.co_filename, code.co_firstlineno,
                               module=self.fn.__module__ or code.co_filename)

    def _wrap_nested(self, fn: types.FunctionType) -> "Shim | types.FunctionType":
        """Shim of a resume function or a callee that broke: same per-compile overrides as ours.
        A callee outside the selection (torch, the standard library, unselected packages) is
        called as it is: one call in Python, never compiled on its own (``runtime/outside.py``)."""
        if not fn.__name__.startswith("__resume_at_"):
            from autograph.capture.families.compile_markers import disabled_marker
            from autograph.runtime.outside import outside_selection
            if disabled_marker(fn) is not None or \
                    outside_selection(fn, _with_overrides(_settings_provider(), self.overrides), beside=self.fn):
                return fn
        shim = shim_for(fn, self.overrides)
        shim.explicit = True
        st = shim.stats
        if fn.__name__.startswith("__resume_at_") and st.filename != self.stats.filename and not st.calls:
            # a resume function of a decorator's wrapper (``@torch.no_grad()``'s code lives in
            # torch): its row belongs to the decorated function, as the wrapper's does
            st.qualname = f"{self.stats.qualname.split('.__resume_at_')[0]}.{fn.__name__}"
            st.filename, st.lineno = self.stats.filename, self.stats.lineno
        return shim

    def _install_eager_entry(self) -> None:
        """Replace the cache by one guard-free entry running the original (counted as eager calls)."""
        from autograph.guards.check import GuardSet

        entry = CacheEntry(None, GuardSet(self.fn, []), self.fn, eager=True)
        entry.native_plan = _native.runtime_plan(entry.guards)
        self.stats.add_entry(entry)
        self._table = ((entry,), (entry.native_plan,), (self.fn,))

    def _capture_failed(self, exc: Exception, settings: Settings, seconds: float) -> Callable[..., Any]:
        from autograph.errors import CaptureError

        st = self.stats
        st.capture_seconds += seconds
        if not isinstance(exc, CaptureError):
            code = self.fn.__code__
            hint = _IMPORT_HINT if isinstance(exc, ImportError) else ""
            wrapped = CaptureError(f"internal error while capturing {self.fn.__qualname__}: "
                                   f"{type(exc).__name__}: {exc}{hint}", code.co_filename, code.co_firstlineno)
            wrapped.__cause__ = exc
            exc = wrapped
        if settings.on_error == "raise":
            raise exc
        st.errors.append(str(exc))
        reason = f"capture failed: {exc}"
        _mark_eager(self.state, reason)
        st.eager_reason = reason
        st.ran_eagerly(reason)
        breaks_log.warning("%s could not be compiled and runs eagerly: %s", self.fn.__qualname__, exc)
        return self.fn

    def _add(self, entry: CacheEntry) -> None:
        entry.native_plan = _native.runtime_plan(entry.guards)
        entries, plans, fns = self._table
        self._table = (entries + (entry,), plans + (entry.native_plan,), fns + (_runner(entry.fn),))
        self.stats.add_entry(entry)
        for listener in list(_entry_listeners):
            try:
                listener(self, entry)
            except Exception:  # noqa: BLE001 - explaining must never break a run
                log.exception("autograph: entry listener %r failed", listener)

    def _replace_entry_fn(self, entry: CacheEntry, fn: Callable[..., Any]) -> None:
        """Run ``fn`` for calls ``entry`` matches (verify mode: the checked callable, or the
        original after a mismatch)."""
        with self.state.lock:
            entry.fn = fn
            entries, plans, fns = self._table
            if entry in entries:
                index = entries.index(entry)
                self._table = (entries, plans, fns[:index] + (_runner(fn),) + fns[index + 1:])

    def _rebuild_plans(self) -> None:
        """Plans for the path now in use (``extension.use_c_path`` flipped)."""
        with self.state.lock:
            entries, _, fns = self._table
            for entry in entries:
                entry.native_plan = _native.runtime_plan(entry.guards)
            self._table = (entries, tuple(e.native_plan for e in entries), fns)

    # -- housekeeping ---------------------------------------------------------
    def reset(self) -> None:
        self._table = ((), (), ())
        self._fast = True

    def __repr__(self) -> str:
        n = len(self.entries)
        return f"<autograph compiled function {self.fn.__qualname__}, {n} cache entr{'y' if n == 1 else 'ies'}>"


_native_module = _extension.load()
_native_nesting = getattr(_native_module, "nesting", None)
if _native_nesting is not None:
    _native_nesting(0, MAX_NESTING)  # the C hit path's limit is this one
if TYPE_CHECKING:
    _HitPath = _PyHitPath
else:
    _HitPath = _native_module.HitPath if _native_module is not None else _PyHitPath


# autograph's frames between a caller and the original: Dynamo must never compile them
_dynamo.skip_frames(_ShimLogic._slow, _ShimLogic._plan, _ShimLogic.wrapt_wrapper, _PyHitPath.__call__)


class Shim(_ShimLogic, _HitPath):
    """Callable standing in for one original function; owns its cache entries.

    Calling it runs the C hit path (``autograph._native.HitPath``) when the
    extension is built, else ``_PyHitPath``; both fall back to ``_slow``.
    """


class PyShim(_ShimLogic, _PyHitPath):
    """A shim whose hit path is always Python (tests, benchmarks)."""


TENSOR_FREE_CALLS_BEFORE_EAGER = 3
_TENSOR_HOLDERS: tuple = ()


def holds_tensor(fn: types.FunctionType, args: tuple, kwargs: dict) -> bool:
    """Whether the call can involve tensors: a tensor or module among the arguments (and one
    level inside containers and plain objects), or in the globals and cells the code reads."""
    global _TENSOR_HOLDERS
    if not _TENSOR_HOLDERS:
        import torch
        _TENSOR_HOLDERS = (torch.Tensor, torch.nn.Module)

    def has(value: Any, depth: int) -> bool:  # runs no user code: exact types, raw __dict__
        cls = type(value)
        if issubclass(cls, _TENSOR_HOLDERS):
            return True
        if depth == 0 or cls in (str, bytes, int, float, bool, type(None)):
            return False
        if cls in (list, tuple, set, frozenset):
            return any(has(v, depth - 1) for v in list(value)[:64])
        if cls is dict:
            return any(has(v, depth - 1) for v in list(value.values())[:64])
        if isinstance(value, (type, types.ModuleType, types.FunctionType)):
            return False
        try:
            d = object.__getattribute__(value, "__dict__")
        except Exception:  # noqa: BLE001 - no instance dict
            return False
        return type(d) is dict and any(has(v, depth - 1) for v in list(d.values())[:64])

    if any(has(a, 2) for a in args) or any(has(v, 2) for v in kwargs.values()):
        return True
    g = fn.__globals__
    if any(has(g[name], 1) for name in fn.__code__.co_names if name in g):
        return True
    return any(has(cell.cell_contents, 1) for cell in fn.__closure__ or () if _cell_filled(cell))


def _cell_filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - reading an empty cell raises ValueError
    except ValueError:
        return False
    return True


def _mark_eager(state: Any, reason: str) -> None:
    """Run a code object's original from now on, in every shim of it, at hit-path cost."""
    state.eager = True
    state.eager_reason = reason
    for shim in list(_all_shims):
        if shim.state is state:
            shim._install_eager_entry()


_all_shims: "weakref.WeakSet[Shim]" = weakref.WeakSet()
_entry_listeners: list[Callable[[Any, CacheEntry], None]] = []


def all_shims() -> list:
    """Every live shim (for ``autograph.explain``)."""
    return list(_all_shims)


def add_entry_listener(callback: Callable[[Any, CacheEntry], None]) -> None:
    """Call ``callback(shim, entry)`` after each new cache entry (on the miss path only)."""
    if callback not in _entry_listeners:
        _entry_listeners.append(callback)


def remove_entry_listener(callback: Callable[[Any, CacheEntry], None]) -> None:
    if callback in _entry_listeners:
        _entry_listeners.remove(callback)
_shim_lock = threading.RLock()  # re-entrant: creating a shim may import a module the hook instruments
_SHIM_ATTR = "__autograph_shim__"


_OVERRIDE_SHIMS_ATTR = "__autograph_override_shims__"


def shim_for(fn: types.FunctionType, overrides: dict | None = None) -> Shim:
    """The one shim of ``fn`` (created on first use). The import hook calls this.

    Kept in the function's ``__dict__`` so it lives exactly as long as the function.
    With ``overrides`` (per-compile settings such as ``backend``), one shim per
    distinct set of overrides, so resume functions of ``compile(f, backend=...)``
    keep compiling with that backend.
    """
    if overrides:
        key = tuple(sorted(overrides.items()))
        with _shim_lock:
            shims = fn.__dict__.setdefault(_OVERRIDE_SHIMS_ATTR, {})
            shim = shims.get(key)
            if shim is None:
                shim = shims[key] = Shim(fn, overrides)
        return shim
    shim = fn.__dict__.get(_SHIM_ATTR)
    if shim is None:
        with _shim_lock:
            shim = fn.__dict__.get(_SHIM_ATTR)
            if shim is None:
                shim = Shim(fn)
                fn.__dict__[_SHIM_ATTR] = shim
    return shim


def reset_all() -> None:
    """Drop every cache entry, code state and statistic (``autograph.reset()``)."""
    from autograph.runtime.cache import reset_code_states

    for shim in list(_all_shims):
        shim.reset()
    reset_code_states()
    from autograph.runtime.dynamic import reset as _reset_dynamic
    _reset_dynamic()  # forget which dimensions became dynamic
    _stats.reset_stats()
    for shim in list(_all_shims):
        shim.stats = _stats.stats_for(shim.state.code, shim.fn.__qualname__)
