"""Builtins, ``operator``/``math`` on constants (torch functions: families/torch_calls.py)."""
from __future__ import annotations

import operator
import re
import types
from typing import Any, Callable

import torch

from autograph.capture.core.breaks import FRAME_INSPECTION, Unsupported
from autograph.capture.core.capture_warnings import evaluate_quietly
from autograph.capture.core.base import Value, mro_lookup
from autograph.capture.families import scalars
from autograph.capture.families import numpy_ints
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.frames import refuse_frame_inspection
from autograph.capture.families.containers import DictValue, ListIteratorValue, ListValue, SizeValue, TupleValue
from autograph.capture.core.registry import BUILTIN_HANDLERS, CLASS_CALL_HOOKS, provide_protocol_helper, register_builtin


def _all_constant(args, kwargs) -> bool:
    return all(a.is_constant() for a in args) and all(v.is_constant() for v in kwargs.values())


def fold(tx, fn: Callable, args, kwargs, name: str) -> Value:
    """Run ``fn`` on the real constant values now; its exception is raised natively later.

    With a symbolic number among the arguments (a dynamic size or int input), the run on the
    symbol decides nothing Python observes: text made from it is a run-time value (the real
    ``str``/``format`` on the real int after the graph), and a result that is not torch's own
    symbolic arithmetic (an exception, ``hash``, a non-number) is recomputed on the specialised
    numbers (guarded: the entry serves only calls with these values)."""
    symbolic = _has_symbolic(args, kwargs)
    if symbolic and fn in _TEXT_FUNCTIONS:
        return _run_time_text(fn, args, kwargs, name)
    from autograph.capture.families.fresh import RealArguments  # new objects are made anew per call
    real = RealArguments(list(args) + list(kwargs.values()))
    reals = real.values[:len(args)]
    kw_reals = dict(zip(kwargs, real.values[len(args):]))
    _guard_symbolic_divisor(fn, reals)
    if symbolic and any(type(r).__module__ == "numpy" for r in reals + list(kw_reals.values())):
        # NumPy's result types (np.float64, np.int32 wrapping) are not torch's symbolic algebra
        return _fold_specialised(tx, fn, args, kwargs, name)
    try:
        result = evaluate_quietly(fn, reals, kw_reals, f"{name}()")  # a warning is the run's, at each call
    except Unsupported:
        raise
    except Exception as exc:
        if symbolic:
            return _fold_specialised(tx, fn, args, kwargs, name)
        raise Unsupported(f"{name}() raised {type(exc).__name__}", generic=True, exc=exc, kind="python-exception")
    real.check_unchanged(name)
    if symbolic and isinstance(result, (str, bytes)):
        # text made from a symbolic size shows its symbol ('s9'), not the run's value (str.format,
        # str.join, ...): what the text says is known only at run time
        return _run_time_text(fn, args, kwargs, name)
    if symbolic and not _symbolic_arithmetic(result):
        return _fold_specialised(tx, fn, args, kwargs, name)
    # a set operator on builtin operands returns a new set or its left operand (a real copy)
    return real.wrap_result(tx, result, name, own=fn in _SET_ALGEBRA)


_SET_ALGEBRA = (operator.or_, operator.and_, operator.xor, operator.sub,
                operator.ior, operator.iand, operator.ixor, operator.isub)


def _symbolic_arithmetic(result: Any) -> bool:
    """A result torch's symbolic algebra computed: numbers (symbolic or plain), tuples and lists
    of them (``divmod(n, 2)``, ``[n] * 2``); sets and dicts hash their items: not these."""
    if type(result) in (tuple, list, torch.Size):  # ``x.shape + (n,)``
        return all(_symbolic_arithmetic(r) for r in result)
    return type(result) in (int, float, bool) or isinstance(result, (torch.SymInt, torch.SymFloat, torch.SymBool))


def _fold_specialised(tx, fn: Callable, args, kwargs, name: str) -> Value:
    """``fn`` on the symbolic arguments made real numbers (each one guarded by the ShapeEnv)."""
    from autograph.capture.core.constants import specialise

    def real(v: Value) -> Value:
        return ConstantValue(_specialise_deep(v.as_python_constant(), specialise))
    real_args, real_kwargs = [real(a) for a in args], {k: real(v) for k, v in kwargs.items()}
    if _has_symbolic(real_args, real_kwargs):  # a symbol inside an object specialising cannot reach
        raise Unsupported(f"{name}() of a dynamic number that cannot be made a real one here", kind="dynamic-shape")
    return fold(tx, fn, real_args, real_kwargs, name)


def _specialise_deep(x: Any, specialise: Callable) -> Any:
    if type(x) in (tuple, list, set, frozenset):
        return type(x)(_specialise_deep(i, specialise) for i in x)
    return specialise(x)


