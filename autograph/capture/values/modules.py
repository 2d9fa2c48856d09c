"""``nn.Module``s: forward is inlined (when no hooks), parameters/buffers become
``get_attr`` nodes on the graph's root, submodule containers iterate."""
from __future__ import annotations

import types

import torch

from autograph.capture.breaks import Unsupported
from autograph.capture.values import side_effects
from autograph.capture.values.base import Value
from autograph.capture.values.constants import ConstantValue
from autograph.guards.sources import AttrSource, MemberSource, ObjectSource


def _has_hooks(m: torch.nn.Module) -> bool:
    from torch.nn.modules import module as mod
    return bool(m._forward_hooks or m._forward_pre_hooks or m._backward_hooks
                or getattr(m, "_backward_pre_hooks", None)
                or mod._global_forward_hooks or mod._global_forward_pre_hooks
                or mod._global_backward_hooks or getattr(mod, "_global_backward_pre_hooks", None))


class ModuleValue(Value):
    fresh = False  # made during the call (FreshModuleValue): never rebuilt at a break

    def __init__(self, module: torch.nn.Module, source=None, path: str = "self"):
        self.module = module
        self.source = source
        self.path = path

    def describe(self):
        return f"module {type(self.module).__name__}"

    def python_type(self):
        return type(self.module)

    def real_value(self):
        return self.module

    def _member_source(self, store: str, name: str, *, pinned: bool = False):
        """``self.<store>[name]`` shown as ``self.name``; rooted at the module object itself
        (``pinned``) when the module has no source."""
        owner = self.source
        if owner is None:
            if not pinned:
                return None
            owner = ObjectSource(self.module, self.path)
        return MemberSource(owner, store, name)

    def getattr(self, tx, name):
        m = self.module
        stored = side_effects.pending(tx, m, name)
        if stored is not None:  # written earlier in this capture (replayed after the graph)
            return stored
        d = m.__dict__
        params, buffers, mods = d.get("_parameters", {}), d.get("_buffers", {}), d.get("_modules", {})
        src = AttrSource(self.source, name) if self.source is not None else None
        if name in params or name in buffers:
            real = params[name] if name in params else buffers[name]
            if real is None:
                return ConstantValue(None)
            store = "_parameters" if name in params else "_buffers"
            src = self._member_source(store, name)
            tx.guard_id(src, real, pin=self._member_source(store, name, pinned=True))
            return tx.graph.add_attr(real, f"{self.path}.{name}", src)
        if name in mods:
            sub = mods[name]
            if sub is None:
                return ConstantValue(None)
            return tx.wrap(sub, self._member_source("_modules", name),
                           pin=self._member_source("_modules", name, pinned=True), path=f"{self.path}.{name}")
        if name in d:
            return tx.wrap(d[name], src, pin=AttrSource(ObjectSource(m, self.path), name))
        for klass in type(m).__mro__:
            if name in klass.__dict__:
                attr = klass.__dict__[name]
                if isinstance(attr, types.FunctionType):
                    from autograph.capture.values.functions import BoundMethodValue, UserFunctionValue
                    tx.guards.method(self.source, type(m), name, attr)
                    return BoundMethodValue(UserFunctionValue(attr), self)
                if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                    from autograph.capture.values.functions import UserFunctionValue
                    tx.guards.class_attr(type(m), name)
                    return UserFunctionValue(attr.fget).call(tx, [self], {})
                if isinstance(attr, (staticmethod,)):
                    return tx.wrap(attr.__func__, None)
                break
        try:
            real = getattr(m, name)
        except AttributeError as exc:
            raise Unsupported(f"AttributeError: {exc}", generic=True)
        return tx.wrap(real, src, pin=AttrSource(ObjectSource(m, self.path), name))

    def setattr(self, tx, name, value):
        """``self.flag = constant`` on a module from outside: recorded, replayed after the graph
        (``nn.Module.__setattr__`` keeps a plain value in the instance dict)."""
        m = self.module
        d = m.__dict__
        plain = (type(m).__setattr__ is torch.nn.Module.__setattr__ and value.is_constant()
                 and not any(name in d.get(store, {}) for store in ("_parameters", "_buffers", "_modules"))
                 and not any(name in k.__dict__ and hasattr(type(k.__dict__[name]), "__set__")
                             for k in type(m).__mro__))
        if not plain or self.fresh:
            return super().setattr(tx, name, value)
        side_effects.record_store(tx, self, m, name, value)

    def call(self, tx, args, kwargs):
        if _has_hooks(self.module):
            raise Unsupported(f"call to {self.describe()} with hooks registered")
        if "forward" in self.module.__dict__:  # nn.Module.__call__ runs the instance's own forward
            raise Unsupported(f"{self.describe()} has a forward set on the instance")
        forward = type(self.module).forward
        if not isinstance(forward, types.FunctionType):
            raise Unsupported(f"{self.describe()} has no Python forward")
        tx.guards.method(self.source, type(self.module), "forward", forward)
        from autograph.capture.values.functions import UserFunctionValue
        return tx.inline_function(UserFunctionValue(forward), [self, *args], kwargs)

    def _children(self):
        return [(key, sub, self._member_source("_modules", key)) for key, sub in self.module._modules.items()]

    def iter_items(self, tx):
        m = self.module
        if isinstance(m, torch.nn.ModuleDict):
            return [ConstantValue(k) for k, _, _ in self._children()]
        if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)):
            tx.guard_len(self.source, len(m._modules), pin=lambda: len(m._modules), what=self.path)
            return [tx.wrap(sub, src, path=f"{self.path}[{k}]") for k, sub, src in self._children()]
        if isinstance(m, (torch.nn.ParameterList,)):
            return [self.getattr(tx, k) for k in m._parameters]
        raise Unsupported(f"iterating over {self.describe()}")

    def length(self, tx):
        return len(self.module)

    def getitem(self, tx, key):
        m = self.module
        k = key.as_python_constant()
        if isinstance(m, torch.nn.ModuleDict) and isinstance(k, str):
            return self.getattr(tx, k)
        if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)) and isinstance(k, int):
            keys = list(m._modules)
            try:
                name = keys[k]
            except IndexError:
                raise Unsupported("IndexError: module index out of range", generic=True)
            return self.getattr(tx, name)
        if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)) and isinstance(k, slice):
            from autograph.capture.values.module_slices import module_slice
            return module_slice(tx, self, k)
        raise Unsupported(f"indexing {self.describe()} with {k!r}")

    def call_method(self, tx, name, args, kwargs):
        m = self.module
        if isinstance(m, torch.nn.ModuleDict) and name in ("items", "keys", "values") and not args:
            from autograph.capture.values.containers import ListIteratorValue, TupleValue
            children = [(k, self.getattr(tx, k)) for k in m._modules]
            if name == "items":
                return ListIteratorValue([TupleValue([ConstantValue(k), v]) for k, v in children])
            if name == "keys":
                return ListIteratorValue([ConstantValue(k) for k, _ in children])
            return ListIteratorValue([v for _, v in children])
        if name in ("parameters", "named_parameters", "modules", "children", "named_children",
                    "named_modules", "buffers", "named_buffers"):
            raise Unsupported(f"`{self.path}.{name}()`")
        return super().call_method(tx, name, args, kwargs)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        if self.fresh:
            raise Unsupported(f"{self.path} (made during the call) is still in use at a graph break")
        return cg.const(self.module)


