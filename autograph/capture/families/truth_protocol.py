"""CPython's checks on what a Python ``__bool__``/``__len__`` returned, run for real.

``bool(obj)`` calls ``__bool__`` and insists on a ``bool`` (``TypeError: __bool__ should return
bool, returned float``); without ``__bool__`` it calls ``__len__``, whose result goes through
``operator.index``, must be ``>= 0`` and fit a ``Py_ssize_t`` -- the same checks ``len(obj)``
makes. The user's special method is inlined by the caller; this module receives its result and,
when that is a constant, runs the real ``bool()``/``len()`` on a probe object whose method hands
the constant back, so the answer and every error message are CPython's own.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from autograph.capture.core.breaks import Unsupported

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.engine.interpreter import Translator
    from autograph.capture.core.base import Value


class _BoolProbe:
    """An object whose ``__bool__`` returns a given constant (``bool()`` checks it for real)."""

    def __init__(self, result):
        self.result = result

    def __bool__(self):
        return self.result


class _LenProbe:
    """An object whose ``__len__`` returns a given constant (``len()`` checks it for real)."""

    def __init__(self, result):
        self.result = result

    def __len__(self):
        return self.result


def type_name(cls: type) -> str:
    """``Py_TYPE(v)->tp_name``, the name CPython's messages print: a static type outside
    ``builtins`` keeps its module (``numpy.float64``), a class made by ``class`` its bare name."""
    heap_type = bool(cls.__flags__ & (1 << 9))
    if heap_type or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _raise(exc: BaseException):
    raise Unsupported(f"{type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")


def bool_result(tx: "Translator", result: "Value") -> bool:
    """The truth of an object whose ``__bool__`` returned ``result``."""
    if result.is_constant():
        try:
            return bool(_BoolProbe(result.as_python_constant()))
        except (TypeError, ValueError, OverflowError) as exc:
            _raise(exc)
    kind = result.python_type()  # unknown: Unsupported, a break
    if kind is not bool:
        _raise(TypeError(f"__bool__ should return bool, returned {type_name(kind)}"))
    return result.truth(tx)


def len_result(result: "Value") -> int:
    """``len(obj)`` for an object whose ``__len__`` returned ``result``: only a constant is
    checked here (another value, such as a tensor with ``__index__``, is left to Python)."""
    value = result.as_python_constant() if result.is_constant() else None
    if value is None or type(value).__module__ != "builtins":  # its __index__ would run user code
        raise Unsupported(f"__len__ returned {result.describe()}", kind="unsupported-operation")
    try:
        return len(_LenProbe(value))
    except (TypeError, ValueError, OverflowError) as exc:
        _raise(exc)
