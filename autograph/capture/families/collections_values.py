"""``collections.deque``, ``defaultdict``, ``Counter`` and ``OrderedDict``: real containers of stand-ins.

Made during capture (``deque([a, b])``, ``defaultdict(list)``, ``Counter(words)``, ``dict.fromkeys``),
the container is a real object of that type holding stand-ins (families/tokens.py): every method,
operator, ``[]``, ``in``, ``len`` and iteration runs the real C (or, for ``Counter``, the real
library) code, so order, hashing, ``__missing__`` (the factory is called symbolically) and errors
are Python's own. At a break or return the transformed code makes a fresh container with the
final contents (one per call).

Passed in (an argument, a global, a closure cell), the container is *mirrored*: a real container
of the same type with the same keys (constants by value, other keys by identity) whose items are
read from the real one on first use. Its type, length, keys (and ``maxlen``) are guarded. When an
operation changes the mirror, the transformed code writes its final contents back into the real
container after the graph (``___write_back``): the caller sees exactly eager's contents and order.
"""
from __future__ import annotations

import collections
import operator
import types
from typing import Any

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.families import side_effects
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import BaseSequenceValue, DictValue
from autograph.capture.families.itertools_values import RealIteratorValue
from autograph.capture.families.tokens import Token, from_real, register_made, register_token, run_real, to_real
from autograph.guards.sources import AttrSource, ItemSource, ObjectSource, StoredItemSource

KINDS = (collections.deque, collections.defaultdict, collections.Counter, collections.OrderedDict)
_MAPPINGS = (collections.defaultdict, collections.Counter, collections.OrderedDict)


def _snapshot(real: Any) -> tuple:
    """What the container holds, by identity (a change of any item or of the order shows)."""
    if type(real) is collections.deque:
        return tuple(real)
    extra = (real.default_factory,) if type(real) is collections.defaultdict else ()
    return tuple(real.items()) + extra


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(
        x is y or (type(x) is tuple and type(y) is tuple and len(x) == len(y) and all(p is q for p, q in zip(x, y)))
        for x, y in zip(a, b))


