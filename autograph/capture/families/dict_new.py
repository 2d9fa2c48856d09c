"""``dict.__new__(cls, ...)``: an empty dict of ``cls`` (``super().__new__(cls)`` in a dict
subclass's own ``__new__`` reaches it too).

``dict.__new__`` ignores its other arguments (``dict.__init__`` fills the dict). For ``dict``
itself the result is an empty dict value; for a user subclass capture models, an instance made
during capture with an empty table (families/user_objects.py).
"""
from __future__ import annotations

import collections

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported

# dict subclasses of the standard library, each with a model of its own
_LIBRARY_KINDS = (collections.OrderedDict, collections.defaultdict, collections.Counter)


def _dict_new(tx, *args: Value, **kwargs: Value) -> Value:
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.user_objects import UserObjectValue, _class_of, supported_class
    cls = _class_of(args[0]) if args else None
    if cls is dict:
        return DictValue({})
    if isinstance(cls, type) and issubclass(cls, dict) and cls.__module__ != "builtins" \
            and cls not in _LIBRARY_KINDS and supported_class(cls) is None:
        return UserObjectValue(cls)
    raise Unsupported("dict.__new__() with these arguments", kind="unsupported-call")


def install() -> None:
    registry.register_builtin(dict.__new__, _dict_new)
