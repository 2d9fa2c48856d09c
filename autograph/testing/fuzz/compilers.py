"""The compilers the harness checks: autograph, torch.compile (reference), identity."""
from __future__ import annotations

import types
from typing import Any, Callable


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


def autograph_compiler(backend: str = "eager", threshold: int | None = None) -> _Compiler:
    """``autograph.compile(fn, backend=backend)``, reset with ``autograph.reset``.

    With ``threshold``, ``fn`` is wrapped as the import hook wraps a function of a selected
    package instead: its first ``threshold - 1`` calls run eagerly (``compile_threshold``),
    the state they leave (optimizer moments, grads, generators' positions) is what the first
    captured call starts from, and calls without tensors run eagerly.
    """
    from autograph.api import compile as autograph_compile, reset as autograph_reset

    if threshold is None:
        return _Compiler(lambda fn: autograph_compile(fn, backend=backend), autograph_reset,
                         f"autograph.compile(backend={backend!r})")

    def hooked(fn: types.FunctionType) -> Callable[..., Any]:
        from autograph.runtime.shim import Shim
        return Shim(fn, {"backend": backend, "compile_threshold": threshold})

    return _Compiler(hooked, autograph_reset, f"autograph hook shim(backend={backend!r}, compile_threshold={threshold})")


def dynamo_compiler(backend: str = "eager") -> _Compiler:
    """``torch.compile(fn, backend=backend)``: the reference the harness is validated with."""
    import torch._dynamo
    return _Compiler(lambda fn: torch.compile(fn, backend=backend), torch._dynamo.reset,
                     f"torch.compile(backend={backend!r})")


def identity_compiler() -> _Compiler:
    """The function itself: must never differ (checks the harness's determinism)."""
    return _Compiler(lambda fn: fn, None, "identity")
