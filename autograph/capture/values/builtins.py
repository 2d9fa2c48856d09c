"""Builtins, ``operator``/``math`` on constants, torch functions into the graph."""
from __future__ import annotations

import operator
import types
from typing import Any, Callable

import torch

from autograph.capture.breaks import Unsupported
from autograph.capture.values.base import Value, mro_lookup
from autograph.capture.values import scalars
from autograph.capture.values.constants import ConstantValue
from autograph.capture.values.containers import (DictValue, ListIteratorValue, ListValue, SizeValue,
                                                 TupleValue)


def _all_constant(args, kwargs) -> bool:
    return all(a.is_constant() for a in args) and all(v.is_constant() for v in kwargs.values())


def fold(tx, fn: Callable, args, kwargs, name: str) -> Value:
    """Run ``fn`` on the real constant values now; its exception is raised natively later."""
    if fn in _TEXT_FUNCTIONS and _has_symbolic(args, kwargs):
        raise Unsupported("formatting a dynamic size as text (its value is known only at run time)",
                          kind="dynamic-shape")
    try:
        result = fn(*(a.as_python_constant() for a in args),
                    **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:
        raise Unsupported(f"{name}() raised {type(exc).__name__}", generic=True, exc=exc, kind="python-exception")
    return tx.wrap(result, None, trusted=True)


_TEXT_FUNCTIONS = {str, repr, format, ascii}


def _has_symbolic(args, kwargs) -> bool:
    """A symbolic size (dynamic shapes) among constant arguments, at any depth."""
    import torch

    def sym(x) -> bool:
        if isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            return True
        if isinstance(x, (tuple, list, frozenset, set)):
            return any(sym(i) for i in x)
        return False
    values = [a.as_python_constant() for a in args] + [v.as_python_constant() for v in kwargs.values()]
    return any(sym(v) for v in values)


# Modules whose builtin functions are pure: same constant arguments, same result, no effect.
_PURE_MODULES = frozenset({"math", "cmath", "_operator", "operator"})
_IMMUTABLE_TYPES = (str, bytes, int, float, complex, bool, tuple, frozenset, type(None))


def is_pure_builtin(fn: Callable) -> bool:
    """Whether folding ``fn`` at capture time is safe (``random.random``, ``time.time`` are not)."""
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        return isinstance(owner, _IMMUTABLE_TYPES)  # e.g. "a,b".split, (1, 2).index
    return getattr(fn, "__module__", None) in _PURE_MODULES


class PyFunctionValue(Value):
    """A real callable applied to constant arguments (folded at capture time when pure).

    An impure or unknown callable is never folded: the call graph-breaks and runs in Python.
    """

    def __init__(self, fn: Callable, name: str | None = None, *, pure: bool = True):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", repr(fn))
        self.pure = pure

    def describe(self):
        return f"{self.name}"

    def real_value(self):
        return self.fn

    def call(self, tx, args, kwargs):
        if not self.pure:
            module = getattr(self.fn, "__module__", None)
            where = f"{module}.{self.name}" if module else self.name
            raise Unsupported(f"call to {where}() — not known to be free of side effects; it runs in Python",
                              kind="side-effect")
        if _all_constant(args, kwargs):
            return fold(tx, self.fn, args, kwargs, self.name)
        raise Unsupported(f"unsupported: {self.name} on non-constant arguments", kind="unsupported-call")

    def reconstruct(self, cg):
        return cg.const(self.fn)


class BuiltinMethodValue(Value):
    """``obj.method`` of a constant or container, waiting to be called."""

    def __init__(self, obj: Value, name: str):
        self.obj = obj
        self.name = name

    def describe(self):
        return f"method .{self.name}() of {self.obj.describe()}"

    def call(self, tx, args, kwargs):
        from autograph.capture.values.containers import BaseSequenceValue, DictValue
        if isinstance(self.obj, (BaseSequenceValue, DictValue)) and type(self.obj).call_method is not Value.call_method:
            return self.obj.call_method(tx, self.name, args, kwargs)
        if self.obj.is_constant() and _all_constant(args, kwargs):
            return fold(tx, getattr(self.obj.as_python_constant(), self.name), args, kwargs, self.name)
        if self.name == "format" and isinstance(self.obj.as_python_constant(), str):
            raise Unsupported("str.format on a non-constant value", kind="unsupported-operation")
        raise Unsupported(f"unsupported: {self.describe()}", kind="unsupported-call")

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.obj)}.{self.name}"


