"""User functions (inlined), nested functions made during capture, bound methods, cells."""
from __future__ import annotations

import inspect
import types
from typing import Any

from autograph.capture.breaks import Unsupported
from autograph.capture.values.base import Value
from autograph.capture.values.constants import ConstantValue


class UserFunctionValue(Value):
    """A real Python function; calls are inlined into the current graph."""

    def __init__(self, fn: types.FunctionType, source=None):
        self.fn = fn
        self.source = source

    def describe(self):
        return f"function {self.fn.__qualname__}"

    def python_type(self):
        return types.FunctionType

    def real_value(self):
        return self.fn

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__", "__module__", "__doc__"):
            return ConstantValue(getattr(self.fn, name))
        if name in ("__code__", "__defaults__", "__kwdefaults__", "__wrapped__", "__globals__", "__closure__"):
            from autograph.guards.sources import AttrSource
            src = AttrSource(self.source, name) if self.source is not None else None
            return tx.wrap(getattr(self.fn, name, None), src, pin=lambda f=self.fn, n=name: getattr(f, n, None),
                           what=f"{self.fn.__qualname__}.{name}")
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        return tx.inline_function(self, args, kwargs)

    # what inlining needs
    @property
    def code(self) -> types.CodeType:
        return self.fn.__code__

    @property
    def fn_globals(self) -> dict:
        return self.fn.__globals__

    def signature_fn(self) -> types.FunctionType:
        return self.fn

    def closure_cells(self, tx) -> list[Value]:
        from autograph.guards.sources import AttrSource, ClosureSource, ItemSource
        cells = []
        for i, (name, cell) in enumerate(zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ())):
            if self.fn is tx.root_fn:
                src = ClosureSource(name)
            elif self.source is not None:
                src = AttrSource(ItemSource(AttrSource(self.source, "__closure__"), i), "cell_contents")
            else:
                src = None
            cells.append(RealCellValue(cell, src, name))
        return cells

    def default_value(self, tx, name: str, real: Any, index_source) -> Value:
        return tx.wrap(real, index_source)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.const(self.fn)


class NestedFunctionValue(Value):
    """A function object created by MAKE_FUNCTION during capture."""

    def __init__(self, code: types.CodeType, fn_globals: dict, defaults: Value | None,
                 kwdefaults: Value | None, closure: list[Value]):
        self.code = code
        self.fn_globals = fn_globals
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.closure = closure

    def describe(self):
        return f"function {self.code.co_qualname}"

    def python_type(self):
        return types.FunctionType

    def call(self, tx, args, kwargs):
        return tx.inline_function(self, args, kwargs)

    def signature_fn(self) -> types.FunctionType:
        defaults = None
        if self.defaults is not None:
            defaults = tuple(range(len(self.defaults.items)))  # placeholders: real ones are Values
        kwdefaults = None
        if self.kwdefaults is not None:
            kwdefaults = {k: k for k in self.kwdefaults.items}
        closure = tuple(types.CellType(None) for _ in self.code.co_freevars)
        fn = types.FunctionType(self.code, {}, self.code.co_name, defaults, closure or None)
        fn.__kwdefaults__ = kwdefaults
        return fn

    def closure_cells(self, tx) -> list[Value]:
        return list(self.closure)

    def default_value(self, tx, name, real, index_source) -> Value:
        code = self.code
        positional = code.co_varnames[:code.co_argcount]
        if name in positional and self.defaults is not None:
            first = code.co_argcount - len(self.defaults.items)
            return self.defaults.items[positional.index(name) - first]
        return self.kwdefaults.items[name]

    def reconstruct(self, cg):
        raise Unsupported("a function defined during capture is live at a graph break")


class BoundMethodValue(Value):
    def __init__(self, func: Value, self_value: Value, source=None):
        self.func = func
        self.self_value = self_value
        self.source = source

    def describe(self):
        return f"bound {self.func.describe()}"

    def python_type(self):
        return types.MethodType

    def call(self, tx, args, kwargs):
        return self.func.call(tx, [self.self_value, *args], kwargs)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return f"{cg.const(types.MethodType)}({cg.reconstruct(self.func)}, {cg.reconstruct(self.self_value)})"


class CellValue(Value):
    """A cell created during capture (a cellvar of an interpreted frame)."""

    mutable = True
    EMPTY = object()

    def __init__(self, contents: Value | Any = EMPTY):
        self.contents = contents

    def load(self, tx, name: str) -> Value:
        if self.contents is CellValue.EMPTY:
            raise Unsupported(f"NameError: free variable {name!r} referenced before assignment", generic=True)
        return self.contents

    def store(self, tx, value: Value) -> None:
        self.contents = value

    def reconstruct(self, cg):
        raise Unsupported("a closure cell made during capture is live at a graph break")


class RealCellValue(Value):
    """A real closure cell of a function defined outside the capture."""

    def __init__(self, cell: types.CellType, source, name: str):
        self.cell = cell
        self.source = source
        self.name = name

    def load(self, tx, name: str) -> Value:
        try:
            contents = self.cell.cell_contents
        except ValueError:
            raise Unsupported(f"NameError: free variable {name!r} referenced before assignment", generic=True)
        from autograph.guards.sources import AttrSource, ObjectSource
        return tx.wrap(contents, self.source, pin=AttrSource(ObjectSource(self.cell, f"cell({name})"), "cell_contents"))

    def store(self, tx, value: Value) -> None:
        raise Unsupported(f"assignment to closure variable {self.name!r} (nonlocal) — a side effect")
