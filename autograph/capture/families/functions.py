"""User functions (inlined), nested functions made during capture, bound methods, cells."""
from __future__ import annotations

import types
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.exit_swallow import bound_exit_may_swallow
from autograph.guards.sources import AttrSource, ClosureSource, ItemSource, MemberSource, ObjectSource


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

    _DATA = frozenset({"__name__", "__qualname__", "__module__", "__doc__", "__code__", "__defaults__",
                       "__kwdefaults__", "__globals__", "__closure__", "__dict__", "__annotations__"})

    def getattr(self, tx, name):
        """Function attributes (``__name__``, ``__wrapped__``, ones the user set) are read live and
        guarded; a missing one (``hasattr(f, "__wrapped__")``) is guarded to stay missing."""
        from autograph.capture.families import side_effects
        stored = side_effects.pending(tx, self.fn, name, self)
        if stored is not None:  # set earlier in this capture (replayed after the graph)
            return stored
        if name in self.fn.__dict__:  # a function attribute: guarded where it lives
            src = MemberSource(self.source, "__dict__", name) if self.source is not None else None
            pin = MemberSource(ObjectSource(self.fn, self.fn.__qualname__), "__dict__", name)
            return tx.wrap(self.fn.__dict__[name], src, pin=pin)
        if name not in self._DATA:
            if hasattr(type(self.fn), name):  # __get__, __call__, ...: methods of the function type
                return super().getattr(tx, name)
            from autograph.capture.families.absence import attribute_error
            err = AttributeError(f"'function' object has no attribute {name!r}")
            raise attribute_error(tx, self, self.fn, name, err)
        src = AttrSource(self.source, name) if self.source is not None else None
        return tx.wrap(getattr(self.fn, name), src, pin=AttrSource(ObjectSource(self.fn, self.fn.__qualname__), name))

    def setattr(self, tx, name, value):
        """``f.attr = v`` on a function: recorded, replayed after the graph (later reads see ``v``)."""
        if _special_name(name):
            return super().setattr(tx, name, value)
        from autograph.capture.families import side_effects
        side_effects.record_store(tx, self, self.fn, name, value)

    def call(self, tx, args, kwargs):
        from autograph.capture.families.compile_markers import refuse_marked
        from autograph.capture.families.grad_clearing import deferred_zero_grad
        deferred = deferred_zero_grad(tx, self.fn, args, kwargs)  # no break: run after the graph
        if deferred is not None:
            return deferred
        from autograph.capture.families.deferred_calls import deferred_call
        deferred = deferred_call(tx, self.fn, args, kwargs)  # sched.step(): after the graph, in order
        if deferred is not None:
            return deferred
        refuse_marked(self.fn)  # torch._disable_dynamo, torch.compiler.disable: one opaque call
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
        cells = []
        for i, (name, cell) in enumerate(zip(self.fn.__code__.co_freevars, self.fn.__closure__ or ())):
            cell_source = None
            if self.fn is tx.root_fn:
                src = ClosureSource(name)
            elif self.source is not None:
                cell_source = ItemSource(AttrSource(self.source, "__closure__"), i)
                src = AttrSource(cell_source, "cell_contents")
            else:
                src = None
            cells.append(RealCellValue(cell, src, name, cell_source))
        return cells

    def default_value(self, tx, name: str, real: Any, index_source) -> Value:
        return tx.wrap(real, index_source)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.const(self.fn)


class ClosureFunctionValue(UserFunctionValue):
    """A nested function or closure reached through a source (an argument, a resume
    function's live local).

    The function that made it makes a new one on every call, so it is guarded by what
    inlining it relies on -- its code object, its globals and the layout of its defaults --
    not by identity; cell contents and default values are guarded where they are read
    (``g.__closure__[i].cell_contents``, ``g.__defaults__[i]``) and stores into its cells go
    to the cells of the function of the call. Whatever observes the object itself (``is``,
    hashing, a native call at a break) goes through ``real_value``, which adds the identity
    guard (TorchDynamo's ``CLOSURE_MATCH`` guards the code object the same way)."""

    def __init__(self, fn: types.FunctionType, source, guards):
        super().__init__(fn, source)
        self._guards = guards

    def real_value(self):
        self._guards.id_(self.source, self.fn)
        return self.fn


def wrap_closure(tx, fn: types.FunctionType, source) -> ClosureFunctionValue:
    """The value of a closure read through ``source``, with the guards inlining it needs."""
    g = tx.guards
    g.type_(source, fn)
    g.id_(AttrSource(source, "__code__"), fn.__code__)
    g.id_(AttrSource(source, "__globals__"), fn.__globals__)
    for name, real in (("__defaults__", fn.__defaults__), ("__kwdefaults__", fn.__kwdefaults__)):
        src = AttrSource(source, name)
        if real is None:
            g.equals(src, None)
        elif type(real) is tuple:
            g.type_(src, real)
            g.length(src, real)
        else:
            g.type_(src, real)
            g.keys(src, real)
    return ClosureFunctionValue(fn, source, g)