class RealContainerValue(Value):
    """A deque/defaultdict/Counter/OrderedDict whose items are stand-ins."""

    mutable = True

    def __init__(self, tx, real: Any, source=None):
        self.real = real
        self.source = source
        self.written_back = False  # (mirrors) a write-back of the final contents is recorded
        # (made in the call) a base ``dict`` method bypassed an OrderedDict's order list: CPython's
        # object would be as inconsistent, but no rebuild can make it
        self.inconsistent = False
        register_made(tx, real, self)

    def describe(self):
        what = type(self.real).__qualname__
        return f"{what} object" + (f" ({self.source.expr})" if self.source is not None else " (made during capture)")

    def python_type(self):
        return type(self.real)

    def real_value(self):
        return self.real

    def real_stand_in(self, tx):
        self._changed(tx)  # real code may change it: write the final contents back (always correct)
        return self.real

    # --- running the real operation ----------------------------------------------------
    def _run(self, tx, what: str, fn, *args, **kwargs):
        before = _snapshot(self.real) if self.source is not None and not self.written_back else None
        try:
            return run_real(tx, what, fn, *args, **kwargs)
        finally:
            if before is not None and not _same(before, _snapshot(self.real)):
                self._changed(tx)

    def _changed(self, tx) -> None:
        if self.source is not None and not self.written_back:
            self.written_back = True
            side_effects.record_call(tx, write_back, [self, _FinalContents(self)], {})

    # --- protocol ----------------------------------------------------------------------
    def getattr(self, tx, name):
        try:
            attr = getattr(self.real, name)
        except AttributeError as exc:
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception") from None
        if isinstance(attr, (types.BuiltinMethodType, types.MethodType, types.MethodWrapperType)):
            return RealMethodValue(self, name)
        if isinstance(attr, type):
            return tx.wrap(attr, None, trusted=True)
        return from_real(tx, attr)  # maxlen, default_factory

    def call_method(self, tx, name, args, kwargs):
        return self.getattr(tx, name).call(tx, args, kwargs)

    def call_unbound(self, tx, method, args, kwargs):
        """``dict.get(od, k)``, ``OrderedDict.items(od)``: the real unbound C method on the real
        container (the base type's method, not the subclass's override), or NotImplemented when
        ``method`` does not belong to the container's type (Python's TypeError is then not ours)."""
        owner = getattr(method, "__objclass__", None)
        if not isinstance(owner, type) or not isinstance(self.real, owner):
            return NotImplemented
        name = getattr(method, "__name__", "?")
        out = self._run(tx, f"{owner.__name__}.{name}()", method, self.real, *(to_real(tx, a) for a in args),
                        **{k: to_real(tx, v) for k, v in kwargs.items()})
        if getattr(type(self.real), name, None) is not method and not _consistent(self.real):
            # ``dict.update(od, ...)`` bypasses OrderedDict's order list, as in CPython: the real
            # object now behaves as CPython's does, but no rebuild can match it
            if self.source is not None:  # the caller's object: no write-back reproduces it
                raise Unsupported(f"{owner.__name__}.{name}() left {self.describe()} inconsistent",
                                  kind="unsupported-call")
            if not self.inconsistent:
                self.inconsistent = True
                self.created_step = tx.step  # live at a break or returned: the break moves to this call
        return _real_call_result(tx, self, name, out)

    def setattr(self, tx, name, value):
        if type(self.real) is collections.defaultdict and name == "default_factory":
            self._run(tx, "default_factory =", setattr, self.real, name, to_real(tx, value))
            return
        super().setattr(tx, name, value)

    def getitem(self, tx, key):
        return from_real(tx, self._run(tx, "[]", operator.getitem, self.real, to_real(tx, key)))

    def setitem(self, tx, key, value):
        self._run(tx, "[] =", operator.setitem, self.real, to_real(tx, key), to_real(tx, value))

    def delitem(self, tx, key):
        self._run(tx, "del []", operator.delitem, self.real, to_real(tx, key))

    def contains(self, tx, item):
        return ConstantValue(self._run(tx, "in", operator.contains, self.real, to_real(tx, item)))

    def length(self, tx):
        return len(self.real)

    def truth(self, tx):
        return bool(self.real)

    def iter_items(self, tx):
        return [from_real(tx, x) for x in self._run(tx, "iteration", list, self.real)]

    def get_iter(self, tx):
        it = RealIteratorValue(tx, run_real(tx, "iter()", iter, self.real),
                               lambda cg: f"iter({cg.reconstruct(self)})")
        return it

    def mapping_items(self, tx) -> list[tuple[Value, Value]]:
        """``(key, value)`` pairs, for ``dict(m)`` and ``{**m}``."""
        if type(self.real) is collections.deque:
            raise Unsupported("a deque used as a mapping", generic=True, kind="python-exception")
        return [(from_real(tx, k), from_real(tx, v)) for k, v in list(self.real.items())]

    def binary_op(self, tx, op, other):
        fn = vb.BINARY.get(op)
        if fn is None:
            return NotImplemented
        real_other = _real_operand(tx, other)  # (a dict of the call as a real dict: od | dict)
        if real_other is NotImplemented:
            real_other = to_real(tx, other)
        return from_real(tx, self._run(tx, f"operator {op}", fn, self.real, real_other))

    def compare_op(self, tx, op, other):
        """``==``, ``<=``, ...: the real comparison (``OrderedDict == dict``, ``Counter <= Counter``)."""
        real_other = _real_operand(tx, other)
        if real_other is NotImplemented:
            return NotImplemented
        return from_real(tx, self._run(tx, f"operator {op}", vb.COMPARE[op], self.real, real_other))

    def unary_op(self, tx, op):
        if op not in ("-", "+"):  # (``not`` is truth(); ``~`` raises TypeError, as Python does)
            raise Unsupported(f"unary {op} on {self.describe()}", kind="unsupported-operation")
        return from_real(tx, self._run(tx, f"unary {op}", vb.UNARY[op], self.real))

    def text_snapshot(self) -> Any:
        """The real container itself, when it holds only immutable constants (and a defaultdict's
        factory is a builtin type): ``repr``/``str`` of it are folded by running the real ones."""
        real = self.real
        if self.inconsistent or not _consistent(real):
            return None
        from autograph.capture.families.tokens import _immutable_constant
        items = list(real) if type(real) is collections.deque else [x for pair in real.items() for x in pair]
        if not all(_immutable_constant(x) for x in items):
            return None
        if type(real) is collections.defaultdict and real.default_factory is not None and not (
                isinstance(real.default_factory, type) and real.default_factory.__module__ == "builtins"):
            return None
        return real

    def rbinary_op(self, tx, op, other):
        """``dict | od``: the real operator on the real operands (an OrderedDict's ``__ror__``)."""
        fn = vb.BINARY.get(op)
        real_other = _real_operand(tx, other)
        if fn is None or real_other is NotImplemented:
            return NotImplemented
        return from_real(tx, self._run(tx, f"operator {op}", fn, real_other, self.real))

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        real = self.real
        if self.inconsistent and not _consistent(real):
            raise Unsupported(f"{self.describe()}, left inconsistent by a base dict method, is live at a "
                              "graph break", kind="cannot-rebuild")
        if type(real) is collections.deque:
            items = ", ".join(_item_expr(cg, x) for x in real)
            return cg.shared(self, f"{cg.const(collections.deque)}([{items}], {real.maxlen!r})")
        pairs = _pairs_expr(cg, real)
        if type(real) is collections.defaultdict:
            factory = cg.reconstruct(from_real(cg.tx, real.default_factory))
            return cg.shared(self, f"{cg.const(_filled)}({cg.const(collections.defaultdict)}({factory}), {pairs})")
        return cg.shared(self, f"{cg.const(_filled)}({cg.const(type(real))}(), {pairs})")


