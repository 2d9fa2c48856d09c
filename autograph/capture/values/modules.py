"""``nn.Module``s: forward is inlined (when no hooks), parameters/buffers become
``get_attr`` nodes on the graph's root, submodule containers iterate."""
from __future__ import annotations

import types

import torch

from autograph.capture.breaks import Unsupported
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
        return cg.const(self.module)
