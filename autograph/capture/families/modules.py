"""``nn.Module``s as graph inputs: forward is inlined (when no hooks), parameters and buffers
are placeholders read from the live module at call time, submodule containers iterate.

A module reached through a source is guarded by what the capture relied on, not by its
identity: its class (TYPE_MATCH), every member it read (submodules, parameters with
TENSOR_MATCH, attribute values), the hook dictionaries of each module it called being
empty. One cache entry then serves every instance of the same structure.
"""
from __future__ import annotations

import types

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.families import side_effects
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue, is_literal
from autograph.capture.core.registry import CALLED_IN_PYTHON
from autograph.guards.sources import AttrSource, MemberSource, ObjectSource

# The per-instance hook dictionaries ``nn.Module.__call__`` consults, and the global ones.
INSTANCE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                "_global_backward_pre_hooks")


def _has_hooks(m: torch.nn.Module) -> bool:
    from torch.nn.modules import module as mod
    return any(getattr(m, name, None) for name in INSTANCE_HOOKS) or \
        any(getattr(mod, name, None) for name in GLOBAL_HOOKS)


def wrap_module(tx, module: torch.nn.Module, source, path: str) -> "ModuleValue":
    """The value of a real module.  Reached through a source, only its class is guarded here;
    what the capture reads from it is guarded where it reads it.  Without a source (a trusted
    read) it is pinned by identity."""
    if source is None:
        tx.guards.id_(source, module)
    else:
        tx.guards.type_(source, module)
    return ModuleValue(module, source, path)


def guard_no_hooks(tx, value: "ModuleValue") -> None:
    """A call of ``value`` that skips ``nn.Module.__call__`` is only right while no hook is
    registered on it (or globally): raise when one is, else guard that none appears."""
    m = value.module
    if _has_hooks(m):  # the call runs in Python: families/module_hooks.py
        from autograph.capture.families.module_hooks import MODULE_HOOKS
        raise Unsupported(f"call to {value.describe()} with hooks registered", kind=MODULE_HOOKS)
    from torch.nn.modules import module as mod
    owner = value.source if value.source is not None else ObjectSource(m, value.path)
    tx.guards.no_hooks(owner, [name for name in INSTANCE_HOOKS if name in m.__dict__])
    tx.guards.no_hooks(ObjectSource(mod, mod.__name__), [name for name in GLOBAL_HOOKS if name in vars(mod)])


def _data_descriptor(cls: type, name: str) -> bool:
    """Whether ``cls`` has a data descriptor (a property, say) named ``name``: it decides a read
    over the instance dict."""
    from autograph.capture.core.base import mro_lookup
    raw = mro_lookup(cls, name)[1]
    return raw is not None and hasattr(type(raw), "__get__") and (
        hasattr(type(raw), "__set__") or hasattr(type(raw), "__delete__"))


