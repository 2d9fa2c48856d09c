"""``isinstance``/``issubclass`` decided as CPython's ``PyObject_IsInstance``/``IsSubclass`` do.

The order is CPython's: an exact type match, a class whose metaclass is ``type`` (the MRO
decides), a union or tuple (each member in turn), then the metaclass's
``__instancecheck__``/``__subclasscheck__``. A checker written in Python (a user metaclass) is
inlined and its result truth-tested; the C checkers are modelled: ``type``'s (the MRO),
``abc.ABCMeta``'s (the real ABC test on the real classes), the legacy tensor types'
(``torch.LongTensor``: the tensor's dtype, layout and device type, as ``Tensor_instancecheck``
compares its dispatch key and scalar type), and torch's own metaclasses on tensors
(``nn.Parameter``/``nn.Buffer`` read flags on the real tensor: ``builtins._tensor_isinstance``).
Anything else is a break.
"""
from __future__ import annotations

import abc
import types
from typing import TYPE_CHECKING, Any

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import mro_lookup

if TYPE_CHECKING:  # pragma: no cover
    from autograph.capture.engine.interpreter import Translator
    from autograph.capture.core.base import Value

LEGACY_TENSOR_TYPE = type(torch.FloatTensor)  # torch.tensortype: FloatTensor, cuda.LongTensor, ...
_TYPE_INSTANCECHECK = type.__dict__["__instancecheck__"]
_TYPE_SUBCLASSCHECK = type.__dict__["__subclasscheck__"]
_ABC_INSTANCECHECK = abc.ABCMeta.__dict__["__instancecheck__"]
_ABC_SUBCLASSCHECK = abc.ABCMeta.__dict__["__subclasscheck__"]


def legacy_tensor_match(tensor: torch.Tensor, legacy: type) -> bool:
    """``isinstance(tensor, torch.LongTensor)`` from the tensor's static metadata: same dtype,
    same layout, and the device type the legacy class stands for (cpu, cuda or xpu)."""
    device = "cuda" if legacy.is_cuda else "xpu" if legacy.is_xpu else "cpu"
    return tensor.dtype == legacy.dtype and tensor.layout == legacy.layout and tensor.device.type == device


def _raise_type_error(message: str):
    exc = TypeError(message)
    raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")


def _metaclass_checker(tx: "Translator", cls: Any, name: str) -> Any:
    """The metaclass's ``name`` entry as stored, guarded to stay that entry."""
    meta = type(cls)
    klass, checker = mro_lookup(meta, name)
    if klass is not None and meta is not type:
        tx.guards.class_attr(meta, name)
    return checker


def _inline_checker(tx: "Translator", checker: types.FunctionType, cls: Any, arg: "Value") -> bool:
    """A ``__instancecheck__``/``__subclasscheck__`` written in Python, run on the class and
    the argument; CPython truth-tests what it returns."""
    from autograph.capture.families.functions import UserFunctionValue
    return UserFunctionValue(checker).call(tx, [tx.wrap(cls, None, trusted=True), arg], {}).truth(tx)


def _by_mro(obj: "Value", t: type, cls: type) -> bool:
    """``type.__instancecheck__``: ``cls`` in ``type(obj).__mro__`` (an overridden ``__class__``,
    which Python then consults too, is not modelled)."""
    if cls in t.__mro__:
        return True
    if mro_lookup(t, "__class__")[0] is not object:
        raise Unsupported(f"isinstance of {obj.describe()}, whose class overrides __class__",
                          kind="unsupported-operation")
    return False


def is_instance(tx: "Translator", obj: "Value", classinfo: Any) -> bool:
    """``isinstance(obj, classinfo)`` for the real class (or tuple or union of classes)."""
    t = obj.python_type()
    return _instance_of(tx, obj, t, classinfo)


def _instance_of(tx: "Translator", obj: "Value", t: type, cls: Any) -> bool:
    if t is cls:
        return True
    if type(cls) is type:
        return _by_mro(obj, t, cls)
    if isinstance(cls, types.UnionType):
        cls = cls.__args__
    if isinstance(cls, tuple):
        return any(_instance_of(tx, obj, t, c) for c in cls)
    if type(cls) is LEGACY_TENSOR_TYPE:
        return obj.is_tensor() and _legacy_instance(tx, obj, cls)
    checker = _metaclass_checker(tx, cls, "__instancecheck__")
    if checker is None:
        if not isinstance(getattr(cls, "__bases__", None), tuple):
            _raise_type_error("isinstance() arg 2 must be a type, a tuple of types, or a union")
        raise Unsupported(f"isinstance() with {cls!r}, which is not a class", kind="unsupported-operation")
    if checker is _TYPE_INSTANCECHECK:
        return _by_mro(obj, t, cls)
    if checker is _ABC_INSTANCECHECK:
        return issubclass(t, cls)  # the real ABC test (registry, __subclasshook__) on real classes
    if (type(cls).__module__ or "").split(".")[0] == "torch":
        return _torch_metaclass_instance(tx, obj, t, cls)
    if isinstance(checker, types.FunctionType):
        return _inline_checker(tx, checker, cls, obj)
    raise Unsupported(f"isinstance() with {cls!r}, whose metaclass has a C __instancecheck__",
                      kind="unsupported-operation")


def _legacy_instance(tx: "Translator", obj: "Value", legacy: type) -> bool:
    real = tx.graph.real_tensor(obj)
    return isinstance(real, legacy) if real is not None else legacy_tensor_match(obj.fake, legacy)


def _torch_metaclass_instance(tx: "Translator", obj: "Value", t: type, cls: type) -> bool:
    """torch's metaclasses (``nn.Parameter``'s, ``nn.Buffer``'s) answer as ``type`` for anything
    but a tensor, where they read flags on the real one."""
    by_class = issubclass(t, cls)
    if not obj.is_tensor():
        return by_class
    from autograph.capture.families.builtins import _tensor_isinstance
    return _tensor_isinstance(tx, obj, cls, by_class)


def is_subclass(tx: "Translator", derived: "Value", real: Any, classinfo: Any) -> bool | None:
    """``issubclass(real, classinfo)``; None where it is not modelled (the caller breaks)."""
    cls = classinfo
    if type(cls) is type:
        return None if not isinstance(real, type) else issubclass(real, cls)
    if isinstance(cls, types.UnionType):
        cls = cls.__args__
    if isinstance(cls, tuple):
        for c in cls:
            answer = is_subclass(tx, derived, real, c)
            if answer is None or answer:
                return answer
        return False
    checker = _metaclass_checker(tx, cls, "__subclasscheck__")
    if checker is _TYPE_SUBCLASSCHECK and isinstance(real, type):
        return issubclass(real, cls)  # type's own test: the MRO, no Python code runs
    if isinstance(checker, types.FunctionType) and checker is not _ABC_SUBCLASSCHECK:
        return _inline_checker(tx, checker, cls, derived)
    return None  # ABCMeta's (its __subclasshook__ would run now) and C checkers
