"""``obj.name(...)`` called at a graph break the way CPython's LOAD_METHOD + CALL calls it.

LOAD_METHOD does not bind a method found on the type: when the class attribute is a method
descriptor (a function, a builtin ``method_descriptor``) not shadowed by the instance's
``__dict__``, CPython calls the descriptor with the object as its first argument. The error of a
wrong call then names the class that defines the method (``object.__format__() takes exactly one
argument``), where calling the bound method names the instance's class (``range.__format__()``).
The transformed code calls a method left pending at a break through :class:`PythonMethodCall`,
which repeats that lookup at run time, so every error text is CPython's own. The lookup is
``autograph._native.unbound_method`` (CPython's own rule, in C: a training step's
``opt.step()`` after its ``loss.backward()`` break paid about 8,500 instructions a call for
walking the MRO in Python), or :func:`_python_unbound_method` without the extension.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from autograph.guards import extension

_METHOD_DESCRIPTOR = 1 << 17  # Py_TPFLAGS_METHOD_DESCRIPTOR
_OWN_LOOKUP = (type, types.ModuleType, super)  # builtin types whose tp_getattro is not the generic one


def _python_unbound_method(obj: Any, name: str) -> Any:
    """The descriptor LOAD_METHOD would call unbound, or None when it would bind (a class
    attribute None is no method descriptor). Twin of ``autograph._native.unbound_method``,
    which reads the type's ``tp_getattro`` itself where this asks ``__getattribute__``."""
    tp = type(obj)
    # a Python-level __getattribute__ or a C type with its own lookup (type, module, super) binds
    if not isinstance(tp.__getattribute__, types.WrapperDescriptorType) or issubclass(tp, _OWN_LOOKUP):
        return None
    descr, has_getattr, found = None, False, False
    for klass in tp.__mro__:
        own = klass.__dict__
        if "__getattr__" in own and klass is not object:
            has_getattr = True
        if not found and name in own:
            descr, found = own[name], True
    if has_getattr or not found or not type(descr).__flags__ & _METHOD_DESCRIPTOR:
        return None
    try:
        instance_dict = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        instance_dict = None
    if isinstance(instance_dict, dict) and dict.__contains__(instance_dict, name):
        return None
    return descr


def _lookup() -> Callable[[Any, str], Any]:
    native = extension.load()
    return native.unbound_method if native is not None else _python_unbound_method


_unbound_method = _lookup()


class PythonMethodCall:
    """Calls ``obj.<name>(*args, **kwargs)`` as the interpreter's method call does."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __call__(self, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        descr = _unbound_method(obj, self.name)
        if descr is None:
            return getattr(obj, self.name)(*args, **kwargs)
        if not kwargs:  # (a call with a keyword dict, even empty, makes a builtin descriptor bind first)
            return descr(obj, *args)
        return descr(obj, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<method call .{self.name}>"


_CALLS: dict[str, PythonMethodCall] = {}


def method_call(name: str) -> PythonMethodCall:
    """The one caller of method ``name`` (shared, so the transformed code binds one constant)."""
    call = _CALLS.get(name)
    if call is None:
        call = _CALLS[name] = PythonMethodCall(name)
    return call
