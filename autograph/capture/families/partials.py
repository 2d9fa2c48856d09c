"""``functools.partial`` objects made inside compiled code, modelled symbolically.

``functools.partial(f, *args, **kw)`` during capture makes a :class:`MadePartialValue`
holding the symbolic ``func``/``args``/``keywords``, with CPython's semantics: a partial of
a plain partial is flattened into one, a call passes the stored arguments first and the
stored keywords updated by the call's, attributes resolve like the C type's (read-only
``func``/``args``/``keywords``, an instance ``__dict__``, then the type). Where the real
object is needed (a graph break, a return) it is rebuilt as a fresh partial per call, as
the plain call makes one. Partials that come from outside are ``stdlib.PartialValue``.
"""
from __future__ import annotations

import functools
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import DictValue, TupleValue

_READ_ONLY = ("func", "args", "keywords")


def _rebuild(func: Any, args: tuple, keywords: dict, attrs: dict) -> functools.partial:
    """The real partial for a modelled one (called by the transformed code)."""
    p = functools.partial(func, *args, **keywords)
    p.__dict__.update(attrs)
    return p


class MadePartialValue(Value):
    """A ``functools.partial`` created during capture (a new object on every call)."""

    mutable = True  # an object with identity: never folded, never shared between calls

    def __init__(self, func: Value, args: list[Value], keywords: dict[str, Value]):
        self.func = func
        self.args = TupleValue(list(args))
        self.keywords = DictValue(dict(keywords))
        self.attrs = DictValue({})  # the instance __dict__
        self._keywords_escaped = False

    def describe(self) -> str:
        return f"functools.partial of {self.func.describe()} (made during capture)"

    def python_type(self) -> type:
        return functools.partial

    def call(self, tx, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return tx.call(self.func, [*self.args.items, *args], {**self.keywords.items, **kwargs})

    def getattr(self, tx, name: str) -> Value:
        if name in _READ_ONLY:
            if name == "keywords":
                self._keywords_escaped = True  # the real partial's dict is this very object
            return getattr(self, name)
        if name == "__dict__":
            return self.attrs
        if name in self.attrs.items:
            return self.attrs.items[name]
        if name == "__call__":
            return self
        if name == "__class__":
            return tx.wrap(functools.partial, None, trusted=True)
        klass, raw = mro_lookup(functools.partial, name)  # the type's own attributes, not its metatype's
        if klass is None:  # (partial is a C type and its instance dict is modelled: nothing to guard)
            err = AttributeError(f"'functools.partial' object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")
        if isinstance(raw, (str, type(None))):  # __doc__, __module__
            return ConstantValue(raw)
        return vb.BuiltinMethodValue(self, name)  # a method of the C type, bound to this partial

    def setattr(self, tx, name: str, value: Value) -> None:
        if name in _READ_ONLY or name == "__dict__":
            raise Unsupported(f"AttributeError: readonly attribute {name!r} of functools.partial",
                              generic=True, kind="python-exception")
        self.attrs.items[name] = value

    def reconstruct(self, cg) -> str:
        if self._keywords_escaped:
            raise Unsupported("a partial whose .keywords dict was read cannot be rebuilt at a graph break "
                              "(the rebuilt partial would hold a copy)", kind="cannot-rebuild")
        parts = ", ".join(cg.reconstruct(v) for v in (self.func, self.args, self.keywords, self.attrs))
        return cg.shared(self, f"{cg.const(_rebuild)}({parts})")


def _construct(tx, cls: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``CLASS_CALL_HOOKS`` entry for ``functools.partial(func, *args, **kwargs)``."""
    if cls is not functools.partial:
        return NotImplemented
    if not args:
        raise Unsupported("TypeError: functools.partial needs a callable", generic=True, kind="python-exception")
    func, stored = args[0], list(args[1:])
    if vb._callable(tx, func).as_python_constant() is not True:
        raise Unsupported("TypeError: the first argument of functools.partial must be callable",
                          generic=True, kind="python-exception")
    if isinstance(func, MadePartialValue) and not func.attrs.items:
        # CPython flattens partial(partial(f, a), b) into partial(f, a, b)
        stored = [*func.args.items, *stored]
        kwargs = {**func.keywords.items, **kwargs}
        func = func.func
    return MadePartialValue(func, stored, kwargs)


def install() -> None:
    registry.add_class_call_hook(_construct)
