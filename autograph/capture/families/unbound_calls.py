"""``dict.keys(d)``, ``dict.clear(d)``, ``list.append(l, x)``: a C method read from a builtin
class and called with a value capture models as its first argument.

When the value's own (static, C) type resolves the method's name to this very method, Python
runs exactly what ``obj.name(...)`` runs: instances of builtin types have no ``__dict__`` that
could shadow it. So the call is the value's own method call, with its live views, in-place
changes and replays, instead of a fold on a copy (which must refuse anything that changes the
argument or makes a new object)."""
from __future__ import annotations

from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def call_as_bound(tx, method: Any, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """``args[0].<name>(*args[1:], **kwargs)`` when that is what ``method(*args)`` runs, else NotImplemented."""
    if not args or not getattr(args[0], "mutable", False):
        return NotImplemented
    name = getattr(method, "__name__", None)
    try:
        cls = args[0].python_type()
    except Unsupported:
        return NotImplemented
    if not isinstance(cls, type) or cls.__flags__ & _HEAP_TYPE or name is None:
        return NotImplemented
    if getattr(cls, name, None) is not method:
        return NotImplemented
    return args[0].call_method(tx, name, list(args[1:]), kwargs)
