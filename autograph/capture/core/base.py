"""The symbolic value protocol.

Every value the interpreter tracks is a :class:`Value`; instructions dispatch to
these methods (the Python object protocol), never to isinstance cascades. The
defaults raise :class:`Unsupported`, which becomes a graph break.
"""
from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING, Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.registry import protocol_helper

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.engine.codegen import Codegen
    from autograph.capture.engine.interpreter import Translator


def mro_lookup(cls: type, name: str) -> tuple[type | None, Any]:
    """``(klass, raw)``: the first class of ``cls.__mro__`` defining ``name`` and its entry as
    stored (no descriptor runs); ``(None, None)`` when no class defines it."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass, klass.__dict__[name]
    return None, None


# what a class may store that binds when read through an instance (CPython's descriptors whose
# ``__get__`` makes a bound method): Python functions, C method and slot descriptors, classmethods
_BINDING_TYPES = (types.FunctionType, types.MethodDescriptorType, types.WrapperDescriptorType,
                  types.ClassMethodDescriptorType, classmethod, staticmethod, types.BuiltinFunctionType)


def attribute_binds(cls: type, name: str) -> bool:
    """Whether ``obj.name`` for an instance of ``cls`` (generic lookup) is a method: the name is
    found on the class as a function or method descriptor. Anything else is a data attribute,
    even when callable: a class stored on a class (``obj.__class__``), a property's result."""
    klass, raw = mro_lookup(cls, name)
    if klass is None:
        return False
    if isinstance(raw, (types.GetSetDescriptorType, types.MemberDescriptorType, property)):
        return False
    return isinstance(raw, _BINDING_TYPES)


def plain_class_attribute(tx: "Translator", value: "Value", name: str) -> "Value | None":
    """``value.name`` when CPython's lookup answers it from the class alone, without the
    instance: ``__class__`` (the value's type) and plain class data (``__doc__``, a
    ``__hash__ = None``). None when the name binds (a method) or needs the instance."""
    cls = value.python_type()
    if name == "__class__":
        return tx.wrap(cls, None, trusted=True)
    klass, raw = mro_lookup(cls, name)
    if klass is None or attribute_binds(cls, name) or hasattr(type(raw), "__get__"):
        return None
    return tx.wrap(raw, None, trusted=True)


# builtin classes whose ``__getattribute__`` entry is Python's generic lookup: their C type names
# ``PyObject_GenericGetAttr`` itself, so the slot wrapper sits in their own ``__dict__`` (a
# ``dict`` subclass's ``__getattribute__`` is not ``object.__getattribute__``, yet no code runs)
_GENERIC_LOOKUP_CLASSES = frozenset({
    object, dict, list, tuple, set, frozenset, int, float, complex, str, bytes, bytearray,
    BaseException, collections.defaultdict, collections.deque})


def generic_getattribute(cls: type) -> bool:
    """Whether attribute lookup on instances of ``cls`` is Python's generic one (descriptors,
    instance ``__dict__``, class, then ``__getattr__``): no user or unknown C ``__getattribute__``."""
    return mro_lookup(cls, "__getattribute__")[0] in _GENERIC_LOOKUP_CLASSES