def _run_time_text(fn: Callable, args, kwargs, name: str) -> Value:
    """``fn(*args)`` making text from a symbolic number: the transformed code calls the real
    ``fn`` on the real numbers after the graph (core/run_time.py)."""
    if kwargs or not all(_immutable(a.as_python_constant()) for a in args):
        # a list/dict/set made or changed in the call may change before the transformed code reads
        # it after the graph: the text must be made at its program point
        raise Unsupported(f"{name}() makes text from a dynamic size (its value is known only at run time)",
                          kind="dynamic-shape")
    from autograph.capture.core.run_time import RunTimeValue
    return RunTimeValue(fn, list(args), str if fn in (str, repr, format, ascii) else _text_type(fn, args),
                        f"{name}() of a dynamic number")


def _immutable(x: Any) -> bool:
    """Numbers (symbolic ones too), text and tuples/frozensets of them: nothing can change them
    between their program point and the transformed code's use after the graph."""
    import torch
    if isinstance(x, (tuple, frozenset)):
        return all(_immutable(i) for i in x)
    return x is None or isinstance(x, (int, float, complex, str, bytes, torch.SymInt, torch.SymFloat,
                                       torch.SymBool))


def _text_type(fn: Callable, args) -> type:
    owner = getattr(fn, "__self__", None)
    return bytes if isinstance(owner, bytes) else str


_TEXT_FUNCTIONS = {str, repr, format, ascii}
_DIVISIONS = {operator.floordiv, operator.mod, operator.truediv, operator.ifloordiv, operator.imod,
              operator.itruediv, divmod}


def _guard_symbolic_divisor(fn: Callable, reals: list) -> None:
    """``n // s`` with a dynamic size ``s``: the symbolic result does not say that a call with
    ``s == 0`` raises ZeroDivisionError, so the entry guards ``s != 0`` (a shape guard)."""
    import torch
    if fn in _DIVISIONS and len(reals) == 2 and isinstance(reals[1], (torch.SymInt, torch.SymFloat)):
        bool(reals[1] != 0)  # evaluated on the hint: records the guard, True (or False: 0 is constant)


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
# (compiled patterns and their matches: immutable C objects whose methods read only their arguments)
_IMMUTABLE_TYPES = (str, bytes, int, float, complex, bool, tuple, frozenset, type(None), re.Pattern, re.Match)


