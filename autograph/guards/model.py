"""Guards as data, and the constructors capture uses to make them.

A ``Guard`` is data: what to check (``kind``), on which value (``source``),
against which facts (``expected``).  ``src`` is one line of Python a user can
paste to reproduce the check; ``describe()`` says it in plain words for
``autograph.inspect``.  Everything a kind means (its text, its Python check, its
native plan node) is defined once, in ``kinds.py``; ``check.py`` (generated
Python) and ``native.py`` (C fast path) read it there.
"""
from __future__ import annotations

import operator
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from autograph.guards.kinds import GuardKind, identity_pattern, no_hooks_hold, spec_of
from autograph.guards.sources import GLOBAL_STATE_KINDS, GlobalStateSource, PinnedSource, Source
from autograph.guards.text import identity_words

__all__ = ["GuardKind", "Guard", "TensorFacts", "identity_words", "no_hooks_hold"]

TENSOR_MATCH = GuardKind.TENSOR_MATCH
TYPE_MATCH = GuardKind.TYPE_MATCH
ID_MATCH = GuardKind.ID_MATCH
EQUALS_MATCH = GuardKind.EQUALS_MATCH
LENGTH_MATCH = GuardKind.LENGTH_MATCH
KEY_ABSENT = GuardKind.KEY_ABSENT
NO_HOOKS = GuardKind.NO_HOOKS
GLOBAL_STATE = GuardKind.GLOBAL_STATE
SHAPE_RELATION = GuardKind.SHAPE_RELATION
SAME_OBJECT = GuardKind.SAME_OBJECT
DISTINCT_OBJECTS = GuardKind.DISTINCT_OBJECTS
DICT_KEYS = GuardKind.DICT_KEYS
ITER_REMAINING = GuardKind.ITER_REMAINING
PINNED_IDENTITY = GuardKind.PINNED_IDENTITY
OBJECT_EQUALS = GuardKind.OBJECT_EQUALS
HAS_KEY = GuardKind.HAS_KEY
HAS_ATTR = GuardKind.HAS_ATTR
IS_INSTANCE = GuardKind.IS_INSTANCE
IDENTITY_PATTERN = GuardKind.IDENTITY_PATTERN
PYTHON = GuardKind.PYTHON


@dataclass(frozen=True)
class TensorFacts:
    """What TENSOR_MATCH compares. ``None`` in sizes/strides = dynamic, not checked."""

    cls: type
    dtype: Any
    device: Any
    requires_grad: bool
    sizes: tuple
    strides: tuple
    dispatch_keys: Any  # the tensor's torch.DispatchKeySet

    @property
    def ndim(self) -> int:
        return len(self.sizes)


@dataclass(eq=False)
class Guard:
    """One check. ``expected`` depends on ``kind`` (see the constructors below).

    ``sources`` lists every source the check reads (SHAPE_RELATION / PYTHON may
    read several; all other kinds read exactly ``source``).  ``check_fn`` is the
    callable of SHAPE_RELATION / PYTHON guards, called with the values of
    ``sources`` in order.
    """

    kind: GuardKind
    source: Source | None
    expected: Any
    src: str = ""  # empty: the kind's readable text for ``expected`` (kinds.py)
    sources: tuple = ()
    check_fn: Callable[..., Any] | None = None
    reason: str = ""  # optional: why capture installed it (e.g. "branch on x.size(0)")
    words: str = ""  # optional plain words for describe() when ``src`` is not readable (PYTHON)

    def __post_init__(self):
        if not self.sources and self.source is not None:
            self.sources = (self.source,)
        if not self.src and self.source is not None:
            self.src = spec_of(self.kind).src(self.source.expr, self.expected)

    def describe(self) -> str:
        """Plain words, e.g. ``a: Tensor float32 cpu size (10,) stride (1,) requires_grad=False``."""
        where = self.source.expr if self.source is not None else ""
        return spec_of(self.kind).words(where, self)

    def __repr__(self) -> str:
        return f"Guard({self.kind.value}, {self.src})"


