"""Records the guards a capture relies on, deduplicated, in first-use order.

Values reached through a ``Source`` get the guards of ``autograph.guards.model``;
values reached without one are either given a source rooted at a fixed object
(``ObjectSource``: another module's globals, a callee's defaults — the capture's
``wrap`` does this) or *pinned* by a callable that re-reads the real location: a
guard on a ``PinnedSource`` (its getter is one call node of the native plan): PINNED_IDENTITY
compares identity, EQUALS_MATCH a constant's value, TYPE_MATCH a type.

Capture records guards only through the public methods below, one per guard kind (and
``python`` for a check no kind expresses, by a name declared in ``guards/named_checks.py``);
``_add`` is private to this module (``tests/capture/core/test_guard_api.py`` and
``tests/guards/test_named_checks.py`` enforce both).
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Hashable, Iterable, Sequence

from autograph.capture.core.constants import exact_key
from autograph.guards import model
from autograph.guards.named_checks import named_check
from autograph.guards.sources import AttrSource, FunctionOfSource, ItemSource, ObjectSource, PinnedSource, Source

MAX_ITEM_GUARDS = 16  # ``iterates_as``: more items are one Python check (a plan holds at most 1024 nodes)


def _item_guardable(x: Any) -> bool:
    """Whether ``read_equals`` decides about ``x`` as ``exact_key`` does: not a frozenset, not a
    tuple of more than constants, no NaN (``exact_key`` compares the very same NaN equal)."""
    if type(x) in (float, complex):
        return x == x
    if type(x) is tuple:
        return model._is_constant(x) and all(_item_guardable(i) for i in x)
    return type(x) is not frozenset


class GuardRecorder:
    def __init__(self):
        self.guards: list[model.Guard] = []
        self._seen: set = set()
        self.pin: tuple[Callable[[], Any], str] | None = None
        self._answer_getters: dict = {}  # (fn, args, kwargs) -> the one getter ``answer`` calls
        self._answer_values: dict = {}

    def _add(self, key, make: Callable[[], model.Guard]) -> None:
        if key in self._seen:
            return
        self._seen.add(key)
        self.guards.append(make())

    def _pinned(self, kind: str, obj: Any) -> None:
        if self.pin is None:
            return
        getter, what = self.pin
        self.pin = None  # only the top-level object of a pinned read
        if kind == "id":
            self._add(("pin-id", what, id(obj)), lambda: model.pinned_identity(getter, what, obj))
        elif kind == "eq" and model._is_constant(obj):
            self._add(("pin-eq", what, repr(obj)), lambda: model.equals_match(PinnedSource(getter, what), obj))
        elif kind == "eq":
            self.read_equals(PinnedSource(getter, what), obj)
        elif kind == "type":
            t = type(obj)
            self._add(("pin-type", what, t), lambda: model.type_match(PinnedSource(getter, what), t, is_type=True))

    def pinned_method(self, getter: Callable[[], Any], what: str, func: Any, self_obj: Any) -> None:
        """``getter()`` (a pinned read) is still ``func`` bound to ``self_obj``: ID_MATCH on the
        ``__func__`` and ``__self__`` of one getter call (native: a call node, two pointer compares)."""
        pinned = PinnedSource(getter, what)
        self.id_(AttrSource(pinned, "__func__"), func)
        self.id_(AttrSource(pinned, "__self__"), self_obj)

    def method(self, obj_source, cls: type, name: str, func: Any) -> None:
        """``obj.name`` stays ``func`` bound to ``obj``: neither its class nor the instance
        (``module.forward = wrapper``, as hook libraries do) replaced it."""
        import types

        if obj_source is not None and type(func) is types.FunctionType:
            self.id_(AttrSource(AttrSource(obj_source, name), "__func__"), func)
            return
        # no source, or a wrapped function (wrapt binds anew on each read): the class entry,
        # and no instance attribute shadowing it
        self.class_attr(cls, name)
        if obj_source is not None:
            dict_source = AttrSource(obj_source, "__dict__")
            self._add(("unshadowed", obj_source, name), lambda: model.key_absent(dict_source, name))

    def class_attr(self, cls: type, name: str) -> None:
        """What ``cls`` holds for ``name`` (raw, in the class of its MRO that defines it) stays
        the same object, and no class before that one in the MRO gains the name: a method,
        property or descriptor patched on the class (or shadowed in a subclass) recaptures."""
        from autograph.capture.core.base import mro_lookup
        klass, raw = mro_lookup(cls, name)
        if klass is None:
            return
        for earlier in cls.__mro__[:cls.__mro__.index(klass)]:
            d = AttrSource(ObjectSource(earlier, earlier.__qualname__), "__dict__")
            self._add(("class-lacks", earlier, name), lambda d=d: model.key_absent(d, name))
        self.id_(ItemSource(AttrSource(ObjectSource(klass, klass.__qualname__), "__dict__"), name), raw)

    def key_absent(self, source, key) -> None:
        """``key not in <source>`` stays true (a KEY_ABSENT guard, evaluated natively)."""
        if source is None:
            return
        self._add(("absent", source, key), lambda: model.key_absent(source, key))

    def tensor(self, source, tensor) -> None:
        self._add(("tensor", source), lambda: model.tensor_match(source, tensor))

    def equals(self, source, value) -> None:
        if source is None:
            return self._pinned("eq", value)
        if not model._is_constant(value):
            return self.type_(source, value)
        self._add(("eq", source), lambda: model.equals_match(source, value))

    def type_(self, source, value) -> None:
        if source is None:
            return self._pinned("type", value)
        self._add(("type", source), lambda: model.type_match(source, value))

    def id_(self, source, obj) -> None:
        if source is None:
            return self._pinned("id", obj)
        self._add(("id", source), lambda: model.id_match(source, obj))

    def length(self, source, obj) -> None:
        if source is None:
            return
        self._add(("len", source), lambda: model.length_match(source, len(obj)))

    def no_hooks(self, source, names) -> None:
        self._add(("no-hooks", source), lambda: model.no_hooks(source, names))

    def keys(self, source, d: Iterable, by_value: Sequence[bool] | None = None) -> None:
        """The keys of the mapping at ``source`` stay those of ``d`` in order (a DICT_KEYS guard):
        of the same type and equal (1 and True, (2, 3) and torch.Size([2, 3]) are equal keys), or
        the same objects where ``by_value`` says False."""
        if source is None:
            return
        keys = tuple(d)
        by_value = (True,) * len(keys) if by_value is None else tuple(by_value)
        self._add(("keys", source, by_value), lambda: model.dict_keys(source, keys, by_value))

    def aliasing(self, inputs: list, held: list) -> None:
        """Tensor inputs ``[(source, tensor), ...]`` share memory as now, among themselves and with
        the tensors the graph holds (``held``: parameters, buffers); see ``model.tensor_aliasing``."""
        inputs = [(s, t) for s, t in inputs if s is not None and t is not None]
        if len(inputs) < 2 and not (inputs and held):
            return
        key = ("aliasing", tuple(s for s, _ in inputs))
        self._add(key, lambda: model.tensor_aliasing([s for s, _ in inputs], [t for _, t in inputs], held))

    def distinct(self, a, b) -> None:
        """Sources ``a`` and ``b`` are different objects (capture folded ``a is b`` to False)."""
        if a is None or b is None:
            return
        self._add(("distinct", a, b), lambda: model.distinct_objects(a, b))

    def same_object(self, a, b) -> None:
        """Sources ``a`` and ``b`` reach one object (one placeholder or mirror serves both)."""
        if a is None or b is None or a == b:
            return
        self._add(("same", a, b), lambda: model.same_object(a, b))

    def not_object(self, source, obj: Any) -> None:
        """The value at ``source`` is not ``obj`` (a fixed object capture told apart from it)."""
        if source is None:
            return
        other = ObjectSource(obj, f"<{type(obj).__name__} at {id(obj):#x}>")
        self._add(("distinct", source, other), lambda: model.distinct_objects(source, other))

    def iterator_remaining(self, source, reader: Callable[[Any], tuple], count: int, more: bool) -> None:
        """The iterator at ``source`` still holds more than ``count`` items (``more``: capture took
        item ``count``) or exactly ``count`` (capture saw it end)."""
        if source is None:
            return
        self._add(("iter-remaining", source, count, more),
                  lambda: model.iterator_remaining(source, reader, count, more))

    def read_equals(self, source: Source, value: Any) -> None:
        """The value at ``source`` is of ``value``'s type and equal to it: EQUALS_MATCH for a
        constant, else TYPE_MATCH then OBJECT_EQUALS (``==`` of objects compared by their type's
        code: a NumPy dtype, a tuple of enum members). Recorded once per source and value."""
        if model._is_constant(value):
            self._add(("read-eq", source, type(value), repr(value)), lambda: model.equals_match(source, value))
            return
        self._add(("type", source), lambda: model.type_match(source, value))
        self._add(("read-eq", source, type(value), id(value)), lambda: model.object_equals(source, value))

    def folded_value(self, source: Source | None, value: Any) -> None:
        """A value capture folds as a constant stays of its type and equal (``read_equals``); a
        frozenset, or a tuple holding more than constants, item by item with their exact types
        (``frozenset({1}) == frozenset({True})``, yet their items fold differently): the named
        check ``exact-value``."""
        if source is None:
            return
        if type(value) is frozenset or (type(value) is tuple and not model._is_constant(value)):
            expected = exact_key(value)
            self.python("exact-value", source, f"{source.expr} == {value!r}",
                        lambda v: exact_key(v) == expected, [source])
            return
        self.read_equals(source, value)

    def iterates_as(self, source: Source | None, items: list) -> None:
        """``list(<source>)`` is ``items`` (a set's contents in its iteration order): as many, each
        of its type and equal (``read_equals``: a float's sign and a tuple's items too), in this
        order. Up to ``MAX_ITEM_GUARDS`` items, none a frozenset or a tuple of more than constants:
        one call of ``list`` and a guard per item, native; else the named check ``set-contents``."""
        if source is None:
            return
        if len(items) <= MAX_ITEM_GUARDS and all(_item_guardable(x) for x in items):
            listed = FunctionOfSource(source, list, "list")
            self.length(listed, items)
            for k, item in enumerate(items):
                self.read_equals(ItemSource(listed, k), item)
            return
        expected = [exact_key(item) for item in items]
        self.python("set-contents", source, f"list({source.expr}) == {items!r}",
                    lambda v: [exact_key(item) for item in v] == expected, [source])

    def answer(self, fn: Callable[..., Any], args: tuple, kwargs: dict, what: str, answer: Any) -> None:
        """``fn(*args, **kwargs)`` (a query of process state, called again on each call: one call
        node of the native plan) still answers ``answer``, of the same type; a call that raises
        fails the guard. ``what`` is the call as text."""
        key = ("answer", fn, args, tuple(kwargs.items()))
        try:
            hash(key)
        except TypeError:  # unhashable constant arguments: one getter per call
            key = ("answer", fn, id(args), id(kwargs))
        getter = self._answer_getters.get(key)
        if getter is None:
            getter = self._answer_getters[key] = functools.partial(fn, *args, **kwargs)
            self._answer_values[key] = (args, kwargs)  # ids in the key stay those of live objects
        self.read_equals(PinnedSource(getter, what), answer)

    def has_key(self, source: Source, key: Any) -> None:
        """``key in <source>`` stays true (a HAS_KEY guard: an instance ``__dict__`` entry)."""
        self._add(("has-key", source, key), lambda: model.has_key(source, key))

    def has_attr(self, source: Source, name: str, present: bool) -> None:
        """``hasattr(<source>, name)`` keeps answering ``present`` (the normal attribute lookup)."""
        self._add(("has-attr", source, name), lambda: model.has_attr(source, name, present))

    def instance_answer(self, source: Source, classes: Any, answer: bool) -> None:
        """``isinstance(<source>, classes)`` keeps answering ``answer`` (a class whose
        ``__instancecheck__`` reads the instance: the exact type alone does not decide)."""
        self._add(("isinstance", source, classes), lambda: model.is_instance(source, classes, answer))

    def identity_pattern(self, sources: Sequence[Source], objs: Sequence[Any]) -> None:
        """Which of ``sources`` reach one object stays as among ``objs`` (all different, or some
        shared): one IDENTITY_PATTERN guard, a pointer walk over their values."""
        sources = tuple(sources)
        if len(sources) < 2:
            return
        self._add(("identity-pattern", sources), lambda: model.identity_pattern_match(sources, objs))

    def python(self, name: str, key: Hashable, src: str, check: Callable[..., bool],
               sources: Sequence[Source] = (), words: str = "") -> None:
        """A check no guard kind expresses, declared by ``name`` in ``guards/named_checks.py``
        (``UndeclaredCheck`` otherwise): ``check(*values of sources)`` (without sources it reads
        live state itself), shown as ``src`` (and ``words``); recorded once per ``(name, key)``."""
        declared = named_check(name)
        self._add(("python", name, key),
                  lambda: model.python_guard(src, check, list(sources), words=words or declared.words))

    def relax_tensor_matches(self, by_source: dict) -> None:
        """Replace the TENSOR_MATCH of each source in ``by_source`` by the guard given there (one
        leaving the symbolic sizes of a dynamic input unchecked: ``shapes.finish_guards``)."""
        self.guards[:] = [by_source.get(g.source, g) if g.kind is model.TENSOR_MATCH else g for g in self.guards]

    def shape_relation(self, guard: model.Guard) -> None:
        """A SHAPE_RELATION guard the ShapeEnv recorded (``shapes.finish_guards``), after the others."""
        self.guards.append(guard)

    def global_state(self) -> None:
        for guard in model.global_state():
            self._add(("state", guard.source), lambda g=guard: g)

    def no_handled_exception(self) -> None:
        """The caller handles no exception (capture chained or answered ``sys.exc_info()`` as if so)."""
        self.id_(ItemSource(PinnedSource(sys.exc_info, "sys.exc_info()"), 1), None)