def _plain_module_attribute(value: Value) -> bool:
    """A value ``nn.Module.__setattr__`` stores in the instance dict (not registered)."""
    if value.is_constant():
        return True
    try:
        kind = value.python_type()
    except Unsupported:
        return False
    return isinstance(kind, type) and not issubclass(
        kind, (torch.nn.Parameter, torch.nn.Module, getattr(torch.nn, "Buffer", torch.nn.Parameter)))


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
        stored = side_effects.pending(tx, m, name, self)
        if stored is not None and not _data_descriptor(type(m), name):
            return stored  # written into the instance dict earlier in this capture (replayed after the graph)
        d = m.__dict__
        params, buffers, mods = d.get("_parameters", {}), d.get("_buffers", {}), d.get("_modules", {})
        src = AttrSource(self.source, name) if self.source is not None else None
        if name in params or name in buffers:
            real = params[name] if name in params else buffers[name]
            store = "_parameters" if name in params else "_buffers"
            # a graph input read from the live module at call time (None is guarded as None)
            return tx.wrap(real, self._member_source(store, name),
                           pin=self._member_source(store, name, pinned=True), path=f"{self.path}.{name}")
        if name in mods:
            return tx.wrap(mods[name], self._member_source("_modules", name),
                           pin=self._member_source("_modules", name, pinned=True), path=f"{self.path}.{name}")
        if name in d:
            return tx.wrap(d[name], src, pin=AttrSource(ObjectSource(m, self.path), name))
        for klass in type(m).__mro__:
            if name in klass.__dict__:
                attr = klass.__dict__[name]
                if isinstance(attr, types.FunctionType):
                    from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
                    tx.guards.method(self.source, type(m), name, attr)
                    return BoundMethodValue(UserFunctionValue(attr), self)
                if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                    from autograph.capture.families.functions import UserFunctionValue
                    tx.guards.class_attr(type(m), name)
                    return UserFunctionValue(attr.fget).call(tx, [self], {})
                if isinstance(attr, (staticmethod,)):
                    tx.guards.class_attr(type(m), name)  # (a staticmethod patched on the class recaptures)
                    return tx.wrap(attr.__func__, None)
                break
        try:
            real = getattr(m, name)
        except AttributeError as exc:
            if type(m).__getattr__ is not torch.nn.Module.__getattr__ \
                    or type(m).__getattribute__ is not object.__getattribute__:
                raise Unsupported(f"`.{name}` of {self.describe()} raised AttributeError from its own "
                                  "__getattr__", generic=True, kind="python-exception")
            self._guard_absent(tx, name)
            raise Unsupported(f"AttributeError: {exc}", generic=True, exc=exc, kind="python-exception")
        out = tx.wrap(real, src, pin=AttrSource(ObjectSource(m, self.path), name))
        if name == "__dict__" and not self.fresh:
            from autograph.capture.families.objects import mark_namespace
            mark_namespace(out, m)
        return out

    def _guard_absent(self, tx, name: str) -> None:
        """``name`` is in none of the module's stores nor its classes: guarded to stay so."""
        from autograph.capture.families.absence import guard_absent_in_classes, object_source
        owner = object_source(self, self.module, self.path)
        for store in ("__dict__", "_parameters", "_buffers", "_modules"):
            if store == "__dict__":
                tx.guards.key_absent(AttrSource(owner, "__dict__"), name)
            else:
                tx.guards.key_absent(MemberSource(owner, "__dict__", store), name)
        guard_absent_in_classes(tx, type(self.module), name)

    def setattr(self, tx, name, value):
        """``self.flag = value`` on a module from outside: recorded, replayed after the graph
        (``nn.Module.__setattr__`` keeps a value that is no parameter, buffer or module, under a
        name none of those has, in the instance dict). Reached through a source, the replay
        stores with ``object.__setattr__`` (what ``nn.Module.__setattr__`` ends in for such a
        value, without its Python frame: ``model.train()`` on every step), guarded by the class's
        ``__setattr__`` and the name's absence from the module's stores."""
        m = self.module
        d = m.__dict__
        if self._stores_back_its_buffer(tx, name, value):
            return
        plain = (type(m).__setattr__ is torch.nn.Module.__setattr__ and _plain_module_attribute(value)
                 and not any(name in d.get(store, {}) for store in ("_parameters", "_buffers", "_modules"))
                 and not any(name in k.__dict__ and hasattr(type(k.__dict__[name]), "__set__")
                             for k in type(m).__mro__))
        if not plain or self.fresh:
            return super().setattr(tx, name, value)
        direct = self.source is not None and value.is_constant() and not isinstance(
            value.as_python_constant(), (torch.Tensor, torch.nn.Module))
        if direct:  # what makes nn.Module.__setattr__ a plain instance store, guarded
            tx.guards.class_attr(type(m), "__setattr__")
            for store in ("_parameters", "_buffers", "_modules"):
                tx.guards.key_absent(self._store_source(store), name)
        side_effects.record_store(tx, self, m, name, value, direct=direct)

    def _stores_back_its_buffer(self, tx, name, value) -> bool:
        """``self.calls += 1`` on a buffer: the in-place op returns the tensor the module holds,
        and ``nn.Module.__setattr__`` stores it back under its name through ``register_buffer``,
        which changes nothing while no global buffer-registration hook runs (the persistence
        flag is re-read from the module and kept). Guarded: the class's ``__setattr__`` and
        ``register_buffer`` are nn.Module's and no registration hook appears. The value is the
        member read through this very source, so it is the same object at run time."""
        m = self.module
        if self.fresh or self.source is None or name not in m.__dict__.get("_buffers", {}):
            return False
        if getattr(value, "source", None) != self._member_source("_buffers", name):
            return False
        cls = type(m)
        from torch.nn.modules import module as mod
        if cls.__setattr__ is not torch.nn.Module.__setattr__ or \
                cls.register_buffer is not torch.nn.Module.register_buffer or mod._global_buffer_registration_hooks:
            return False
        tx.guards.class_attr(cls, "__setattr__")
        tx.guards.class_attr(cls, "register_buffer")
        tx.guards.no_hooks(ObjectSource(mod, mod.__name__), ["_global_buffer_registration_hooks"])
        return True

    def call(self, tx, args, kwargs):
        why = called_in_python(self.module)
        if why is not None:  # e.g. DistributedDataParallel (families/distributed.py)
            reason, kind = why
            raise Unsupported(f"{reason} ({self.path})", kind=kind)
        guard_no_hooks(tx, self)
        if "forward" in self.module.__dict__:  # nn.Module.__call__ runs the instance's own forward
            raise Unsupported(f"{self.describe()} has a forward set on the instance", kind="module-hooks")
        forward = type(self.module).forward
        if not isinstance(forward, types.FunctionType):
            raise Unsupported(f"{self.describe()} has no Python forward", kind="unsupported-call")
        tx.guards.method(self.source, type(self.module), "forward", forward)
        from autograph.capture.families.functions import UserFunctionValue
        return tx.inline_function(UserFunctionValue(forward), [self, *args], kwargs)

    def _children(self):
        return [(key, sub, self._member_source("_modules", key)) for key, sub in self.module._modules.items()]

    def _store_source(self, store: str):
        owner = self.source if self.source is not None else ObjectSource(self.module, self.path)
        return AttrSource(owner, store)

    def _guard_members(self, tx, store: str) -> list:
        """The names in ``module.<store>``, guarded: same count, each name read through it."""
        d = getattr(self.module, store)
        if isinstance(self.module, torch.nn.ModuleDict) or not all(k == str(i) for i, k in enumerate(d)):
            tx.guards.keys(self._store_source(store), d)  # order and names matter
        else:
            tx.guards.length(self._store_source(store), d)  # "0", "1", ...: the count decides
        return list(d)

    def iter_items(self, tx):
        m = self.module
        if isinstance(m, torch.nn.ModuleDict):
            return [ConstantValue(k) for k in self._guard_members(tx, "_modules")]
        if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)):
            return [self.getattr(tx, k) for k in self._guard_members(tx, "_modules")]
        if isinstance(m, torch.nn.ParameterList) and len(m) == len(m._parameters):
            return [self.getattr(tx, k) for k in self._guard_members(tx, "_parameters")]
        raise Unsupported(f"iterating over {self.describe()}", kind="unsupported-operation")

    def length(self, tx):
        m = self.module
        if isinstance(m, (torch.nn.ModuleDict, torch.nn.ModuleList, torch.nn.Sequential)):
            return len(self._guard_members(tx, "_modules"))
        if isinstance(m, torch.nn.ParameterList) and len(m) == len(m._parameters):  # only parameters in it
            return len(self._guard_members(tx, "_parameters"))
        raise Unsupported(f"len() of {self.describe()}", kind="unsupported-operation")

    def getitem(self, tx, key):
        m = self.module
        k = key.as_python_constant()
        if isinstance(m, torch.nn.ModuleDict) and isinstance(k, str):
            return self.getattr(tx, k)
        if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)) and isinstance(k, int):
            keys = self._guard_members(tx, "_modules")  # a negative index depends on the count
            try:
                name = keys[k]
            except IndexError:
                raise Unsupported("IndexError: module index out of range", generic=True, kind="python-exception")
            return self.getattr(tx, name)
        if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)) and isinstance(k, slice):
            from autograph.capture.families.module_slices import module_slice
            self._guard_members(tx, "_modules")
            return module_slice(tx, self, k)
        raise Unsupported(f"indexing {self.describe()} with {k!r}", kind="unsupported-operation")

    def call_method(self, tx, name, args, kwargs):
        from autograph.capture.families.module_tree import TREE_METHODS, tree_iterator
        if name in TREE_METHODS:  # torch's own walk of the module tree (module_tree.py)
            out = tree_iterator(tx, self, name, args, kwargs)
            if out is not None:
                return out
        if name in ("parameters", "named_parameters", "modules", "children", "named_children",
                    "named_modules", "buffers", "named_buffers"):
            raise Unsupported(f"`{self.path}.{name}()`", kind="unsupported-call")
        return super().call_method(tx, name, args, kwargs)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        if self.fresh:
            rebuild = getattr(self, "rebuild", None)
            if rebuild is None:
                raise Unsupported(f"{self.path} (made during the call) is still in use at a graph break",
                                  kind="cannot-rebuild")
            cls, args, kwargs = rebuild  # made anew, as each call makes its own
            parts = [cg.const(a) for a in args] + [f"{k}={cg.const(v)}" for k, v in kwargs.items()]
            return cg.shared(self, f"{cg.const(cls)}({', '.join(parts)})")
        return cg.const(self.module)




