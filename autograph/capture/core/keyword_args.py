"""Keyword arguments whose names are not plain identifiers (``from``: ``t.random_(from=2)``).

Python accepts any string as a keyword through ``**{"from": 2}``, but neither FX (which prints
``name = value``) nor the Python text capture generates may spell it as ``from=2``. FX nodes with
such a keyword call a :class:`KeywordCall` target that receives the keywords as one dict, and
generated Python passes them with ``**{...}``.
"""
from __future__ import annotations

import keyword
from typing import Any


def plain_keyword(name: str) -> bool:
    """Whether ``name=value`` is valid Python for this keyword name."""
    return name.isidentifier() and not keyword.iskeyword(name)


def keyword_text(name: str, value_text: str) -> str:
    """The text passing ``value_text`` as keyword ``name`` in a generated call."""
    return f"{name}={value_text}" if plain_keyword(name) else f"**{{{name!r}: {value_text}}}"


class KeywordCall:
    """An FX ``call_function`` target calling ``target`` (a callable, or the method of that name
    on the first argument) with the keywords given as a dict in the last argument."""

    def __init__(self, kind: str, target: Any):
        self.kind = kind
        self.target = target
        name = target if isinstance(target, str) else getattr(target, "__name__", "call")
        self.__name__ = self.__qualname__ = f"{name}_with_keywords"

    def __call__(self, *args: Any) -> Any:
        *positional, kwargs = args
        if self.kind == "call_method":
            return getattr(positional[0], self.target)(*positional[1:], **kwargs)
        return self.target(*positional, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.__name__}>"


def printable_call(kind: str, target: Any, args: tuple, kwargs: dict) -> tuple[str, Any, tuple, dict]:
    """``(kind, target, args, kwargs)`` of an FX node that FX's code generation can print."""
    if all(plain_keyword(k) for k in kwargs):
        return kind, target, args, kwargs
    return "call_function", KeywordCall(kind, target), (*args, dict(kwargs)), {}
