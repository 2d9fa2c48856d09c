"""Cache entries and the per-code-object state the shim consults.

An entry pairs a guard check with the callable to run when it passes.  Entries
of a shim live in a tuple that is replaced (never mutated) when an entry is
added, so the hit path reads it without a lock.
"""
from __future__ import annotations

import functools
import threading
import types
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable


class CacheEntry:
    """One compiled version of a function: guards + callable (+ the CaptureResult)."""

    __slots__ = ("result", "guards", "fn", "check", "hits", "native_plan", "eager", "stats", "__weakref__")

    def __init__(self, result: Any, guards: Any, fn: Callable[..., Any], *, eager: bool = False):
        self.result = result            # CaptureResult, or None for a stub entry
        self.guards = guards            # autograph.guards.check.GuardSet
        self.fn = fn                    # behaves as the original function
        self.check: Callable[..., int] = guards.index_fn  # -1 = pass, else failing guard index
        self.hits = 0
        self.native_plan = None         # filled by autograph.guards.native when available
        self.eager = eager              # guard-free entry that runs the original (code marked eager)
        self.stats = None               # FunctionStats counting this entry's hits (it holds us weakly)

    def __del__(self) -> None:
        # the report keeps counting the hits of an entry whose function died
        stats = self.stats
        if stats is not None and self.hits:
            stats.fold_hits(self)

    @classmethod
    def from_result(cls, result: Any) -> "CacheEntry":
        return cls(result, result.guards, result.fn)

    def __repr__(self) -> str:
        return f"<CacheEntry {len(self.guards)} guards, {self.hits} hits>"


@dataclass
class CodeState:
    """What the runtime knows about one code object, shared by every function using it.

    Holds its code weakly: a state is a value of a map keyed weakly on that code, and a strong
    reference would keep every resume function's code (and its normalised instructions) alive
    after ``autograph.reset()``.
    """

    code_ref: Any
    eager: bool = False              # run the original forever (no tensor work, failed capture)
    eager_reason: str | None = None
    limit_reached: bool = False      # recompile limit hit: misses run eagerly
    captures: int = 0                # entries created for this code object (recompile limit)
    warmup_calls: int = 0            # calls counted towards compile_threshold since the last capture
    lock: Any = field(default_factory=threading.RLock, repr=False)

    @property
    def code(self) -> types.CodeType:
        code = self.code_ref()
        if code is None:  # only reachable through a shim, which keeps its function's code alive
            raise ReferenceError("the code object of this state is gone")
        return code


def _forget(data: dict, key: int, _ref: Any) -> None:
    """Weak-reference callback: the object keyed ``key`` died, drop its value."""
    data.pop(key, None)


class IdentityWeakMap:
    """Map keyed by object *identity* whose entries die with the key.

    Code objects compare equal by content (two identical ``forward`` bodies in
    different classes are ``==``), so a WeakKeyDictionary would share state
    between unrelated functions.
    """

    def __init__(self):
        self._data: dict[int, tuple[weakref.ref, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        item = self._data.get(id(key))
        if item is not None and item[0]() is key:
            return item[1]
        return None

    def setdefault(self, key: Any, make: Callable[[], Any]) -> Any:
        with self._lock:
            value = self.get(key)
            if value is None:
                value = make()
                k = id(key)
                data = self._data
                self._data[k] = (weakref.ref(key, functools.partial(_forget, data, k)), value)
            return value

    def values(self) -> list[Any]:
        return [v for r, v in list(self._data.values()) if r() is not None]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


_states = IdentityWeakMap()


def own_code(fn: types.FunctionType) -> types.CodeType:
    """The code object a function's runtime state and statistics are kept under.

    Its own ``__code__``, except for a decorator's wrapper (``functools.wraps`` sets
    ``__wrapped__``: ``@torch.no_grad()``, user decorators): every
    function decorated by the same decorator shares the wrapper's code
    (``_contextlib.py:120``), so the innermost wrapped function's code names it instead. Its
    file:line label the report, and one decorated function's failure or recompile limit does
    not mark the others eager.
    """
    code = fn.__code__
    seen = {id(fn)}
    inner: object = fn
    while True:
        inner = getattr(inner, "__wrapped__", None)
        if inner is None or id(inner) in seen:
            return code
        seen.add(id(inner))
        if isinstance(inner, types.FunctionType):
            code = inner.__code__


def code_state(code: types.CodeType) -> CodeState:
    st = _states.get(code)
    if st is None:
        st = _states.setdefault(code, lambda: CodeState(weakref.ref(code)))
    return st


def reset_code_states() -> None:
    for st in _states.values():
        st.eager = False
        st.eager_reason = None
        st.limit_reached = False
        st.captures = 0
        st.warmup_calls = 0
