"""Turn real objects (inputs, globals, attributes) and fake results into values.

This is the one place that looks at a real object's type; it also records the
guards that make what capture saw stay true (TENSOR_MATCH for tensors, equality
for constants, identity for functions/modules/classes, type for other objects).
"""
from __future__ import annotations

import builtins
import enum
import types
from typing import Any

import torch

from autograph.capture.core import shapes
from autograph.capture.core.breaks import Unsupported
from autograph.capture.families.autograd_functions import FunctionApplyValue, is_function_apply
from autograph.capture.families import scalars
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.families.builtins import BuiltinValue, PyFunctionValue, is_pure_builtin
from autograph.capture.core.constants import ConstantValue, is_literal
from autograph.capture.families.containers import DictValue, ListValue, SizeValue, TupleValue
from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
from autograph.capture.families.modules import wrap_module
from autograph.capture.families.objects import ClassValue, ObjectValue, PythonModuleValue
from autograph.capture.core.registry import BUILTIN_HANDLERS, CALLABLE_WRAPPERS, OPAQUE_CALL_HANDLERS, OPAQUE_CALL_RULES, TYPE_WRAPPERS
from autograph.capture.families.torch_calls import _TRANSFORM_MODULES, TorchFunctionValue
from autograph.capture.families.torch_compiled import TorchCompiledValue, is_torch_compiled
from autograph.guards.sources import AttrSource, ItemSource

_BUILTIN_FUNCS = {v for v in vars(builtins).values() if isinstance(v, types.BuiltinFunctionType)}


def _made_at_run_time(obj: Any) -> bool:
    """A function made by a call (``torch.vmap(f)``'s wrapper, a decorator's inner function)."""
    return isinstance(obj, types.FunctionType) and "<locals>" in obj.__code__.co_qualname


def peek(obj: Any, name: str, default: Any = None) -> Any:
    """``getattr(obj, name, default)`` without running user code: an object whose class has a
    Python ``__getattr__``/``__getattribute__`` (a dict forwarding to ``self[name]``, a lazy
    module) is read statically, as ``inspect.getattr_static`` does."""
    cls = type(obj)
    if not isinstance(obj, types.ModuleType) and not any(
            isinstance(mro_lookup(cls, hook)[1], types.FunctionType) for hook in ("__getattr__", "__getattribute__")):
        return getattr(obj, name, default)
    import inspect
    try:
        return inspect.getattr_static(obj, name, default)
    except Exception:  # noqa: BLE001 - a broken __dict__/__mro__: treat as absent
        return default