# Protocol methods whose whole point is an effect (a context entered or left, state set): a
# constant's one is never folded (``torch.device`` enters/leaves the torch function mode stack)
_EFFECT_METHODS = frozenset({"__enter__", "__exit__", "__aenter__", "__aexit__", "__init__", "__del__",
                             "__setattr__", "__delattr__", "__setitem__", "__delitem__", "__setstate__",
                             "__set__", "__delete__"})


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
            refuse_frame_inspection(self.fn)
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

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__"):
            # what the class's own method says (a bound builtin method answers the same)
            descriptor = getattr(self.obj.python_type(), self.name, None)
            if descriptor is not None and hasattr(descriptor, name):
                return ConstantValue(getattr(descriptor, name))
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        from autograph.capture.families.containers import BaseSequenceValue, DictValue
        from autograph.capture.families.sets import SetValue
        if isinstance(self.obj, (BaseSequenceValue, DictValue, SetValue)) \
                and type(self.obj).call_method is not Value.call_method:
            return self.obj.call_method(tx, self.name, args, kwargs)
        if self.obj.is_constant() and self.name in _EFFECT_METHODS \
                and not isinstance(self.obj.as_python_constant(), _IMMUTABLE_TYPES):
            # ``torch.device("cpu").__exit__(...)`` pops the process's mode stack: never run at capture
            raise Unsupported(f"{self.describe()} changes process or object state: runs in Python, at run time",
                              kind="side-effect")
        if self.obj.is_constant() and _all_constant(args, kwargs):
            return fold(tx, getattr(self.obj.as_python_constant(), self.name), args, kwargs, self.name)
        if self.obj.is_constant() and type(self.obj.as_python_constant()) is frozenset:
            from autograph.capture.families.set_subclasses import constant_set_method
            return constant_set_method(tx, self.obj, self.name, args, kwargs)  # ``fs.union(a_set)``
        if self.name == "join" and self.obj.is_constant() and len(args) == 1 and not kwargs \
                and type(self.obj.as_python_constant()) in (str, bytes):
            # ``sep.join(iterable)`` makes a list of the iterable first (PySequence_Fast), then joins
            from autograph.capture.families.containers import TupleValue
            items = TupleValue(list(args[0].iter_items(tx)))
            if items.is_constant():
                return fold(tx, self.obj.as_python_constant().join, [items], {}, self.name)
        if self.name == "format" and isinstance(self.obj.as_python_constant(), str):
            raise Unsupported("str.format on a non-constant value", kind="unsupported-operation")
        raise Unsupported(f"unsupported: {self.describe()}", kind="unsupported-call")

    def reconstruct(self, cg):
        return f"({cg.reconstruct(self.obj)}).{self.name}"  # `(3).__add__`: valid for any expression


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
    if numpy_ints.involved(a, b):  # a dynamic NumPy int: symbolic where NumPy's result is exact
        out = numpy_ints.binary(tx, op, a, b)
        if out is not NotImplemented:
            return out
    if scalars.involved(a, b) or scalars.int_to_float(fn, [a, b]):
        # a Python float known at run time (``dt * 2``, ``n / 10``): a recipe, not a folded constant
        out = scalars.binary(tx, op, a, b)
        if out is not NotImplemented:
            return out
    if a.is_constant() and b.is_constant() and not (op.endswith("=") and a.mutable):
        # (an in-place operator on a list of the call changes that list: its own binary_op below)
        return fold(tx, fn, [a, b], {}, f"operator {op}")
    from autograph.capture.families import user_operators
    out = user_operators.binary_op(tx, op, a, b)  # a user class's own __add__/__radd__/__iadd__...
    if out is not NotImplemented:
        return out
    for left, right in ((a, b),):
        handler = getattr(left, "binary_op", None)
        if handler is not None:
            out = handler(tx, op.rstrip("=") if op.endswith("=") and not left.mutable else op, right)
            if out is not NotImplemented:
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
        from autograph.capture.core.run_time import RunTimeValue
        if isinstance(found, RunTimeValue):  # known only at run time
            return found if op == "in" else RunTimeValue(operator.not_, [found], bool, f"`not` {found.what}")
        found = found.truth(tx)
        return ConstantValue(found if op == "in" else not found)
    fn = COMPARE[op]
    if a.is_tensor() or b.is_tensor():
        return tx.graph.call("call_function", fn, (a, b), {})
    if numpy_ints.involved(a, b):
        out = numpy_ints.compare(tx, a, op, b)
        if out is not NotImplemented:
            return out
    if scalars.involved(a, b) or scalars.int_to_float(fn, [a, b]):  # (``n > 4.5``: Python's comparison)
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
    from autograph.capture.families.rich_compare import rich_compare
    out = rich_compare(tx, a, op, b)  # a user class's own __eq__/__lt__/... (Python code, interpreted)
    if out is not NotImplemented:
        return out
    if op in ("==", "!="):
        eq = _equal_by_identity(tx, a, b)
        if eq is not None:
            return ConstantValue(eq if op == "==" else not eq)
        ita, itb = _seq(a), _seq(b)
        family = _sequence_family(a, b) if ita is not None and itb is not None else None
        if family is not None:
            # list/tuple equality (subclasses too: a named tuple equals the plain tuple of its
            # fields): same family, same length, elements by identity then ==
            eq = family is not False and len(ita) == len(itb) and all(
                identical_or_none(tx, x, y) or compare(tx, x, "==", y).truth(tx) for x, y in zip(ita, itb))
            return ConstantValue(eq if op == "==" else not eq)
        snapshots = [_mapping_snapshot(v) for v in (a, b)]
        if snapshots[0] is not None and snapshots[1] is not None:
            # dicts (subclasses too) of constants, neither overriding ==/!=: the real comparison
            # on real mappings of their base types (an OrderedDict pair compares order too)
            return ConstantValue(fn(*snapshots))
    if op in ("<", "<=", ">", ">="):
        ita, itb = _seq(a), _seq(b)
        if ita is not None and itb is not None and _sequence_family(a, b) and _plain_order(a, b):
            return _lexicographic(tx, ita, itb, op)
    raise Unsupported(f"comparison {op} between {a.describe()} and {b.describe()}", kind="unsupported-operation")


def _plain_order(a: Value, b: Value) -> bool:
    """Neither type overrides the ordering comparisons of its list/tuple base."""
    return all(getattr(t, name) is getattr(base, name) for t in (a.python_type(), b.python_type())
               for base in (list, tuple) if issubclass(t, base) for name in ("__lt__", "__le__", "__gt__", "__ge__"))


def _lexicographic(tx, xs: list, ys: list, op: str) -> Value:
    """``xs < ys`` as CPython orders lists and tuples: the first pair that is not the same object
    and not ``==`` decides with ``op`` (its result as the element comparison gives it, a tensor
    included); when one runs out first, the lengths decide (``sorted(d.items())`` on distinct keys
    compares only the keys)."""
    for x, y in zip(xs, ys):
        if identical_or_none(tx, x, y) or compare(tx, x, "==", y).truth(tx):
            continue
        return compare(tx, x, op, y)
    return ConstantValue(COMPARE[op](len(xs), len(ys)))