def called_in_python(module: torch.nn.Module) -> tuple[str, str] | None:
    for rule in CALLED_IN_PYTHON:
        why = rule(module)
        if why is not None:
            return why
    return None


class FreshModuleValue(ModuleValue):
    """A stateless ``torch.nn`` module made inside the function (``nn.Softmax(dim=-1)(x)``).

    Eager makes a new one per call; one real instance built at capture time stands for it
    during capture (nothing changes it: a store into it breaks). Returned or live at a graph
    break, the transformed code makes it again from the same constant arguments (``rebuild``):
    construction draws no random numbers and holds no state, so the new one is the same module.
    """

    fresh = True
    rebuild: tuple | None = None  # (class, args, kwargs): the real constants it was made from


def _stateless(module: torch.nn.Module) -> bool:
    return not any(True for _ in module.parameters()) and not any(True for _ in module.buffers())


def _base_init_only(cls: type, args, kwargs) -> bool:
    """A user module class whose construction runs only ``nn.Module.__init__()`` (no ``__init__``
    or ``__new__`` of its own): building it at capture time runs no user code."""
    from autograph.capture.core.base import mro_lookup
    return not args and not kwargs and mro_lookup(cls, "__init__")[1] is torch.nn.Module.__init__ \
        and mro_lookup(cls, "__new__")[1] in (None, object.__new__) and type(cls) is type