def _is_torch_callable(obj: Any) -> bool:
    if isinstance(obj, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return True
    mod = peek(obj, "__module__", None)
    mod = mod if isinstance(mod, str) else ""
    if isinstance(obj, (types.BuiltinFunctionType, types.FunctionType)) and (
            mod.startswith("torch") or mod == "torch._C._nn" or mod == "torch._C._VariableFunctions"):
        # (torch.testing's helpers are Python on Python values, never graph operations: user code)
        return not mod.startswith(("torch.nn.modules", "torch.testing"))
    objclass = peek(obj, "__objclass__", None)
    if objclass is not None and isinstance(objclass, type) and issubclass(objclass, torch._C.TensorBase):
        return True
    if type(obj).__name__ in ("method_descriptor", "wrapper_descriptor", "getset_descriptor") and objclass is not None \
            and objclass.__module__.startswith("torch"):
        return True
    return False


def _plain_key(key: Any) -> bool:
    """A dict key capture can hold as a constant: str/int/float/bool/bytes/None, enum members,
    and tuples (``torch.Size`` too) of those."""
    if type(key) in (str, int, float, bool, bytes, type(None)) or isinstance(key, enum.Enum):
        return True
    return type(key) in (tuple, torch.Size) and all(_plain_key(k) for k in key)


def _value_guard(g, source, obj: Any) -> None:
    """Guard a value capture folds as a constant: singletons (enum members, memory formats,
    layouts, ``...``) by identity, the rest (range, frozenset, str subclasses) by type and ``==``."""
    if isinstance(obj, (enum.Enum, torch.memory_format, torch.layout)) or obj is Ellipsis or obj is NotImplemented:
        g.id_(source, obj)
        return
    g.type_(source, obj)
    g.folded_value(source, obj)


def _wrap_items(tx, container: Any, source, pairs, item_source=ItemSource) -> list[Value]:
    """The values of a list's or dict's items, ``(key, item)`` in ``pairs``, each reached through
    ``item_source(source, key)``. Without a source (a trusted read: no value registered to come
    back to) a container holding itself breaks."""
    from autograph.capture.families.cycles import all_items
    out: list[Value] = []

    def wrap_one(pair) -> bool:
        key, item = pair
        out.append(wrap_real(tx, item, item_source(source, key) if source is not None else None))
        return True
    if not all_items(container, pairs, wrap_one) and source is None:
        raise Unsupported("a container holding itself, read without a guardable source",
                          kind="unsupported-operation")
    return out


def wrap_real(tx, obj: Any, source, *, path: str = "") -> Value:
    """The value for a real object reached through ``source`` (None: a trusted read)."""
    g = tx.guards
    if isinstance(obj, torch.Tensor):
        if source is None:
            raise Unsupported("a tensor reached without a guardable source", kind="unsupported-torch-value")
        if isinstance(obj, torch.nn.Parameter) or type(obj) not in (torch.Tensor, torch.nn.Parameter):
            if type(obj) not in (torch.Tensor, torch.nn.Parameter):
                wrapper = TYPE_WRAPPERS.get(type(obj))  # a subclass with a model (AsyncCollectiveTensor)
                if wrapper is not None:
                    return wrapper(tx, obj, source)
                raise Unsupported(f"tensor subclass {type(obj).__name__}", kind="unsupported-torch-value")
        g.tensor(source, obj)
        for other_source, other, _ in tx.graph.inputs:
            if other is obj and other_source != source:  # one placeholder serves both: keep them aliased
                g.same_object(other_source, source)
                break
        return tx.graph.add_input(source, obj)
    if isinstance(obj, (torch.SymInt, torch.SymFloat, torch.SymBool)):  # folded size arithmetic
        return ConstantValue(obj)
    if type(obj) in (int, float) and shapes.is_dynamic_scalar(source, obj, tx.graph):  # changed between calls: an input
        if type(obj) is int:
            g.type_(source, obj)
            return ConstantValue(shapes.symbolic_int(tx.graph, source, obj), source)
        return scalars.leaf(tx, source, obj)
    if type(obj).__module__ == "numpy":
        from autograph.capture.families import numpy_ints
        if numpy_ints.is_dynamic(source, obj, tx.graph):  # ``dynamic=True``: np.int64 & co. as inputs
            return numpy_ints.wrap(tx, obj, source)
    if type(obj) in (bool, int, float, str, bytes, complex, type(None)) or isinstance(obj, (torch.dtype, torch.device)):
        g.equals(source, obj)
        return ConstantValue(obj, source)
    if isinstance(obj, (int, float, str, bytes, complex)) or obj is Ellipsis or obj is NotImplemented \
            or is_literal(obj):  # int/str subclasses (enum members, numpy floats), range, frozenset, ...
        _value_guard(g, source, obj)  # folded as a constant: the value itself is guarded
        return ConstantValue(obj, source)
    if type(obj) is set and all(is_literal(x) for x in obj):
        from autograph.capture.families.sets import SetValue, wrap_outside_set
        return wrap_outside_set(tx, obj, source) if source is not None else SetValue(obj)
    if type(obj) is set and source is not None:
        from autograph.capture.families.sets import is_pinned_element, wrap_outside_set
        if all(is_literal(x) or is_pinned_element(x) for x in obj):
            return wrap_outside_set(tx, obj, source)
    if type(obj) is slice:
        from autograph.capture.families.containers import SliceValue
        g.type_(source, obj)
        return SliceValue(*(wrap_real(tx, p, AttrSource(source, n) if source is not None else None)
                            for n, p in (("start", obj.start), ("stop", obj.stop), ("step", obj.step))))
    if type(obj) is torch.Size:
        g.equals(source, tuple(obj))
        return SizeValue([ConstantValue(s if isinstance(s, torch.SymInt) else int(s)) for s in obj], source)
    if isinstance(obj, tuple) and type(obj) is not tuple:
        from autograph.capture.families.named_tuples import NamedTupleValue, is_named_tuple_class
        if is_named_tuple_class(type(obj)):
            g.type_(source, obj)
            g.length(source, obj)
            return NamedTupleValue(type(obj), [wrap_real(tx, x, ItemSource(source, i) if source is not None else None)
                                               for i, x in enumerate(obj)], source, real=obj)
    if type(obj) is tuple:
        g.type_(source, obj)
        g.length(source, obj)
        items = [wrap_real(tx, x, ItemSource(source, i) if source is not None else None)
                 for i, x in enumerate(obj)]
        value = TupleValue(items, source)
        value.identity = obj  # for `is` between containers from outside
        return value
    if type(obj) is list:
        from autograph.capture.families.containers import outside_container, register_outside_container
        seen = outside_container(tx, obj, source)
        if seen is not None:  # one list, one value: a change through one read is seen by the others
            return seen
        g.type_(source, obj)
        if source is not None:  # its length and items are read (and guarded) when the code reads them
            from autograph.capture.families.containers import OutsideListValue
            value = OutsideListValue(tx, obj, source)
            register_outside_container(tx, obj, value)
            return value
        g.length(source, obj)
        value = ListValue([], source)
        value.identity = obj  # for `is` between containers from outside
        register_outside_container(tx, obj, value)  # first: a list holding itself finds this value
        value.items = _wrap_items(tx, obj, source, enumerate(obj))
        return value
    if type(obj) is dict and all(_plain_key(k) for k in obj):
        from autograph.capture.families.containers import outside_container, register_outside_container
        seen = outside_container(tx, obj, source)
        if seen is not None:  # one dict, one value: a store through one read is seen by the others
            return seen
        g.type_(source, obj)
        g.keys(source, obj)
        value = DictValue({}, source)
        value.identity = obj  # for `is` between containers from outside
        register_outside_container(tx, obj, value)  # first: a dict holding itself finds this value
        value.items = dict(zip(obj, _wrap_items(tx, obj, source, obj.items())))
        return value
    if callable(obj) and is_torch_compiled(obj):  # left to torch.compile: its call is a break
        g.id_(source, obj)
        return TorchCompiledValue(obj, source)
    if isinstance(obj, torch.nn.Module):
        shapes.note_module(tx.graph, source)
        return wrap_module(tx, obj, source, path or (source.expr if source is not None else type(obj).__name__))
    if is_function_apply(obj):  # MyFunction.apply held in a variable
        g.id_(AttrSource(source, "__self__") if source is not None else None, obj.__self__)
        return FunctionApplyValue(obj.__self__)
    if _made_at_run_time(obj) and (getattr(obj, "__module__", None) or "").startswith(_TRANSFORM_MODULES):
        g.id_(source, obj)  # torch.vmap(f), torch.func.grad(f): keeps C interpreter state; called natively
        return OpaqueCallableValue(obj, source)
    if _is_torch_callable(obj):
        g.id_(source, obj)
        return TorchFunctionValue(obj)
    if isinstance(obj, types.FunctionType) and _hashable(obj) and obj in BUILTIN_HANDLERS:
        g.id_(source, obj)  # a library Python function with a model of its own (collections.namedtuple)
        return BuiltinValue(obj)
    if CALLABLE_WRAPPERS and callable(obj) and not isinstance(obj, type):
        for hook in CALLABLE_WRAPPERS:  # library callables with a model (itertools, numpy, ...)
            out = hook(tx, obj, source)
            if out is not None:
                return out
    if isinstance(obj, types.FunctionType):
        if source is not None and type(obj) is types.FunctionType and not _opaque_library(obj) \
                and (obj.__closure__ or "<locals>" in obj.__code__.co_qualname):
            from autograph.capture.families.functions import wrap_closure
            return wrap_closure(tx, obj, source)  # made anew by each call of its maker: not by identity
        g.id_(source, obj)
        if _opaque_library(obj):
            return OpaqueCallableValue(obj, source)
        return UserFunctionValue(obj, source)
    if isinstance(obj, types.MethodType) and isinstance(obj.__func__, types.FunctionType):
        if source is None and g.pin is not None:  # pinned: the same function bound to the same object
            getter, what = g.pin
            g.pin = None
            g.pinned_method(getter, what, obj.__func__, obj.__self__)
        self_src = AttrSource(source, "__self__") if source is not None else None
        func_src = AttrSource(source, "__func__") if source is not None else None
        if func_src is not None:
            g.id_(func_src, obj.__func__)
        return BoundMethodValue(UserFunctionValue(obj.__func__, func_src), wrap_real(tx, obj.__self__, self_src), source)
    if isinstance(obj, (types.BuiltinFunctionType, type)) and _hashable(obj) and (
            obj in _BUILTIN_FUNCS or obj in (builtins.range, builtins.enumerate, builtins.zip, builtins.reversed,
                                             builtins.map, builtins.filter, builtins.super)):
        g.id_(source, obj)
        return BuiltinValue(obj)
    if isinstance(obj, types.BuiltinFunctionType) and getattr(obj, "__module__", "") in ("_operator", "math", "operator"):
        g.id_(source, obj)
        return BuiltinValue(obj)
    if isinstance(obj, types.BuiltinFunctionType) and _hashable(obj) and obj in BUILTIN_HANDLERS:
        g.id_(source, obj)  # a library builtin with a model of its own (functools.reduce)
        return BuiltinValue(obj)
    if isinstance(obj, types.ModuleType):
        g.id_(source, obj)
        return PythonModuleValue(obj, source)
    if isinstance(obj, type):
        from autograph.capture.families.named_tuples import made_class
        made = made_class(tx, obj)
        if made is not None:  # a class this call made: rebuilt per call, never a constant
            return made
        g.id_(source, obj)
        return ClassValue(obj, source)
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        g.id_(source, obj)
        return PyFunctionValue(obj, pure=is_pure_builtin(obj))
    if type(obj) in _ITERATOR_TYPES and source is not None:
        from autograph.capture.families import live_iterators
        known = live_iterators.reached_before(tx, obj, source)
        if known is not None:  # (`next(ITER)` twice: the second read continues where the first stopped)
            return known
        remaining = _iterator_remaining(obj)
        if remaining is not None and all(type(v) in (int, float, str, bool, type(None)) for v in remaining):
            from autograph.capture.families.iterators import ForeignIteratorValue
            # the items still to come, each of the same type and equal (1, 1.0 and True differ:
            # they are folded as constants), read natively through remaining(it)
            g.type_(source, obj)
            g.equals(live_iterators.RemainingSource(source), tuple(remaining))
            value = ForeignIteratorValue([ConstantValue(v) for v in remaining], source, type(obj))
            value.identity = obj
            live_iterators.outside_iterator(tx, obj, source)
            live_iterators.remember(tx, obj, source, value)
            return value
    if callable(obj) and not isinstance(obj, type) and _opaque_library(obj):
        g.id_(source, obj)
        return OpaqueCallableValue(obj, source)
    wrapper = TYPE_WRAPPERS.get(type(obj))
    if wrapper is not None:  # objects with a capture-time model of their own (families/stdlib.py)
        return wrapper(tx, obj, source)
    if isinstance(obj, dict):  # a dict subclass object reading its table as dict does
        from autograph.capture.families.dict_subclass_objects import wrap_dict_subclass
        value = wrap_dict_subclass(tx, obj, source)
        if value is not None:
            return value
    g.type_(source, obj)
    return ObjectValue(obj, source)


# ``TYPE_WRAPPERS``: objects modelled specially (``os.environ``…, ``AsyncCollectiveTensor``);
# ``CALLABLE_WRAPPERS``: library callables with a model of their own (itertools, numpy), asked
# before the builtin-function and opaque-library rules; both filled by the families (core/registry.py)


_ITERATOR_TYPES = (type(iter(())), type(iter([])), type(iter(range(1))))

# libraries whose functions are called, never inlined: a call to one is a graph break
OPAQUE_LIBRARIES = ("numpy", "scipy", "pandas", "logging", "warnings", "os", "sys", "re", "json", "random",
                    "time", "threading", "inspect", "pickle", "copy", "io", "subprocess", "socket",
                    "PIL", "tqdm", "transformers.utils.logging")


def _opaque_library(obj) -> bool:
    mod = peek(obj, "__module__", None)
    mod = mod if isinstance(mod, str) else ""
    return mod.split(".")[0] in OPAQUE_LIBRARIES


def _iterator_remaining(it):
    """The items a tuple/list/range iterator will still yield, without consuming it."""
    try:
        fn, args, *state = it.__reduce__()
        seq = args[0]
        pos = state[0] if state else 0
        return tuple(seq[pos:])
    except Exception:
        return None


# ``OPAQUE_CALL_HANDLERS`` (library calls answerable at capture time: families/stdlib.py) and
# ``OPAQUE_CALL_RULES`` (whole families: logging in families/side_effects.py) live in core/registry.py


class OpaqueCallableValue(Value):
    """A library callable autograph does not look into: calling it is a graph break."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def describe(self):
        mod = getattr(self.fn, "__module__", None) or ""
        name = getattr(self.fn, "__qualname__", None) or getattr(self.fn, "__name__", None) or type(self.fn).__name__
        return f"{mod.split('.')[0]}.{name}" if mod else name

    def real_value(self):
        return self.fn

    def call(self, tx, args, kwargs):
        handler = OPAQUE_CALL_HANDLERS.get(self.fn) if _hashable(self.fn) else None
        if handler is not None:
            out = handler(tx, args, kwargs)
            if out is not NotImplemented:
                return out
        for rule in OPAQUE_CALL_RULES:
            out = rule(tx, self.fn, args, kwargs)
            if out is not NotImplemented:
                return out
        raise Unsupported(f"unsupported: {self.describe()}", kind="unsupported-call")

    def getattr(self, tx, name):
        return tx.wrap(getattr(self.fn, name), None, trusted=True)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.const(self.fn)


def _hashable(obj) -> bool:
    try:
        hash(obj)
        return True
    except TypeError:
        return False


def wrap_fake_result(graph, node, result: Any, *, same_as=()) -> Value:
    """Wrap the result of a fake computation (``node`` is None when no node was made).

    A result tensor that is the fake of one of ``same_as`` (tensor values passed to the
    call: in-place methods and ``out=`` return their argument) is that value itself.
    """
    from autograph.capture.families.tensors import TensorValue

    def tensor(fake, make_node):
        for value in same_as:
            if value.fake is fake:
                return value
        return TensorValue(make_node(), fake)

    if isinstance(result, torch.Tensor):
        return tensor(result, lambda: node)
    if isinstance(result, torch.Size):  # symbolic sizes stay SymInts (autograph.capture.core.shapes)
        return SizeValue([ConstantValue(s if isinstance(s, torch.SymInt) else int(s)) for s in result])
    if isinstance(result, (tuple, list)):
        items = []
        for i, r in enumerate(result):
            if isinstance(r, torch.Tensor):
                items.append(tensor(r, lambda i=i, r=r: graph.getitem_node(node, i, r)))
            elif isinstance(r, (tuple, list)) and node is not None:
                raise Unsupported("nested sequence result of a torch operation", kind="unsupported-torch-value")
            else:
                items.append(wrap_fake_result(graph, None, r))
        if type(result) not in (tuple, list):
            from autograph.capture.families.named_tuples import NamedTupleValue, is_named_tuple_class
            if is_named_tuple_class(type(result)):  # torch.return_types.max & co.
                return NamedTupleValue(type(result), items)
            raise Unsupported(f"torch operation returned a {type(result).__qualname__}", kind="unsupported-torch-value")
        return (ListValue if isinstance(result, list) else TupleValue)(items)
    if isinstance(result, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return ConstantValue(result)  # a size expression; see autograph.capture.core.shapes
    if type(result) in (bool, int, float, complex, str, type(None)) or isinstance(result, (torch.dtype, torch.device)):
        return ConstantValue(result)
    raise Unsupported(f"torch operation returned {type(result).__name__}", kind="unsupported-torch-value")
