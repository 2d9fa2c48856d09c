"""Every guard kind, defined once.

A kind is one ``KindSpec`` subclass registered with ``@kind``. It holds everything the rest of
``autograph.guards`` needs to know about the kind, so that no other module branches on kinds:

* ``src``: the readable Python a user can paste (``Guard.src``: what ``explain``/``inspect`` print),
* ``words``: the same check in plain words (``Guard.describe()``),
* ``python``: the expression the generated check evaluates (``check.GuardSet``),
* ``plan``: the node of a native plan, ``(opcode, node, operands...)`` (``native.plan_for``),
* ``holds``/``twin``: the Python twin of the C case of that opcode (``native.check_python``).

The opcodes are ``Op``; the C evaluator (``native/guard_eval.c``) exports ``G_<name>`` with the
same values and ``extension.load()`` refuses an extension whose values differ. A kind that
reuses an opcode needs no C; a new opcode needs one ``case`` in ``guard_check``.
"""
from __future__ import annotations

import enum
import math
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Protocol

from autograph.guards.text import dims, dtype_name, identity_words, short_repr, type_name

if TYPE_CHECKING:
    from autograph.guards.model import Guard, TensorFacts
    from autograph.guards.sources import Source


class GuardKind(str, enum.Enum):
    TENSOR_MATCH = "TENSOR_MATCH"
    TYPE_MATCH = "TYPE_MATCH"
    ID_MATCH = "ID_MATCH"
    EQUALS_MATCH = "EQUALS_MATCH"
    LENGTH_MATCH = "LENGTH_MATCH"
    KEY_ABSENT = "KEY_ABSENT"
    NO_HOOKS = "NO_HOOKS"
    GLOBAL_STATE = "GLOBAL_STATE"
    SHAPE_RELATION = "SHAPE_RELATION"
    SAME_OBJECT = "SAME_OBJECT"
    DISTINCT_OBJECTS = "DISTINCT_OBJECTS"
    DICT_KEYS = "DICT_KEYS"
    ITER_REMAINING = "ITER_REMAINING"
    PINNED_IDENTITY = "PINNED_IDENTITY"
    OBJECT_EQUALS = "OBJECT_EQUALS"
    HAS_KEY = "HAS_KEY"
    HAS_ATTR = "HAS_ATTR"
    IS_INSTANCE = "IS_INSTANCE"
    IDENTITY_PATTERN = "IDENTITY_PATTERN"
    PYTHON = "PYTHON"

    def __str__(self) -> str:
        return self.value


class Op(enum.IntEnum):
    """Guard opcodes of a native plan (``G_<name>`` in the C extension, same values)."""

    TENSOR = 0
    TYPE = 1
    ID = 2
    CONST = 3
    LEN = 4
    EQ = 5
    CALL = 6
    NO_KEY = 7
    NO_HOOKS = 8
    IS = 9
    KEYS = 10
    ITEMS_LEFT = 11
    HAS_KEY = 12
    HAS_ATTR = 13
    IS_INSTANCE = 14
    IDENTITY_PATTERN = 15


class Inexpressible(Exception):
    """A native plan cannot express this guard; its entry uses the generated Python check."""


class CheckWriter(Protocol):
    """What ``python()`` writes with (``check._Codegen``)."""

    def expr(self, source: Source | None) -> str: ...
    def bind(self, prefix: str, obj: Any) -> str: ...


class KindSpec:
    """One guard kind. Subclasses set ``kind`` and ``op`` and override what differs."""

    kind: ClassVar[GuardKind]
    op: ClassVar[Op]
    # names the generated Python check may use, bound in its namespace
    namespace: ClassVar[dict[str, Any]] = {}

    def src(self, expr: str, expected: Any) -> str:
        """Readable Python for the check of ``expected`` on the value of ``expr``."""
        raise TypeError(f"{self.kind} guards are built with their source text")

    def words(self, where: str, guard: Guard) -> str:
        """Plain words for ``autograph.inspect``; ``where`` is the source expression."""
        return guard.words or guard.src

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        """The boolean expression the generated check evaluates."""
        raise NotImplementedError

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        """The guard's native plan node; ``node(source)`` is the index of a source's value."""
        return (int(self.op), node(guard.source), guard.expected)

    def twin(self, g: tuple, read: Callable[[int], Any]) -> bool:
        """Python twin of the C case of ``op`` on plan node ``g``; ``read(i)`` is node i's value."""
        return self.holds(read(g[1]), g)

    def holds(self, value: Any, g: tuple) -> bool:
        raise NotImplementedError


