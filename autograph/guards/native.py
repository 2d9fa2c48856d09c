"""The native guard fast path: plans for the C extension, and its pure-Python twin.

``plan_for(guard_set)`` turns a ``GuardSet`` into a plan of plain tuples that
``autograph._native`` (``native/guard_eval.c``) evaluates without running Python
bytecode: the nodes say how each guarded value is reached (sources, here), the
guard nodes come from each kind's ``plan`` (``kinds.py``).  ``check_python``/
``dispatch_python`` interpret the same plan in Python (each opcode by its kind's
twin) and make identical decisions (tests hold all three — C, plan twin and the
generated check — to the same answers).  Off the C path (``extension.c_path()``)
``runtime_dispatch`` runs the generated checks in order.
"""
from __future__ import annotations

import ast
import inspect
from typing import Any, Callable, Sequence

from autograph.guards.check import GuardSet
from autograph.guards.extension import (MAX_NODES, N_APPLY, N_ATTR, N_CALL, N_CELL, N_CONST, N_GLOBAL,
                                        N_GLOBAL_OR_BUILTIN, N_ITEM, N_ITER_ITEMS, N_ITER_SEQUENCE, N_KWONLY,
                                        N_POS, N_VARARGS, N_VARKW, c_path)
from autograph.guards.kinds import TWINS, Inexpressible, spec_of
from autograph.guards.model import Guard
from autograph.guards.sources import (ITER_ITEMS, ITER_SEQUENCE, AppliedSource, AttrSource, ClosureSource, GlobalSource, GlobalStateSource,
                                      ItemSource, LocalSource, ObjectSource, PinnedSource, Source)



def _global_state_call(source: GlobalStateSource) -> tuple[Callable[..., Any], tuple]:
    """The torch function and arguments a GLOBAL_STATE source reads (called from C directly)."""
    import torch

    if source.kind == "dispatch_tls":
        return source.reader, ()
    expr = source.expr  # "torch.a.b(args)": resolve the callable, evaluate the constant arguments
    name, _, rest = expr.partition("(")
    target: Any = torch
    for part in name.split(".")[1:]:
        target = getattr(target, part)
    args = ast.literal_eval("(" + rest[:-1] + ",)") if rest[:-1] else ()
    if target is torch.are_deterministic_algorithms_enabled and not args:
        target = torch._C._get_deterministic_algorithms  # what it returns, without a Python frame
    return target, args


# what an AppliedSource's reader answers -> the node that reads it in place from a list/tuple iterator
_IN_PLACE_NODES: dict[str | None, int] = {ITER_ITEMS: N_ITER_ITEMS, ITER_SEQUENCE: N_ITER_SEQUENCE}


class _PlanBuilder:
    def __init__(self, gs: GuardSet):
        fn = gs.fn
        code = fn.__code__
        self.gs = gs
        self.fn = fn
        self.npos = code.co_argcount
        defaults = fn.__defaults__ or ()
        self.nrequired = self.npos - len(defaults)
        self.defaults = {self.nrequired + i: d for i, d in enumerate(defaults)}
        names = code.co_varnames
        nkw = code.co_kwonlyargcount
        self.kwonly = names[self.npos:self.npos + nkw]
        kwdefaults = fn.__kwdefaults__ or {}
        if any(n not in kwdefaults for n in self.kwonly):
            raise Inexpressible("required keyword-only parameter")
        self.kwdefaults = kwdefaults
        idx = self.npos + nkw
        self.varargs = self.varkw = None
        if code.co_flags & inspect.CO_VARARGS:
            self.varargs = names[idx]
            idx += 1
        if code.co_flags & inspect.CO_VARKEYWORDS:
            self.varkw = names[idx]
        self.positional = names[:self.npos]
        self.nposonly = code.co_posonlyargcount
        self.nodes: list[tuple] = []
        self.index: dict[Source, int] = {}

    def node(self, source: Source | None) -> int:
        if source is None:
            raise Inexpressible("a guard without a source")
        if source in self.index:
            return self.index[source]
        node: tuple
        if isinstance(source, LocalSource):
            name = source.name
            if name in self.positional:
                i = self.positional.index(name)
                node = (N_POS, i, self.defaults.get(i), name)
            elif name == self.varargs:
                node = (N_VARARGS, self.npos, None)
            elif name in self.kwonly:
                node = (N_KWONLY, name, self.kwdefaults[name])
            elif name == self.varkw:
                node = (N_VARKW, None, None)
            else:
                raise Inexpressible(f"{name} is not a parameter")
        elif isinstance(source, GlobalSource):
            g = self.fn.__globals__
            if source.name in g:
                node = (N_GLOBAL, g, source.name)
            else:
                node = (N_GLOBAL_OR_BUILTIN, g, (source.name, self.gs._ns["___B"]))
        elif isinstance(source, ClosureSource):
            node = (N_CELL, source.cell(self.fn), None)
        elif isinstance(source, AttrSource):
            node = (N_ATTR, self.node(source.base), source.attr)
        elif isinstance(source, ItemSource):
            node = (N_ITEM, self.node(source.base), source.key)
        elif isinstance(source, GlobalStateSource):
            node = (N_CALL, *_global_state_call(source))
        elif isinstance(source, ObjectSource):
            node = (N_CONST, source.obj, None)
        elif isinstance(source, PinnedSource):
            node = (N_CALL, source.getter, ())
        elif isinstance(source, AppliedSource):
            kind = _IN_PLACE_NODES.get(source.in_place, N_APPLY)
            node = (kind, self.node(source.base), source.reader())
        else:
            raise Inexpressible(f"source {type(source).__name__}")
        self.nodes.append(node)
        self.index[source] = len(self.nodes) - 1
        return self.index[source]

    def guard(self, g: Guard) -> tuple:
        return spec_of(g.kind).plan(g, self.node)