# ---------------------------------------------------------------------------
# operators shared by the interpreter (BINARY_OP, COMPARE_OP, UNARY_*)

BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift,
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
    ">>=": operator.irshift,
}
COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
           ">": operator.gt, ">=": operator.ge}
_SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}
_OPERATOR_FNS = {v: k for k, v in {**BINARY, **COMPARE}.items()}


def binary_op(tx, op: str, a: Value, b: Value) -> Value:
    fn = BINARY[op]
    if a.is_tensor() or b.is_tensor():
        if op.endswith("=") and a.is_tensor():
            return tx.graph.call("call_function", fn, (a, b), {})
        if not a.is_tensor() and not b.is_constant() and not b.is_tensor():
            raise Unsupported(f"operator {op} between {a.describe()} and {b.describe()}", kind="unsupported-operation")
        return tx.graph.call("call_function", BINARY[op.rstrip("=")] if op.endswith("=") else fn, (a, b), {})
    if scalars.involved(a, b):  # a Python float known at run time: a recipe, not a folded constant
        out = scalars.binary(tx, op, a, b)
        if out is not NotImplemented:
            return out
    if a.is_constant() and b.is_constant():
        return fold(tx, fn, [a, b], {}, f"operator {op}")
    for left, right in ((a, b),):
        handler = getattr(left, "binary_op", None)
        if handler is not None:
            out = handler(tx, op.rstrip("=") if op.endswith("=") and not left.mutable else op, right)
            if out is not NotImplemented:
                if op.endswith("=") and isinstance(left, ListValue) and op == "+=":
                    left._check_mutable()
                    left.items[:] = out.items
                    return left
                return out
    reflected = getattr(b, "rbinary_op", None)  # the right operand's __r<op>__
    if reflected is not None:
        out = reflected(tx, op.rstrip("="), a)
        if out is not NotImplemented:
            return out
    raise Unsupported(f"operator {op} between {a.describe()} and {b.describe()}", kind="unsupported-operation")


