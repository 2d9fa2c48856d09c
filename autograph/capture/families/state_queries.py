"""Torch calls without tensor arguments that answer with a plain value read global state.

``torch.autograd._profiler_enabled()``, ``torch.get_default_dtype()``,
``torch.are_deterministic_algorithms_enabled()``: capture runs the real call and the
function's code is specialised on its answer, which the caller can change between calls
(``with torch.autograd.profiler.profile():`` around the compiled call). So the answer is
guarded: the guard makes the same call with the same constant arguments and compares.
"""
from __future__ import annotations

import types
from typing import Any, Callable



def guard_answer(tx: Any, fn: Callable, args: list, kwargs: dict, result: Any, name: str) -> None:
    """Guard that ``fn(*args, **kwargs)`` keeps answering ``result`` (a constant value), when every
    argument is a constant; calls on tensors are answered by the tensor guards instead."""
    if not result.is_constant():
        return
    if isinstance(fn, types.FunctionType):
        from autograph.capture.families.torch_calls import is_state_query
        if not is_state_query(fn):  # the guard calls it on every call: only a query may be
            return
    if not (all(a.is_constant() for a in args) and all(v.is_constant() for v in kwargs.values())):
        return
    reals = tuple(a.as_python_constant() for a in args)
    kw_reals = {k: v.as_python_constant() for k, v in kwargs.items()}
    answer = result.as_python_constant()
    shown = ", ".join([repr(a) for a in reals] + [f"{k}={v!r}" for k, v in kw_reals.items()])

    tx.guards.answer(fn, reals, kw_reals, f"{name}({shown})", answer)