def _real_operand(tx, other: Value) -> Any:
    """The other side of a comparison as a real object of stand-ins (a dict or list made during
    capture as a real copy: comparing reads it only), or NotImplemented."""
    if getattr(other, "real_stand_in", None) is not None:
        return to_real(tx, other)
    if type(other) is DictValue and other.python_type() is dict and not other.has_identity_keys():
        return {k: to_real(tx, v) for k, v in other.items.items()}
    if isinstance(other, BaseSequenceValue) and other.python_type() in (list, tuple):
        return other.python_type()(to_real(tx, i) for i in other.items)
    if other.is_constant():
        return other.as_python_constant()
    return NotImplemented


def _consistent(real: Any) -> bool:
    """Whether iterating ``real`` shows all its entries (a rebuild from its items is the same object)."""
    if type(real) is collections.deque:
        return True
    try:
        return len(list(real.items())) == len(real)
    except Exception:  # noqa: BLE001 - an OrderedDict whose order list lost a key raises KeyError
        return False


def _pairs_expr(cg, real) -> str:
    return "[" + ", ".join(f"({_item_expr(cg, k)}, {_item_expr(cg, v)})" for k, v in real.items()) + "]"


def _filled(obj, pairs):
    """``obj`` with ``pairs`` stored in order (the transformed code's rebuild of a mapping)."""
    for k, v in pairs:
        obj[k] = v
    return obj


def write_back(obj, contents) -> None:
    """Give the caller's container ``obj`` the final contents a compiled call computed."""
    if type(obj) is collections.deque:
        obj.clear()
        obj.extend(contents)
        return
    pairs, factory = contents
    if type(obj) is collections.defaultdict:
        obj.default_factory = factory
    obj.clear()
    _filled(obj, pairs)


class _FinalContents(Value):
    """The final contents of a mirrored container, as the transformed code passes them to write_back."""

    def __init__(self, mirror: RealContainerValue):
        self.mirror = mirror

    def reconstruct(self, cg):
        real = self.mirror.real
        if type(real) is collections.deque:
            items = ", ".join(_item_expr(cg, x) for x in real)
            return f"[{items}]"
        factory = _item_expr(cg, real.default_factory) if type(real) is collections.defaultdict else "None"
        return f"({_pairs_expr(cg, real)}, {factory})"