def compare(tx, a: Value, op: str, b: Value) -> Value:
    if op in ("is", "is not"):
        same = _identical(tx, a, b)
        return ConstantValue(same if op == "is" else not same)
    if op in ("in", "not in"):
        if a.is_constant() and b.is_constant() and not _has_symbolic([a, b], {}):
            # the real `in` on the real constants (substring search, range arithmetic...)
            found = fold(tx, operator.contains, [b, a], {}, f"operator {op}").truth(tx)
            return ConstantValue(found if op == "in" else not found)
        found = b.contains(tx, a)
        from autograph.capture.values.run_time import RunTimeValue
        if isinstance(found, RunTimeValue):  # known only at run time
            return found if op == "in" else RunTimeValue(operator.not_, [found], bool, f"`not` {found.what}")
        found = found.truth(tx)
        return ConstantValue(found if op == "in" else not found)
    fn = COMPARE[op]
    if a.is_tensor() or b.is_tensor():
        return tx.graph.call("call_function", fn, (a, b), {})
    if scalars.involved(a, b):
        out = scalars.compare(tx, a, op, b)
        if out is not NotImplemented:
            return out
    if a.is_constant() and b.is_constant():
        return fold(tx, fn, [a, b], {}, f"operator {op}")
    for left, right, sym in ((a, b, op), (b, a, _SWAPPED[op])):  # a value's own comparison model
        handler = getattr(left, "compare_op", None)
        if handler is not None:
            out = handler(tx, sym, right)
            if out is not NotImplemented:
                return out
    if op in ("==", "!="):
        try:
            ra, rb = a.real_value(), b.real_value()
        except Unsupported:
            ra = rb = None
        if ra is not None and rb is not None:
            eq = ra is rb or (type(ra) is type(rb) and ra == rb) if not isinstance(ra, torch.Tensor) else ra is rb
            if type(ra) is type(rb):  # objects of one class: the answer rests on which objects they are
                _pin_identity(tx, a, ra)
                _pin_identity(tx, b, rb)
            return ConstantValue(eq if op == "==" else not eq)
        if type(a) is not type(b) and not (a.is_constant() or b.is_constant()):
            pass
        ita, itb = _seq(a), _seq(b)
        if ita is not None and itb is not None:
            eq = a.python_type() is b.python_type() and len(ita) == len(itb) and all(
                compare(tx, x, "==", y).truth(tx) for x, y in zip(ita, itb))
            return ConstantValue(eq if op == "==" else not eq)
        if a is b:
            return ConstantValue(op == "==")
        if (a.is_constant() and a.as_python_constant() is None) or (b.is_constant() and b.as_python_constant() is None):
            return ConstantValue(op == "!=")
        if _identity_equality(a) and _identity_equality(b):  # object.__eq__ on both sides: `is`
            same = _identical(tx, a, b)
            return ConstantValue(same if op == "==" else not same)
    raise Unsupported(f"comparison {op} between {a.describe()} and {b.describe()}", kind="unsupported-operation")


def _identity_equality(v: Value) -> bool:
    """``==``/``!=`` of ``v`` is ``object``'s: identity (no class in its MRO defines either)."""
    try:
        cls = v.python_type()
    except Unsupported:
        return False
    if not isinstance(cls, type) or isinstance(v, (ConstantValue,)) or v.is_tensor():
        return False
    from autograph.capture.values.base import mro_lookup
    return mro_lookup(cls, "__eq__")[0] is object and mro_lookup(cls, "__ne__")[0] is object


def _seq(v):
    from autograph.capture.values.containers import BaseSequenceValue
    return v.items if isinstance(v, BaseSequenceValue) else None


def _input_source(tx, tensor):
    """The source of the graph input behind tensor value ``tensor``."""
    for source, _, node in tx.graph.inputs:
        if node is tensor.node:
            return source
    return tensor.source


def _identical(tx, a: Value, b: Value) -> bool:
    if a is b:
        return True
    if a.is_constant() and b.is_constant():
        x, y = a.as_python_constant(), b.as_python_constant()
        if isinstance(x, (tuple,)) or isinstance(y, tuple):
            return False
        return x is y
    if a.is_tensor() or b.is_tensor():
        if a.is_tensor() and b.is_tensor():
            # an in-place op returns its input object itself, and fake tensors keep that identity
            if a.node is b.node or a.fake is b.fake:
                return True
            if a.node.op == "placeholder" and b.node.op == "placeholder":
                tx.guards.distinct(_input_source(tx, a), _input_source(tx, b))  # one tensor may come twice
            return False
        return False
    try:
        ra, rb = a.real_value(), b.real_value()
    except Unsupported:
        pass
    else:
        same = ra is rb
        if same or type(ra) is type(rb):  # the answer rests on identity, not on guarded types
            _pin_identity(tx, a, ra)
            _pin_identity(tx, b, rb)
        return same
    if a.mutable or b.mutable:
        return False
    try:
        if a.python_type() is not b.python_type():
            return False  # objects of different types are never the same object
    except Unsupported:
        pass
    raise Unsupported(f"identity test between {a.describe()} and {b.describe()}", kind="unsupported-operation")