def _mapping_snapshot(v: Value) -> dict | None:
    """A real ``dict``/``OrderedDict`` equal to ``v`` now: ``v`` a dict (or an object of a dict
    subclass made during capture) whose ``==``/``!=`` are its base type's, holding constants."""
    import collections
    from autograph.capture.families.user_objects import UserObjectValue
    from autograph.capture.families.collections_values import RealContainerValue
    if isinstance(v, RealContainerValue) and isinstance(v.real, dict):  # its items are real objects
        base = collections.OrderedDict if isinstance(v.real, collections.OrderedDict) else dict
        plain = (int, float, str, bytes, bool, type(None))
        if type(v.real).__eq__ is base.__eq__ and type(v.real).__ne__ is base.__ne__ and all(
                type(k) in plain and type(x) in plain for k, x in v.real.items()):
            return base(v.real)
        return None
    if isinstance(v, UserObjectValue) and v.items is not None:
        d, cls = v.items, v.cls
    elif isinstance(v, DictValue):
        d, cls = v, v.kind
    else:
        return None
    base = collections.OrderedDict if issubclass(cls, collections.OrderedDict) else dict
    if cls.__eq__ is not base.__eq__ or cls.__ne__ is not base.__ne__ or d.has_identity_keys():
        return None
    if not all(x.is_constant() for x in d.items.values()):
        return None
    return base((k, x.as_python_constant()) for k, x in d.items.items())


def _equal_by_identity(tx, a: Value, b: Value) -> bool | None:
    """``a == b`` when neither type defines ``__eq__`` (modules, functions, classes, plain objects,
    exceptions): Python falls back to identity. None when a user ``__eq__`` (or an unknown
    type) would decide."""
    try:
        ta, tb = a.python_type(), b.python_type()
    except Unsupported:
        return None
    if _object_equality(ta) and _object_equality(tb):
        return identical_or_none(tx, a, b)
    for plain, lit in ((ta, tb), (tb, ta)):
        # a plain object against an exact builtin literal (`mode == "train"` with an Enum member):
        # str/int/... return NotImplemented for a foreign type, object.__eq__ too: identity, False
        if _object_equality(plain) and lit in _LITERALS and not issubclass(plain, lit):
            return False
    return None


_LITERALS = (str, bytes, int, float, complex, bool, type(None))


def _object_equality(cls: type) -> bool:
    """``==`` and ``!=`` of ``cls`` are ``object``'s (identity): no class in its MRO defines either."""
    return isinstance(cls, type) and cls.__eq__ is object.__eq__ and cls.__ne__ is object.__ne__


def _sequence_family(a: Value, b: Value) -> type | bool | None:
    """``list`` or ``tuple`` when ``==`` of ``a`` and ``b`` is that type's own comparison (both of the
    family, neither type overriding ``__eq__``/``__ne__``); False when they are of different
    families (``[1] == (1,)`` is False); None when a user ``__eq__`` decides."""
    ta, tb = a.python_type(), b.python_type()
    for family in (list, tuple):
        if issubclass(ta, family) and issubclass(tb, family):
            plain = all(t.__eq__ is family.__eq__ and t.__ne__ is family.__ne__ for t in (ta, tb))
            return family if plain else None
    own = any(t.__eq__ not in (list.__eq__, tuple.__eq__) or t.__ne__ not in (list.__ne__, tuple.__ne__)
              for t in (ta, tb))
    return None if own else False


def _seq(v):
    from autograph.capture.families.containers import BaseSequenceValue
    if isinstance(v, BaseSequenceValue):
        return v.items
    own = getattr(v, "sequence_items", None)  # an instance of a list subclass
    return own() if own is not None else None


def _input_source(tx, tensor):
    """The source of the graph input behind tensor value ``tensor``."""
    for source, _, node in tx.graph.inputs:
        if node is tensor.node:
            return source
    return tensor.source


def _identical(tx, a: Value, b: Value) -> bool:
    same = identical_or_none(tx, a, b)
    if same is None:
        raise Unsupported(f"identity test between {a.describe()} and {b.describe()}", kind="unsupported-operation")
    return same


_SINGLETONS = (None, True, False, Ellipsis, NotImplemented)


def identical_or_none(tx, a: Value, b: Value) -> bool | None:
    """``a is b``, or None when capture cannot know. An identity decided between objects passed
    in (or read from outside) is guarded: the same objects, or distinct ones, on later calls."""
    if a is b:
        return True
    if a.is_tensor() or b.is_tensor():
        if a.is_tensor() and b.is_tensor():
            # an in-place op returns its input object itself, and fake tensors keep that identity
            if a.node is b.node or a.fake is b.fake:
                return True
            if a.node.op == "placeholder" and b.node.op == "placeholder":
                tx.guards.distinct(_input_source(tx, a), _input_source(tx, b))  # one tensor may come twice
            return False
        return False
    oa, ob = _identity_of(a), _identity_of(b)
    if oa is _MADE or ob is _MADE:
        # an object the call made is never an object from outside, nor another value of the call
        return False
    if oa is not _UNKNOWN and ob is not _UNKNOWN:
        same = oa is ob
        _guard_identity(tx, a, b, oa, ob, same)
        return same
    try:
        if a.python_type() is not b.python_type():
            return False  # objects of different types are never the same object
    except Unsupported:
        pass
    return None