KINDS: dict[GuardKind, KindSpec] = {}
TWINS: dict[int, KindSpec] = {}  # opcode -> the kind whose twin evaluates it


def kind(cls: type[KindSpec]) -> type[KindSpec]:
    """Register a kind (class decorator); kinds sharing an opcode share its twin."""
    spec = cls()
    assert cls.kind not in KINDS, cls.kind
    KINDS[cls.kind] = spec
    first = TWINS.setdefault(int(cls.op), spec)
    assert type(first).twin is cls.twin and type(first).holds is cls.holds, f"{cls.op} has two twins"
    return cls


def spec_of(k: GuardKind) -> KindSpec:
    return KINDS[k]


# ---------------------------------------------------------------- checks shared with the C path

def check_const(value: Any, expected: Any) -> bool:
    """Same type and equal, element by element for tuples (``(1,)`` is not ``(True,)``); a float
    zero's sign too (``0.0 == -0.0``, yet ``1 / x``, ``copysign`` and ``repr`` tell them apart)."""
    if type(value) is not type(expected):
        return False
    if type(expected) is tuple:
        if len(value) != len(expected):
            return False
        return all(check_const(v, e) for v, e in zip(value, expected))
    if type(expected) is float:
        return value == expected and math.copysign(1.0, value) == math.copysign(1.0, expected)
    if type(expected) is complex:
        return (value == expected and math.copysign(1.0, value.real) == math.copysign(1.0, expected.real)
                and math.copysign(1.0, value.imag) == math.copysign(1.0, expected.imag))
    return value == expected


def _signed_zero(value: Any) -> bool:
    """A float zero: ``==`` alone cannot tell ``0.0`` from ``-0.0`` (other floats equal have one sign)."""
    return type(value) is float and value == 0.0


def no_hooks_hold(obj: Any, names: tuple) -> bool:
    """What a NO_HOOKS guard checks (a missing dictionary fails: the object changed)."""
    d = obj.__dict__
    for name in names:
        if len(d[name]):
            return False
    return True


def device_implied_by_keys(device: Any) -> bool:
    """A CPU device has no index: the backend bit of the dispatch keys already pins it."""
    return getattr(device, "type", None) == "cpu" and getattr(device, "index", None) is None


def make_tensor_check(facts: TensorFacts) -> Callable[[Any], bool]:
    """One closure comparing every TENSOR_MATCH fact, cheapest facts first."""
    import torch

    keys = torch._C._dispatch_keys
    cls, dtype, device, rg, dk = facts.cls, facts.dtype, facts.device, facts.requires_grad, facts.dispatch_keys
    sizes, strides = facts.sizes, facts.strides
    if device_implied_by_keys(device):
        if None not in sizes and None not in strides:
            def check_cpu_tensor(t):
                return (type(t) is cls and t.dtype is dtype and t.requires_grad is rg
                        and t.size() == sizes and t.stride() == strides and keys(t) == dk)
            return check_cpu_tensor
        device = None
    elif None not in sizes and None not in strides:
        def check_tensor(t):
            return (type(t) is cls and t.dtype is dtype and t.requires_grad is rg
                    and t.size() == sizes and t.stride() == strides
                    and t.device == device and keys(t) == dk)
        return check_tensor

    ndim = len(sizes)
    static_sizes = tuple((i, s) for i, s in enumerate(sizes) if s is not None)
    static_strides = tuple((i, s) for i, s in enumerate(strides) if s is not None)

    def check_tensor_dynamic(t):
        if not (type(t) is cls and t.dtype is dtype and t.requires_grad is rg):
            return False
        size = t.size()
        if len(size) != ndim:
            return False
        for i, s in static_sizes:
            if size[i] != s:
                return False
        stride = t.stride()
        for i, s in static_strides:
            if stride[i] != s:
                return False
        return (device is None or t.device == device) and keys(t) == dk
    return check_tensor_dynamic


def _dims_eq(got: Any, expected: tuple) -> bool:
    if not isinstance(got, tuple) or len(got) != len(expected):
        return False
    return all(e is None or g == e for g, e in zip(got, expected))