def _pin_identity(tx, value: Value, real) -> None:
    """An ``is`` answered from real objects holds for later calls only while the objects
    reached through sources are the same ones: modules and user objects, otherwise guarded
    by class and contents, get an identity guard here."""
    source = getattr(value, "source", None)
    if source is not None and not value.is_constant():
        tx.guards.id_(source, real)


# ---------------------------------------------------------------------------
# builtin functions

_BREAK_BUILTINS = {
    print: "call to print() — a Python side effect",
    input: "call to input() — a Python side effect",
    open: "call to open() — a Python side effect",
    exec: "call to exec()", eval: "call to eval()", breakpoint: "call to breakpoint()",
    setattr: "setattr() — a side effect", delattr: "delattr() — a side effect",
    id: "id() of a value", globals: "globals()", locals: "locals()", vars: "vars()",
    __import__: "import at run time",
}


class BuiltinValue(Value):
    def __init__(self, fn: Callable):
        self.fn = fn

    def describe(self):
        return f"builtin {getattr(self.fn, '__name__', self.fn)}"

    def real_value(self):
        return self.fn

    def python_type(self):
        return type(self.fn)

    def call(self, tx, args, kwargs):
        if self.fn in (setattr, delattr) and not kwargs and len(args) == (3 if self.fn is setattr else 2) \
                and args[1].is_constant() and type(args[1].as_python_constant()) is str:
            # setattr(o, "name", v) / delattr(o, "name") are STORE_ATTR / DELETE_ATTR
            name = args[1].as_python_constant()
            if self.fn is setattr:
                args[0].setattr(tx, name, args[2])
                return ConstantValue(None)
            delete = getattr(args[0], "delattr", None)
            if delete is not None:
                delete(tx, name)
                return ConstantValue(None)
        if self.fn in _BREAK_BUILTINS:
            raise Unsupported(_BREAK_BUILTINS[self.fn],
                              kind="import-in-function" if self.fn is __import__ else "side-effect"
                              if self.fn in (print, input, open, setattr, delattr) else "unsupported-call")
        if scalars.involved(*args):  # math.sqrt(dt), abs(dt), round(dt, 3) on a run-time float
            out = scalars.call(tx, self.fn, args, kwargs)
            if out is not NotImplemented:
                return out
        handler = _BUILTIN_HANDLERS.get(self.fn)
        if handler is not None:
            out = handler(tx, *args, **kwargs)
            if out is not NotImplemented:
                return out
        if self.fn in _OPERATOR_FNS and len(args) == 2 and not kwargs:
            sym = _OPERATOR_FNS[self.fn]
            return compare(tx, args[0], sym, args[1]) if sym in COMPARE else binary_op(tx, sym, *args)
        if any(a.is_tensor() for a in args) and getattr(self.fn, "__module__", None) in ("_operator", "operator"):
            return tx.graph.call("call_function", self.fn, tuple(args), kwargs)
        if _all_constant(args, kwargs):
            return fold(tx, self.fn, args, kwargs, getattr(self.fn, "__name__", "builtin"))
        raise Unsupported(f"unsupported: {getattr(self.fn, '__name__', self.fn)}() on "
                          + ", ".join(a.describe() for a in args), kind="unsupported-call")

    def reconstruct(self, cg):
        return cg.const(self.fn)


def _const_int(v: Value) -> int:
    return v.as_python_constant()


def _len(tx, obj):
    return ConstantValue(obj.length(tx))


def _class_info(cls: Value):
    """The real class (or tuple of classes) an isinstance/issubclass test names."""
    from autograph.capture.values.containers import TupleValue
    if isinstance(cls, TupleValue):
        return tuple(_class_info(c) for c in cls.items)
    return cls.as_python_constant() if cls.is_constant() else cls.real_value()


def _isinstance(tx, obj, cls):
    classes = _class_info(cls)
    try:
        t = obj.python_type()
    except Unsupported:
        raise
    if obj.is_tensor():
        return ConstantValue(_tensor_isinstance(obj, classes))
    return ConstantValue(issubclass(t, classes))