_MADE, _UNKNOWN = object(), object()


def _identity_of(v: Value) -> Any:
    """The real object ``v`` stands for; ``_MADE`` for an object made by this call (each such value
    is its own object); ``_UNKNOWN`` otherwise."""
    from autograph.capture.families.containers import BaseSequenceValue
    if v.identity is not None:  # containers read from outside keep their real object
        return v.identity
    if v.source is None and (v.mutable or isinstance(v, (BaseSequenceValue, DictValue))):
        return _MADE  # lists, tuples, dicts, iterators, user objects made during the call
    try:
        return v.real_value()
    except Unsupported:
        return _UNKNOWN


def _guard_identity(tx, a: Value, b: Value, oa: Any, ob: Any, same: bool) -> None:
    """Keep an identity decided on objects from outside true on later calls."""
    sa, sb = a.source, b.source
    if sa is None and sb is None:
        return  # fixed objects (pinned or trusted): their identity cannot change
    if sa is not None and sb is not None:
        if sa == sb:
            return
        if same:
            tx.guards.same_object(sa, sb)
        else:
            tx.guards.distinct(sa, sb)
        return
    src, other = (sa, ob) if sa is not None else (sb, oa)
    if any(other is s for s in _SINGLETONS):
        return  # the type/equality guard of the sourced value already decides this
    if same:
        tx.guards.id_(src, other)
    else:
        tx.guards.not_object(src, other)


# ---------------------------------------------------------------------------
# builtin functions

_BREAK_BUILTINS = {
    print: "call to print() — a Python side effect",
    input: "call to input() — a Python side effect",
    open: "call to open() — a Python side effect",
    exec: "call to exec()", eval: "call to eval()", breakpoint: "call to breakpoint()",
    setattr: "setattr() — a side effect", delattr: "delattr() — a side effect",
    globals: "globals()", locals: "locals()",
    __import__: "import at run time",
}


class BuiltinValue(Value):
    def __init__(self, fn: Callable):
        self.fn = fn

    def describe(self):
        return f"builtin {getattr(self.fn, '__name__', self.fn)}"

    def getattr(self, tx, name):
        """A builtin function's names (``next.__name__``: what ``assertRaises(E, next, g)`` reads)
        are fixed strings; other attributes as any value."""
        if name in ("__name__", "__qualname__") and isinstance(self.fn, types.BuiltinFunctionType):
            return ConstantValue(getattr(self.fn, name))
        return super().getattr(tx, name)

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
        from autograph.capture.families.frames import reads_callers_namespace
        if reads_callers_namespace(self.fn, args, kwargs):  # the module's globals, the function's locals
            raise Unsupported(f"{self.fn.__name__}() reads the calling frame's namespace", kind=FRAME_INSPECTION)
        if self.fn in _BREAK_BUILTINS:
            raise Unsupported(_BREAK_BUILTINS[self.fn],
                              kind="import-in-function" if self.fn is __import__ else "side-effect"
                              if self.fn in (print, input, open, setattr, delattr) else "unsupported-call")
        if scalars.involved(*args) or scalars.int_to_float(self.fn, list(args)):
            # math.sqrt(dt), abs(dt), round(dt, 3) on a run-time float; min(1.0, n) of a dynamic int
            out = scalars.call(tx, self.fn, args, kwargs)
            if out is not NotImplemented:
                return out
        handler = BUILTIN_HANDLERS.get(self.fn)
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
    from autograph.capture.families.containers import TupleValue
    if isinstance(cls, TupleValue):
        return tuple(_class_info(c) for c in cls.items)
    return cls.as_python_constant() if cls.is_constant() else cls.real_value()


def _isinstance(tx, obj, cls):
    """CPython's order of tests, metaclass checkers included (families/instance_checks.py; a
    tensor's type is its real class: an nn.Parameter read from a module, or passed in, is one)."""
    from autograph.capture.families.instance_checks import is_instance
    return ConstantValue(is_instance(tx, obj, _class_info(cls)))