# ---------------------------------------------------------------- the kinds

@kind
class TensorMatch(KindSpec):
    """Class, dtype, device, requires_grad, sizes, strides and dispatch keys of a tensor
    (``None`` sizes/strides are dynamic, not checked)."""

    kind, op = GuardKind.TENSOR_MATCH, Op.TENSOR

    def src(self, expr: str, f: TensorFacts) -> str:
        return (f"___check_tensor({expr}, {f.dtype}, {str(f.device)!r}, {dims(f.sizes, 'None')}, "
                f"{dims(f.strides, 'None')}, requires_grad={f.requires_grad})")

    def words(self, where: str, guard: Guard) -> str:
        f = guard.expected
        cls = "Tensor" if f.cls.__name__ == "Tensor" else f.cls.__name__
        return (f"{where}: {cls} {dtype_name(f.dtype)} {f.device} size {dims(f.sizes)} "
                f"stride {dims(f.strides)} requires_grad={f.requires_grad}")

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"{gen.bind('tensor', make_tensor_check(guard.expected))}({gen.expr(guard.source)})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        import torch

        from autograph.guards.tensor_layout import dims_direct, raw_keys, strides_by_contiguity

        n, f = node(guard.source), guard.expected
        device = None if device_implied_by_keys(f.device) else f.device  # None: not read
        keys_type, keys_raw, keys_direct = raw_keys(f.cls, f.dispatch_keys)
        return (int(self.op), n, f.cls, f.dtype, device, f.requires_grad, f.sizes, f.strides,
                f.dispatch_keys, torch._C._dispatch_keys, keys_type, keys_raw,
                strides_by_contiguity(f.cls, f.sizes, f.strides), keys_direct,
                keys_direct and dims_direct(f.cls, f.dispatch_keys, f.sizes, f.strides))

    def holds(self, v: Any, g: tuple) -> bool:
        return (type(v) is g[2] and v.dtype is g[3] and v.requires_grad is g[5]
                and _dims_eq(v.size(), g[6]) and _dims_eq(v.stride(), g[7])
                and (g[4] is None or bool(v.device == g[4])) and bool(g[9](v) == g[8]))


@kind
class TypeMatch(KindSpec):
    """``type(x) is T`` (exact class)."""

    kind, op = GuardKind.TYPE_MATCH, Op.TYPE

    def src(self, expr: str, cls: type) -> str:
        return f"type({expr}) is {type_name(cls)}"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: type is {type_name(guard.expected)}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"type({gen.expr(guard.source)}) is {gen.bind('type', guard.expected)}"

    def holds(self, v: Any, g: tuple) -> bool:
        return type(v) is g[2]


@kind
class IdMatch(KindSpec):
    """``x is obj`` (the guard holds ``obj``, so its id is never reused while the entry lives)."""

    kind, op = GuardKind.ID_MATCH, Op.ID

    def src(self, expr: str, obj: Any) -> str:
        return f"___check_obj_id({expr}, {id(obj)})  # {short_repr(obj)}"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: {identity_words(guard.expected)} (same object as when compiled)"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"{gen.expr(guard.source)} is {gen.bind('obj', guard.expected)}"

    def holds(self, v: Any, g: tuple) -> bool:
        return v is g[2]


@kind
class EqualsMatch(KindSpec):
    """Same type and equal: ``1``, ``1.0`` and ``True`` are different constants here."""

    kind, op = GuardKind.EQUALS_MATCH, Op.CONST
    namespace = {"___check_const": check_const}

    def src(self, expr: str, value: Any) -> str:
        if type(value) in (tuple, complex) or _signed_zero(value):
            return f"___check_const({expr}, {value!r})"
        if value is None or value is True or value is False:
            return f"{expr} is {value!r}"
        return f"type({expr}) is {type(value).__name__} and {expr} == {value!r}"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: equals {guard.expected!r} (type {type(guard.expected).__name__})"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        value, x = guard.expected, gen.expr(guard.source)
        if value is None or value is True or value is False:
            return f"{x} is {value!r}"
        if type(value) in (tuple, complex) or _signed_zero(value):
            return f"___check_const({x}, {gen.bind('const', value)})"
        return f"type({x}) is {gen.bind('type', type(value))} and {x} == {gen.bind('const', value)}"

    def holds(self, v: Any, g: tuple) -> bool:
        return check_const(v, g[2])