# ---------------------------------------------------------------- constructors

def _tensor_keys(tensor: Any) -> Any:  # a torch._C.DispatchKeySet
    import torch

    return torch._C._dispatch_keys(tensor)


def tensor_match(source: Source, tensor: Any, dynamic_dims: Iterable[int] = ()) -> Guard:
    """TENSOR_MATCH on ``tensor`` as it is now; ``dynamic_dims`` are left unchecked."""
    dyn = set(dynamic_dims)
    sizes = tuple(None if i in dyn else int(s) for i, s in enumerate(tensor.size()))
    strides = tuple(None if i in dyn else int(s) for i, s in enumerate(tensor.stride()))
    facts = TensorFacts(type(tensor), tensor.dtype, tensor.device, bool(tensor.requires_grad),
                        sizes, strides, _tensor_keys(tensor))
    return Guard(TENSOR_MATCH, source, facts)


def type_match(source: Source, value_or_type: Any, *, is_type: bool = False) -> Guard:
    """``type(x) is T`` (exact class, as the capture specialised on it)."""
    cls = value_or_type if is_type else type(value_or_type)
    return Guard(TYPE_MATCH, source, cls)


def id_match(source: Source, obj: Any) -> Guard:
    """``x is obj``: identity of a module, function, class or other object.

    The guard keeps a strong reference to ``obj`` so its id can never be reused
    by another object while the cache entry lives (entries are bounded by the
    recompile limit; ``autograph.reset()`` releases them).
    """
    return Guard(ID_MATCH, source, obj)


_CONSTANT_TYPES = (int, float, str, bool, type(None), bytes, complex)


def _is_constant(value: Any) -> bool:
    if type(value) in _CONSTANT_TYPES:
        return True
    if type(value) is tuple:
        return all(_is_constant(v) for v in value)
    torch = sys.modules.get("torch")  # no dtype or device exists before torch is imported
    return torch is not None and isinstance(value, (torch.dtype, torch.device))


def equals_match(source: Source, value: Any) -> Guard:
    """Same type and equal: ``1``, ``1.0`` and ``True`` are different constants here."""
    if not _is_constant(value):
        raise TypeError(f"equals_match needs a constant (int/float/str/bool/None/tuple), got {type(value).__name__}")
    return Guard(EQUALS_MATCH, source, value)


def length_match(source: Source, length: int) -> Guard:
    return Guard(LENGTH_MATCH, source, int(length))


def key_absent(source: Source, key: Any) -> Guard:
    """``key not in x`` (an instance ``__dict__`` that must not shadow a class attribute, say)."""
    return Guard(KEY_ABSENT, source, key)


def no_hooks(source: Source, names: Sequence[str]) -> Guard:
    """Each ``x.__dict__[name]`` is empty: no hook registered on an ``nn.Module`` (its
    ``_forward_hooks``, ``_forward_pre_hooks``... dictionaries) or globally (the ``_global_*``
    dictionaries of ``torch.nn.modules.module``).  One check for all the dictionaries of one
    object, read from its instance ``__dict__`` without running Python code."""
    return Guard(NO_HOOKS, source, tuple(names))


def global_state_guard(kind: str, value: Any | None = None) -> Guard:
    source = GlobalStateSource(kind)
    if value is None:
        value = source.reader()
    return Guard(GLOBAL_STATE, source, value)


_ALWAYS = ("grad_enabled", "default_dtype", "deterministic", "inference_mode",
           "torch_function_modes", "torch_dispatch_modes", "functorch_level")


