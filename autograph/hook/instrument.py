"""Wrap the selected functions of a module in place, and put the originals back.

Each selected function is replaced by an :class:`AutographFunctionWrapper` (a
``wrapt.FunctionWrapper``: ``__wrapped__``, ``__name__``, ``__doc__`` and
``inspect.signature`` stay those of the original) whose call goes to the runtime's
shim for the original function: ``shim(*args)`` for functions and static methods,
``shim(self_or_cls, *args)`` for methods and class methods (the contract of
``autograph.runtime.shim.shim_for``). Wrappers pickle by qualified name, so
``multiprocessing`` and ``DataLoader`` workers re-import them.

What is wrapped, within a selected module: module-level functions and the methods
(plain, ``staticmethod``, ``classmethod``) of classes defined there, nested classes
included. Left alone: dunders other than ``__call__``, properties, generators,
coroutines, async generators, lambdas, functions defined in another module, and
anything marked ``__autograph_skip__`` (``@autograph.skip``).
"""
from __future__ import annotations

import copy
import importlib
import inspect
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import wrapt

from autograph.hook.select import Selection
from autograph.runtime import dynamo as _dynamo

_NOT_COMPILABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


def _import_by_name(module: str, qualname: str) -> Any:
    """Unpickling side of a wrapper: the object now at ``module.qualname``."""
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


class AutographBoundFunctionWrapper(wrapt.BoundFunctionWrapper):
    """A wrapped method bound to an instance (``model.forward``)."""

    def __reduce_ex__(self, protocol: int) -> tuple:
        parent = self._self_parent
        instance = self._self_instance
        if instance is None or getattr(parent, "_self_binding", "") == "staticmethod":
            return parent.__reduce_ex__(protocol)
        return getattr, (instance, parent._self_autograph_attr)

    def __reduce__(self) -> tuple:
        return self.__reduce_ex__(2)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        """Like a bound method: bind the same function to a deep copy of the instance."""
        parent = self._self_parent
        instance = self._self_instance
        if instance is None or isinstance(instance, type) or getattr(parent, "_self_binding", "") == "staticmethod":
            return self
        return getattr(copy.deepcopy(instance, memo), parent._self_autograph_attr)


# wrapt's binding "function" makes every call of an unbound wrapper look up
# ``__self__`` on the function, which raises and clears an AttributeError (~2 us).
# Module-level functions get a binding wrapt does not special-case: calls go straight
# to our wrapper, which re-inserts ``self`` itself if the function is ever bound.
MODULE_FUNCTION_BINDING = "autograph-module-function"
_WRAPPER_BASE = next((base for base in wrapt.FunctionWrapper.__mro__[1:] if base.__name__ == "_FunctionWrapperBase"), None)


class AutographFunctionWrapper(wrapt.FunctionWrapper):
    """A selected function (or ``staticmethod``/``classmethod`` object) routed through its shim."""

    __bound_function_wrapper__ = AutographBoundFunctionWrapper

    def __init__(self, wrapped: Any, wrapper: Callable, *, module: str, qualname: str, attr: str,
                 original: types.FunctionType, binding: str | None = None):
        if binding is not None and _WRAPPER_BASE is not None:
            _WRAPPER_BASE.__init__(self, wrapped, None, wrapper, None, binding)
        else:
            super().__init__(wrapped, wrapper)
        self._self_autograph_module = module
        self._self_autograph_qualname = qualname
        self._self_autograph_attr = attr
        self._self_autograph_original = original

    def __reduce_ex__(self, protocol: int) -> tuple:
        return _import_by_name, (self._self_autograph_module, self._self_autograph_qualname)

    def __reduce__(self) -> tuple:
        return self.__reduce_ex__(2)

    def __copy__(self):  # functions are atomic for copy/deepcopy; so are their wrappers
        return self

    def __deepcopy__(self, memo: dict):
        return self

    @property
    def _torchdynamo_inline(self) -> Any:
        """What TorchDynamo traces instead of this wrapper: the user's original (see runtime/dynamo.py)."""
        return self.__wrapped__


def _shim_for(fn: types.FunctionType) -> Callable:
    """The runtime's shim for ``fn`` (imported on first use: installing the hook stays cheap)."""
    from autograph.runtime.shim import shim_for

    return shim_for(fn)


def _call_through(shim: Callable, binding: str) -> Callable:
    """The wrapt wrapper function calling ``shim``: the C ``WrapperCall`` when the extension is
    built, so no Python frame of autograph's sits between the caller and the user's function."""
    if shim is not None:
        from autograph.runtime.frames import wrapper_call
        native_call = wrapper_call(shim, binding != "staticmethod")
        if native_call is not None:
            return native_call
    if binding == "staticmethod":
        def call_static(wrapped, instance, args, kwargs):
            return shim(*args, **kwargs)

        return call_static

    def call(wrapped, instance, args, kwargs):
        if instance is None:
            return shim(*args, **kwargs)
        return shim(instance, *args, **kwargs)

    return call