def _tensor_isinstance(obj, classes) -> bool:
    classes = classes if isinstance(classes, tuple) else (classes,)
    for c in classes:
        if c is torch.nn.Parameter:
            if getattr(obj, "input_cls", None) is torch.nn.Parameter:  # a parameter input (TENSOR_MATCH'd)
                return True
            continue
        if isinstance(c, type) and (issubclass(torch.Tensor, c) or issubclass(obj.python_type(), c)):
            return True  # python_type: a value modelling a subclass (AsyncCollectiveTensor)
    return False


def _getattr(tx, obj, name, default=None):
    try:
        return obj.getattr(tx, name.as_python_constant())
    except Unsupported as exc:
        if default is not None and "AttributeError" in exc.reason:
            return default
        raise


def _hasattr(tx, obj, name):
    try:
        obj.getattr(tx, name.as_python_constant())
        return ConstantValue(True)
    except Unsupported as exc:
        if "AttributeError" in exc.reason:
            return ConstantValue(False)
        raise


def _range(tx, *args):
    return ConstantValue(range(*(_const_int(a) for a in args)))


def _enumerate(tx, it, start=None):
    s = _const_int(start) if start is not None else 0
    return ListIteratorValue([TupleValue([ConstantValue(i + s), v]) for i, v in enumerate(it.iter_items(tx))])


def _zip(tx, *its, strict=None):
    lists = [i.iter_items(tx) for i in its]
    if strict is not None and strict.as_python_constant() and len({len(l) for l in lists}) > 1:
        raise Unsupported("ValueError from zip(strict=True)", generic=True, kind="python-exception")
    return ListIteratorValue([TupleValue(list(t)) for t in zip(*lists)])


def _reversed(tx, it):
    return ListIteratorValue(list(reversed(it.iter_items(tx))))


def _iter(tx, it):
    if isinstance(it, ListIteratorValue):
        return it
    return ListIteratorValue(it.iter_items(tx))


def _next(tx, it, default=None):
    if not isinstance(it, ListIteratorValue):
        raise Unsupported("next() on a non-iterator value", kind="unsupported-operation")
    item = it.next(tx)
    if item is None:
        if default is not None:
            return default
        raise Unsupported("StopIteration from next()", generic=True, exc=StopIteration(), kind="python-exception")
    return item


def _minmax(fn):
    def handler(tx, *args, **kwargs):
        items = args[0].iter_items(tx) if len(args) == 1 else list(args)
        if all(i.is_constant() for i in items) and _all_constant([], kwargs):
            return fold(tx, fn, [TupleValue(items)] if True else items, kwargs, fn.__name__)
        if len(items) == 2 and not kwargs and any(i.is_tensor() for i in items):
            return NotImplemented
        return NotImplemented
    return handler


def _sum(tx, it, start=None):
    items = it.iter_items(tx)
    total = start if start is not None else ConstantValue(0)
    for item in items:
        total = binary_op(tx, "+", total, item)
    return total


def _lazy_items(tx, it):
    """Items of ``it`` one at a time (an iterator/generator is advanced only as far as consumed)."""
    if isinstance(it, ListIteratorValue):
        while (item := it.next(tx)) is not None:
            yield item
    else:
        yield from it.iter_items(tx)


def _all_any(is_all):
    def handler(tx, it):
        for item in _lazy_items(tx, it):  # short-circuits like Python: later items are not evaluated
            t = item.truth(tx)
            if is_all and not t:
                return ConstantValue(False)
            if not is_all and t:
                return ConstantValue(True)
        return ConstantValue(is_all)
    return handler


def _abs(tx, x):
    if x.is_tensor():
        return tx.graph.call("call_function", torch.abs, (x,), {})
    return NotImplemented


def _bool(tx, x=None):
    if x is None:
        return ConstantValue(False)
    return ConstantValue(x.truth(tx))