def _item_expr(cg, x) -> str:
    if isinstance(x, LazyToken) and not x.realized:
        return cg.source_expr(x.source)  # never read: from where it lives (read before any write-back)
    return cg.reconstruct(from_real(cg.tx, x))


_NAME_ATTRS = ("__name__", "__qualname__")


class RealMethodValue(Value):
    """``container.method`` of a real container of stand-ins: calling it runs the real method."""

    def __init__(self, owner: RealContainerValue, name: str):
        self.owner = owner
        self.name = name

    def describe(self):
        return f"method .{self.name}() of {self.owner.describe()}"

    def getattr(self, tx, name):
        if name in _NAME_ATTRS:  # (``assertRaises(E, d.get)`` reads the callable's name)
            return ConstantValue(getattr(getattr(self.owner.real, self.name), name))
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        owner = self.owner
        if self.name == "__iter__" and not args and not kwargs:
            return owner.get_iter(tx)
        method = getattr(owner.real, self.name)
        real_args = [to_real(tx, a) for a in args]
        real_kwargs = {k: to_real(tx, v) for k, v in kwargs.items()}
        out = owner._run(tx, f".{self.name}()", method, *real_args, **real_kwargs)
        return _real_call_result(tx, owner, self.name, out)

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.owner)}.{self.name}"


def _real_call_result(tx, owner: RealContainerValue, name: str, out: Any) -> Value:
    """The value of what a real method of ``owner`` returned: a live view, a plain dict of
    constant keys (``dict.copy(od)``), or the stand-in's value."""
    if type(out) in _VIEW_TYPES:
        return RealViewValue(owner, name, out)
    if type(out) is dict:
        if any(isinstance(k, Token) for k in out):
            raise Unsupported(f"{name}() made a dict with keys that are not constants", kind="unsupported-operation")
        return DictValue({k: from_real(tx, v) for k, v in out.items()})
    return from_real(tx, out)


_VIEW_TYPES = {type({}.keys()), type({}.values()), type({}.items()),
               type(collections.OrderedDict().keys()), type(collections.OrderedDict().values()),
               type(collections.OrderedDict().items())}


class RealViewValue(Value):
    """``m.keys()``/``.values()``/``.items()`` of a real mapping of stand-ins: a live view."""

    def __init__(self, owner: RealContainerValue, name: str, view: Any):
        self.owner, self.name, self.view = owner, name, view

    def describe(self):
        return f"{type(self.view).__name__} of {self.owner.describe()}"

    def python_type(self):
        return type(self.view)

    def length(self, tx):
        return len(self.view)

    def truth(self, tx):
        return bool(self.view)

    def iter_items(self, tx):
        return [from_real(tx, x) for x in run_real(tx, "iteration", list, self.view)]

    def get_iter(self, tx):
        return RealIteratorValue(tx, run_real(tx, "iter()", iter, self.view),
                                 lambda cg: f"iter({self.reconstruct(cg)})")

    def contains(self, tx, item):
        return ConstantValue(run_real(tx, "in", operator.contains, self.view, to_real(tx, item)))

    def compare_op(self, tx, op, other):
        """``od1.items() == od2.items()``, ``<=``, ...: the real set-like comparison of the views
        (items' values compared by their own ``==``, run symbolically through their stand-ins)."""
        from autograph.capture.families.sets import SetValue
        if isinstance(other, RealViewValue):
            real_other = other.view
        elif isinstance(other, SetValue):  # (keys by value only: tokens and identity keys differ)
            real_other = NotImplemented if other.has_identity_keys() else other.real
        else:
            real_other = _real_operand(tx, other)
        if real_other is NotImplemented or op not in vb.COMPARE:
            return NotImplemented
        return from_real(tx, run_real(tx, f"operator {op}", vb.COMPARE[op], self.view, real_other))

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.owner)}.{self.name}()"


# ---------------------------------------------------------------------------------------
# mirrors of containers passed in