def _special_name(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def make_function(code: types.CodeType, fn_globals: dict, defaults: tuple | None, kwdefaults: dict | None,
                  closure: tuple | None, annotations: dict | None, attrs: dict) -> types.FunctionType:
    """What ``MAKE_FUNCTION`` makes, for the transformed code rebuilding a function made during capture."""
    fn = types.FunctionType(code, fn_globals, None, defaults, closure)
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    if annotations:
        fn.__annotations__ = annotations
    for name, value in attrs.items():
        setattr(fn, name, value)
    return fn


def _in_namespace(name: str) -> bool:
    """Whether ``f.name = v`` goes to the function's ``__dict__`` (not one of its own slots):
    the function type's own entry decides (``getattr(FunctionType, "__name__")`` would be the
    class's name, "function", not the slot's descriptor)."""
    return not isinstance(mro_lookup(types.FunctionType, name)[1],
                          (types.GetSetDescriptorType, types.MemberDescriptorType))


def _is_dict(value: Value) -> bool:
    try:
        return value.python_type() is dict
    except Unsupported:
        return False


class NestedFunctionValue(Value):
    """A function object created by MAKE_FUNCTION during capture.

    Live at a graph break, it is rebuilt in the transformed code from its code object,
    defaults, closure cells (real cells, shared with the frame that continues: see
    ``CellValue``) and the attributes stored on it."""

    def __init__(self, code: types.CodeType, fn_globals: dict, defaults: Value | None,
                 kwdefaults: Value | None, closure: list[Value], annotations: Value | None = None):
        self.code = code
        self.fn_globals = fn_globals
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.closure = closure
        self.annotations = annotations
        self.attrs: dict[str, Value] = {}

    def describe(self):
        return f"function {self.code.co_qualname}"

    def python_type(self):
        return types.FunctionType

    def call(self, tx, args, kwargs):
        return tx.inline_function(self, args, kwargs)

    def getattr(self, tx, name):
        if name in self.attrs:
            return self.attrs[name]
        ns = self.attrs.get("__dict__")
        if ns is not None and _in_namespace(name) and name in ns.items:
            return ns.items[name]
        if name == "__dict__":  # the attributes set on it, as one dict that later stores go to
            return self._namespace()
        if name in ("__name__", "__qualname__"):
            return ConstantValue(self.code.co_name if name == "__name__" else self.code.co_qualname)
        if name == "__module__":
            return ConstantValue(self.fn_globals.get("__name__"))
        if name == "__code__":
            return ConstantValue(self.code)
        if name == "__doc__":
            return ConstantValue(self.signature_fn().__doc__)
        if name in ("__defaults__", "__kwdefaults__"):
            value = self.defaults if name == "__defaults__" else self.kwdefaults
            return value if value is not None else ConstantValue(None)
        if name == "__annotations__":  # made on first read (empty without annotations), then kept
            self.attrs[name] = self._annotations_dict()
            return self.attrs[name]
        if not _special_name(name):  # a fresh function has no other attributes
            exc = AttributeError(f"'function' object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        return super().getattr(tx, name)

    def _namespace(self) -> Value:
        """``f.__dict__``: made on first read from the attributes stored so far; from then on it
        holds every attribute that lives there (``attrs`` keeps the function's own slots)."""
        from autograph.capture.families.containers import DictValue
        ns = self.attrs.get("__dict__")
        if ns is None:
            plain = {k: v for k, v in self.attrs.items() if _in_namespace(k)}
            ns = DictValue(plain)
            self.attrs = {k: v for k, v in self.attrs.items() if not _in_namespace(k)}
            self.attrs["__dict__"] = ns
        return ns

    def _annotations_dict(self) -> Value:
        from autograph.capture.families.containers import DictValue
        flat = list(getattr(self.annotations, "items", None) or []) if self.annotations is not None else []
        if len(flat) % 2 or not all(k.is_constant() for k in flat[::2]):
            raise Unsupported("annotations of a function made during capture", kind="unsupported-operation")
        return DictValue({k.as_python_constant(): v for k, v in zip(flat[::2], flat[1::2])})

    def setattr(self, tx, name, value):
        if _special_name(name) and name not in ("__doc__", "__wrapped__", "__name__", "__qualname__",
                                                "__module__", "__annotations__"):
            return super().setattr(tx, name, value)
        if name == "__annotations__" and not _is_dict(value):  # Python: a dict, or TypeError
            return super().setattr(tx, name, value)
        if name in ("__name__", "__qualname__") and not (value.is_constant()
                                                         and isinstance(value.as_python_constant(), str)):
            return super().setattr(tx, name, value)
        ns = self.attrs.get("__dict__")
        if ns is not None and _in_namespace(name):
            ns.setitem(tx, ConstantValue(name), value)
            return
        self.attrs[name] = value  # the function is the capture's own: the store is local state

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
        key = id(self)
        if key in cg._shared:
            return cg._shared[key]
        defaults = cg.reconstruct(self.defaults) if self.defaults is not None else "None"
        kwdefaults = cg.reconstruct(self.kwdefaults) if self.kwdefaults is not None else "None"
        cells = "".join(cg.reconstruct(c) + ", " for c in self.closure)
        closure = f"({cells})" if self.closure else "None"
        annotations = "None"
        if self.annotations is not None:
            flat = list(getattr(self.annotations, "items", None) or [])
            if len(flat) % 2:
                raise Unsupported("annotations of a function made during capture", kind="unsupported-operation")
            annotations = "{" + "".join(f"{cg.reconstruct(k)}: {cg.reconstruct(v)}, "
                                        for k, v in zip(flat[::2], flat[1::2])) + "}"
        attrs = "{" + "".join(f"{k!r}: {cg.reconstruct(v)}, " for k, v in self.attrs.items()) + "}"
        return cg.shared(self, f"{cg.const(make_function)}({cg.const(self.code)}, {cg.const(self.fn_globals)}, "
                               f"{defaults}, {kwdefaults}, {closure}, {annotations}, {attrs})")


class BoundMethodValue(Value):
    def __init__(self, func: Value, self_value: Value, source=None):
        self.func = func
        self.self_value = self_value
        self.source = source

    def describe(self):
        return f"bound {self.func.describe()}"

    def python_type(self):
        return types.MethodType

    def getattr(self, tx, name):
        """A method object's own ``__func__``/``__self__``; any name its type does not define
        (``__name__``, ``__qualname__``, ``__doc__``, ``__wrapped__``...) is read from the function,
        as ``method.__getattribute__`` does."""
        if name == "__func__":
            return self.func
        if name == "__self__":
            return self.self_value
        if name == "__doc__" or not any(name in k.__dict__ for k in types.MethodType.__mro__):
            return self.func.getattr(tx, name)
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        return self.func.call(tx, [self.self_value, *args], kwargs)

    def exit_may_swallow(self) -> bool:
        return bound_exit_may_swallow(self.func, self.self_value)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return f"{cg.const(types.MethodType)}({cg.reconstruct(self.func)}, {cg.reconstruct(self.self_value)})"


class CellValue(Value):
    """A cell created during capture (a cellvar of an interpreted frame).

    Rebuilt at a graph break as one real cell (empty first, filled after, so a function
    stored in the cell it closes over rebuilds too). A cell of the frame that continues in
    the resume function is passed to it by reference, so both sides keep sharing it."""

    mutable = True
    EMPTY = object()

    def __init__(self, contents: Value | Any = EMPTY):
        self.contents = contents

    def load(self, tx, name: str) -> Value:
        if self.contents is CellValue.EMPTY:
            raise Unsupported(f"NameError: free variable {name!r} referenced before assignment", generic=True,
                              kind="python-exception")
        return self.contents

    def store(self, tx, value: Value) -> None:
        self.contents = value

    def reconstruct(self, cg):
        key = id(self)
        if key in cg._shared:
            return cg._shared[key]
        if key in cg.cells_by_value:
            raise Unsupported("a closure cell made during capture was passed on by value before a function "
                              "sharing it was rebuilt", kind="cannot-rebuild")
        name = cg.shared(self, f"{cg.const(types.CellType)}()")
        if self.contents is not CellValue.EMPTY:
            cg.pre.append(f"{name}.cell_contents = {cg.reconstruct(self.contents)}")
        return name


class RealCellValue(Value):
    """A real closure cell of a function defined outside the capture (or a cell a resume
    function received by reference: ``cell_source`` names it). Stores are replayed after
    the graph; later loads in the same capture see the stored value."""

    def __init__(self, cell: types.CellType, source, name: str, cell_source=None):
        self.cell = cell
        self.source = source
        self.name = name
        self.cell_source = cell_source

    def load(self, tx, name: str) -> Value:
        from autograph.capture.families import side_effects
        stored = side_effects.pending(tx, self.cell, "cell_contents")
        if stored is not None:
            return stored
        try:
            contents = self.cell.cell_contents
        except ValueError:
            raise Unsupported(f"NameError: free variable {name!r} referenced before assignment", generic=True,
                              kind="python-exception")
        return tx.wrap(contents, self.source, pin=AttrSource(ObjectSource(self.cell, f"cell({name})"), "cell_contents"))

    def store(self, tx, value: Value) -> None:
        """A ``nonlocal`` store into a real cell: recorded, replayed after the graph."""
        from autograph.capture.families import side_effects
        side_effects.record_store(tx, self, self.cell, "cell_contents", value)

    def reconstruct(self, cg):
        if self.cell_source is not None:
            return cg.source_expr(self.cell_source)
        return cg.const(self.cell)