def _issubclass(tx, cls, classinfo):
    """``issubclass`` on real classes: ``type``'s test run for real, a metaclass's Python
    ``__subclasscheck__`` inlined (families/instance_checks.py); others are left to Python."""
    from autograph.capture.families.instance_checks import is_subclass
    try:
        sub, info = _class_info(cls), _class_info(classinfo)
    except Unsupported:
        return NotImplemented
    answer = is_subclass(tx, cls, sub, info)
    return NotImplemented if answer is None else ConstantValue(answer)


def _tensor_isinstance(tx, obj, classes, by_class: bool) -> bool:
    """A class whose ``__instancecheck__`` reads the instance (``nn.Buffer``, ``nn.Parameter``:
    a flag set on the tensor) answers for the caller's tensor or the module's buffer as for the
    real one, guarded; tensors computed in the graph carry no flags (``by_class`` holds)."""
    real = tx.graph.real_tensor(obj)
    if real is None or isinstance(real, classes) == by_class:
        return by_class
    if obj.source is None:
        raise Unsupported("isinstance of a tensor whose class test reads flags on it, reached without "
                          "a guardable source", generic=True, kind="unsupported-torch-value")
    answer, source = not by_class, obj.source
    tx.guards.instance_answer(source, classes, answer)
    return answer


def _missing_attribute(exc: Unsupported) -> bool:
    """The lookup raised AttributeError, known exactly (and guarded to stay missing where it was
    decided: families/absence.py)."""
    return isinstance(exc.exc, AttributeError)


def _getattr(tx, obj, name, default=None):
    if not name.is_constant() or not isinstance(name.as_python_constant(), str):
        raise Unsupported("getattr() with a name that is not a constant string", kind="unsupported-operation")
    try:
        return obj.getattr(tx, name.as_python_constant())
    except Unsupported as exc:
        if default is not None and _missing_attribute(exc):
            return default
        raise


def _hasattr(tx, obj, name):
    if not name.is_constant() or not isinstance(name.as_python_constant(), str):
        raise Unsupported("hasattr() with a name that is not a constant string", kind="unsupported-operation")
    try:
        obj.getattr(tx, name.as_python_constant())
        return ConstantValue(True)
    except Unsupported as exc:
        if _missing_attribute(exc):
            return ConstantValue(False)
        raise


def _vars(tx, *args, **kwargs):
    """``vars(obj)`` is ``obj.__dict__``; ``vars()`` with no argument reads the frame: it breaks."""
    if not args and not kwargs:
        raise Unsupported("vars()", kind="unsupported-call")
    if len(args) != 1 or kwargs:
        return NotImplemented
    try:
        return args[0].getattr(tx, "__dict__")
    except Unsupported as exc:
        if _missing_attribute(exc):
            err = TypeError("vars() argument must have __dict__ attribute")
            raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception") from exc
        raise


def _range(tx, *args):
    if not all(a.is_constant() for a in args):
        raise Unsupported("range() of values that are not constants", kind="unsupported-operation")
    return fold(tx, range, list(args), {}, "range")  # range's own TypeError for a float, say


def _enumerate(tx, it, start=None):
    from autograph.capture.families.iterators import make_lazy
    return make_lazy(tx, enumerate, [it], start=_const_int(start) if start is not None else 0)


def _zip(tx, *its, strict=None):
    from autograph.capture.families.iterators import make_lazy
    return make_lazy(tx, zip, list(its), strict=bool(strict is not None and strict.truth(tx)))


def _reversed(tx, it):
    """``reversed(x)``: live over the call's lists, tuples and dicts; the items as they are for
    immutable constants and module lists (whose ``__reversed__`` is the sequence protocol)."""
    from autograph.capture.families.containers import BaseSequenceValue, DictViewValue, SeqIteratorValue
    from autograph.capture.families.modules import ModuleValue
    if isinstance(it, (BaseSequenceValue, DictValue)) or (
            isinstance(it, DictViewValue)):
        return SeqIteratorValue(it, reverse=True)
    if isinstance(it, ConstantValue) and isinstance(it.value, (str, bytes, range, tuple)):
        return ListIteratorValue([ConstantValue(v) for v in reversed(it.value)], cls=type(reversed(it.value)))
    if isinstance(it, ModuleValue):
        return ListIteratorValue(list(reversed(it.iter_items(tx))))
    raise Unsupported(f"reversed() of {it.describe()}", kind="unsupported-operation")


def _iter(tx, it, sentinel=None):
    if sentinel is not None:
        raise Unsupported("iter(callable, sentinel)", kind="unsupported-call")
    from autograph.capture.families.iterators import iterator_of
    return iterator_of(tx, it)


def _next(tx, it, default=None):
    from autograph.capture.families.iterators import advances
    if not advances(tx, it):
        raise Unsupported("next() on a non-iterator value", kind="unsupported-operation")
    if default is None and not isinstance(it, ListIteratorValue):
        return it.next_or_raise(tx)  # an iterator written in Python: its own StopIteration
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
            return fold(tx, fn, [TupleValue(items)], kwargs, fn.__name__)
        return NotImplemented
    return handler