def plan_for(gs: GuardSet) -> Any:
    """The plan tuple of a guard set, or its generated Python check when inexpressible."""
    try:
        b = _PlanBuilder(gs)
        guards = tuple(b.guard(g) for g in gs.guards)
    except Inexpressible:
        return gs.index_fn
    if len(b.nodes) > MAX_NODES:
        return gs.index_fn
    return (b.npos, b.nrequired, b.varargs is not None, None, tuple(b.nodes), guards, gs.index_fn,
            tuple(b.positional), tuple(b.kwonly), b.nposonly, b.varkw is not None)


# ------------------------------------------------------------ the Python twin of guard_eval.c

def _node_value(plan: tuple, values: list, i: int, args: tuple, kwargs: dict) -> Any:
    v = values[i]
    if v is not _MISSING:
        return v
    kind, a, b = plan[4][i][:3]
    if kind == N_POS:
        v = args[a] if a < len(args) else kwargs.get(plan[4][i][3], b)
    elif kind == N_KWONLY:
        v = kwargs.get(a, b)
    elif kind == N_VARKW:
        named = set(plan[7][plan[9]:]) | set(plan[8])
        v = {k: value for k, value in kwargs.items() if k not in named}
    elif kind == N_VARARGS:
        v = args[a:]
    elif kind == N_CONST:
        v = a
    elif kind == N_GLOBAL:
        v = a[b]
    elif kind == N_GLOBAL_OR_BUILTIN:
        bv = b[1][b[0]]
        v = a.get(b[0], bv)
    elif kind == N_CELL:
        v = a.cell_contents
    elif kind == N_ATTR:
        v = getattr(_node_value(plan, values, a, args, kwargs), b)
    elif kind == N_ITEM:
        v = _node_value(plan, values, a, args, kwargs)[b]
    elif kind == N_CALL:
        v = a(*b)
    elif kind in (N_APPLY, N_ITER_ITEMS, N_ITER_SEQUENCE):  # the C case reads the last two in place
        v = b(_node_value(plan, values, a, args, kwargs))
    else:
        raise SystemError(f"unknown node kind {kind}")
    values[i] = v
    return v


_MISSING = object()


def _guard_ok(plan: tuple, values: list, g: tuple, args: tuple, kwargs: dict) -> bool:
    spec = TWINS.get(g[0])
    if spec is None:
        raise SystemError(f"unknown guard op {g[0]}")
    return spec.twin(g, lambda n: _node_value(plan, values, n, args, kwargs))


def _kwargs_bind(plan: tuple, nargs: int, kwargs: dict) -> bool:
    """Twin of ``kwargs_bind`` in guard_eval.c."""
    positional, kwonly, nposonly, varkw = plan[7], plan[8], plan[9], plan[10]
    nrequired, supplied = plan[1], 0
    for key in kwargs:
        if not isinstance(key, str):
            return False
        i = positional.index(key) if key in positional else -1
        if i >= nposonly:
            if i < nargs:
                return False
            supplied += i < nrequired
        elif key not in kwonly and not varkw:
            return False
    return supplied == max(nrequired - nargs, 0)


def check_python(plan: Any, args: tuple, kwargs: dict | None) -> int:
    """Twin of ``_native.check``: index of the first failing guard, or -1."""
    if not isinstance(plan, tuple):
        return plan(*args, **(kwargs or {}))
    nargs, kwargs = len(args), kwargs or {}
    if nargs > plan[0] and not plan[2]:
        binds = False
    elif kwargs:
        binds = _kwargs_bind(plan, nargs, kwargs)
    else:
        binds = nargs >= plan[1]
    if not binds:
        return check_python(plan[6], args, kwargs)
    values = [_MISSING] * len(plan[4])
    for i, g in enumerate(plan[5]):
        try:
            if not _guard_ok(plan, values, g, args, kwargs):
                return i
        except Exception:
            return i
    return -1


def dispatch_python(plans: Sequence[Any], args: tuple, kwargs: dict | None) -> int:
    """Twin of ``_native.dispatch``: index of the first entry whose guards pass, or -1."""
    for i, plan in enumerate(plans):
        if check_python(plan, args, kwargs) < 0:
            return i
    return -1


def _dispatch_generated(checks: Sequence[Callable[..., int]], args: tuple, kwargs: dict | None) -> int:
    """Fallback hit path without the extension: the generated checks, in order."""
    kwargs = kwargs or {}
    for i, check in enumerate(checks):
        if check(*args, **kwargs) < 0:
            return i
    return -1


# ------------------------------------------------------------ what the runtime uses

def available() -> bool:
    """Whether the C path is in use (``extension.c_path()``)."""
    return c_path() is not None


def runtime_plan(gs: GuardSet) -> Any:
    """What the shim stores per entry: a native plan on the C path, else the generated check."""
    return plan_for(gs) if c_path() is not None else gs.index_fn


def runtime_dispatch() -> Callable[[tuple, tuple, dict | None], int]:
    """``dispatch(plans, args, kwargs) -> entry index or -1`` for the hit path."""
    native = c_path()
    return native.dispatch if native is not None else _dispatch_generated