class FreshModuleValue(ModuleValue):
    """A stateless ``torch.nn`` module made inside the function (``nn.Softmax(dim=-1)(x)``).

    Eager makes a new one per call; one real instance built at capture time behaves the
    same as long as it never escapes the call (``reconstruct`` refuses).
    """

    fresh = True


def _stateless(module: torch.nn.Module) -> bool:
    return not any(True for _ in module.parameters()) and not any(True for _ in module.buffers())


def construct_torch_module(tx, cls, args, kwargs):
    """``CLASS_CALL_HOOKS`` entry: build stateless ``torch.nn`` modules with constant arguments."""
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)
            and (cls.__module__ or "").startswith("torch.nn.modules.")):
        return NotImplemented
    from autograph.capture.values.builtins import _all_constant
    if not _all_constant(args, kwargs):
        return NotImplemented
    rng = torch.random.get_rng_state()
    try:
        module = cls(*[a.as_python_constant() for a in args],
                     **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:  # noqa: BLE001 - eager raises it at run time: let Python do it
        raise Unsupported(f"creating {cls.__qualname__} failed during capture ({type(exc).__name__}: {exc})",
                          generic=True)
    finally:
        drew = not torch.equal(rng, torch.random.get_rng_state())
        torch.random.set_rng_state(rng)  # capture never moves the user's random stream
    if drew or not _stateless(module):
        raise Unsupported(f"creating a {cls.__qualname__} (parameters or random state) inside the function")
    return FreshModuleValue(module, None, path=f"{cls.__name__}(...)")


def install() -> None:
    from autograph.capture.values import builtins as vb
    if construct_torch_module not in vb.CLASS_CALL_HOOKS:
        vb.CLASS_CALL_HOOKS.insert(0, construct_torch_module)


install()