def _sum(tx, it, start=None):
    items = it.iter_items(tx)
    if all(i.is_constant() for i in items) and (start is None or start.is_constant()):
        # the real sum (3.12+ sums floats with compensation: not a chain of `+`)
        return fold(tx, sum, [TupleValue(items)] + ([start] if start is not None else []), {}, "sum")
    total = start if start is not None else ConstantValue(0)
    for item in items:
        total = binary_op(tx, "+", total, item)
    return total


def _lazy_items(tx, it):
    """Items of ``it`` one at a time (an iterator/generator is advanced only as far as consumed)."""
    from autograph.capture.families.iterators import iterator_of
    iterator = iterator_of(tx, it)
    while (item := iterator.next(tx)) is not None:
        yield item


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


def _dict(tx, *args, **kwargs):
    from autograph.capture.families.containers import mapping_items
    if len(args) > 1:
        exc = TypeError(f"dict expected at most 1 argument, got {len(args)}")
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
    it = args[0] if args else None  # (a keyword named `it` is a key, as for dict itself)
    out = DictValue({})
    if it is not None:
        try:
            is_mapping = hasattr(it.python_type(), "keys")
        except Unsupported:
            is_mapping = False
        if is_mapping:  # dict(m): m.keys() and m[k] (a dict: its items)
            for k, v in mapping_items(tx, it):
                out.items[out._key(k, tx)] = v
        else:
            for i, pair in enumerate(it.iter_items(tx)):
                kv = pair.iter_items(tx)
                if len(kv) != 2:
                    exc = ValueError(f"dictionary update sequence element #{i} has length {len(kv)}; 2 is required")
                    raise Unsupported(f"ValueError: {exc}", generic=True, exc=exc, kind="python-exception")
                out.items[out._key(kv[0], tx)] = kv[1]
    out.items.update(kwargs)
    return out


def _type(tx, x):
    return tx.wrap(x.python_type(), None, trusted=True)


def _callable(tx, x):
    from autograph.capture.families.functions import BoundMethodValue, NestedFunctionValue, UserFunctionValue
    from autograph.capture.families.modules import ModuleValue
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
    from autograph.capture.families.iterators import make_lazy
    return make_lazy(tx, map, list(its), fn=fn)


def _filter(tx, fn, it):
    from autograph.capture.families.iterators import make_lazy
    return make_lazy(tx, filter, [it], fn=fn)


def _sorted(tx, it, key=None, reverse=None):
    from autograph.capture.families.containers import sorted_values
    return ListValue(sorted_values(tx, it.iter_items(tx), key, reverse))


def _super(tx, *args):
    raise Unsupported("super()", kind="unsupported-call")  # replaced by values.user_objects when installed


def text_snapshot(tx, value: Value) -> Any:
    """``value.text_snapshot()``, or the guarded one of a value whose class decides how it prints."""
    guarded = getattr(value, "guarded_text_snapshot", None)
    return guarded(tx) if guarded is not None else value.text_snapshot()


def _snapshot_text(fn, value: Value, tx=None) -> Value | None:
    """``str``/``repr`` of a container of constants, run on its real snapshot."""
    if value.is_constant():
        return None
    snapshot = value.text_snapshot() if tx is None else text_snapshot(tx, value)
    return None if snapshot is None else ConstantValue(fn(snapshot))


def _repr(tx, value=None, *rest, **kwargs):
    if value is not None and not rest and not kwargs:
        text = _snapshot_text(repr, value, tx)
        if text is not None:
            return text
        if _default_repr(value):
            from autograph.capture.core.run_time import RunTimeValue
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
    from autograph.capture.families.functions import UserFunctionValue
    out = UserFunctionValue(method).call(tx, [value], {})
    try:
        text_type = out.python_type()
    except Unsupported:
        text_type = None
    if text_type is not str:
        raise Unsupported(f"{name} of {value.describe()} returned {out.describe()}, not a str", generic=True, kind="python-exception")
    return out


def python_format_text(tx, value: Value, fn) -> Value | None:
    """``f"{value}"`` (``fn`` str) or ``f"{value!r}"`` (``fn`` repr) with an empty spec, when the
    class keeps ``object.__format__`` (which is ``str(value)``) and prints by a ``__str__``/
    ``__repr__`` written in Python: that method, inlined (the class entries guarded)."""
    try:
        kind = value.python_type()
    except Unsupported:
        return None
    from autograph.capture.families.user_objects import UserObjectValue
    if not isinstance(value, UserObjectValue):  # an instance made during capture: its class is plain
        return None
    if fn is str and mro_lookup(kind, "__format__")[1] is not object.__format__:
        return None
    name = "__str__" if fn is str and mro_lookup(kind, "__str__")[1] is not object.__str__ else "__repr__"
    method = mro_lookup(kind, name)[1]
    if type(method) is not types.FunctionType:
        return None
    for guarded in ("__format__", "__str__", "__repr__"):
        tx.guards.class_attr(kind, guarded)
    from autograph.capture.families.functions import UserFunctionValue
    out = UserFunctionValue(method).call(tx, [value], {})
    if not out.is_constant() or type(out.as_python_constant()) is not str:
        raise Unsupported(f"{name} of {value.describe()} gave {out.describe()}, not a known str",
                          kind="unsupported-operation")
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


