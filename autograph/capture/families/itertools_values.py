"""``itertools`` iterators made during capture: the real C iterators, run over stand-ins.

``itertools.product([a, b], [1, 2])`` with tensors ``a``, ``b`` is made for real over tokens
(families/tokens.py): the real object decides what to yield and when to pull from its inputs
(lazily, like Python), and calls user functions (``accumulate``, ``starmap``, ``groupby`` keys)
through tokens that run them symbolically. Its items map back to the symbolic values.

At a graph break or return an iterator nobody advanced yet is made again in the transformed
code from the same arguments (a fresh object per call); one already advanced cannot be rebuilt
(its position lives in a C object), so the break moves to where it was made (kind
``live-iterator``) and the iterator is made in Python.
"""
from __future__ import annotations

import functools
import itertools
from typing import Any, Callable

from autograph.capture.core.breaks import CaptureBug, Unsupported, break_kind
from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.families.containers import ListIteratorValue
from autograph.capture.families import tokens
from autograph.capture.families.tokens import from_real, register_made, run_real, to_real
from autograph.capture.core.keyword_args import keyword_text

LIVE_ITERATOR = break_kind(
    "live-iterator", "an itertools/collections iterator that already produced items is still in use where "
    "the graph breaks or returns: its position exists only inside the capture",
    "nothing: the iterator is made in Python at that point (consume it before the break to keep it compiled)")

# the iterator types of itertools (classes; calling one makes an iterator)
ITERTOOLS_CLASSES = frozenset(v for v in vars(itertools).values() if isinstance(v, type))
# these store their iterable arguments as tuples when made (documented by itertools)
_CONSUMING = {itertools.product: None, itertools.combinations: 1, itertools.permutations: 1,
              itertools.combinations_with_replacement: 1}


class RealIteratorValue(ListIteratorValue):
    """A real iterator made during capture whose items are stand-ins (families/tokens.py)."""

    mutable = True

    def __init__(self, tx, real: Any, rebuild: Callable[[Any], str] | None = None):
        super().__init__([], kind=type(real).__name__)
        self.real = real
        # ``rebuild(cg)``: an expression making an equal fresh iterator (valid while not advanced)
        self.rebuild = rebuild
        self.advanced = False
        self.holders: list[RealIteratorValue] = []  # iterators made over this one (they draw from it)
        self.created_step = tx.step
        register_made(tx, real, self)

    def is_advanced(self) -> bool:
        return self.advanced or any(h.is_advanced() for h in self.holders)

    def describe(self):
        module = type(self.real).__module__
        return f"{module + '.' if module != 'builtins' else ''}{type(self.real).__name__} iterator"

    def python_type(self):
        return type(self.real)

    def real_value(self):
        return self.real

    def real_stand_in(self, tx):
        self.advanced = True  # real code will draw from it: capture no longer knows its position
        return self.real

    def truth(self, tx):
        return True

    def next(self, tx):
        self.advanced = True
        try:
            item = next(self.real)
        except StopIteration:
            return None
        except (Unsupported, CaptureBug):
            raise
        except Exception as exc:  # noqa: BLE001 - raised natively where Python raises it
            return run_real(tx, f"next() of {self.describe()}", _reraise, exc)
        return from_real(tx, item)

    def iter_items(self, tx):
        out = []
        while (item := self.next(tx)) is not None:
            out.append(item)
            if len(out) > tokens.MAX_ITEMS:
                raise Unsupported(f"more than {tokens.MAX_ITEMS} items drawn from {self.describe()}", kind="unsupported-operation")
        return out

    def length(self, tx):
        err = TypeError(f"object of type '{type(self.real).__name__}' has no len()")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")

    def reconstruct(self, cg):
        if self.rebuild is not None and not self.is_advanced():
            return cg.shared(self, self.rebuild(cg))
        raise Unsupported(f"{self.describe()} that already produced items is live where the graph ends",
                          kind=LIVE_ITERATOR)


def _reraise(exc):
    raise exc


def call_expr(cg, fn: Any, args: list[Value], kwargs: dict[str, Value]) -> str:
    parts = [cg.reconstruct(a) for a in args] + [keyword_text(k, cg.reconstruct(v)) for k, v in kwargs.items()]
    return f"{cg.const(fn)}({', '.join(parts)})"


