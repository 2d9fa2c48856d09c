"""Capture's extension tables, and the small API value families register through.

The interpreter and the core value modules consult these tables; a value family (numpy,
itertools, user classes, ...) adds entries to them in its ``install()``. Families never write
another module's private table: they call the functions below, and ``families/install.py``
calls every family's ``install()`` once, in one documented order. This module imports
nothing from autograph, so every other capture module may import it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, TypeVar

_SlotValue = TypeVar("_SlotValue")

# ``fn -> handler(tx, *args, **kwargs) -> Value | NotImplemented``: builtins and library
# functions modelled at capture time (``len``, ``super``, ``functools.reduce``, ...)
BUILTIN_HANDLERS: dict[Any, Callable] = {}
# ``hook(tx, cls, args, kwargs) -> Value | NotImplemented`` for calling a class the builtins do
# not handle; the first hook that answers wins
CLASS_CALL_HOOKS: list[Callable] = []
# ``fn -> handler(tx, args, kwargs) -> Value | NotImplemented``: torch functions answered at
# capture time (``torch.compiler.is_compiling()``, collectives, ``torch.vmap``, ...)
TORCH_CALL_OVERRIDES: dict[Any, Callable] = {}
# names of torch functions that change global state: calling one is a graph break
TORCH_BREAKS: set[str] = set()
# ``type -> wrapper(tx, obj, source) -> Value``: how a real object of that exact type is wrapped
TYPE_WRAPPERS: dict[Any, Callable] = {}
# ``hook(tx, obj, source) -> Value | None``: library callables with a model (itertools, numpy)
CALLABLE_WRAPPERS: list[Callable] = []
# ``fn -> handler``: opaque callables (``copy.deepcopy``, ``inspect.signature``) handled when called
OPAQUE_CALL_HANDLERS: dict[Any, Callable] = {}
# ``rule(tx, fn, args, kwargs) -> Value | NotImplemented`` tried for other opaque calls (logging)
OPAQUE_CALL_RULES: list[Callable] = []
# ``hook(tx, obj) -> Value | None``: other real objects library code makes (itertools objects)
FROM_REAL_HOOKS: list[Callable] = []
# ``name -> handler(tx, tensor, args, kwargs) -> Value | NotImplemented``: tensor methods with a model
# of their own (``Tensor.numpy``)
TENSOR_METHOD_OVERRIDES: dict[str, Callable] = {}
# ``hook(tx, value) -> Value | None``: an index of ``t[...]`` torch converts itself (an ndarray: its tensor)
INDEX_CONVERSIONS: list[Callable] = []
# ``rule(module) -> (reason, break kind) | None``: modules whose call runs in Python as it is (DDP)
CALLED_IN_PYTHON: list[Callable] = []
# classes whose instances have read-only attributes: a folded one may be shared
IMMUTABLE_VALUE_TYPES: set[type] = set()
# ``factory(tx, fn_value, args, kwargs) -> Value``: calling a generator function
_GENERATOR_FACTORY: list[Callable] = []
# checks run when capture reached the compiled function's own return: ``(tx) -> None``, raising
# Unsupported (with a ``retry_step``) when what Python does as the frame dies cannot be done by
# the capture (families/generators.py: a generator paused in a cleanup block); capture/engine/api.py runs them
ROOT_RETURN_CHECKS: list[Callable] = []
# the same, run at every end of a capture (its return or a break): what the transformed code
# cannot leave as the capture left it (families/outside_generators.py: a real generator the
# capture ran part of)
CAPTURE_END_CHECKS: list[Callable] = []

# what the Value protocol's defaults (``core/base.py``, ``core/constants.py``) need from a
# family, which they may not import: ``name -> callable``, filled by the family's ``install()``
# (``list_iterator``: ``ListIteratorValue``; ``builtin_method``: ``BuiltinMethodValue``;
# ``identical_or_none``: ``builtins.identical_or_none``)
PROTOCOL_HELPERS: dict[str, Callable] = {}

# ``name -> StateSlot``: the per-capture state value families own (``capture/core/state.py``)
STATE_SLOTS: dict[str, "StateSlot"] = {}


@dataclass(frozen=True, eq=False)
class StateSlot(Generic[_SlotValue]):
    """One piece of per-capture state a family owns: declared once, with its owner module and
    the factory of its empty value; ``SLOT.of(tx)`` is its value in ``tx``'s ``CaptureState``."""

    name: str
    owner: str
    factory: Callable[[], _SlotValue]

    def of(self, tx: Any) -> _SlotValue:
        return tx.state.slot(self)

    def peek(self, tx: Any) -> _SlotValue | None:
        """The value if this capture used the slot, else None (nothing is made)."""
        return tx.state.peek(self)


