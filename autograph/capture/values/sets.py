"""Sets and frozensets made during capture (or read from outside, by value), holding constants,
tensors or other objects hashed by identity.

Every operation runs the *real* ``set`` operation on a real set of keys: a constant is its
own key, a tensor (or an object whose ``__hash__`` is ``object.__hash__``) is keyed by its
identity. So membership, ``add``/``update``/``discard``, the operators and the comparison
methods behave exactly as Python's, and a set of constants iterates in the order the real
set would (same operations, same process). A set holding two or more identity-keyed objects
does not iterate at capture time: its order depends on object addresses.
"""
from __future__ import annotations

from typing import Any, Iterable

from autograph.capture.breaks import Unsupported, break_kind
from autograph.capture.values import registry
from autograph.capture.values import builtins as vb
from autograph.capture.values.base import Value
from autograph.capture.values.constants import ConstantValue
from autograph.guards import model

SET_ORDER = break_kind(
    "set-order", "the order of a set of tensors or objects depends on their addresses, known only at run time",
    "iterate over a list instead, or sort the items by a key that does not depend on identity")

_MUTATING = {"add", "update", "discard", "remove", "pop", "clear", "difference_update",
             "intersection_update", "symmetric_difference_update"}
_RESULT_SETS = {"union", "intersection", "difference", "symmetric_difference", "copy"}
_PREDICATES = {"issubset", "issuperset", "isdisjoint"}
_INPLACE_OPS = {"|=": "__ior__", "&=": "__iand__", "-=": "__isub__", "^=": "__ixor__"}
_OPS = {"|": "__or__", "&": "__and__", "-": "__sub__", "^": "__xor__"}
_COMPARE = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}


class _Identity:
    """The key of a value hashed by identity (what ``object.__hash__``/``Tensor.__hash__`` do)."""

    __slots__ = ("value", "obj")

    def __init__(self, value: Value, obj: Any):
        self.value, self.obj = value, obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj


def key_of(value: Value) -> Any:
    """The real set key standing for ``value`` (raises Unsupported when it has none)."""
    if value.is_tensor():
        return _Identity(value, value.fake)
    if value.is_constant() and not value.mutable:
        key = value.as_python_constant()
        try:
            hash(key)
        except TypeError as exc:
            raise Unsupported(f"TypeError: unhashable type: {type(key).__name__!r}", generic=True, exc=exc,
                              kind="python-exception")
        return key
    if isinstance(value, SetValue) and value.kind is frozenset and not value.has_identity_keys():
        return frozenset(value.real)
    try:
        real = value.real_value()
    except Unsupported:
        real = None
    if real is not None and type(real).__hash__ is object.__hash__:
        return _Identity(value, real)
    raise Unsupported(f"{value.describe()} as a set element", kind="unsupported-operation")


def value_of(key: Any) -> Value:
    return key.value if isinstance(key, _Identity) else ConstantValue(key)


