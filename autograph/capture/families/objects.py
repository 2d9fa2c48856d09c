"""Python modules, classes and other user objects read through guards."""
from __future__ import annotations

import types

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.families import class_stores, side_effects
from autograph.capture.core.base import Value, generic_getattribute, mro_lookup
from autograph.guards.sources import AttrSource, MemberSource, ObjectSource

# modules whose attributes are trusted not to change: reads are not guarded
TRUSTED_MODULES = ("torch", "math", "operator", "builtins", "functools", "itertools", "collections",
                   "typing", "numbers", "numpy")


def is_trusted_module(mod: types.ModuleType) -> bool:
    return mod.__name__.split(".")[0] in TRUSTED_MODULES


class PythonModuleValue(Value):
    def __init__(self, module: types.ModuleType, source=None):
        self.module = module
        self.source = source

    def describe(self):
        return f"module {self.module.__name__}"

    def python_type(self):
        return types.ModuleType

    def real_value(self):
        return self.module

    def getattr(self, tx, name):
        stored = side_effects.pending(tx, self.module, name)  # ``mod.x = v`` / a ``global x`` store
        if stored is side_effects.DELETED:
            exc = AttributeError(f"module {self.module.__name__!r} has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        if stored is not None:
            return stored
        try:
            real = getattr(self.module, name)
        except AttributeError as exc:
            if "__getattr__" in self.module.__dict__ and not is_trusted_module(self.module):
                # the module's own __getattr__ (PEP 562) decided: its answer cannot be guarded
                raise Unsupported(f"`{self.module.__name__}.{name}` raised AttributeError from the "
                                  "module's __getattr__", generic=True, kind="python-exception")
            if not is_trusted_module(self.module):  # guarded to stay absent (hasattr, getattr default)
                from autograph.capture.families.absence import object_source
                tx.guards.key_absent(AttrSource(object_source(self, self.module, self.module.__name__),
                                                "__dict__"), name)
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        if is_trusted_module(self.module):
            return tx.wrap(real, None, trusted=True)
        src = AttrSource(self.source, name) if self.source is not None else None
        return tx.wrap(real, src, pin=AttrSource(ObjectSource(self.module, self.module.__name__), name))

    def setattr(self, tx, name, value):
        """``mod.x = v`` on a plain module: a store into its globals, replayed after the graph
        (functions of the module then load ``x`` as ``v`` in this capture)."""
        if type(self.module) is not types.ModuleType or is_trusted_module(self.module):
            return super().setattr(tx, name, value)
        side_effects.record_store(tx, self, self.module, name, value)

    def reconstruct(self, cg):
        return cg.const(self.module)


class ClassValue(Value):
    """A class object; calling it runs construction (supported for simple value types)."""

    def __init__(self, cls: type, source=None):
        self.cls = cls
        self.source = source

    def describe(self):
        return f"class {self.cls.__qualname__}"

    def python_type(self):
        return type(self.cls)

    def real_value(self):
        return self.cls

    def getitem(self, tx, key):
        """``C[T]`` (``cast(OrderedSet[T], x)``): the alias typing's or a builtin type's own
        ``__class_getitem__`` makes, for real type arguments: no user code runs (typing caches it)."""
        from autograph.capture.families.generic_aliases import class_getitem
        return class_getitem(tx, self, key)

    def getattr(self, tx, name):
        if name == "apply" and issubclass(self.cls, torch.autograd.Function):
            from autograph.capture.families.autograd_functions import FunctionApplyValue
            return FunctionApplyValue(self.cls)
        if name == "__dict__" and type(self.cls).__getattribute__ is type.__getattribute__:
            from autograph.capture.families.mapping_proxies import ClassNamespaceValue
            return ClassNamespaceValue(self.cls, AttrSource(self.source, name) if self.source is not None else None)
        stored = class_stores.resolved(tx, self.cls, name)  # ``Cls.name = v`` earlier in this capture
        if stored is not None:
            return stored
        raw = mro_lookup(self.cls, name)[1]
        if isinstance(raw, types.FunctionType) and type(raw) is not types.FunctionType:
            # a function proxy (a wrapt wrapper of the import hook, say): reading it from the class
            # binds a fresh wrapper object each time, so guard the class's own entry instead
            from autograph.capture.families.functions import UserFunctionValue
            tx.guards.class_attr(self.cls, name)
            return UserFunctionValue(raw)
        try:
            real = getattr(self.cls, name)
        except AttributeError as exc:
            meta = type(self.cls)
            if isinstance(mro_lookup(meta, "__getattr__")[1], types.FunctionType) \
                    or meta.__getattribute__ is not type.__getattribute__:
                raise Unsupported(f"`{self.cls.__qualname__}.{name}` raised AttributeError from its "
                                  "metaclass", generic=True, kind="python-exception")
            from autograph.capture.families.absence import guard_absent_in_classes
            guard_absent_in_classes(tx, self.cls, name)  # guarded to stay absent
            guard_absent_in_classes(tx, meta, name)
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        if isinstance(self.cls.__dict__.get(name), staticmethod):
            return tx.wrap(real, None, trusted=True)
        src = AttrSource(self.source, name) if self.source is not None else None
        trusted = (self.cls.__module__ or "").split(".")[0] in TRUSTED_MODULES
        return tx.wrap(real, None if trusted else src, trusted=trusted,
                       pin=AttrSource(ObjectSource(self.cls, self.cls.__qualname__), name))

    def setattr(self, tx, name, value):
        """``Cls.name = v``: a store event on the class, replayed after the graph
        (families/class_stores.py), or a break when it is not modelled."""
        class_stores.store(tx, self, self.cls, name, value)

    def call(self, tx, args, kwargs):
        from autograph.capture.families.builtins import call_builtin_type
        return call_builtin_type(tx, self.cls, args, kwargs)

    def reconstruct(self, cg):
        return cg.const(self.cls)


def mark_namespace(value: Value, obj) -> None:
    """``obj.__dict__`` read as a dict from outside: stores into it are instance-dict stores of
    ``obj`` (families/containers.py)."""
    from autograph.capture.families.containers import DictValue
    if isinstance(value, DictValue) and value.identity is getattr(obj, "__dict__", None):
        value.namespace_of = obj


def _is_data_descriptor(attr) -> bool:
    t = type(attr)
    return hasattr(t, "__get__") and (hasattr(t, "__set__") or hasattr(t, "__delete__"))


class ObjectValue(Value):
    """Any other real object: attribute reads go through the real object with guards."""

    def setattr(self, tx, name, value):
        """A plain instance-``__dict__`` store is recorded and replayed after the graph; a property
        with a Python setter runs its setter."""
        cls = type(self.obj)
        plain = getattr(cls, "__setattr__", None) is object.__setattr__ and isinstance(
            getattr(self.obj, "__dict__", None), dict)
        attr = mro_lookup(cls, name)[1]
        if plain and type(attr) is property and isinstance(attr.fset, types.FunctionType):
            from autograph.capture.families.functions import UserFunctionValue
            tx.guards.class_attr(cls, name)
            UserFunctionValue(attr.fset).call(tx, [self, value], {})
            return
        descriptor = any(name in k.__dict__ and hasattr(type(k.__dict__[name]), "__set__") for k in cls.__mro__)
        if not plain or descriptor:
            return super().setattr(tx, name, value)
        side_effects.record_store(tx, self, self.obj, name, value)

    def __init__(self, obj, source=None, what: str = ""):
        self.obj = obj
        self.source = source
        self.what = what or type(obj).__name__

    def describe(self):
        return f"{type(self.obj).__qualname__} object"

    def python_type(self):
        return type(self.obj)

    def real_value(self):
        return self.obj

    def getattr(self, tx, name):
        """Python's lookup order: data descriptors of the class, the instance ``__dict__``, other
        class attributes, then a Python ``__getattr__``; what was absent is guarded to stay so."""
        obj = self.obj
        cls = type(obj)
        klass, attr = mro_lookup(cls, name)
        stored = side_effects.pending(tx, obj, name, self)
        if stored is not None and not (klass is not None and _is_data_descriptor(attr)):
            if stored is side_effects.DELETED:  # `del obj.name` earlier in this capture
                return self._after_delete(tx, name)
            return stored  # written into the instance dict earlier in this capture (replayed after the graph)
        d = getattr(obj, "__dict__", None)
        src = AttrSource(self.source, name) if self.source is not None else None
        if isinstance(d, dict) and name in d and not (klass is not None and _is_data_descriptor(attr)):
            if not generic_getattribute(cls):
                # a Python __getattribute__ (transformers' configs) costs ~1 us per guarded
                # attribute; the instance dict read here is what the guard re-reads
                src = MemberSource(self.source, "__dict__", name) if self.source is not None else None
                return tx.wrap(d[name], src, pin=MemberSource(ObjectSource(obj, self.what), "__dict__", name))
            return tx.wrap(d[name], src, pin=AttrSource(ObjectSource(obj, self.what), name))
        if klass is not None:
            stored = class_stores.resolved_for_instance(tx, self, obj, name)
            if stored is not None:  # the class entry, stored earlier in this capture
                return stored
            if isinstance(attr, types.FunctionType):
                from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
                tx.guards.method(self.source, cls, name, attr)
                return BoundMethodValue(UserFunctionValue(attr), self)
            if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                from autograph.capture.families.functions import UserFunctionValue
                tx.guards.class_attr(cls, name)
                return UserFunctionValue(attr.fget).call(tx, [self], {})
            if isinstance(attr, (staticmethod, classmethod)) and type(attr) not in (staticmethod, classmethod):
                # a proxy of one (the import hook's wrapper): it binds a fresh object on each read,
                # which an identity guard would never match again; bound from the class entry
                from autograph.capture.families.user_objects import _bind_class_attr
                return _bind_class_attr(tx, self, cls, name, attr)
            from autograph.capture.families.enums import is_enum_member_attribute
            if not isinstance(attr, (types.GetSetDescriptorType, types.MemberDescriptorType)) \
                    and hasattr(attr, "__get__") and not isinstance(attr, (staticmethod, classmethod)) \
                    and (hasattr(attr, "__set__") or hasattr(attr, "__delete__")) \
                    and not is_enum_member_attribute(klass, attr):  # Enum's name/value: a plain read
                raise Unsupported(f"descriptor attribute `.{name}` of {self.describe()}", kind="unsupported-operation")
            # a C-level slot read (no Python code runs) or a plain class attribute: the real value
        elif generic_getattribute(cls):
            getattr_fn = mro_lookup(cls, "__getattr__")[1]
            if isinstance(getattr_fn, types.FunctionType):  # Python runs it for a name found nowhere
                from autograph.capture.families.absence import guard_attribute_absent
                from autograph.capture.core.constants import ConstantValue
                from autograph.capture.families.functions import UserFunctionValue
                guard_attribute_absent(tx, self, obj, name)
                tx.guards.class_attr(cls, "__getattr__")
                return UserFunctionValue(getattr_fn).call(tx, [self, ConstantValue(name)], {})
        try:
            real = getattr(obj, name)
        except AttributeError as exc:
            from autograph.capture.families.absence import attribute_error
            if not generic_getattribute(cls):
                # a custom __getattribute__ (transformers' configs) decides: the guard asks it again,
                # as the value guards of present attributes do
                from autograph.capture.families.absence import guard_lookup_fails
                guard_lookup_fails(tx, self, obj, name)
                raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
            raise attribute_error(tx, self, obj, name, exc)
        out = tx.wrap(real, src, pin=AttrSource(ObjectSource(obj, self.what), name))
        if name == "__dict__":
            mark_namespace(out, obj)
        return out

    def delattr(self, tx, name):
        """``del obj.name`` of a plain instance ``__dict__`` entry: recorded and replayed after the
        graph in order with the stores (later reads see it gone); an absent name raises
        AttributeError as in Python, where the instruction then runs."""
        obj = self.obj
        cls = type(obj)
        plain = getattr(cls, "__delattr__", None) is object.__delattr__ and isinstance(
            getattr(obj, "__dict__", None), dict)
        if not plain or _is_data_descriptor(mro_lookup(cls, name)[1]):
            raise Unsupported(f"`del` of attribute {name!r} of {self.describe()} — a side effect", kind="side-effect")
        stored = side_effects.pending(tx, obj, name, self)
        if stored is side_effects.DELETED or (stored is None and name not in obj.__dict__):
            exc = AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        if stored is None and self.source is not None:  # present now: guarded to be there
            src = self.source
            tx.guards.has_key(AttrSource(src, "__dict__"), name)
        elif stored is None:
            raise Unsupported(f"`del` of attribute {name!r} of {self.describe()} read without a source",
                              kind="side-effect")
        side_effects.record_delete(tx, self, obj, name)

    def _after_delete(self, tx, name):
        """``obj.name`` after this capture deleted the instance's own entry: the class's attribute
        (a method or a plain value), else AttributeError as Python raises it."""
        cls = type(self.obj)
        klass, attr = mro_lookup(cls, name)
        if isinstance(attr, types.FunctionType):
            from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
            tx.guards.class_attr(cls, name)  # (the instance entry is gone: the class's function)
            return BoundMethodValue(UserFunctionValue(attr), self)
        if klass is not None and not hasattr(type(attr), "__get__"):
            tx.guards.class_attr(cls, name)
            return tx.wrap(attr, None, pin=AttrSource(ObjectSource(klass, klass.__qualname__), name))
        if klass is None and generic_getattribute(cls) and mro_lookup(cls, "__getattr__")[0] is None:
            exc = AttributeError(f"{cls.__name__!r} object has no attribute {name!r}")
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        raise Unsupported(f"attribute `.{name}` of {self.describe()} after its `del`", kind="unsupported-operation")

    def _python_special(self, tx, name, args):
        """Run a Python-level special method of the object's class (None when it has none)."""
        fn = getattr(type(self.obj), name, None)
        if not isinstance(fn, types.FunctionType):
            return None
        tx.guards.class_attr(type(self.obj), name)  # the class's method, as when captured
        from autograph.capture.families.functions import UserFunctionValue
        return UserFunctionValue(fn).call(tx, [self, *args], {})

    def unary_op(self, tx, op):
        """``-o``, ``+o``, ``~o`` of an object whose class writes ``__neg__``/``__pos__``/``__invert__``
        in Python: run symbolically; anything else runs in Python (a break)."""
        name = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}.get(op)
        out = self._python_special(tx, name, []) if name is not None else None
        if out is None:
            raise Unsupported(f"unary {op} on {self.describe()}", kind="unsupported-operation")
        return out

    def getitem(self, tx, key):
        from autograph.capture.families.generic_aliases import typing_getitem
        out = typing_getitem(tx, self, self.obj, key)
        if out is None:
            out = self._python_special(tx, "__getitem__", [key])
        return out if out is not None else super().getitem(tx, key)

    def iter_items(self, tx):
        it = self.get_iter(tx)
        if it is self:  # its own iterator: drained through its __next__
            out = []
            while (item := self.next(tx)) is not None:
                out.append(item)
            return out
        return it.iter_items(tx)

    def is_user_iterator(self, tx) -> bool:
        """Whether the object's class has a Python ``__next__`` (an iterator written in Python)."""
        fn = getattr(type(self.obj), "__next__", None)
        if not isinstance(fn, types.FunctionType):
            return False
        tx.guards.class_attr(type(self.obj), "__next__")
        return True

    def next_or_raise(self, tx) -> Value:
        """``next(obj)`` without a default: the class's ``__next__``, its StopIteration as raised."""
        return self._python_special(tx, "__next__", [])

    def next(self, tx) -> Value | None:
        """``next(obj)`` as a loop asks for it: None when ``__next__`` raises StopIteration."""
        try:
            return self.next_or_raise(tx)
        except Unsupported as err:
            if err.generic and isinstance(err.exc, StopIteration):
                return None
            raise

    def get_iter(self, tx):
        from autograph.capture.families.containers import ListIteratorValue
        out = self._python_special(tx, "__iter__", [])
        if out is None:
            raise Unsupported(f"iterating over {self.describe()}", kind="unsupported-operation")
        if getattr(out, "is_user_iterator", None) is not None and out.is_user_iterator(tx):
            return out  # an iterator written in Python (often ``return self``)
        if not isinstance(out, ListIteratorValue):
            raise Unsupported(f"__iter__ of {self.describe()} returned {out.describe()}", kind="unsupported-operation")
        return out

    def length(self, tx):
        from autograph.capture.families.truth_protocol import len_result
        out = self._python_special(tx, "__len__", [])
        return len_result(out) if out is not None else super().length(tx)

    def contains(self, tx, item):
        from autograph.capture.core.constants import ConstantValue
        out = self._python_special(tx, "__contains__", [item])
        if out is not None:
            return ConstantValue(out.truth(tx))
        if getattr(type(self.obj), "__contains__", None) is None \
                and isinstance(getattr(type(self.obj), "__iter__", None), types.FunctionType) \
                and self.get_iter(tx) is self:
            # its own iterator: consumed up to the first match, each comparison decided here (the
            # object's state after the search is what eager leaves)
            from autograph.capture.core.base import equal_or_identical
            while (candidate := self.next(tx)) is not None:
                if equal_or_identical(tx, candidate, item):
                    return ConstantValue(True)
            return ConstantValue(False)
        return super().contains(tx, item)

    def truth(self, tx):
        from autograph.capture.families.truth_protocol import bool_result, len_result
        out = self._python_special(tx, "__bool__", [])
        if out is not None:
            return bool_result(tx, out)
        out = self._python_special(tx, "__len__", [])
        if out is not None:
            return len_result(out) > 0
        return super().truth(tx)

    def call(self, tx, args, kwargs):
        _, call = mro_lookup(type(self.obj), "__call__")  # as stored: a staticmethod is no method
        if isinstance(call, types.FunctionType):
            from autograph.capture.families.functions import UserFunctionValue
            return UserFunctionValue(call).call(tx, [self, *args], kwargs)
        from autograph.capture.core.registry import OPAQUE_CALL_RULES
        for rule in OPAQUE_CALL_RULES:  # e.g. reorderable logging calls (families/side_effects.py)
            out = rule(tx, self.obj, args, kwargs)
            if out is not NotImplemented:
                return out
        mod = (getattr(self.obj, "__module__", None) or "").split(".")[0]
        name = getattr(self.obj, "__qualname__", None) or getattr(self.obj, "__name__", None)
        if name:
            raise Unsupported(f"unsupported: {mod + '.' if mod else ''}{name}", kind="unsupported-call")
        raise Unsupported(f"unsupported: call to {self.describe()}", kind="unsupported-call")

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.const(self.obj)

