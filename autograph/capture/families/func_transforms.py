"""``torch.vmap(f)(*tensors)`` as one graph node calling the real transform.

torch.func transforms keep their interpreter state (vmap levels) in C, so autograph does not
interpret them. When ``f`` does not depend on the call it was made in -- a torch function
(``torch.sin``, ``torch.Tensor.acos_``), a module-level function, or a function made in the
compiled code without closure cells, defaults or attributes -- the wrapper ``torch.vmap(f,
in_dims, ...)`` is made for real at capture time and each call of it on tensors is one graph
node. A closure made in the compiled code whose cells hold tensors or constants (and which never
writes them) is one node too: it takes the cell contents as arguments and makes the function
with this call's cells before calling the real transform. The fake tensor run
of that node records its effects like any torch call (``capture/core/effects.py``: ``acos_`` under
vmap writes its input) and a result that *is* an argument stays that argument, so
``torch.vmap(torch.Tensor.acos_)(x) is x`` holds as in Python. Any other ``f`` (a bound
method, a closure writing its cells, a function with defaults) stays a graph break.
"""
from __future__ import annotations

import types
from typing import Any, Callable

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value
from autograph.capture.families.torch_calls import TorchFunctionValue

_VMAPS = {torch.vmap, torch.func.vmap}


_CELL_WRITES = {"STORE_DEREF", "DELETE_DEREF"}


def _closure_function(tx, value: Value) -> tuple[Callable, list[Value]] | None:
    """A function made in the compiled code whose cells hold tensors or constants and which never
    writes them: ``(make, cell_values)``, where ``make(*contents)`` builds the real function with
    fresh cells holding this call's contents (passed to the graph node as arguments)."""
    import dis

    from autograph.capture.families.functions import NestedFunctionValue
    if not isinstance(value, NestedFunctionValue) or value.defaults is not None \
            or value.kwdefaults is not None or value.attrs or not value.closure:
        return None
    code = value.code
    if any(i.opname in _CELL_WRITES and i.argval in code.co_freevars for i in dis.get_instructions(code)):
        return None
    contents = []
    for name, cell in zip(code.co_freevars, value.closure):
        try:
            item = cell.load(tx, name)
        except Unsupported:
            return None
        if not (item.is_tensor() or item.is_constant()):
            return None
        contents.append(item)
    fn_globals = value.fn_globals

    def make(*cell_contents: Any) -> Callable:
        cells = tuple(types.CellType(c) for c in cell_contents)
        return types.FunctionType(code, fn_globals, code.co_name, None, cells)
    return make, contents


def _call_independent_function(value: Value) -> Callable | None:
    """The real function ``value`` stands for, when calling it cannot depend on this call."""
    from autograph.capture.families.functions import NestedFunctionValue, UserFunctionValue
    if isinstance(value, TorchFunctionValue):
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
            raise Unsupported(f"{self.describe()} called without tensor arguments", kind="unsupported-call")
        name = "vmap_" + getattr(self.wrapper, "__name__", "fn")
        return tx.graph.call("call_function", GraphTarget(self.wrapper, name), tuple(args), kwargs)

    def reconstruct(self, cg) -> str:
        return cg.const(self.wrapper)


class ClosureCall:
    """The node target for a closure: builds the function with this call's cell contents (the
    node's first arguments), then calls the real transform of it."""

    def __init__(self, make: Callable, n_cells: int, transform_args: tuple, transform_kwargs: dict, name: str):
        self.make = make
        self.n_cells = n_cells
        self.transform_args = transform_args
        self.transform_kwargs = transform_kwargs
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self.make(*args[:self.n_cells])
        return torch.vmap(fn, *self.transform_args, **self.transform_kwargs)(*args[self.n_cells:], **kwargs)

    def __repr__(self) -> str:
        return f"<{self.__name__}>"


class TransformedClosureValue(Value):
    """``torch.vmap(closure, ...)``: each call is one node taking the cell contents first."""

    def __init__(self, fn_value: Value, make: Callable, cells: list[Value], transform_args: tuple,
                 transform_kwargs: dict):
        self.fn_value = fn_value
        self.make = make
        self.cells = cells
        self.transform_args = transform_args
        self.transform_kwargs = transform_kwargs

    def describe(self) -> str:
        return f"torch.vmap({self.fn_value.describe()})"

    def call(self, tx, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if not any(a.is_tensor() for a in list(args) + list(kwargs.values())):
            raise Unsupported(f"{self.describe()} called without tensor arguments", kind="unsupported-call")
        name = "vmap_" + self.fn_value.code.co_name.strip("<>")
        target = ClosureCall(self.make, len(self.cells), self.transform_args, self.transform_kwargs, name)
        return tx.graph.call("call_function", target, (*self.cells, *args), kwargs)

    def reconstruct(self, cg) -> str:
        return f"{cg.const(torch.vmap)}({', '.join(self._parts(cg))})"

    def _parts(self, cg) -> list[str]:
        parts = [cg.reconstruct(self.fn_value)] + [cg.const(a) for a in self.transform_args]
        return parts + [f"{k}={cg.const(v)}" for k, v in self.transform_kwargs.items()]


def _vmap(tx, args: list[Value], kwargs: dict[str, Value]) -> Any:
    if not args or not vb._all_constant(args[1:], kwargs):
        return NotImplemented
    const_args = tuple(a.as_python_constant() for a in args[1:])
    const_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
    fn = _call_independent_function(args[0])
    if fn is None:
        closure = _closure_function(tx, args[0])
        if closure is None:
            return NotImplemented
        make, cells = closure
        return TransformedClosureValue(args[0], make, cells, const_args, const_kwargs)
    wrapper = torch.vmap(fn, *const_args, **const_kwargs)
    return TransformedFunctionValue(wrapper, args[0].describe())


def install() -> None:
    for fn in _VMAPS:
        registry.register_torch_call(fn, _vmap)