@kind
class LengthMatch(KindSpec):
    kind, op = GuardKind.LENGTH_MATCH, Op.LEN

    def src(self, expr: str, length: int) -> str:
        return f"len({expr}) == {length}"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: has length {guard.expected}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"len({gen.expr(guard.source)}) == {guard.expected}"

    def holds(self, v: Any, g: tuple) -> bool:
        return len(v) == g[2]


@kind
class KeyAbsent(KindSpec):
    """``key not in x`` (an instance ``__dict__`` that must not shadow a class attribute, say)."""

    kind, op = GuardKind.KEY_ABSENT, Op.NO_KEY

    def src(self, expr: str, key: Any) -> str:
        return f"{key!r} not in {expr}"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: has no key {guard.expected!r}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"{gen.bind('key', guard.expected)} not in {gen.expr(guard.source)}"

    def holds(self, v: Any, g: tuple) -> bool:
        return g[2] not in v


@kind
class NoHooks(KindSpec):
    """Each ``x.__dict__[name]`` is empty (no hook registered), read without running Python code."""

    kind, op = GuardKind.NO_HOOKS, Op.NO_HOOKS
    namespace = {"___no_hooks": no_hooks_hold}

    def src(self, expr: str, names: tuple) -> str:
        return f"___no_hooks({expr}, {names!r})"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: no hooks registered ({', '.join(guard.expected)} empty)"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"___no_hooks({gen.expr(guard.source)}, {gen.bind('names', guard.expected)})"

    def holds(self, v: Any, g: tuple) -> bool:
        return no_hooks_hold(v, g[2])


@kind
class GlobalState(KindSpec):
    """An interpreter-wide state read (grad mode, default dtype, ...) ``==`` its value at capture."""

    kind, op = GuardKind.GLOBAL_STATE, Op.EQ

    def src(self, expr: str, value: Any) -> str:
        return f"{expr} == {value!r}"

    def words(self, where: str, guard: Guard) -> str:
        return f"global state: {guard.src}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"{gen.expr(guard.source)} == {gen.bind('state', guard.expected)}"

    def holds(self, v: Any, g: tuple) -> bool:
        return bool(v == g[2])


class _CallGuard(KindSpec):
    """A callable over the values of several sources (``guard.check_fn``); its text is given."""

    op = Op.CALL

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        args = ", ".join(gen.expr(s) for s in guard.sources)
        return f"{gen.bind('fn', guard.check_fn)}({args})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        return (int(self.op), tuple(node(s) for s in guard.sources), guard.check_fn)

    def twin(self, g: tuple, read: Callable[[int], Any]) -> bool:
        return bool(g[2](*[read(n) for n in g[1]]))


@kind
class ShapeRelation(_CallGuard):
    """A relation between sizes for dynamic shapes, e.g. ``a.size(0) == b.size(0)``."""

    kind = GuardKind.SHAPE_RELATION


class _Identity(KindSpec):
    """``a is b`` (``same``) or ``a is not b`` over the values of two sources: a pointer compare."""

    op = Op.IS
    same: ClassVar[bool]

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        a, b = (gen.expr(s) for s in guard.sources)
        return f"({a} {'is' if self.same else 'is not'} {b})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        return (int(self.op), tuple(node(s) for s in guard.sources), self.same)

    def twin(self, g: tuple, read: Callable[[int], Any]) -> bool:
        a, b = (read(n) for n in g[1])
        return (a is b) is g[2]


@kind
class SameObject(_Identity):
    """``a is b``: two sources reach one object (one placeholder, one mirror serve both)."""

    kind, same = GuardKind.SAME_OBJECT, True

    def words(self, where: str, guard: Guard) -> str:
        a, b = (s.expr for s in guard.sources)
        return f"{a} and {b} are the same object"


@kind
class DistinctObjects(_Identity):
    """``a is not b``: capture decided two objects differ (one is changed, the other read as
    unchanged; ``a is b`` folded to False)."""

    kind, same = GuardKind.DISTINCT_OBJECTS, False

    def words(self, where: str, guard: Guard) -> str:
        a, b = (s.expr for s in guard.sources)
        return f"{a} and {b} are different objects"


_NO_KEY = object()