def _tuple(tx, it=None):
    return TupleValue(it.iter_items(tx) if it is not None else [])


def _list(tx, it=None):
    return ListValue(it.iter_items(tx) if it is not None else [])


def _dict(tx, it=None, **kwargs):
    from autograph.capture.values.containers import mapping_items
    out = DictValue({})
    if it is not None:
        try:
            is_mapping = hasattr(it.python_type(), "keys")
        except Unsupported:
            is_mapping = False
        if is_mapping:  # dict(m): m.keys() and m[k] (a dict: its items)
            for k, v in mapping_items(tx, it):
                out.items[out._key(k)] = v
        else:
            for i, pair in enumerate(it.iter_items(tx)):
                kv = pair.iter_items(tx)
                if len(kv) != 2:
                    exc = ValueError(f"dictionary update sequence element #{i} has length {len(kv)}; 2 is required")
                    raise Unsupported(f"ValueError: {exc}", generic=True, exc=exc, kind="python-exception")
                out.items[out._key(kv[0])] = kv[1]
    out.items.update(kwargs)
    return out


def _type(tx, x):
    return tx.wrap(x.python_type(), None, trusted=True)


def _callable(tx, x):
    from autograph.capture.values.functions import BoundMethodValue, NestedFunctionValue, UserFunctionValue
    from autograph.capture.values.modules import ModuleValue
    if isinstance(x, (UserFunctionValue, NestedFunctionValue, BoundMethodValue, ModuleValue, BuiltinValue)):
        return ConstantValue(True)
    try:
        return ConstantValue(callable(x.real_value()))
    except Unsupported:
        if x.is_constant() or x.is_tensor():
            return ConstantValue(callable(x.as_python_constant()) if x.is_constant() else False)
    # callable(x) is whether x's type defines __call__ (its tp_call slot); not hasattr(type, ...),
    # which finds the metaclass's type.__call__ on every class
    return ConstantValue(mro_lookup(x.python_type(), "__call__")[0] is not None)


def _map(tx, fn, *its):
    lists = [i.iter_items(tx) for i in its]
    return ListIteratorValue([tx.call(fn, list(t), {}) for t in zip(*lists)])


def _filter(tx, fn, it):
    out = []
    for item in it.iter_items(tx):
        keep = item.truth(tx) if (fn.is_constant() and fn.as_python_constant() is None) else \
            tx.call(fn, [item], {}).truth(tx)
        if keep:
            out.append(item)
    return ListIteratorValue(out)


def _sorted(tx, it, key=None, reverse=None):
    """``sorted``: the real sort on constant sort keys (the items themselves, or ``key(item)``
    called as Python would, once per item in order); the items keep their values (stable)."""
    items = it.iter_items(tx)
    keys = [tx.call(key, [i], {}) for i in items] if key is not None and not (
        key.is_constant() and key.as_python_constant() is None) else items
    if not all(k.is_constant() and not _has_symbolic([k], {}) for k in keys):
        raise Unsupported("sorted() on non-constant items", kind="unsupported-operation")
    flag = bool(reverse.as_python_constant()) if reverse is not None else False
    real = [k.as_python_constant() for k in keys]
    try:
        order = sorted(range(len(items)), key=real.__getitem__, reverse=flag)
    except TypeError as exc:
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
    return ListValue([items[i] for i in order])


def _super(tx, *args):
    raise Unsupported("super()", kind="unsupported-call")  # replaced by values.user_objects when installed


def _repr(tx, value=None, *rest, **kwargs):
    if value is not None and not rest and not kwargs:
        if _default_repr(value):
            from autograph.capture.values.run_time import RunTimeValue
            return RunTimeValue(repr, [value], str, f"repr() of {value.describe()}")
        return _python_text(tx, repr, value)
    return NotImplemented