class LazyToken(Token):
    """The stand-in of an item of a container passed in, wrapped (and guarded) on first use."""

    __slots__ = ("source", "item", "_value", "realized")

    def __init__(self, tx, source, item):
        self.tx = tx
        self.source = source
        self.item = item
        self._value = None
        self.realized = False

    @property
    def value(self):  # type: ignore[override]
        if not self.realized:
            self._value = self.tx.wrap(self.item, self.source)
            self.realized = True
            register_token(self.tx, self._value, self)
        return self._value

    def __hash__(self) -> int:
        if _identity_hashed_real(self.item):
            return object.__hash__(self)
        raise Unsupported(f"hashing {type(self.item).__qualname__} item of a container passed in", kind="unsupported-operation")


class CallableLazyToken(LazyToken):
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        tx = self.tx
        return to_real(tx, tx.call(self.value, [from_real(tx, a) for a in args],
                                   {k: from_real(tx, v) for k, v in kwargs.items()}))


def _identity_hashed_real(obj: Any) -> bool:
    """Whether Python hashes and compares ``obj`` by identity (a tensor, a class, a plain object)."""
    if isinstance(obj, (torch.Tensor, type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)):
        return True
    cls = type(obj)
    return cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__


def _stand_in_key(tx, key: Any, what: str) -> Any:
    """A key of a container passed in, as the mirror holds it: constants by value, other
    objects hashed by identity by their one stand-in."""
    from autograph.capture.families.tokens import _immutable_constant
    if _immutable_constant(key):
        return key
    if not _identity_hashed_real(key):
        raise Unsupported(f"a {type(key).__qualname__} key of {what} (compared by value, not identity)", kind="unsupported-operation")
    existing = tx_tokens(tx).get(("real", id(key)))
    if existing is not None:
        return existing
    token = LazyToken(tx, ObjectSource(key, f"key of {what}"), key)
    tx_tokens(tx)[("real", id(key))] = token
    return token


def tx_tokens(tx) -> dict:
    from autograph.capture.families.tokens import _state
    return _state(tx)["tokens"]


# id(real container) -> its mirror value, one per container this capture read
CONTAINER_MIRRORS = registry.state_slot("container_mirrors", dict, __name__)


def _wrap_container(tx, obj, source):
    """A deque/defaultdict/Counter/OrderedDict reached through ``source``: its mirror."""
    mirrors = CONTAINER_MIRRORS.of(tx)
    tx.guards.type_(source, obj)
    if source is None:
        raise Unsupported(f"a {type(obj).__qualname__} reached without a guardable source", kind="unsupported-operation")
    hit = mirrors.get(id(obj))
    if hit is not None and hit.real_obj is obj:  # one object reached two ways: one mirror
        a, b = hit.source, source
        tx.guards.same_object(a, b)
        return hit
    what = source.expr
    if type(obj) is collections.deque:
        tx.guards.length(source, obj)
        tx.guards.equals(AttrSource(source, "maxlen"), obj.maxlen)
        real = collections.deque((LazyToken(tx, ItemSource(source, i), x) for i, x in enumerate(obj)), obj.maxlen)
    else:
        if not _consistent(obj):  # its iteration hides entries: a mirror of its keys would too
            raise Unsupported(f"{type(obj).__qualname__} {what} left inconsistent by a base dict method",
                              kind="unsupported-operation")
        keys = tuple(obj.keys())
        tx.guards.keys(source, keys, by_value=[not _identity_hashed_real(k) for k in keys])
        if type(obj) is collections.defaultdict:
            factory = obj.default_factory
            if factory is not None:
                factory = CallableLazyToken(tx, AttrSource(source, "default_factory"), factory)
            real = collections.defaultdict(factory)
        else:
            real = type(obj)()
        item_source = StoredItemSource if hasattr(type(obj), "__missing__") else ItemSource
        for k in keys:
            key = _stand_in_key(tx, k, what)
            real[key] = LazyToken(tx, item_source(source, k), obj[k])
    value = RealContainerValue(tx, real, source)
    value.real_obj = obj
    mirrors[id(obj)] = value
    return value


# ---------------------------------------------------------------------------------------
# construction

def _class_call(tx, cls, args, kwargs):
    if cls not in KINDS:
        return NotImplemented
    real = run_real(tx, f"{cls.__qualname__}()", cls, *(to_real(tx, a) for a in args),
                    **{k: to_real(tx, v) for k, v in kwargs.items()})
    return RealContainerValue(tx, real)


