"""Regular expressions on constant text: ``re.compile``/``re.search``/... and their patterns.

A compiled pattern is an immutable C object and matching reads nothing but its arguments, so a
call on constant strings is folded by running the real ``re`` function on them (unittest's
``assertRaisesRegex``/``assertWarnsRegex`` compile and search this way). A pattern reached
through a source is guarded by identity (``re`` caches compiled patterns: the same text gives the
same object). A match object made during the call is immutable too, but Python makes a new one on
every call: it serves truth tests and reads during capture, and breaks if it outlives the graph.
"""
from __future__ import annotations

import re
import types

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.families.objects import ObjectValue

# module functions whose result depends on their (constant) arguments only
_FOLDED = (re.compile, re.search, re.match, re.fullmatch, re.escape, re.findall, re.split)
_TEXT = (str, bytes, int, re.Pattern, re.RegexFlag)


def _fold_call(fn):
    def handler(tx, args, kwargs):
        from autograph.capture.families.builtins import _all_constant, fold
        if not _all_constant(args, kwargs) or not all(
                isinstance(v.as_python_constant(), _TEXT) for v in [*args, *kwargs.values()]):
            return NotImplemented
        return fold(tx, fn, args, kwargs, f"re.{fn.__name__}")
    return handler


class RegexObjectValue(ObjectValue):
    """A compiled pattern or a match: fixed once made, so its attributes and methods are read off
    the object itself (a bound method is made anew per read: guarding it would always fail)."""

    def getattr(self, tx, name):
        if name.startswith("__"):
            return super().getattr(tx, name)
        try:
            real = getattr(self.obj, name)
        except AttributeError:
            return super().getattr(tx, name)
        if isinstance(real, types.BuiltinMethodType):
            from autograph.capture.families.builtins import PyFunctionValue
            return PyFunctionValue(real, name, pure=True)  # reads only the object and its arguments
        from autograph.capture.families.fresh import fresh_value
        return fresh_value(tx, real, f".{name}")


class MatchValue(RegexObjectValue):
    """A ``re.Match`` a folded call made: true, readable, but made anew by every call."""

    def truth(self, tx):
        return True

    def reconstruct(self, cg):
        raise Unsupported("a re.Match made during the call is live at a graph break (Python makes a new "
                          "one on every call)", kind="fresh-object")


def _wrap_pattern(tx, obj, source):
    tx.guard_id(source, obj)
    return RegexObjectValue(obj, source)


def _wrap_match(tx, obj, source):
    if source is not None:  # passed in: that very object
        tx.guard_id(source, obj)
        return RegexObjectValue(obj, source)
    value = MatchValue(obj, None)
    value.created_step = tx.step  # live at a break: the break moves to the call that made it
    return value


def install() -> None:
    for fn in _FOLDED:
        registry.register_opaque_call(fn, _fold_call(fn))
    registry.register_type_wrapper(re.Pattern, _wrap_pattern)
    registry.register_type_wrapper(re.Match, _wrap_match)
    registry.mark_immutable_type(re.Pattern)