def _python_text(tx, fn, value: Value):
    """``str(o)``/``repr(o)`` of an object whose class defines ``__str__``/``__repr__`` in
    Python: the method inlined (``str`` falls back on ``__repr__`` as ``object.__str__`` does);
    the result must be a ``str``, else Python raises TypeError at run time (a break)."""
    try:
        kind = value.python_type()
    except Unsupported:
        return NotImplemented
    if isinstance(value, ConstantValue) or not isinstance(kind, type) or type(kind) is not type:
        return NotImplemented
    name = "__repr__"
    if fn is str and mro_lookup(kind, "__str__")[1] is not object.__str__:
        name = "__str__"
    method = mro_lookup(kind, name)[1]
    if type(method) is not types.FunctionType:
        return NotImplemented
    from autograph.capture.values.functions import UserFunctionValue
    out = UserFunctionValue(method).call(tx, [value], {})
    try:
        text_type = out.python_type()
    except Unsupported:
        text_type = None
    if text_type is not str:
        raise Unsupported(f"{name} of {value.describe()} returned {out.describe()}, not a str", generic=True, kind="python-exception")
    return out


def _default_repr(value: Value) -> bool:
    """``str``/``repr`` of ``value`` is ``object.__repr__``'s (type name and address), which
    reads nothing else that could change before the transformed code calls it."""
    try:
        kind = value.python_type()
    except Unsupported:
        return False
    if not isinstance(kind, type) or isinstance(value, ConstantValue) or type(kind) is not type:
        return False
    return mro_lookup(kind, "__repr__")[1] is object.__repr__ and mro_lookup(kind, "__str__")[1] is object.__str__


def _float_int(kind):
    def handler(tx, x=None, *rest):
        if x is not None and x.is_tensor():
            raise Unsupported(f"`{kind.__name__}(tensor)` reads a tensor value into Python",
                              kind="data-dependent-branch")
        return NotImplemented
    return handler


_BUILTIN_HANDLERS: dict[Any, Callable] = {
    len: _len, isinstance: _isinstance, getattr: _getattr, hasattr: _hasattr, range: _range,
    enumerate: _enumerate, zip: _zip, reversed: _reversed, iter: _iter, next: _next,
    min: _minmax(min), max: _minmax(max), sum: _sum, all: _all_any(True), any: _all_any(False),
    abs: _abs, bool: _bool, repr: _repr, tuple: _tuple, list: _list, dict: _dict, type: _type, callable: _callable,
    map: _map, filter: _filter, sorted: _sorted, super: _super, float: _float_int(float),
    int: _float_int(int), operator.getitem: lambda tx, a, b: tx.getitem(a, b),
    operator.not_: lambda tx, a: ConstantValue(not a.truth(tx)),
    operator.neg: lambda tx, a: tx.unary("-", a), operator.truth: lambda tx, a: ConstantValue(a.truth(tx)),
}


def call_builtin_type(tx, cls: type, args, kwargs) -> Value:
    """Calling a class: builtin value types are handled; others are a break."""
    if cls in (int, float) and scalars.involved(*args):
        out = scalars.call(tx, cls, args, kwargs)
        if out is not NotImplemented:
            return out
    handler = _BUILTIN_HANDLERS.get(cls)
    if handler is not None:
        out = handler(tx, *args, **kwargs)
        if out is not NotImplemented:
            return out
    if cls in (str, repr) and len(args) == 1 and not kwargs:
        from autograph.capture.values.objects import ClassValue
        if isinstance(args[0], ClassValue):
            return ConstantValue(cls(args[0].cls))
        try:
            real = args[0].real_value()
        except Unsupported:
            real = None
        if isinstance(real, BaseException):
            return ConstantValue(cls(real))
        if _default_repr(args[0]):  # "<m.C object at 0x...>": the address is known only at run time
            from autograph.capture.values.run_time import RunTimeValue
            return RunTimeValue(cls, [args[0]], str, f"{cls.__name__}() of {args[0].describe()}")
        if cls is str:
            out = _python_text(tx, str, args[0])
            if out is not NotImplemented:
                return out
    if cls is torch.Size:
        items = args[0].iter_items(tx) if args else []
        if all(i.is_constant() for i in items):
            return SizeValue(items)
    if cls in (torch.device, torch.dtype) or cls in (int, float, str, complex, slice, set, frozenset, bytes) \
            or cls is object:
        if _all_constant(args, kwargs):
            return fold(tx, cls, args, kwargs, cls.__name__)
    if isinstance(cls, type) and issubclass(cls, BaseException) and _all_constant(args, kwargs):
        return fold(tx, cls, args, kwargs, cls.__name__)
    for hook in CLASS_CALL_HOOKS:
        out = hook(tx, cls, args, kwargs)
        if out is not NotImplemented:
            return out
    raise Unsupported(f"unsupported: creating a {cls.__qualname__} object", kind="object-construction")


