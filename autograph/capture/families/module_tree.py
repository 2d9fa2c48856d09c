"""``m.modules()``, ``m.named_modules()``, ``m.children()``, ``m.named_children()`` of torch's own
``nn.Module``: the module tree walked at capture time, in torch's order, as an iterator of the
submodules read through their sources (``nn.TransformerEncoderLayer``'s inference fast path asks
``any(... for m in self.modules())`` on every call). ``m.parameters()``, ``named_parameters()``,
``buffers()`` and ``named_buffers()`` likewise: the members of the walked modules, each read through
its module's source as a graph input (``clip_grad_norm_(model.parameters(), 1.0)``, a list of the
gradients of ``model.parameters()``).

What the walk decides is guarded: the names in every ``_modules`` store it reads (a submodule
read is guarded where it is read), each visited module's class (its ``named_modules`` and
``named_children`` are torch's, so the recursion is torch's), and, because torch skips a module
it has already yielded, which of the visited modules are the same object (one guard on the
pattern of identities; for members, also which of the yielded parameters or buffers are the same
tensor, since torch yields a shared one once). The iterator is a list iterator, not a generator (as TorchDynamo's).
"""
from __future__ import annotations

import torch

from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue

MEMBER_METHODS = {"parameters": "_parameters", "named_parameters": "_parameters",
                  "buffers": "_buffers", "named_buffers": "_buffers"}
TREE_METHODS = ("modules", "named_modules", "children", "named_children", *MEMBER_METHODS)
_TORCH = {name: getattr(torch.nn.Module, name) for name in (*TREE_METHODS, "_named_members", "__hash__", "__eq__")}


def _torch_walk(module: torch.nn.Module) -> bool:
    """Whether walking ``module`` runs torch's own methods (no override changes the order or the
    duplicate check, which compares modules by hash and equality)."""
    cls = type(module)
    return all(getattr(cls, name) is method for name, method in _TORCH.items())


def _child_values(tx, value) -> list[tuple[str, Value]]:
    """``(name, submodule value)`` of ``value._modules`` in order, None entries skipped."""
    from autograph.capture.families.modules import ModuleValue
    out = []
    for key in value._guard_members(tx, "_modules"):
        child = value.getattr(tx, key)
        if child.is_constant() and child.as_python_constant() is None:
            continue
        if not isinstance(child, ModuleValue) or not _torch_walk(child.module):
            raise Unsupported(f"walking {value.describe()}: {child.describe()} is not a plain module",
                              kind="unsupported-call")
        out.append((key, child))
    return out


def _named_modules(tx, value, prefix: str, seen: list, out: list, remove_duplicate: bool) -> None:
    seen.append(value)
    if remove_duplicate and any(v.module is value.module for v in seen[:-1]):
        return
    out.append((prefix, value))
    for key, child in _child_values(tx, value):
        _named_modules(tx, child, prefix + ("." if prefix else "") + key, seen, out, remove_duplicate)


def _guard_identities(tx, seen: list) -> None:
    """Which visited modules are the same object decides what the walk skips: guarded."""
    sources = [v.source for v in seen]
    if len(seen) < 2 or any(s is None for s in sources):
        if any(s is not None for s in sources) and len({id(v.module) for v in seen}) != len(seen):
            raise Unsupported("a module tree with a shared submodule reached partly without a source",
                              kind="unsupported-call")
        return  # modules without a source are pinned by identity where they are read
    tx.guards.identity_pattern(sources, [v.module for v in seen])


def _bind(method, args: list[Value], kwargs: dict[str, Value]) -> dict | None:
    import inspect
    try:
        bound = inspect.signature(method).bind(
            None, *[a.as_python_constant() for a in args], **{k: v.as_python_constant() for k, v in kwargs.items()})
    except TypeError:
        return None  # Python's own error, raised where Python raises it
    return bound.arguments