def global_state(kinds: Iterable[str] | None = None) -> list[Guard]:
    """Guards on the interpreter-wide state a graph bakes in, read now.

    By default: grad mode, default dtype, deterministic algorithms, inference
    mode, the torch-function / torch-dispatch mode stacks and the functorch
    level; autocast as one cheap "any autocast enabled" check, or per device
    (with its dtype) when autocast is on at capture time.
    """
    if kinds is None:
        from autograph.guards.sources import GLOBAL_STATE_KINDS as table

        kinds = list(_ALWAYS)
        if table["autocast_any"][1]():
            kinds += ["autocast_cpu", "autocast_dtype_cpu", "autocast_cuda", "autocast_dtype_cuda"]
        else:
            kinds.append("autocast_any")
    return [global_state_guard(k) for k in kinds if k in GLOBAL_STATE_KINDS]


def shape_relation(expr_src: str, check_fn: Callable[..., bool], sources: Sequence[Source]) -> Guard:
    """A relation between sizes for dynamic shapes, e.g. ``a.size(0) == b.size(0)``.

    ``check_fn`` gets the values of ``sources`` in order and returns a bool.
    """
    sources = tuple(sources)
    return Guard(SHAPE_RELATION, sources[0] if sources else None, None, expr_src,
                 sources=sources, check_fn=check_fn)


def same_object(a: Source, b: Source) -> Guard:
    """``a is b``: two sources reach one object."""
    return Guard(SAME_OBJECT, a, None, f"{a.expr} is {b.expr}", sources=(a, b), check_fn=operator.is_)


def distinct_objects(a: Source, b: Source) -> Guard:
    """``a is not b``: two sources reach different objects."""
    return Guard(DISTINCT_OBJECTS, a, None, f"{a.expr} is not {b.expr}", sources=(a, b), check_fn=operator.is_not)


def dict_keys(source: Source, keys: Sequence[Any], by_value: Sequence[bool]) -> Guard:
    """The keys of the mapping at ``source`` are ``keys`` in order: the same objects, or (where
    ``by_value``) of the same type and equal (see ``kinds.keys_match``)."""
    keys, by_value = tuple(keys), tuple(bool(b) for b in by_value)
    shown = ", ".join(repr(k) if v else f"<{type(k).__name__} at {id(k):#x}>" for k, v in zip(keys, by_value))
    return Guard(DICT_KEYS, source, (keys, by_value), f"keys({source.expr}) == ({shown})",
                 words=f"{source.expr}: keys ({shown}) in this order")


def iterator_remaining(source: Source, reader: Callable[[Any], Any], count: int, more: bool) -> Guard:
    """The iterator at ``source`` holds more than ``count`` items still (``more``) or exactly
    ``count``; ``reader`` reads the items an iterator other than a list or tuple iterator will
    yield, without consuming it (see ``kinds.items_left``)."""
    text = f"len({reader.__name__}({source.expr})) {'>' if more else '=='} {count}"
    return Guard(ITER_REMAINING, source, (count, more, reader), text)


def pinned_identity(getter: Callable[[], Any], what: str, obj: Any) -> Guard:
    """``getter() is obj``: the location ``what`` (read without a source) still holds ``obj``."""
    return Guard(PINNED_IDENTITY, PinnedSource(getter, what), obj,
                 f"{what} is <{type(obj).__name__} at {id(obj):#x}>",
                 words=f"{what}: {identity_words(obj)} (same object as when compiled)")


def object_equals(source: Source, obj: Any) -> Guard:
    """``x == obj`` for an object compared by C code (no user ``__eq__``): a NumPy dtype, a tuple
    of enum members. Not a type check: pair it with TYPE_MATCH where the type matters."""
    return Guard(OBJECT_EQUALS, source, obj, f"{source.expr} == {obj!r}")


def has_key(source: Source, key: Any) -> Guard:
    """``key in x``: an instance ``__dict__`` still holds ``key`` (KEY_ABSENT's opposite)."""
    return Guard(HAS_KEY, source, key)


def has_attr(source: Source, name: str, present: bool) -> Guard:
    """``hasattr(x, name) is present``, by the normal attribute lookup (its code included)."""
    return Guard(HAS_ATTR, source, (name, bool(present)))