# the wrapper's own frames: TorchDynamo never compiles them (autograph/runtime/dynamo.py)
_dynamo.skip_frames(_call_through(None, "function"), _call_through(None, "staticmethod"))


def wrap_function(raw: Any, *, module: str, qualname: str, attr: str, module_level: bool = False) -> AutographFunctionWrapper:
    """Wrap ``raw`` (a function, ``staticmethod`` or ``classmethod``) so calls go to its shim."""
    if isinstance(raw, (staticmethod, classmethod)):
        original, binding = raw.__func__, type(raw).__name__
    else:
        original, binding = raw, "function"
    call = _call_through(_shim_for(original), binding)
    return AutographFunctionWrapper(raw, call, module=module, qualname=qualname, attr=attr, original=original,
                                    binding=MODULE_FUNCTION_BINDING if module_level and binding == "function" else None)


def is_wrapped(obj: Any) -> bool:
    """True when ``obj`` is a function (or bound method) wrapped by autograph."""
    return isinstance(obj, (AutographFunctionWrapper, AutographBoundFunctionWrapper))


def original_function(obj: Any) -> Any:
    """The plain function behind an autograph wrapper (bound or not); ``obj`` itself otherwise.

    For code that must not shim twice, e.g. ``autograph.compile`` given a function the
    hook already wrapped. (``isinstance(wrapper, types.FunctionType)`` is True: wrapt
    proxies ``__class__``.)
    """
    if isinstance(obj, AutographBoundFunctionWrapper):
        return obj._self_parent._self_autograph_original
    if isinstance(obj, AutographFunctionWrapper):
        return obj._self_autograph_original
    return obj


@dataclass
class Patch:
    """One attribute replaced by a wrapper: enough to put the original back."""

    owner: Any          # the module or class whose __dict__ holds the attribute
    attr: str
    original: Any       # the raw attribute (function, staticmethod or classmethod)
    wrapper: AutographFunctionWrapper
    module: str
    qualname: str

    def restore(self) -> bool:
        """Put the original back unless someone replaced the wrapper meanwhile."""
        if vars(self.owner).get(self.attr) is self.wrapper:
            setattr(self.owner, self.attr, self.original)
            return True
        return False


def _compilable(fn: Any, name: str) -> bool:
    if not isinstance(fn, types.FunctionType):
        return False
    if name.startswith("__") and name.endswith("__") and name != "__call__":
        return False
    if "<" in fn.__qualname__ or fn.__code__.co_flags & _NOT_COMPILABLE:
        return False
    return not getattr(fn, "__autograph_skip__", False)


def _function_of(raw: Any) -> Any:
    return raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw


def _members(module: types.ModuleType) -> Iterator[tuple[Any, str, Any, str]]:
    """``(owner, attribute, raw value, qualname)`` of every candidate in ``module``."""
    modname = module.__name__
    seen_classes: set[int] = set()

    def of_class(cls: type) -> Iterator[tuple[Any, str, Any, str]]:
        if id(cls) in seen_classes:
            return
        seen_classes.add(id(cls))
        for attr, raw in list(vars(cls).items()):
            if isinstance(raw, type):
                if raw.__module__ == modname and raw.__qualname__ == f"{cls.__qualname__}.{attr}":
                    yield from of_class(raw)
                continue
            fn = _function_of(raw)
            if _compilable(fn, attr) and fn.__module__ == modname and not is_wrapped(raw):
                yield cls, attr, raw, f"{cls.__qualname__}.{attr}"

    for attr, value in list(vars(module).items()):
        if isinstance(value, type):
            if value.__module__ == modname and "<" not in value.__qualname__ and "." not in value.__qualname__:
                yield from of_class(value)
        elif _compilable(value, attr) and value.__module__ == modname and "." not in value.__qualname__:
            yield module, attr, value, value.__qualname__


def instrument_module(module: types.ModuleType, selection: Selection) -> list[Patch]:
    """Wrap every selected function of ``module`` in place; return the patches made."""
    modname = getattr(module, "__name__", None)
    if not isinstance(modname, str) or not selection.selects_module(modname):
        return []
    patches: list[Patch] = []
    wrappers: dict[int, AutographFunctionWrapper] = {}  # aliases (g = f) share one wrapper
    for owner, attr, raw, qualname in _members(module):
        if not selection.selects_function(modname, qualname):
            continue
        wrapper = wrappers.get(id(raw))
        if wrapper is None:
            wrapper = wrappers[id(raw)] = wrap_function(raw, module=modname, qualname=qualname, attr=attr,
                                                        module_level=owner is module)
        setattr(owner, attr, wrapper)
        patches.append(Patch(owner, attr, raw, wrapper, modname, qualname))
    return patches


def restore_all(patches: list[Patch]) -> int:
    """Undo ``patches`` (newest first); return how many originals were put back."""
    return sum(patch.restore() for patch in reversed(patches))