_CORE_HANDLERS: dict[Any, Callable] = {
    len: _len, isinstance: _isinstance, issubclass: _issubclass, getattr: _getattr, hasattr: _hasattr, vars: _vars,
    range: _range,
    enumerate: _enumerate, zip: _zip, reversed: _reversed, iter: _iter, next: _next,
    min: _minmax(min), max: _minmax(max), sum: _sum, all: _all_any(True), any: _all_any(False),
    abs: _abs, bool: _bool, repr: _repr, tuple: _tuple, list: _list, dict: _dict, type: _type, callable: _callable,
    map: _map, filter: _filter, sorted: _sorted, super: _super, float: _float_int(float),
    int: _float_int(int), operator.getitem: lambda tx, a, b: tx.getitem(a, b),
    operator.setitem: lambda tx, a, b, c: (a.setitem(tx, b, c), ConstantValue(None))[1],
    operator.delitem: lambda tx, a, b: (a.delitem(tx, b), ConstantValue(None))[1],
    operator.contains: lambda tx, a, b: compare(tx, b, "in", a),
    operator.is_: lambda tx, a, b: compare(tx, a, "is", b),
    operator.is_not: lambda tx, a, b: compare(tx, a, "is not", b),
    operator.not_: lambda tx, a: ConstantValue(not a.truth(tx)),
    operator.neg: lambda tx, a: tx.unary("-", a), operator.truth: lambda tx, a: ConstantValue(a.truth(tx)),
}


def call_builtin_type(tx, cls: type, args, kwargs) -> Value:
    """Calling a class: builtin value types are handled; others are a break."""
    if cls in (int, float) and (scalars.involved(*args) or scalars.int_to_float(cls, list(args))):
        out = scalars.call(tx, cls, args, kwargs)
        if out is not NotImplemented:
            return out
    handler = BUILTIN_HANDLERS.get(cls)
    if handler is not None:
        out = handler(tx, *args, **kwargs)
        if out is not NotImplemented:
            return out
    if cls in (str, repr) and len(args) == 1 and not kwargs:
        from autograph.capture.families.objects import ClassValue
        if isinstance(args[0], ClassValue):
            return ConstantValue(cls(args[0].cls))
        try:
            real = args[0].real_value()
        except Unsupported:
            real = None
        if isinstance(real, BaseException):
            return ConstantValue(cls(real))
        if _default_repr(args[0]):  # "<m.C object at 0x...>": the address is known only at run time
            from autograph.capture.core.run_time import RunTimeValue
            return RunTimeValue(cls, [args[0]], str, f"{cls.__name__}() of {args[0].describe()}")
        if cls is str:
            text = _snapshot_text(str, args[0], tx)
            if text is not None:
                return text
            out = _python_text(tx, str, args[0])
            if out is not NotImplemented:
                return out
    if cls is torch.Size:
        items = args[0].iter_items(tx) if args else []
        if all(i.is_constant() for i in items):
            return SizeValue(items)
    if cls in (torch.device, torch.dtype) or cls in (int, float, str, complex, slice, set, frozenset, bytes):
        if _all_constant(args, kwargs):
            return fold(tx, cls, args, kwargs, cls.__name__)
    if isinstance(cls, type) and (cls is object or issubclass(cls, BaseException)):
        from autograph.capture.families import fresh  # made anew by every call
        out = fresh.construct(tx, cls, args, kwargs)
        if out is not NotImplemented:
            return out
    for hook in CLASS_CALL_HOOKS:
        out = hook(tx, cls, args, kwargs)
        if out is not NotImplemented:
            return out
    raise Unsupported(f"unsupported: creating a {cls.__qualname__} object", kind="object-construction")



def install() -> None:
    """Register the core builtins (``len``, ``zip``, ``super``, ``operator.*``, ...)."""
    for fn, handler in _CORE_HANDLERS.items():
        register_builtin(fn, handler)
    # the Value protocol's defaults (core/base.py, core/constants.py) use these
    provide_protocol_helper("list_iterator", ListIteratorValue)
    provide_protocol_helper("builtin_method", BuiltinMethodValue)
    provide_protocol_helper("identical_or_none", identical_or_none)