def make_iterator(tx, fn: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``fn(*args, **kwargs)`` for an itertools class or ``chain.from_iterable``, made for real."""
    inner = [a for a in [*args, *kwargs.values()] if isinstance(a, RealIteratorValue)]
    real_args = [a.real if isinstance(a, RealIteratorValue) else to_real(tx, a) for a in args]
    real_kwargs = {k: v.real if isinstance(v, RealIteratorValue) else to_real(tx, v) for k, v in kwargs.items()}
    rebuild_args = list(args)
    consumed = _CONSUMING.get(fn, 0)
    if fn in _CONSUMING:  # as the C code does first: tuple() of each iterable argument, in order
        n = len(real_args) if consumed is None else min(consumed, len(real_args))
        for i in range(n):
            real_args[i] = run_real(tx, f"itertools.{fn.__name__}()", tuple, real_args[i])
            rebuild_args[i] = from_real(tx, real_args[i])
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "itertools"))
    real = run_real(tx, f"itertools.{name}()", fn, *real_args, **real_kwargs)
    if fn is itertools.tee:
        out = _tee_values(tx, real, args, kwargs)
        holders = out.items
    else:
        out = RealIteratorValue(tx, real, lambda cg: call_expr(cg, fn, rebuild_args, kwargs))
        holders = [out]
    for it in inner:  # its position is theirs now: it is rebuilt while none of them advanced
        it.holders.extend(holders)
    return out


def _tee_values(tx, members: tuple, args, kwargs) -> Value:
    """``tee(it, n)``: n iterators sharing a buffer; made again together while none advanced."""
    from autograph.capture.families.containers import TupleValue
    values: list[RealIteratorValue] = []

    def member(i):
        def rebuild(cg):
            if any(v.is_advanced() for v in values):
                raise Unsupported("a tee iterator whose sibling already produced items", kind=LIVE_ITERATOR)
            group = cg.shared(values, call_expr(cg, itertools.tee, args, kwargs))
            return f"{group}[{i}]"
        return rebuild
    values.extend(RealIteratorValue(tx, m, member(i)) for i, m in enumerate(members))
    return TupleValue(list(values))


class ItertoolsCallable(Value):
    """``itertools.chain.from_iterable`` and other callables making an itertools iterator."""

    def __init__(self, fn: Any):
        self.fn = fn

    def describe(self):
        return f"itertools.{getattr(self.fn, '__qualname__', self.fn)}"

    def real_value(self):
        return self.fn

    def python_type(self):
        return type(self.fn)

    def call(self, tx, args, kwargs):
        return make_iterator(tx, self.fn, args, kwargs)

    def reconstruct(self, cg):
        return cg.const(self.fn)


def _class_call(tx, cls, args, kwargs):
    if cls in ITERTOOLS_CLASSES:
        return make_iterator(tx, cls, args, kwargs)
    return NotImplemented


def _callable_wrapper(tx, obj, source):
    owner = getattr(obj, "__self__", None)  # (a bound method's owner may be unhashable: a dict's .items)
    if obj is itertools.tee or (isinstance(owner, type) and owner in ITERTOOLS_CLASSES and not isinstance(obj, type)):
        tx.guards.id_(source, obj)
        return ItertoolsCallable(obj)
    return None


def _from_real(tx, obj):
    """Iterators made by real itertools code itself (``groupby``'s groups): not rebuildable."""
    if type(obj) in _MADE_TYPES:
        return RealIteratorValue(tx, obj)
    return None


_MADE_TYPES = {type(next(itertools.groupby([1]))[1]), type(itertools.tee([])[0])} | set(ITERTOOLS_CLASSES)


def _lazy_over_real_iterators(builtin: type, eager: Callable) -> Callable:
    """``zip``/``map``/``filter``/``enumerate`` over an itertools iterator: made for real, as lazy
    as Python (``zip(itertools.count(), xs)`` draws only what ``xs`` allows); otherwise ``eager``."""
    def handler(tx, *args, **kwargs):
        if any(isinstance(a, RealIteratorValue) for a in [*args, *kwargs.values()]):
            return make_iterator(tx, builtin, list(args), kwargs)
        return eager(tx, *args, **kwargs)
    return handler


def install() -> None:
    for builtin in (zip, map, filter, enumerate):  # wraps the core handlers (families/builtins.py)
        registry.wrap_builtin(builtin, functools.partial(_lazy_over_real_iterators, builtin))
    registry.add_class_call_hook(_class_call)
    registry.add_callable_wrapper(_callable_wrapper)
    registry.add_from_real_hook(_from_real)