class Value:
    """Base of all symbolic values. ``source`` names where a real input came from."""

    source = None
    mutable = False
    # the root instruction (``Translator.step``) that made this value, for a value that cannot be
    # rebuilt at a later break: the break moves there (Python makes it); None when not recorded
    created_step: int | None = None
    # the real object from outside this value stands for (a container or iterator read from
    # outside: ``is`` between them, rebuilt as that object); None for everything else
    identity: Any = None

    # --- facts -------------------------------------------------------------
    def python_type(self) -> type:
        raise Unsupported(f"type of {self.describe()} is unknown at capture time", kind="unsupported-operation")

    def is_constant(self) -> bool:
        return False

    def as_python_constant(self) -> Any:
        raise Unsupported(f"{self.describe()} is not a Python constant", kind="unsupported-operation")

    def describe(self) -> str:
        return type(self).__name__

    def is_tensor(self) -> bool:
        return False

    def is_symbolic_scalar(self) -> bool:
        """A Python number known only at run time (``families/scalars.py``)."""
        return False

    # --- protocol ----------------------------------------------------------
    def getattr(self, tx: "Translator", name: str) -> "Value":
        raise Unsupported(f"attribute `.{name}` of {self.describe()}", kind="unsupported-operation")

    def setattr(self, tx: "Translator", name: str, value: "Value") -> None:
        raise Unsupported(f"attribute store `.{name} = ...` on {self.describe()} — a side effect", kind="side-effect")

    def call(self, tx: "Translator", args: list["Value"], kwargs: dict[str, "Value"]) -> "Value":
        raise Unsupported(f"call to {self.describe()}", kind="unsupported-call")

    def call_method(self, tx: "Translator", name: str, args: list["Value"],
                    kwargs: dict[str, "Value"]) -> "Value":
        return self.getattr(tx, name).call(tx, args, kwargs)

    def getitem(self, tx: "Translator", key: "Value") -> "Value":
        raise Unsupported(f"indexing {self.describe()}", kind="unsupported-operation")

    def setitem(self, tx: "Translator", key: "Value", value: "Value") -> None:
        raise Unsupported(f"item store on {self.describe()} — a side effect", kind="side-effect")

    def delitem(self, tx: "Translator", key: "Value") -> None:
        raise Unsupported(f"item delete on {self.describe()}", kind="unsupported-operation")

    def iter_items(self, tx: "Translator") -> list["Value"]:
        """The items of ``iter(self)``, unrolled at capture time."""
        raise Unsupported(f"iterating over {self.describe()}", kind="unsupported-operation")

    def get_iter(self, tx: "Translator") -> "Value":
        """``iter(self)``: an iterator value (``next`` protocol). By default the items as they are
        now; containers the call can change, and iterators, answer live."""
        return protocol_helper("list_iterator")(self.iter_items(tx))

    def length(self, tx: "Translator") -> int:
        return len(self.iter_items(tx))

    def truth(self, tx: "Translator") -> bool:
        raise Unsupported(f"truth value of {self.describe()}", kind="unsupported-operation")

    def contains(self, tx: "Translator", item: "Value") -> "Value":
        """``item in self``, Python's fallback: iterate, each item compared by identity, then
        ``==``. A comparison whose truth only the run knows (``x == 1`` on a one-element tensor)
        is left to the transformed code (core/run_time.py); later items are then compared only
        when that is free of side effects (tensors, constants), since eager stops at the first
        true comparison. (The iterator is capture's own: how far it went is not observable.)"""
        from autograph.capture.core.constants import ConstantValue
        identical_or_none = protocol_helper("identical_or_none")
        from autograph.capture.core.run_time import RunTimeValue, any_true, one_element_tensor
        undecided: list[Value] = []
        it = self.get_iter(tx)
        while (x := it.next(tx)) is not None:
            if identical_or_none(tx, x, item):
                return ConstantValue(True)
            if undecided and not (x.is_tensor() or x.is_constant()):
                raise Unsupported(f"`in` after a comparison decided by a tensor value, then {x.describe()}",
                                  kind="data-dependent-branch")
            eq = tx.compare(x, "==", item)
            if one_element_tensor(eq):
                undecided.append(eq)
            elif eq.truth(tx):
                return ConstantValue(True)
        if undecided:
            return RunTimeValue(any_true, undecided, bool, f"`{item.describe()} in ...` (a tensor comparison)")
        return ConstantValue(False)

    # --- runtime rebuild ---------------------------------------------------
    def reconstruct(self, cg: "Codegen") -> str:
        """A Python expression (in the transformed code) that yields the real value."""
        if self.source is not None:
            return cg.source_expr(self.source)
        raise Unsupported(f"{self.describe()} cannot be rebuilt at a graph break", kind="cannot-rebuild")

    def reentered_context(self, cg: "Codegen") -> str | None:
        """For the ``__exit__`` a ``with`` block keeps on the stack: an expression making a fresh
        context manager that the resume function re-enters instead of receiving this value
        (torch state contexts, families/contexts.py). None: the value itself is passed."""
        return None

    def exit_may_swallow(self) -> bool:
        """For the ``__exit__`` a ``with`` block keeps on the stack: whether it may return true
        and so swallow an exception raised in the block (its tensor operations then run where
        that can happen, in Python). Unknown: it may."""
        return True

    def text_snapshot(self) -> Any:
        """A real object whose ``str``/``repr``/``format`` is this value's *now* (a container of
        constants: a set prints in its real table order), or None when there is none; the
        text is folded by running the real formatting on it."""
        return self.as_python_constant() if self.is_constant() else None

    def real_value(self) -> Any:
        """The real object, when the value stands for one known at capture time."""
        raise Unsupported(f"{self.describe()} has no real value at capture time", kind="unsupported-operation")

    def __repr__(self) -> str:
        return f"<{self.describe()}>"


def equal_or_identical(tx: "Translator", a: Value, b: Value) -> bool:
    """``PyObject_RichCompareBool(a, b, Py_EQ)``: identical objects are equal without calling
    ``__eq__`` (``x in (x, y)`` never compares tensors), else ``a == b``'s truth."""
    return bool(protocol_helper("identical_or_none")(tx, a, b)) or tx.compare(a, "==", b).truth(tx)


class NullValue(Value):
    """The NULL CPython pushes under a callable."""

    def describe(self) -> str:
        return "NULL"


NULL = NullValue()