class SetValue(Value):
    """A ``set`` (mutable, one object per call) or a ``frozenset`` that holds non-constants."""

    def __init__(self, keys: Iterable[Any], kind: type = set, source=None):
        self.kind = kind
        self.real = kind(keys)
        self.source = source
        self.mutable = kind is set

    @classmethod
    def of_values(cls, tx, values: Iterable[Value], kind: type = set) -> Value:
        keys = [key_of(v) for v in values]
        if kind is frozenset and not any(isinstance(k, _Identity) for k in keys):
            return ConstantValue(frozenset(keys))  # an immutable constant
        return cls(keys, kind)

    def describe(self) -> str:
        return f"{self.kind.__name__} of {len(self.real)}"

    def python_type(self) -> type:
        return self.kind

    def has_identity_keys(self) -> bool:
        return any(isinstance(k, _Identity) for k in self.real)

    def length(self, tx) -> int:
        return len(self.real)

    def truth(self, tx) -> bool:
        return bool(self.real)

    def iter_items(self, tx) -> list[Value]:
        if len(self.real) > 1 and self.has_identity_keys():
            raise Unsupported(f"iterating over a {self.describe()} holding tensors or objects", kind=SET_ORDER)
        return [value_of(k) for k in self.real]

    def contains(self, tx, item: Value) -> Value:
        return ConstantValue(key_of(item) in self.real)

    def get_iter(self, tx) -> Value:
        """Live, as Python's set iterator: a size change while looping raises (natively)."""
        self.iter_items(tx)  # the order must be known (no tensors/objects by address)
        from autograph.capture.values.containers import SeqIteratorValue
        return SeqIteratorValue(self)

    def _replay_if_outside(self, tx, method: str, args: list[Value]) -> None:
        """A set from outside changes for real after the graph (the model changed already)."""
        if self.source is not None:
            from autograph.capture.values import side_effects
            side_effects.record_call(tx, getattr(self.kind, method), [self, *args], {})

    def getattr(self, tx, name: str) -> Value:
        if callable(getattr(self.kind, name, None)) and not name.startswith("__"):
            return vb.BuiltinMethodValue(self, name)
        if hasattr(self.kind, name):
            raise Unsupported(f"`.{name}` of a {self.kind.__name__}", kind="unsupported-operation")
        err = AttributeError(f"{self.kind.__name__!r} object has no attribute {name!r}")
        raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")

    def call_method(self, tx, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
        method = getattr(self.real, name, None)
        if method is None or kwargs or name.startswith("__"):
            return super().call_method(tx, name, args, kwargs)
        if name in ("remove", "pop") and not self.real and name == "pop":
            raise Unsupported("KeyError: 'pop from an empty set'", generic=True, kind="python-exception")
        if name == "pop" and self.source is not None:
            raise Unsupported(f"pop() from a set that came from outside ({self.source.expr})", kind="side-effect")
        if name == "pop" and len(self.real) > 1 and self.has_identity_keys():
            raise Unsupported(f"pop() from a {self.describe()} holding tensors or objects", kind=SET_ORDER)
        consumed: dict[int, list[Value]] = {}
        if name in ("add", "discard", "remove"):
            real_args = [key_of(a) for a in args]
        else:
            real_args = [_keys_of(tx, a, consumed=consumed.setdefault(i, [])) for i, a in enumerate(args)]
        try:
            out = method(*real_args)
        except (KeyError, TypeError) as exc:
            raise Unsupported(f"{type(exc).__name__} from {self.kind.__name__}.{name}()", generic=True, exc=exc,
                              kind="python-exception")
        if name in _MUTATING:  # an iterator argument is spent: the replay gets the items it gave
            from autograph.capture.values.containers import TupleValue
            self._replay_if_outside(tx, name, [TupleValue(consumed[i]) if consumed.get(i) is not None
                                               and _is_iterator(tx, a) else a for i, a in enumerate(args)])
        if name == "pop":
            return value_of(out)
        return _wrap_result(out)

    def binary_op(self, tx, op: str, other: Value) -> Value:
        return self._operator(tx, op, other, reflected=False)

    def rbinary_op(self, tx, op: str, other: Value) -> Value:
        return self._operator(tx, op, other, reflected=True)

    def _operator(self, tx, op: str, other: Value, *, reflected: bool) -> Value:
        name = _INPLACE_OPS.get(op) if not reflected else None
        if name is None:
            name = _OPS.get(op.rstrip("="))
            if name is None:
                return NotImplemented
        try:
            other_keys = _keys_of(tx, other, sets_only=True)
        except Unsupported:
            return NotImplemented
        if reflected:  # Python tried the left operand's own operator first: run exactly that
            out = getattr(other_keys, name)(self.real)
            if out is NotImplemented:
                out = getattr(self.real, "__r" + name[2:])(other_keys)
            return NotImplemented if out is NotImplemented else _wrap_result(out)
        out = getattr(self.real, name)(other_keys)
        if out is NotImplemented and op in _INPLACE_OPS:  # Python falls back to the binary operator
            name = _OPS[op.rstrip("=")]
            out = getattr(self.real, name)(other_keys)
        if out is NotImplemented:  # then to the right operand's reflected one (a dict keys view)
            out = getattr(other_keys, "__r" + name[2:], lambda _: NotImplemented)(self.real)
        if out is NotImplemented:
            return NotImplemented
        if out is self.real:  # an in-place operator
            self._replay_if_outside(tx, name, [other])
            return self
        return _wrap_result(out)

    def compare_op(self, tx, op: str, other: Value) -> Value:
        try:
            other_keys = _keys_of(tx, other, sets_only=True)
        except Unsupported:
            if op in ("==", "!="):
                return ConstantValue(op == "!=")  # a set never equals a non-set
            return NotImplemented
        return ConstantValue(getattr(self.real, _COMPARE[op])(other_keys))

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        if not self.has_identity_keys():  # one new set per call, however often it is named
            text = f"{cg.const(self.kind)}({cg.const(frozenset(self.real))})"
            return cg.shared(self, text) if self.kind is set else text
        items = "".join(cg.reconstruct(value_of(k)) + ", " for k in self.real)
        text = f"{cg.const(self.kind)}(({items}))"
        return cg.shared(self, text) if self.kind is set else text


def _is_iterator(tx, value: Value) -> bool:
    from autograph.capture.values.containers import ListIteratorValue
    return isinstance(value, ListIteratorValue)


def _lazy_keys(tx, it: Value, consumed: list[Value]):
    """The keys of an iterator's items, each made only when the real set method asks for it
    (``s.update(len(s) + i for i in r)`` sees the keys already added), as Python iterates."""
    while (item := it.next(tx)) is not None:
        consumed.append(item)
        yield key_of(item)


def _keys_of(tx, value: Value, *, sets_only: bool = False, consumed: list[Value] | None = None) -> Any:
    """The real keys of an operand: a set of keys (SetValue, set-like constants) or, for the
    methods that take any iterable, the keys of its items (an iterator's lazily, recording the
    items it gave in ``consumed``)."""
    if isinstance(value, SetValue):
        return value.real
    if value.is_constant():
        real = value.as_python_constant()
        if isinstance(real, (set, frozenset, type({}.keys()), type({}.items()))):
            return real
    if sets_only:
        raise Unsupported(f"set operator with {value.describe()}", kind="unsupported-operation")
    if consumed is not None and _is_iterator(tx, value):
        return _lazy_keys(tx, value, consumed)
    return [key_of(v) for v in value.iter_items(tx)]


def _wrap_result(out: Any) -> Value:
    if isinstance(out, (set, frozenset)):
        if type(out) is frozenset and not any(isinstance(k, _Identity) for k in out):
            return ConstantValue(out)
        return SetValue(out, type(out))
    return ConstantValue(out)  # bool (predicates), None (mutating methods)


def _construct(kind: type):
    def construct(tx, *args: Value, **kwargs: Value) -> Value:
        if kwargs or len(args) > 1:
            raise Unsupported(f"TypeError: {kind.__name__}() takes at most 1 argument", generic=True,
                              kind="python-exception")
        items = args[0].iter_items(tx) if args else []
        return SetValue.of_values(tx, items, kind)
    return construct


def wrap_outside_set(tx, obj: set, source) -> Value:
    """A set of constants read from outside: guarded by type and contents (a copy)."""
    frozen = frozenset(obj)
    tx.guards.type_(source, obj)
    if source is not None:
        tx.guards._add(("set-eq", source), lambda: model.python_guard(
            f"{source.expr} == {set(frozen)!r}", lambda v: v == frozen, [source]))
    return SetValue(frozen, set, source)


def install() -> None:
    registry.register_builtin(set, _construct(set))
    registry.register_builtin(frozenset, _construct(frozenset))