def keys_match(d: Any, keys: tuple, by_value: tuple) -> bool:
    """``len(d)`` is ``len(keys)`` and ``iter(d)`` yields ``keys`` first, in order: the same
    objects, or (where ``by_value``) of the same type and equal (``1`` and ``True``, ``(2, 3)``
    and ``torch.Size([2, 3])`` differ). No item is taken past the last key (the C case of
    ``G_KEYS`` reads a plain dict's entries in place, in the order its iterator yields them)."""
    if len(d) != len(keys):
        return False
    it = iter(d)
    for b, value in zip(keys, by_value):
        a = next(it, _NO_KEY)
        if not (a is b or (value and type(a) is type(b) and a == b)):
            return False
    return True


@kind
class DictKeys(KindSpec):
    """The keys of a dict (or another mapping) in order, as when compiled (``expected``: the keys;
    the plan node carries which are compared by value)."""

    kind, op = GuardKind.DICT_KEYS, Op.KEYS
    namespace = {"___keys_match": keys_match}

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        keys, by_value = guard.expected
        return f"___keys_match({gen.expr(guard.source)}, {gen.bind('keys', keys)}, {gen.bind('by', by_value)})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        keys, by_value = guard.expected
        return (int(self.op), node(guard.source), keys, by_value)

    def holds(self, v: Any, g: tuple) -> bool:
        return keys_match(v, g[2], g[3])


SEQUENCE_ITERATORS: tuple[type, ...] = (type(iter([])), type(iter(())))


def items_left(it: Any, reader: Callable[[Any], Any]) -> int:
    """How many items the iterator ``it`` will still yield, without consuming it: a list or
    tuple iterator's own count (its ``__length_hint__``, which the C case reads from the
    iterator's fields), else ``len(reader(it))``."""
    if type(it) in SEQUENCE_ITERATORS:
        return type(it).__length_hint__(it)
    return len(reader(it))


@kind
class IterRemaining(KindSpec):
    """How many items an iterator from outside still holds: more than ``k`` (capture took item
    ``k``) or exactly ``k`` (capture saw it end); ``expected`` is ``(k, more, reader)``, the
    reader giving the items an iterator of another type will still yield."""

    kind, op = GuardKind.ITER_REMAINING, Op.ITEMS_LEFT
    namespace = {"___items_left": items_left}

    def words(self, where: str, guard: Guard) -> str:
        k, more, _ = guard.expected
        return f"{where} has {'more than ' if more else ''}{k} item{'s' if k != 1 else ''} left"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        k, more, reader = guard.expected
        return f"___items_left({gen.expr(guard.source)}, {gen.bind('reader', reader)}) {'>' if more else '=='} {k}"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        k, more, reader = guard.expected
        return (int(self.op), node(guard.source), k, more, reader)

    def holds(self, v: Any, g: tuple) -> bool:
        left = items_left(v, g[4])
        return left > g[2] if g[3] else left == g[2]


@kind
class PinnedIdentity(IdMatch):
    """A value read without a source path (a trusted or pinned read) is the same object: its
    source is a ``PinnedSource`` whose getter re-reads the real location (one call node of the
    native plan), compared by pointer like ID_MATCH (``expected``: the object)."""

    kind = GuardKind.PINNED_IDENTITY

    def words(self, where: str, guard: Guard) -> str:
        return guard.words or guard.src


@kind
class ObjectEquals(GlobalState):
    """``x == obj`` for an object compared by C code (a NumPy dtype, a tuple of enum members),
    where EQUALS_MATCH's constants do not apply; pair it with a TYPE_MATCH where the type counts."""

    kind = GuardKind.OBJECT_EQUALS

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: equals {short_repr(guard.expected)}"


@kind
class HasKey(KindSpec):
    """``key in x`` (an instance ``__dict__`` that must keep an entry, say): KEY_ABSENT's opposite."""

    kind, op = GuardKind.HAS_KEY, Op.HAS_KEY

    def src(self, expr: str, key: Any) -> str:
        return f"{key!r} in {expr}"

    def words(self, where: str, guard: Guard) -> str:
        return f"{where}: has key {guard.expected!r}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        return f"{gen.bind('key', guard.expected)} in {gen.expr(guard.source)}"

    def holds(self, v: Any, g: tuple) -> bool:
        return g[2] in v


def has_attr(obj: Any, name: str) -> bool:
    """``hasattr``: only AttributeError means absent; any other error propagates (the guard fails)."""
    return hasattr(obj, name)


