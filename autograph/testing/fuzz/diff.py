"""Comparing what eager and compiled runs left behind: values, structure, state and identity.

``diff_values`` walks two values side by side and says where they first differ.
``Pairing`` remembers, over every call of one check, which eager object corresponds
to which compiled one: identity must correspond both ways, so an input returned as
itself, the same tensor returned twice, a fresh set (or exception) per call and an
in-place method returning ``self`` are all compared, not only values.
"""
from __future__ import annotations

import inspect
import math
import types
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from autograph.testing.compare import same
from autograph.testing.fuzz.loading import _MODULE_PREFIX

_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
# values whose identity carries no meaning (interned, rebuilt freely, or immutable)
_UNTRACKED = (int, float, complex, bool, str, bytes, type(None), tuple, frozenset, range, slice, type,
              types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType,
              torch.dtype, torch.device, torch.Size) + _VIEWS


@dataclass(frozen=True)
class Tolerance:
    atol: float = 1e-5
    rtol: float = 1e-5
    check_strides: bool = True


DEFAULT_TOLERANCE = Tolerance()

def _tracked(value: Any) -> bool:
    """Objects whose identity a caller can observe (``is``, ``id``, keeping and changing them)."""
    return not isinstance(value, _UNTRACKED)


class Pairing:
    """Which eager object corresponds to which compiled object, across all calls of a check.

    Holds every paired object, so ids stay unique while the check runs.
    """

    def __init__(self) -> None:
        self._eager: dict[int, tuple[Any, Any, str]] = {}
        self._compiled: dict[int, tuple[Any, Any, str]] = {}

    def pair(self, eager: Any, compiled: Any, where: str) -> str | None:
        """None when the pair is consistent with every earlier one, else what differs."""
        if not (_tracked(eager) or _tracked(compiled)):
            return None
        first_e, first_c = self._eager.get(id(eager)), self._compiled.get(id(compiled))
        if first_e is None and first_c is None:
            entry = (eager, compiled, where)
            self._eager[id(eager)] = self._compiled[id(compiled)] = entry
            return None
        if first_e is not None and first_e[1] is compiled:
            return None
        if first_e is not None:
            return f"{where}: eager has the same object as {first_e[2]}, compiled has a different one"
        return f"{where}: compiled has the same object as {first_c[2]}, eager has a different one"


def _same_program_class(a: type, b: type) -> bool:
    """The eager and compiled modules each define their own copy of a program's classes."""
    return (a.__qualname__ == b.__qualname__ and a.__module__.startswith(_MODULE_PREFIX)
            and b.__module__.startswith(_MODULE_PREFIX))


def same_type(a: type, b: type) -> bool:
    """The same type, or the eager and compiled copies of one program class."""
    return a is b or _same_program_class(a, b)


def _plain_state(value: Any) -> dict[str, Any] | None:
    """The instance attributes of a plain object (None for objects without a ``__dict__``)."""
    try:
        state = object.__getattribute__(value, "__dict__")
    except AttributeError:
        return None
    return dict(state) if isinstance(state, dict) else None