# ``hook(tx, cls, args, kwargs) -> Value | NotImplemented`` for classes not handled above
# (user-defined classes: autograph/capture/values/user_objects.py)
CLASS_CALL_HOOKS: list[Callable] = []


# ---------------------------------------------------------------------------
# torch functions

_TORCH_BREAKS = {
    "manual_seed", "seed", "set_grad_enabled", "no_grad", "enable_grad", "inference_mode",
    "set_default_dtype", "set_default_device", "save", "load", "synchronize", "set_printoptions",
    "use_deterministic_algorithms", "compile", "set_num_threads", "get_rng_state", "set_rng_state",
}


# ``fn -> handler(tx, args, kwargs) -> Value | NotImplemented``: torch functions answered at
# capture time (``torch.compiler.is_compiling()``, ``torch.finfo``…: values/torch_objects.py)
TORCH_CALL_OVERRIDES: dict[Any, Callable] = {}
# torch.func transforms keep interpreter state in C (vmap/grad levels): not interpreted
_TRANSFORM_MODULES = ("torch._functorch", "torch.func", "torch.autograd.forward_ad")


class TorchFunctionValue(Value):
    """A torch function, ``torch.nn.functional`` function or Tensor method descriptor."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def describe(self):
        return f"{getattr(self.fn, '__module__', 'torch')}.{getattr(self.fn, '__name__', self.fn)}"

    def real_value(self):
        return self.fn

    def call(self, tx, args, kwargs):
        name = getattr(self.fn, "__name__", "")
        if name in _TORCH_BREAKS:
            raise Unsupported(f"unsupported: torch.{name}() changes global state", kind="side-effect")
        if self.fn is torch.is_grad_enabled:
            return ConstantValue(torch.is_grad_enabled())
        override = TORCH_CALL_OVERRIDES.get(self.fn)
        if override is not None:
            out = override(tx, args, kwargs)
            if out is not NotImplemented:
                return out
        if self.fn in (torch.is_tensor,) and len(args) == 1:
            return ConstantValue(args[0].is_tensor())
        try:
            return tx.graph.call("call_function", self.fn, tuple(args), kwargs)
        except Unsupported as exc:
            # a query without tensor arguments (torch.cuda.is_available(), is_scripting(), ...)
            if _all_constant(args, kwargs) and isinstance(self.fn, types.FunctionType):
                result = fold(tx, self.fn, args, kwargs, self.describe())
                if not result.is_tensor():
                    return result
            if exc.reason.endswith("passed to a torch operation") and type(self.fn) is types.FunctionType \
                    and not (self.fn.__module__ or "").startswith(_TRANSFORM_MODULES):
                # a Python function of torch taking a value that is no graph argument (a class,
                # a function, a Python object): interpreted like user code instead
                from autograph.capture.values.functions import UserFunctionValue
                try:
                    return UserFunctionValue(self.fn).call(tx, list(args), dict(kwargs))
                except Unsupported:
                    pass
            raise

    def reconstruct(self, cg):
        return cg.const(self.fn)
