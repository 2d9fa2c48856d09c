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

    def same_answer() -> bool:
        try:
            now = fn(*reals, **kw_reals)
        except Exception:  # noqa: BLE001 - a call that now fails is a changed answer
            return False
        return type(now) is type(answer) and now == answer

    try:
        key = ("answer", fn, reals, tuple(kw_reals.items()))
        hash(key)
    except TypeError:  # unhashable constant arguments: one guard per call site
        key = ("answer", fn, id(result))
    tx.guards.python(key, f"{name}({shown}) == {answer!r}", same_answer,
                     words=f"{name}({shown}) still answers {answer!r} (global state read when compiled)")