def diff_values(eager: Any, compiled: Any, path: str, tol: Tolerance = DEFAULT_TOLERANCE,
                pairing: Pairing | None = None, _seen: set[int] | None = None) -> str | None:
    """Where ``compiled`` differs from ``eager`` (None when it does not): types exactly,
    structure, tensors by ``same`` (NaN-aware) plus requires_grad and strides, floats
    NaN-aware, sets, dict views, exceptions (type, args, attributes) and plain objects by
    their attributes, modules by their state; identity through ``pairing`` when given."""
    if pairing is not None:
        why = pairing.pair(eager, compiled, path)
        if why:
            return why
    if type(eager) is not type(compiled) and not _same_program_class(type(eager), type(compiled)):
        return f"{path}: type {type(eager).__name__} vs {type(compiled).__name__}"
    seen = _seen if _seen is not None else set()
    if id(eager) in seen:
        return None
    if isinstance(eager, torch.Tensor):
        ok, why = same(eager, compiled, atol=tol.atol, rtol=tol.rtol)
        if not ok:
            return f"{path}: {why}"
        if eager.requires_grad != compiled.requires_grad:
            return f"{path}: requires_grad {eager.requires_grad} vs {compiled.requires_grad}"
        if tol.check_strides and eager.numel() > 1 and eager.stride() != compiled.stride():
            return f"{path}: strides {eager.stride()} vs {compiled.stride()}"
        if eager.is_leaf != compiled.is_leaf:
            return f"{path}: is_leaf {eager.is_leaf} vs {compiled.is_leaf}"
        if eager.is_leaf:  # the gradient a backward left (only leaves keep one)
            seen.add(id(eager))
            return diff_values(eager.grad, compiled.grad, f"{path}.grad", tol, pairing, seen)
        return None
    recurse = lambda a, b, where: diff_values(a, b, where, tol, pairing, seen)  # noqa: E731
    if isinstance(eager, (list, tuple)):
        seen.add(id(eager))
        if len(eager) != len(compiled):
            return f"{path}: length {len(eager)} vs {len(compiled)}"
        for index, (a, b) in enumerate(zip(eager, compiled)):
            found = recurse(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if isinstance(eager, dict):
        seen.add(id(eager))
        # keys compared as values (their identity is not paired), never hashed or ``==``-compared:
        # a key's ``__hash__``/``__eq__`` may have effects (a counter the program reads) or be the
        # other module's class
        found = diff_values(list(eager), list(compiled), f"list({path})", tol)
        if found:
            return f"{path}: keys {_shown(list(eager))} vs {_shown(list(compiled))} ({found})"
        for key, a, b in zip(eager, eager.values(), compiled.values()):
            found = recurse(a, b, f"{path}[{_shown(key)}]")
            if found:
                return found
        return None
    if isinstance(eager, _VIEWS):
        return recurse(list(eager), list(compiled), f"list({path})")
    if isinstance(eager, (set, frozenset)):
        return None if eager == compiled else f"{path}: {_sorted(eager)} vs {_sorted(compiled)}"
    if isinstance(eager, float):
        if math.isnan(eager) and math.isnan(compiled):
            return None
        if eager == compiled or math.isclose(eager, compiled, rel_tol=tol.rtol, abs_tol=tol.atol):
            return None
        return f"{path}: {eager!r} != {compiled!r}"
    if isinstance(eager, torch.nn.Module):
        seen.add(id(eager))
        state_e = {k: v for k, v in vars(eager).items() if not k.startswith("_")}
        state_c = {k: v for k, v in vars(compiled).items() if not k.startswith("_")}
        return (recurse(state_e, state_c, f"{path}.__dict__")
                or recurse(dict(eager.state_dict()), dict(compiled.state_dict()), f"{path}.state_dict()")
                or recurse(_module_state(eager), _module_state(compiled), path))
    if isinstance(eager, torch.optim.Optimizer):
        seen.add(id(eager))
        return recurse(eager.state_dict(), compiled.state_dict(), f"{path}.state_dict()")
    if isinstance(eager, torch.optim.lr_scheduler.LRScheduler):
        seen.add(id(eager))
        return recurse(eager.state_dict(), compiled.state_dict(), f"{path}.state_dict()")
    if isinstance(eager, BaseException):
        seen.add(id(eager))
        return (recurse(eager.args, compiled.args, f"{path}.args")
                or recurse(_plain_state(eager) or {}, _plain_state(compiled) or {}, f"{path} attributes"))
    if isinstance(eager, (int, bool, str, bytes, type(None), torch.dtype, torch.device)):
        return None if eager == compiled else f"{path}: {eager!r} != {compiled!r}"
    if isinstance(eager, types.GeneratorType):
        # where a generator stands, read without advancing it: its state and its locals
        seen.add(id(eager))
        return (None if inspect.getgeneratorstate(eager) == inspect.getgeneratorstate(compiled)
                else f"{path}: {inspect.getgeneratorstate(eager)} vs {inspect.getgeneratorstate(compiled)}") \
            or recurse(inspect.getgeneratorlocals(eager), inspect.getgeneratorlocals(compiled), f"{path} locals")
    if hasattr(type(eager), "__next__"):
        # a builtin iterator's position without advancing it: what ``__reduce__`` says it would
        # rebuild (a list iterator's list and index, ``itertools.count``'s next value)
        seen.add(id(eager))
        state_e, state_c = _reduced(eager), _reduced(compiled)
        return None if state_e is None or state_c is None else recurse(state_e, state_c, f"{path} position")
    state_e, state_c = _plain_state(eager), _plain_state(compiled)
    if state_e is not None and state_c is not None and not callable(eager):
        seen.add(id(eager))
        return recurse(state_e, state_c, f"{path} attributes")
    if type(eager) is object:
        return None  # object() markers: only their identity (paired above) is observable
    if isinstance(eager, np.ndarray):
        if eager.dtype != compiled.dtype or eager.shape != compiled.shape:
            return f"{path}: array {eager.dtype} {eager.shape} vs {compiled.dtype} {compiled.shape}"
        if eager.dtype.kind == "O":
            return recurse(eager.tolist(), compiled.tolist(), f"{path}.tolist()")
        same_values = np.array_equal(eager, compiled, equal_nan=eager.dtype.kind in "fc")
        return None if same_values else f"{path}: {eager!r} != {compiled!r}"
    try:
        equal = bool(eager == compiled)
    except Exception:  # an == that returns no truth value (elementwise): compare what it shows
        equal = repr(eager) == repr(compiled)
    return None if equal else f"{path}: {eager!r} != {compiled!r}"


def _module_state(module: torch.nn.Module) -> dict[str, Any]:
    """What ``state_dict`` leaves out: each parameter's gradient and whether it requires one
    (frozen or not), each submodule's train/eval mode and hooks."""
    grads = {f"{name}.grad": p.grad for name, p in module.named_parameters()}
    grads |= {f"{name}.requires_grad": p.requires_grad for name, p in module.named_parameters()}
    grads |= {f"{name or 'self'} hooks": (len(m._forward_hooks), len(m._forward_pre_hooks), len(m._backward_hooks))
              for name, m in module.named_modules()}
    return grads | {f"{name or 'self'}.training": m.training for name, m in module.named_modules()}


def _reduced(iterator: Any) -> Any:
    """``iterator.__reduce__()`` without its first item (the rebuilding callable), or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # itertools' pickling support is deprecated
            reduced = iterator.__reduce__()
    except Exception:  # noqa: BLE001 - not reducible: its position is not observable this way
        return None
    return list(reduced[1:]) if isinstance(reduced, tuple) else None


def _shown(value: Any) -> str:
    """``repr`` of a program's value, also when its ``__repr__`` fails or has effects."""
    if type(value).__module__.startswith(_MODULE_PREFIX):
        return f"<{type(value).__qualname__} {_plain_state(value)!r}>"
    try:
        return repr(value)
    except Exception:  # noqa: BLE001
        return f"<{type(value).__qualname__}>"


def _sorted(items: Any) -> str:
    try:
        return repr(sorted(items))
    except TypeError:
        return repr(items)
