"""``torch.vmap(f)(*tensors)`` as one graph node calling the real transform.

torch.func transforms keep their interpreter state (vmap levels) in C, so autograph does not
interpret them. When ``f`` does not depend on the call it was made in -- a torch function
(``torch.sin``, ``torch.Tensor.acos_``), a module-level function, or a function made in the compiled code without
closure cells, defaults or attributes -- the wrapper ``torch.vmap(f, in_dims, ...)`` is made
for real at capture time and each call of it on tensors is one graph node. The fake tensor run
of that node records its effects like any torch call (``capture/effects.py``: ``acos_`` under
vmap writes its input) and a result that *is* an argument stays that argument, so
``torch.vmap(torch.Tensor.acos_)(x) is x`` holds as in Python. Any other ``f`` (a closure over
this call's values, a bound method) stays a graph break.
"""
from __future__ import annotations

import types
from typing import Any, Callable

import torch

from autograph.capture.breaks import Unsupported
from autograph.capture.values import builtins as vb
from autograph.capture.values.base import Value

_VMAPS = {torch.vmap, torch.func.vmap}


def _call_independent_function(value: Value) -> Callable | None:
    """The real function ``value`` stands for, when calling it cannot depend on this call."""
    from autograph.capture.values.functions import NestedFunctionValue, UserFunctionValue
    if isinstance(value, vb.TorchFunctionValue):
        return value.fn
    if type(value) is UserFunctionValue and value.source is not None and value.fn.__closure__ is None:
        return value.real_value()  # a module-level function read through a source (identity guarded)
    if isinstance(value, NestedFunctionValue) and not value.closure and value.defaults is None \
            and value.kwdefaults is None and not value.attrs and not value.code.co_freevars:
        return types.FunctionType(value.code, value.fn_globals, value.code.co_name)
    return None


class GraphTarget:
    """The node target calling the real wrapper. Not the wrapper itself: it carries its function's
    ``__module__``/``__name__`` (``functools.wraps``), and FX would print ``torch.sin`` for it."""

    def __init__(self, wrapper: Callable, name: str):
        self.wrapper = wrapper
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.wrapper(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.__name__}>"


class TransformedFunctionValue(Value):
    """``torch.vmap(f, ...)``'s wrapper, made at capture time from call-independent parts."""

    def __init__(self, wrapper: Callable, what: str):
        self.wrapper = wrapper
        self.what = what

    def describe(self) -> str:
        return f"torch.vmap({self.what})"

    def python_type(self) -> type:
        return type(self.wrapper)

    def call(self, tx, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if not any(a.is_tensor() for a in list(args) + list(kwargs.values())):
            raise Unsupported(f"{self.describe()} called without tensor arguments")
        name = "vmap_" + getattr(self.wrapper, "__name__", "fn")
        return tx.graph.call("call_function", GraphTarget(self.wrapper, name), tuple(args), kwargs)

    def reconstruct(self, cg) -> str:
        return cg.const(self.wrapper)


def _vmap(tx, args: list[Value], kwargs: dict[str, Value]) -> Any:
    if not args or not vb._all_constant(args[1:], kwargs):
        return NotImplemented
    fn = _call_independent_function(args[0])
    if fn is None:
        return NotImplemented
    const_args = [a.as_python_constant() for a in args[1:]]
    const_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
    wrapper = torch.vmap(fn, *const_args, **const_kwargs)
    return TransformedFunctionValue(wrapper, args[0].describe())


def install() -> None:
    for fn in _VMAPS:
        vb.TORCH_CALL_OVERRIDES[fn] = _vmap


install()
