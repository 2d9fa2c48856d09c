"""The compilers the harness checks: autograph, torch.compile (reference), identity."""
from __future__ import annotations

import importlib.util
import types
from typing import Any, Callable


def autograph_compile_or_reason() -> tuple[Callable[..., Any] | None, str]:
    """``autograph.compile`` when importable, else None and why not."""
    if importlib.util.find_spec("autograph.api") is None:
        return None, "autograph/api.py does not exist yet (autograph.compile is not implemented)"
    try:
        from autograph.api import compile as autograph_compile
    except Exception as error:  # noqa: BLE001
        return None, f"autograph.api does not import: {type(error).__name__}: {error}"
    return autograph_compile, ""


class _Compiler:
    def __init__(self, compile_fn: Callable[[Any], Any], reset: Callable[[], None] | None, name: str):
        self._compile_fn, self._reset, self.name = compile_fn, reset, name

    def __call__(self, fn: types.FunctionType) -> Callable[..., Any]:
        return self._compile_fn(fn)

    def reset(self) -> None:
        if self._reset is not None:
            self._reset()

    def __repr__(self) -> str:
        return f"<compiler {self.name}>"


def autograph_compiler(backend: str = "eager") -> _Compiler:
    """``autograph.compile(fn, backend=backend)``; raises ImportError while it is missing."""
    compile_fn, reason = autograph_compile_or_reason()
    if compile_fn is None:
        raise ImportError(reason)

    def reset() -> None:
        try:
            from autograph.api import reset as autograph_reset
        except ImportError:
            return
        autograph_reset()

    return _Compiler(lambda fn: compile_fn(fn, backend=backend), reset, f"autograph.compile(backend={backend!r})")


def dynamo_compiler(backend: str = "eager") -> _Compiler:
    """``torch.compile(fn, backend=backend)``: the reference the harness is validated with."""
    import torch._dynamo
    return _Compiler(lambda fn: torch.compile(fn, backend=backend), torch._dynamo.reset,
                     f"torch.compile(backend={backend!r})")


def identity_compiler() -> _Compiler:
    """The function itself: must never differ (checks the harness's determinism)."""
    return _Compiler(lambda fn: fn, None, "identity")