def _member_values(tx, value, name: str, args: list[Value], kwargs: dict[str, Value]) -> list | None:
    """``(name, tensor value)`` pairs ``value.<name>(...)`` yields, as torch's ``_named_members``
    yields them; None when the arguments are not modelled."""
    arguments = _bind(getattr(torch.nn.Module, name), args, kwargs)
    if arguments is None:
        return None
    prefix, recurse = arguments.get("prefix", ""), arguments.get("recurse", True)
    remove_duplicate = arguments.get("remove_duplicate", True)
    if type(prefix) is not str or type(recurse) is not bool or type(remove_duplicate) is not bool:
        return None
    seen: list = []
    modules: list = []
    if recurse:
        _named_modules(tx, value, prefix, seen, modules, remove_duplicate)
        _guard_identities(tx, seen)
    else:
        modules = [(prefix, value)]
    store = MEMBER_METHODS[name]
    candidates = []
    for module_prefix, module in modules:
        for key in module._guard_members(tx, store):
            real = getattr(module.module, store)[key]
            member = module.getattr(tx, key)  # guards None as None, a tensor by its metadata
            if real is None:
                continue
            candidates.append((module_prefix + ("." if module_prefix else "") + key, member, real))
    _guard_tensor_identities(tx, candidates)
    out, memo = [], []
    for key, member, real in candidates:
        if any(real is m for m in memo):
            continue
        if remove_duplicate:
            memo.append(real)
        out.append((key, member))
    return out


def _guard_tensor_identities(tx, triples: list) -> None:
    """Which yielded members are the same tensor decides which ones torch skips: guarded."""
    reals = [real for _, _, real in triples]
    sources = [getattr(v, "source", None) for _, v, _ in triples]
    if any(not isinstance(r, torch.Tensor) for r in reals):
        raise Unsupported("a module member that is not a tensor", kind="unsupported-call")
    if len(triples) < 2:
        return
    if any(s is None for s in sources):
        if len({id(r) for r in reals}) != len(reals):
            raise Unsupported("shared module members reached without a source", kind="unsupported-call")
        return  # members without a source are pinned by identity where they are read
    tx.guards.identity_pattern(sources, reals)


def tree_iterator(tx, value, name: str, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """The iterator ``value.<name>(...)`` returns, or None when the call is not modelled (the
    caller breaks as before): arguments other than constants, or a class overriding the walk."""
    from autograph.capture.families.containers import ListIteratorValue, TupleValue
    if not _torch_walk(value.module) or any(not v.is_constant() for v in [*args, *kwargs.values()]):
        return None
    if name in MEMBER_METHODS:
        members = _member_values(tx, value, name, args, kwargs)
        if members is None:
            return None
        items = [TupleValue([ConstantValue(k), v]) if name.startswith("named_") else v for k, v in members]
        return ListIteratorValue(items, kind=f"iterator of {name}()")
    if name in ("modules", "children", "named_children") and (args or kwargs):
        return None
    prefix, remove_duplicate = "", True
    if name == "named_modules":
        import inspect
        try:
            bound = inspect.signature(torch.nn.Module.named_modules).bind(
                None, *[a.as_python_constant() for a in args], **{k: v.as_python_constant() for k, v in kwargs.items()})
        except TypeError:
            return None
        memo = bound.arguments.get("memo")
        prefix = bound.arguments.get("prefix", "")
        remove_duplicate = bound.arguments.get("remove_duplicate", True)
        if memo is not None or type(prefix) is not str:
            return None
    if name in ("modules", "named_modules"):
        seen: list = []
        found: list = []
        _named_modules(tx, value, prefix, seen, found, bool(remove_duplicate))
    else:
        seen = [value]
        found = []
        for key, child in _child_values(tx, value):
            seen.append(child)
            if not any(child.module is v.module for _, v in found):
                found.append((key, child))
    _guard_identities(tx, seen)
    if name.startswith("named_"):
        items = [TupleValue([ConstantValue(key), v]) for key, v in found]
    else:
        items = [v for _, v in found]
    return ListIteratorValue(items, kind=f"iterator of {name}()")