def state_slot(name: str, factory: Callable[[], _SlotValue], owner: str) -> StateSlot[_SlotValue]:
    """Declare the per-capture state ``name`` of the family module ``owner`` (its ``__name__``)."""
    if name in STATE_SLOTS:
        raise ValueError(f"capture state slot {name!r} is already declared by {STATE_SLOTS[name].owner}")
    slot = STATE_SLOTS[name] = StateSlot(name, owner, factory)
    return slot


def provide_protocol_helper(name: str, fn: Callable) -> None:
    PROTOCOL_HELPERS[name] = fn


def protocol_helper(name: str) -> Callable:
    """A helper a family provides to the Value protocol (installed with the families)."""
    return PROTOCOL_HELPERS[name]


def register_builtin(fn: Any, handler: Callable) -> None:
    """``fn(...)`` in user code is answered by ``handler(tx, *args, **kwargs)``."""
    BUILTIN_HANDLERS[fn] = handler


def wrap_builtin(fn: Any, wrapper: Callable[[Callable], Callable]) -> None:
    """Put ``wrapper(previous_handler)`` in front of ``fn``'s registered handler."""
    BUILTIN_HANDLERS[fn] = wrapper(BUILTIN_HANDLERS[fn])


def add_class_call_hook(hook: Callable, *, first: bool = True) -> None:
    """Try ``hook`` when a class is called: before the hooks registered so far, or after them."""
    if hook not in CLASS_CALL_HOOKS:
        CLASS_CALL_HOOKS.insert(0 if first else len(CLASS_CALL_HOOKS), hook)


def register_torch_call(fn: Any, handler: Callable, *, replace: bool = True) -> None:
    """A torch function answered by ``handler(tx, args, kwargs)``; ``replace=False`` keeps an earlier one."""
    if replace:
        TORCH_CALL_OVERRIDES[fn] = handler
    else:
        TORCH_CALL_OVERRIDES.setdefault(fn, handler)


def wrap_torch_call(fn: Any, wrapper: Callable[[Callable | None], Callable]) -> None:
    """Put ``wrapper(previous_handler_or_None)`` in front of ``fn``'s torch-call handler."""
    TORCH_CALL_OVERRIDES[fn] = wrapper(TORCH_CALL_OVERRIDES.get(fn))


def add_torch_breaks(names: Iterable[str]) -> None:
    TORCH_BREAKS.update(names)


def register_type_wrapper(cls: Any, wrapper: Callable, *, replace: bool = True) -> None:
    """Real objects of exactly ``cls`` are wrapped by ``wrapper``; ``replace=False`` keeps an earlier one."""
    if replace:
        TYPE_WRAPPERS[cls] = wrapper
    else:
        TYPE_WRAPPERS.setdefault(cls, wrapper)


def _append_once(table: list, hook: Callable) -> None:
    if hook not in table:
        table.append(hook)


def add_callable_wrapper(hook: Callable) -> None:
    _append_once(CALLABLE_WRAPPERS, hook)


def register_opaque_call(fn: Any, handler: Callable) -> None:
    OPAQUE_CALL_HANDLERS[fn] = handler


def add_opaque_call_rule(rule: Callable) -> None:
    _append_once(OPAQUE_CALL_RULES, rule)


def add_from_real_hook(hook: Callable) -> None:
    _append_once(FROM_REAL_HOOKS, hook)


def register_tensor_method(name: str, handler: Callable) -> None:
    TENSOR_METHOD_OVERRIDES[name] = handler


def add_index_conversion(hook: Callable) -> None:
    _append_once(INDEX_CONVERSIONS, hook)


def add_called_in_python(rule: Callable) -> None:
    _append_once(CALLED_IN_PYTHON, rule)


def mark_immutable_type(cls: type) -> None:
    IMMUTABLE_VALUE_TYPES.add(cls)


def set_generator_factory(factory: Callable) -> None:
    _GENERATOR_FACTORY[:] = [factory]


def generator_factory() -> Callable | None:
    return _GENERATOR_FACTORY[0] if _GENERATOR_FACTORY else None


def add_root_return_check(check: Callable) -> None:
    _append_once(ROOT_RETURN_CHECKS, check)


def add_capture_end_check(check: Callable) -> None:
    _append_once(CAPTURE_END_CHECKS, check)