@kind
class HasAttr(KindSpec):
    """``hasattr(x, name) is present`` by the normal attribute lookup (an unset ``__slots__``
    member, an object whose own ``__getattribute__`` decides); ``expected``: ``(name, present)``."""

    kind, op = GuardKind.HAS_ATTR, Op.HAS_ATTR
    namespace = {"___has_attr": has_attr}

    def src(self, expr: str, expected: tuple) -> str:
        name, present = expected
        return f"{'' if present else 'not '}hasattr({expr}, {name!r})"

    def words(self, where: str, guard: Guard) -> str:
        name, present = guard.expected
        return f"{where}: {'has' if present else 'has no'} attribute {name!r}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        name, present = guard.expected
        return f"(___has_attr({gen.expr(guard.source)}, {name!r}) is {present!r})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        name, present = guard.expected
        return (int(self.op), node(guard.source), name, bool(present))

    def holds(self, v: Any, g: tuple) -> bool:
        return has_attr(v, g[2]) is g[3]


@kind
class IsInstance(KindSpec):
    """``isinstance(x, classes) is answer``: for a class whose ``__instancecheck__`` reads the
    instance (``nn.Parameter``, ``nn.Buffer``), where the exact type alone does not decide;
    ``expected``: ``(classes, answer)``."""

    kind, op = GuardKind.IS_INSTANCE, Op.IS_INSTANCE

    def src(self, expr: str, expected: tuple) -> str:
        classes, answer = expected
        return f"isinstance({expr}, {short_repr(classes)}) is {answer!r}"

    def words(self, where: str, guard: Guard) -> str:
        classes, answer = guard.expected
        return f"{where}: {'an' if answer else 'not an'} instance of {short_repr(classes)}"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        classes, answer = guard.expected
        return f"(isinstance({gen.expr(guard.source)}, {gen.bind('classes', classes)}) is {answer!r})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        classes, answer = guard.expected
        return (int(self.op), node(guard.source), classes, bool(answer))

    def holds(self, v: Any, g: tuple) -> bool:
        return isinstance(v, g[2]) is g[3]


def identity_pattern(objs: tuple) -> tuple:
    """For each object, the index of the first one that is the same object: ``(0, 1, 0)`` when
    the first and the third are one object and the second another."""
    first: dict[int, int] = {}
    return tuple(first.setdefault(id(o), i) for i, o in enumerate(objs))


@kind
class IdentityPattern(KindSpec):
    """Which of several sources reach the same object, as when compiled (``expected``: the
    ``identity_pattern`` of their values; all distinct is ``(0, 1, 2, ...)``): one pointer walk
    instead of a SAME_OBJECT or DISTINCT_OBJECTS guard per pair."""

    kind, op = GuardKind.IDENTITY_PATTERN, Op.IDENTITY_PATTERN
    namespace = {"___identity_pattern": identity_pattern}

    def words(self, where: str, guard: Guard) -> str:
        names = [s.expr for s in guard.sources]
        groups: dict[int, list[str]] = {}
        for name, first in zip(names, guard.expected):
            groups.setdefault(first, []).append(name)
        shared = [" and ".join(g) for g in groups.values() if len(g) > 1]
        if not shared:
            return f"{', '.join(names)} are different objects"
        return "; ".join(f"{g} are one object" for g in shared) + ", the others different objects"

    def python(self, gen: CheckWriter, guard: Guard) -> str:
        args = ", ".join(gen.expr(s) for s in guard.sources)
        return f"(___identity_pattern(({args},)) == {gen.bind('pattern', guard.expected)})"

    def plan(self, guard: Guard, node: Callable[[Source | None], int]) -> tuple:
        return (int(self.op), tuple(node(s) for s in guard.sources), guard.expected)

    def twin(self, g: tuple, read: Callable[[int], Any]) -> bool:
        return identity_pattern(tuple(read(n) for n in g[1])) == g[2]


@kind
class PythonGuard(_CallGuard):
    """Any other check (tensor aliasing, ...), with plain ``words``."""

    kind = GuardKind.PYTHON


def check_namespace() -> dict[str, Any]:
    """Every name a kind's generated Python check may use."""
    ns: dict[str, Any] = {}
    for spec in KINDS.values():
        ns.update(spec.namespace)
    return ns
