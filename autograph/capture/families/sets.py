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

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core import registry
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.made_keys import hashed_by_real_object, identity_hashed_made_object
from autograph.capture.families.set_rebuild_order import filled_recipe, insertion_order

SET_ORDER = break_kind(
    "set-order", "the order of a set of tensors or objects depends on their addresses, known only at run time",
    "iterate over a list instead, or sort the items by a key that does not depend on identity")
SET_HISTORY = break_kind(
    "set-history", "a set from outside iterates in an order its past additions and removals decided; "
    "once capture changes it, or when a copy does not keep that order, the order is unknown",
    "iterate over sorted(s) or a list instead")

_MUTATING = {"add", "update", "discard", "remove", "pop", "clear", "difference_update",
             "intersection_update", "symmetric_difference_update"}
_RESULT_SETS = {"union", "intersection", "difference", "symmetric_difference", "copy"}
_PREDICATES = {"issubset", "issuperset", "isdisjoint"}
_INPLACE_OPS = {"|=": "__ior__", "&=": "__iand__", "-=": "__isub__", "^=": "__ixor__"}
_OPS = {"|": "__or__", "&": "__and__", "-": "__sub__", "^": "__xor__"}
_BOUND_DUNDERS = {"__contains__", "__len__", "__iter__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                  "__or__", "__and__", "__sub__", "__xor__", "__ror__", "__rand__", "__rsub__", "__rxor__",
                  "__ior__", "__iand__", "__isub__", "__ixor__"}
_COMPARE = {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__", ">=": "__ge__"}


_NOT_A_SET = object()  # an operator's operand that is not a set (the operator declines it)


class _Identity:
    """The key of a value hashed by identity (what ``object.__hash__``/``Tensor.__hash__`` do)."""

    __slots__ = ("value", "obj")
    interprets = False  # keys whose equality runs the user's ``==`` (families/interpreted_keys.py)

    def __init__(self, value: Value, obj: Any):
        self.value, self.obj = value, obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: Any) -> bool:
        if getattr(other, "interprets", False):
            return NotImplemented  # object.__eq__ declines: the other object's ``==`` decides
        return isinstance(other, _Identity) and other.obj is self.obj


