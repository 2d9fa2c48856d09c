"""Readable text shared by the guard kinds: dimensions, dtypes, class names, object identities."""
from __future__ import annotations

import types
from typing import Any, Sequence


def dims(values: Sequence, unknown: str = "?") -> str:
    """``(2, 3)``, ``(4,)``; ``unknown`` for a dynamic (None) entry."""
    inner = ", ".join(unknown if v is None else str(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def type_name(cls: type) -> str:
    mod = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if mod == "builtins" else f"{mod}.{cls.__qualname__}"


def short_repr(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type)):
        return f"{type(obj).__name__} {getattr(obj, '__qualname__', obj)}"
    return f"{type(obj).__name__} object"


def identity_words(obj: Any) -> str:
    """What an identity guard pins, in words: ``the module torch.nn.functional``."""
    if isinstance(obj, types.ModuleType):
        return f"the module {obj.__name__}"
    if isinstance(obj, type):
        return f"the class {type_name(obj)}"
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "?")
        mod = getattr(obj, "__module__", None)
        kind = "function" if isinstance(obj, types.FunctionType) else (
            "method" if isinstance(obj, types.MethodType) else "builtin function")
        return f"the {kind} {mod}.{name}" if mod and mod != "builtins" else f"the {kind} {name}"
    return f"the {type(obj).__name__} object"