class FromKeysValue(Value):
    """``dict.fromkeys`` / ``defaultdict.fromkeys`` / ``OrderedDict.fromkeys`` / ``Counter.fromkeys``."""

    def __init__(self, fn):
        self.fn = fn

    def describe(self):
        return f"{self.fn.__self__.__qualname__}.fromkeys"

    def real_value(self):
        return self.fn

    def getattr(self, tx, name):
        if name in _NAME_ATTRS:
            return ConstantValue(getattr(self.fn, name))
        return super().getattr(tx, name)

    def call(self, tx, args, kwargs):
        if self.fn.__self__ is dict:
            made = _dict_fromkeys(tx, args, kwargs)
            if made is not NotImplemented:
                return made
        real = run_real(tx, self.describe() + "()", self.fn, *(to_real(tx, a) for a in args),
                        **{k: to_real(tx, v) for k, v in kwargs.items()})
        if type(real) is dict:
            from autograph.capture.families.containers import DictValue
            for k in real:
                if isinstance(k, Token):
                    raise Unsupported("dict.fromkeys with keys that are not constants", kind="unsupported-operation")
            return DictValue({k: from_real(tx, v) for k, v in real.items()})
        return from_real(tx, real)

    def reconstruct(self, cg):
        return cg.const(self.fn)


def _dict_fromkeys(tx, args: list[Value], kwargs: dict[str, Value]) -> Any:
    """``dict.fromkeys(iterable, value=None)`` over keys that are not constants, as CPython's
    ``_PyDict_FromKeys`` does: an exact dict or set gives its keys with their stored hashes (no
    ``__hash__`` runs again), any other iterable's items are inserted one by one (each hashed, a
    Python ``__hash__`` interpreted). Constants only: NotImplemented (the real call on them)."""
    from autograph.capture.families.containers import DictValue
    from autograph.capture.families.sets import SetValue, _Identity
    if kwargs or not 1 <= len(args) <= 2:
        return NotImplemented
    source, fill = args[0], (args[1] if len(args) == 2 else ConstantValue(None))
    if type(source) is DictValue and source.kind is dict:
        if not any(isinstance(k, _Identity) for k in source.items):
            return NotImplemented
        return DictValue(dict.fromkeys(source.items, fill))
    if type(source) is SetValue:
        if not any(isinstance(k, _Identity) for k in source.real):
            return NotImplemented
        if len(source.real) > 1:
            source.iter_items(tx)  # its order must be known (else this breaks)
        return DictValue(dict.fromkeys(source.real, fill))
    if source.is_constant() or getattr(source, "real_stand_in", None) is not None \
            or isinstance(source, (SetValue, DictValue, RealContainerValue)):
        return NotImplemented
    from autograph.capture.families.iterators import iterator_of
    out = DictValue({})
    for item in iterator_of(tx, source).iter_items(tx):
        out.setitem(tx, item, fill)
    return out


def _callable_wrapper(tx, obj, source):
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, type) and (owner is dict or owner in KINDS) and getattr(obj, "__name__", "") == "fromkeys":
        tx.guards.id_(source, obj)
        return FromKeysValue(obj)
    return None


def _from_real(tx, obj):
    if type(obj) in KINDS:  # a new container made by a real operation (Counter + Counter, d.copy())
        return RealContainerValue(tx, obj)
    return None


def _shallow_copy(tx, args, kwargs):
    """``copy.copy(c)`` of a real container of stand-ins: the real copy (its own ``__copy__`` or
    reduction, run over the same stand-ins), a new container of the call."""
    import copy
    if len(args) != 1 or kwargs or not isinstance(args[0], RealContainerValue):
        return NotImplemented
    return from_real(tx, run_real(tx, "copy.copy()", copy.copy, args[0].real))


def install() -> None:
    import copy
    registry.register_opaque_call(copy.copy, _shallow_copy)
    registry.add_class_call_hook(_class_call)
    registry.add_callable_wrapper(_callable_wrapper)
    registry.add_from_real_hook(_from_real)
    for kind in KINDS:
        registry.register_type_wrapper(kind, _wrap_container)