class _ByRealObject(_Identity):
    """The key of a value hashed and compared as its real object is (C functions, enum members):
    Python's own ``hash`` and ``==`` on the real objects; read back as the value it stands for."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self.obj)

    def __eq__(self, other: Any) -> bool:
        if getattr(other, "interprets", False):
            return NotImplemented
        if not isinstance(other, _Identity):  # the real object held as a constant (a dict from outside's key)
            return other is self.obj or bool(self.obj == other)
        return other.obj is self.obj or (type(other) is _ByRealObject and bool(other.obj == self.obj))


class _FrozensetKey(_Identity):
    """The key of a frozenset holding objects keyed by their real objects (``frozenset`` of C
    method wrappers): hashed and compared as the real frozenset is (its items' own hashes);
    read back as the frozenset value."""

    __slots__ = ("inner",)
    interprets = True  # its == decides against other keys

    def __init__(self, value: Value, inner: frozenset):
        super().__init__(value, value)
        self.inner = inner

    def __hash__(self) -> int:
        return hash(self.inner)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, _FrozensetKey):
            return self.inner == other.inner
        if isinstance(other, (set, frozenset)):
            return self.inner == other
        return NotImplemented


def key_of(value: Value, tx=None, interpret: bool = True) -> Any:
    """The real set key standing for ``value`` (raises Unsupported when it has none). Given the
    translator, an object from outside keyed by its real object is guarded to be that object on
    later calls (its identity decides every lookup), and (unless ``interpret`` is false) an
    object whose hash is Python code is keyed by its interpreted hash and a tuple of
    non-constants by its items' keys (families/interpreted_keys.py)."""
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
    if isinstance(value, SetValue) and value.kind is frozenset and all(
            not isinstance(k, _Identity) or isinstance(k, _ByRealObject) for k in value.real):
        return _FrozensetKey(value, frozenset(value.real))
    try:
        real = value.real_value()
    except Unsupported:
        real = None
    if real is not None and type(real).__hash__ is object.__hash__:
        _guard_real_key(tx, value, real)
        return _Identity(value, real)
    made = identity_hashed_made_object(value) if real is None else None
    if made is not None:  # made in the call: the one value standing for it is its identity
        return _Identity(value, made)
    if real is not None and hashed_by_real_object(real):
        _guard_real_key(tx, value, real)
        return _ByRealObject(value, real)
    raise_if_unhashable(value)
    if tx is not None and interpret:
        from autograph.capture.families.interpreted_keys import interpreted_key
        key = interpreted_key(tx, value, key_of)
        if key is not None:
            return key
    raise Unsupported(f"{value.describe()} as a set element", kind="unsupported-operation")


def _guard_real_key(tx, value: Value, real: Any) -> None:
    """A key standing for a real object read from outside: a later call passing another object
    there would hash and compare differently, so the object itself is guarded (a value without
    a source is a fixed object; a key made without the translator is looked up by the caller's
    own guards)."""
    if tx is None or value.source is None:
        return
    if type(real).__hash__ is object.__hash__ or isinstance(real, type) or type(real).__eq__ is object.__eq__:
        tx.guards.id_(value.source, real)
        return
    # compared by what it stands for (a method wrapper, made anew on each read; a typing alias):
    # the same type and an equal object (C or typing code, no user code) on later calls
    tx.guards.read_equals(value.source, real)


def raise_if_unhashable(value: Value) -> None:
    """Python's TypeError for a value whose type sets ``__hash__ = None`` (list, dict, set, and
    classes deriving from them without their own ``__hash__``): hashing it raises."""
    try:
        kind = value.python_type()
    except Unsupported:
        return
    if isinstance(kind, type) and type(kind) is type and getattr(kind, "__hash__", 0) is None:
        err = TypeError(f"unhashable type: {kind.__name__!r}")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")


def scalar_operand_error(op: str, left: type, other: Value) -> None:
    """``s - 1``: set's operator and a number's or string's reflected one both decline a non-set
    (neither runs user code): Python raises TypeError."""
    if not other.is_constant() or other.mutable:
        return
    right = type(other.as_python_constant())
    if right in (int, float, complex, bool, str, bytes, type(None)):
        err = TypeError(f"unsupported operand type(s) for {op}: {left.__name__!r} and {right.__name__!r}")
        raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")


def value_of(key: Any) -> Value:
    return key.value if isinstance(key, _Identity) else ConstantValue(key)


class SetValue(Value):
    """A ``set`` (mutable, one object per call) or a ``frozenset`` that holds non-constants."""

    def __init__(self, keys: Iterable[Any], kind: type = set, source=None, order_known: bool = True,
                 adopt: bool = False):
        self.kind = kind
        # ``adopt``: ``keys`` is a set the real operation just made, owned by nobody else; kept
        # as it is, its table (size, removed entries) is the one the program's set has, where a
        # copy would be a fresh table that may iterate in another order
        self.real = keys if adopt and type(keys) is kind else kind(keys)
        self.source = source
        self.mutable = kind is set
        # False when ``real`` may iterate in another order than the real set (a set from
        # outside changed during capture, or whose copy reordered it): no iteration then
        self.order_known = order_known

    def _rebuild_text(self, cg) -> str:
        """The rebuilt code's expression for a new set iterating exactly as this one does: a
        set's order is its table's, which its history of additions and removals decided, so
        each way of rebuilding is tried for real first (families/set_rebuild_order.py)."""
        if self.order_known:
            for obj in (frozenset(self.real), tuple(self.real)):
                if list(self.kind(obj)) == list(self.real):
                    return f"{cg.const(self.kind)}({cg.const(obj)})"
            order = insertion_order(self.real, self.kind)
            if order is not None:
                return f"{cg.const(self.kind)}({cg.const(order)})"
            recipe = filled_recipe(self.real)
            if recipe is not None:
                return f"{cg.const(recipe)}()"
        raise Unsupported(f"a {self.describe()} whose order no rebuilt set reproduces, live at a graph break",
                          kind=SET_HISTORY)

    def _check_order(self, what: str) -> None:
        if not self.order_known:
            raise Unsupported(f"{what} a set from outside{f' ({self.source.expr})' if self.source else ''} "
                              "whose order capture cannot reproduce", kind=SET_HISTORY)

    @classmethod
    def of_values(cls, tx, values: Iterable[Value], kind: type = set) -> Value:
        keys = [key_of(v, tx, interpret=False) for v in values]
        if kind is frozenset and not any(isinstance(k, _Identity) for k in keys):
            return ConstantValue(frozenset(keys))  # an immutable constant
        return cls(keys, kind)

    def describe(self) -> str:
        return f"{self.kind.__name__} of {len(self.real)}"

    def python_type(self) -> type:
        return self.kind

    def has_identity_keys(self) -> bool:
        return any(isinstance(k, _Identity) for k in self.real)

    def text_snapshot(self) -> Any:
        """The real set of constants (its repr lists them in the real set's order); a set
        holding tensors or objects prints their addresses, known only at run time."""
        return None if self.has_identity_keys() or not self.order_known else self.real

    def length(self, tx) -> int:
        return len(self.real)

    def truth(self, tx) -> bool:
        return bool(self.real)

    def iter_items(self, tx) -> list[Value]:
        if len(self.real) > 1:
            self._check_order("iterating over")
        if len(self.real) > 1 and any(isinstance(k, _Identity) and not isinstance(k, _ByRealObject)
                                      and not getattr(k, "real_hash", False) for k in self.real):
            # (keys hashed as their real objects are -- the same objects on every call, or by
            # the object's own Python ``__hash__`` -- iterate in the real set's order)
            raise Unsupported(f"iterating over a {self.describe()} holding tensors or objects", kind=SET_ORDER)
        return [value_of(k) for k in self.real]

    def contains(self, tx, item: Value) -> Value:
        from autograph.capture.families.set_subclasses import lookup_key
        return ConstantValue(lookup_key(tx, item) in self.real)

    def get_iter(self, tx) -> Value:
        """Live, as Python's set iterator: a size change while looping raises (natively)."""
        self.iter_items(tx)  # the order must be known (no tensors/objects by address)
        from autograph.capture.families.containers import SeqIteratorValue
        return SeqIteratorValue(self)

    def _replay_if_outside(self, tx, method: str, args: list[Value]) -> None:
        """A set from outside changes for real after the graph (the model changed already)."""
        if self.source is not None:
            from autograph.capture.families import side_effects
            side_effects.record_call(tx, getattr(self.kind, method), [self, *args], {})

    def getattr(self, tx, name: str) -> Value:
        if callable(getattr(self.kind, name, None)) and not name.startswith("__"):
            return vb.BuiltinMethodValue(self, name)
        if name in _BOUND_DUNDERS and hasattr(self.kind, name):  # ``s.__contains__``: set's C method bound to the set
            from autograph.capture.families.user_objects import NativeMethodValue
            return NativeMethodValue(self, getattr(self.kind, name), name)
        if hasattr(self.kind, name):
            raise Unsupported(f"`.{name}` of a {self.kind.__name__}", kind="unsupported-operation")
        err = AttributeError(f"{self.kind.__name__!r} object has no attribute {name!r}")
        raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")

    def call_method(self, tx, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value:
        method = getattr(self.real, name, None)
        if method is None or kwargs or name.startswith("__"):
            return super().call_method(tx, name, args, kwargs)
        if name in ("remove", "pop") and not self.real and name == "pop":
            err = KeyError("pop from an empty set")
            raise Unsupported("KeyError: 'pop from an empty set'", generic=True, exc=err, kind="python-exception")
        if name == "pop" and self.source is not None:
            raise Unsupported(f"pop() from a set that came from outside ({self.source.expr})", kind="side-effect")
        if name == "pop" and len(self.real) > 1:
            self._check_order("pop() from")
        if name == "pop" and len(self.real) > 1 and self.has_identity_keys():
            raise Unsupported(f"pop() from a {self.describe()} holding tensors or objects", kind=SET_ORDER)
        consumed: dict[int, list[Value]] = {}
        if name in ("discard", "remove"):
            from autograph.capture.families.set_subclasses import lookup_key
            real_args = [lookup_key(tx, a) for a in args]
        elif name == "add":
            real_args = [key_of(a, tx, interpret=False) for a in args]
        else:
            real_args = [_keys_of(tx, a, consumed=consumed.setdefault(i, [])) for i, a in enumerate(args)]
        try:
            out = method(*real_args)
        except (KeyError, TypeError) as exc:
            raise Unsupported(f"{type(exc).__name__} from {self.kind.__name__}.{name}()", generic=True, exc=exc,
                              kind="python-exception")
        if name in _MUTATING and self.source is not None:  # its table now differs from the real one's
            self.order_known = False
        if name in _MUTATING:  # an iterator argument is spent: the replay gets the items it gave
            from autograph.capture.families.containers import TupleValue
            self._replay_if_outside(tx, name, [TupleValue(consumed[i]) if consumed.get(i) is not None
                                               and _is_iterator(tx, a) else a for i, a in enumerate(args)])
        if name == "pop":
            return value_of(out)
        return _wrap_result(out, _ordered(self, *args))

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
        from autograph.capture.families.set_subclasses import operand_keys
        try:  # an in-place operator runs first whatever the right operand's type
            other_keys = operand_keys(tx, other, () if name in _INPLACE_OPS.values() else (name, "__r" + name[2:]))
        except Unsupported:
            other_keys = _NOT_A_SET
        if other_keys is None:  # a set subclass's own operator decides
            return NotImplemented
        if other_keys is _NOT_A_SET:
            if not reflected:
                scalar_operand_error(op, self.kind, other)
            return NotImplemented
        if reflected:  # Python tried the left operand's own operator first: run exactly that
            out = getattr(other_keys, name)(self.real)
            if out is NotImplemented:
                out = getattr(self.real, "__r" + name[2:])(other_keys)
            return NotImplemented if out is NotImplemented else _wrap_result(out, _ordered(self, other))
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
            if self.source is not None:
                self.order_known = False
            return self
        return _wrap_result(out, _ordered(self, other))

    def compare_op(self, tx, op: str, other: Value) -> Value:
        from autograph.capture.families.set_subclasses import operand_keys, set_items
        from autograph.capture.families.user_objects import UserObjectValue
        if isinstance(other, UserObjectValue) and set_items(other) is None and not (
                op in ("==", "!=") and vb._object_equality(other.cls)):
            return NotImplemented  # a user object comparing in Python: its reflected method may decide
        try:
            other_keys = operand_keys(tx, other, tuple(_COMPARE.values()))
            if other_keys is None:  # a set subclass comparing in Python
                return NotImplemented
        except Unsupported:
            if op in ("==", "!=") and _never_equals_a_set(other):
                return ConstantValue(op == "!=")  # set.__eq__ gives up, and so does the other side
            return NotImplemented  # (a dict view or a user __eq__ decides: the other side's model)
        # the operator, not ``set.__eq__`` alone: a dict view answers for a set (NotImplemented)
        return ConstantValue(vb.COMPARE[op](self.real, other_keys))

    def reconstruct(self, cg) -> str:
        if self.source is not None:
            return cg.source_expr(self.source)
        if not self.has_identity_keys():  # one new set per call, however often it is named
            text = self._rebuild_text(cg)
            return cg.shared(self, text) if self.kind is set else text
        from autograph.capture.families.interpreted_keys import refuse_rebuild
        refuse_rebuild(self.real)
        items = "".join(cg.reconstruct(value_of(k)) + ", " for k in self.real)
        text = f"{cg.const(self.kind)}(({items}))"
        return cg.shared(self, text) if self.kind is set else text


def _never_equals_a_set(value: Value) -> bool:
    """Whether ``value == a_set`` is False whatever the set holds: its type's ``==`` is object's
    (identity) or a builtin's that gives up on sets (numbers, text, lists, tuples, dicts)."""
    try:
        cls = value.python_type()
    except Unsupported:
        return False
    if not isinstance(cls, type):
        return False
    if cls.__eq__ is object.__eq__ and cls.__ne__ is object.__ne__:
        return True
    return cls in (int, float, complex, bool, str, bytes, type(None), list, tuple, dict, range)


def _is_iterator(tx, value: Value) -> bool:
    from autograph.capture.families.containers import ListIteratorValue
    return isinstance(value, ListIteratorValue)


def _lazy_keys(tx, it: Value, consumed: list[Value]):
    """The keys of an iterator's items, each made only when the real set method asks for it
    (``s.update(len(s) + i for i in r)`` sees the keys already added), as Python iterates."""
    while (item := it.next(tx)) is not None:
        consumed.append(item)
        yield key_of(item, tx, interpret=False)


def _keys_of(tx, value: Value, *, sets_only: bool = False, consumed: list[Value] | None = None) -> Any:
    """The real keys of an operand: a set of keys (SetValue, set-like constants) or, for the
    methods that take any iterable, the keys of its items (an iterator's lazily, recording the
    items it gave in ``consumed``)."""
    if isinstance(value, SetValue):
        return value.real
    from autograph.capture.families.set_subclasses import set_items
    own = set_items(value)  # a set subclass's table, read by set's C code (not its __iter__)
    if own is not None and not sets_only:
        return own.real
    exact = _exact_dict_keys(value)
    if exact is not None:
        return exact
    if value.is_constant():
        real = value.as_python_constant()
        if isinstance(real, (set, frozenset, type({}.keys()), type({}.items()))):
            return real
    if sets_only:
        raise Unsupported(f"set operator with {value.describe()}", kind="unsupported-operation")
    if consumed is not None and _is_iterator(tx, value):
        return _lazy_keys(tx, value, consumed)
    check_iterable(value)
    return [key_of(v, tx, interpret=False) for v in value.iter_items(tx)]


def check_iterable(value: Value) -> None:
    """``s.union(1)``, ``set(1)``: Python's TypeError for a constant that is not iterable."""
    if value.is_constant() and not value.mutable:
        try:
            iter(value.as_python_constant())
        except TypeError as exc:
            raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")


def _ordered(*operands: Value) -> bool:
    """Whether every set operand's ``real`` iterates as the real set does."""
    return all(getattr(v, "order_known", True) for v in operands)


def _exact_dict_keys(value: Value) -> dict | None:
    """A real dict with the keys of a dict of constants, in its order: a set built from an
    exact dict takes CPython's dict path (sized for it up front), so its order is that of
    the same call on a dict, not on a list of the keys."""
    from autograph.capture.families.containers import DictValue
    if type(value) is DictValue and value.kind is dict and all(
            not isinstance(k, _Identity) or getattr(k, "real_hash", False) for k in value.items):
        return dict.fromkeys(value.items)  # (keys hashed by Python code keep their stored hash)
    return None


def _wrap_result(out: Any, ordered: bool = True) -> Value:
    if isinstance(out, (set, frozenset)):
        if type(out) is frozenset and ordered and not any(isinstance(k, _Identity) for k in out):
            return ConstantValue(out)
        return SetValue(out, type(out), order_known=ordered, adopt=True)
    return ConstantValue(out)  # bool (predicates), None (mutating methods)


def _construct(kind: type):
    def construct(tx, *args: Value, **kwargs: Value) -> Value:
        if kwargs or len(args) > 1:
            try:  # Python's own message, from the real call with placeholder arguments
                kind(*[()] * len(args), **dict.fromkeys(kwargs, ()))
            except TypeError as exc:
                raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
            raise Unsupported(f"{kind.__name__}() with these arguments", kind="unsupported-call")
        from autograph.capture.families.set_subclasses import set_items
        operand = args[0] if args and isinstance(args[0], SetValue) else set_items(args[0]) if args else None
        if operand is not None:  # the real call on the real set (its own path)
            # the copy is made in the operand's order: known only when the model iterates as
            # the real set does (else a later iteration of the copy breaks, not the copy)
            ordered = operand.order_known and (len(operand.real) < 2 or not any(
                isinstance(k, _Identity) and not isinstance(k, _ByRealObject) and not getattr(k, "real_hash", False)
                for k in operand.real))
            return _wrap_result(kind(operand.real), ordered)
        exact = _exact_dict_keys(args[0]) if args else None
        if exact is not None:
            return _wrap_result(kind(exact))
        if args:
            check_iterable(args[0])
        items = args[0].iter_items(tx) if args else []
        return SetValue.of_values(tx, items, kind)
    return construct


def is_pinned_element(obj: Any) -> bool:
    """A set element compared with no user code (a Python or builtin function by identity, a C
    method wrapper by what it wraps): the contents guard (``list(s) == order``) pins it."""
    import types
    return type(obj) in (types.FunctionType, types.BuiltinFunctionType, types.MethodWrapperType)


def wrap_outside_set(tx, obj: set, source) -> Value:
    """A set of constants (and functions) read from outside: guarded by type, contents and
    iteration order (an equal set built another way iterates differently), modelled by a copy;
    when the copy iterates otherwise (the real table has gaps from removals, functions are keyed
    by identity), a table filled to iterate as the real one (families/set_rebuild_order.py)
    models it, else the order stays unknown."""
    order = list(obj)
    tx.guards.type_(source, obj)
    tx.guards.iterates_as(source, order)  # {1} == {True}, yet their items fold differently
    keys = [(_ByRealObject if hashed_by_real_object(x) else _Identity)(tx.wrap(x, None, trusted=True), x)
            if is_pinned_element(x) else x for x in order]
    value = SetValue(keys, set, source)
    value.order_known = [k.obj if isinstance(k, _Identity) else k for k in value.real] == order
    if not value.order_known:  # (a rebuilt set, say): a model table made to iterate as the real one
        recipe = filled_recipe(obj) if all(not isinstance(k, _Identity) for k in keys) else None
        if recipe is not None:
            value.real, value.order_known = recipe(), True
    return value


def install() -> None:
    registry.register_builtin(set, _construct(set))
    registry.register_builtin(frozenset, _construct(frozenset))