def is_instance(source: Source, classes: Any, answer: bool) -> Guard:
    """``isinstance(x, classes) is answer`` (a class whose ``__instancecheck__`` reads the instance)."""
    return Guard(IS_INSTANCE, source, (classes, bool(answer)))


def identity_pattern_match(sources: Sequence[Source], objs: Sequence[Any]) -> Guard:
    """The values of ``sources`` are the same objects among themselves as ``objs`` are (see
    ``kinds.identity_pattern``): all different, or some shared as now."""
    sources, want = tuple(sources), identity_pattern(tuple(objs))
    text = f"___identity_pattern(({', '.join(s.expr for s in sources)},)) == {want!r}"
    return Guard(IDENTITY_PATTERN, sources[0], want, text, sources=sources)


def python_guard(expr_src: str, check_fn: Callable[..., bool], sources: Sequence[Source],
                 words: str = "") -> Guard:
    """Any other check, as a callable over the values of ``sources``; ``words`` describes it plainly."""
    sources = tuple(sources)
    return Guard(PYTHON, sources[0] if sources else None, None, expr_src,
                 sources=sources, check_fn=check_fn, words=words)


def storage_key(tensor: Any) -> Any:
    """What identifies a tensor's memory: its storage (views of one tensor share it)."""
    try:
        return tensor.untyped_storage()._cdata
    except Exception:  # noqa: BLE001 - sparse/nested tensors: fall back to the object
        return ("object", id(tensor))


def alias_pattern(tensors: Sequence[Any]) -> tuple:
    """For each tensor, the index of the first one sharing its storage and of the first that is the
    same object: ``((0, 0), (1, 1))`` for two separate tensors, ``((0, 0), (0, 1))`` for two views
    of one storage."""
    by_storage: dict = {}
    by_object: dict = {}
    return tuple((by_storage.setdefault(storage_key(t), i), by_object.setdefault(id(t), i))
                 for i, t in enumerate(tensors))


def tensor_aliasing(sources: Sequence[Source], tensors: Sequence[Any], held: Sequence[Any] = ()) -> Guard:
    """The tensor inputs share memory exactly as when compiled (no two share it, usually).

    A graph that writes one input and reads another was compiled for one aliasing; the same
    tensor passed for two parameters, or two views of one tensor, need an entry of their own.
    ``held``: tensors the graph holds itself (parameters, buffers); the inputs share memory
    with them as when compiled (their storages are read once, here).
    """
    held_keys = {storage_key(t): i for i, t in reversed(list(enumerate(held)))}
    expected = alias_pattern(tensors), tuple(held_keys.get(storage_key(t)) for t in tensors)
    separate = expected == (tuple((i, i) for i in range(len(tensors))), (None,) * len(tensors))
    count, held_set = len(tensors), frozenset(held_keys)

    def check(*ts):
        if separate:  # the usual case, on every call: a few microseconds
            try:
                keys = {t.untyped_storage()._cdata for t in ts}
            except Exception:  # noqa: BLE001 - no storage: compare the full pattern
                pass
            else:
                return len(keys) == count and held_set.isdisjoint(keys)
        return alias_pattern(ts) == expected[0] and tuple(held_keys.get(storage_key(t)) for t in ts) == expected[1]

    names = [s.expr for s in sources]
    groups: dict = {}
    for name, (first, _) in zip(names, expected[0]):
        groups.setdefault(first, []).append(name)
    shared = [g for g in groups.values() if len(g) > 1]

    if separate:
        src = f"len({{t.untyped_storage()._cdata for t in ({', '.join(names)},)}}) == {len(names)}"
        words = f"{', '.join(names)} are separate tensors (no two share memory)"
        if held:
            words += ", and none shares memory with a parameter or buffer"
    else:
        src = f"___alias_pattern({', '.join(names)}) == {expected!r}"
        words = "; ".join(f"{' and '.join(g)} share memory" for g in shared) or "tensor inputs share memory"
        words += " (as when compiled)"
    return python_guard(src, check, sources, words=words)