def construct_torch_module(tx, cls, args, kwargs):
    """``CLASS_CALL_HOOKS`` entry: build stateless ``torch.nn`` modules with constant arguments."""
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)
            and ((cls.__module__ or "").startswith("torch.nn.modules.") or _base_init_only(cls, args, kwargs))):
        return NotImplemented
    from autograph.capture.families.builtins import _all_constant
    if not _all_constant(args, kwargs):
        return NotImplemented
    rng = torch.random.get_rng_state()
    real_args = [a.as_python_constant() for a in args]
    real_kwargs = {k: v.as_python_constant() for k, v in kwargs.items()}
    try:
        module = cls(*real_args, **real_kwargs)
    except Exception as exc:  # noqa: BLE001 - eager raises it at run time: let Python do it
        raise Unsupported(f"creating {cls.__qualname__} failed during capture ({type(exc).__name__}: {exc})",
                          generic=True, kind="object-construction")
    finally:
        drew = not torch.equal(rng, torch.random.get_rng_state())
        torch.random.set_rng_state(rng)  # capture never moves the user's random stream
    if drew or not _stateless(module):
        raise Unsupported(f"creating a {cls.__qualname__} (parameters or random state) inside the function",
                          kind="object-construction")
    value = FreshModuleValue(module, None, path=f"{cls.__name__}(...)")
    if all(is_literal(a) for a in (*real_args, *real_kwargs.values())):  # (rendered as themselves)
        value.rebuild = (cls, tuple(real_args), real_kwargs)
    return value


def install() -> None:
    registry.add_class_call_hook(construct_torch_module)
