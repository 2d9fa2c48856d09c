"""The native guard fast path: plans for the C extension, and its pure-Python twin.

``plan_for(guard_set)`` turns a ``GuardSet`` into a plan of plain tuples that
``autograph._native`` (``native/guards.c``) evaluates without running Python
bytecode.  ``check_python``/``dispatch_python`` interpret the same plan in
Python and make identical decisions (tests hold all three — C, plan twin and
the generated check — to the same answers).  When the extension is missing,
``dispatch`` is the twin over the generated checks and one line is logged on
``autograph.runtime``.
"""
from __future__ import annotations

import ast
import functools
import inspect
import logging
from typing import Any, Callable, Sequence

from autograph.guards.check import GuardSet, check_const, device_implied_by_keys
from autograph.guards.model import (EQUALS_MATCH, GLOBAL_STATE, ID_MATCH, KEY_ABSENT, LENGTH_MATCH, NO_HOOKS,
                                    PYTHON, SHAPE_RELATION, TENSOR_MATCH, TYPE_MATCH, Guard, no_hooks_hold)
from autograph.guards.sources import (AttrSource, ClosureSource, GlobalSource, GlobalStateSource,
                                      ItemSource, LocalSource, ObjectSource, Source)

log = logging.getLogger("autograph.runtime")

# node kinds and guard ops of a plan; native/guards.c exports its own values of the same names
# and `load()` refuses an extension whose values differ (`SHARED_CONSTANTS`)
N_POS, N_VARARGS, N_CONST, N_GLOBAL, N_GLOBAL_OR_BUILTIN, N_CELL, N_ATTR, N_ITEM, N_CALL, N_KWONLY, N_VARKW = range(11)
G_TENSOR, G_TYPE, G_ID, G_CONST, G_LEN, G_EQ, G_CALL, G_NO_KEY, G_NO_HOOKS = range(9)
MAX_NODES = 1024
SHARED_CONSTANTS = ("N_POS", "N_VARARGS", "N_CONST", "N_GLOBAL", "N_GLOBAL_OR_BUILTIN", "N_CELL", "N_ATTR",
                    "N_ITEM", "N_CALL", "N_KWONLY", "N_VARKW", "G_TENSOR", "G_TYPE", "G_ID", "G_CONST", "G_LEN",
                    "G_EQ", "G_CALL", "G_NO_KEY", "G_NO_HOOKS", "MAX_NODES")


class _Unsupported(Exception):
    """The plan cannot express this guard set; the entry uses its Python check."""


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


@functools.lru_cache(maxsize=None)
def _raw_keys_verified() -> bool:
    """Whether the C extension reads DispatchKeySet values correctly (pybind layout check).

    Comparing two key sets with pybind's ``==`` costs about as much as the rest of a
    TENSOR_MATCH; the extension can compare the 64-bit values instead, but only when
    its read of pybind's object layout agrees with ``raw_repr()`` on distinct key sets.
    """
    native = load()
    if native is None or not hasattr(native, "keyset_raw"):
        return False
    import torch

    try:
        samples = [torch.empty(2), torch.empty(2, dtype=torch.int64), torch.empty(2, device="meta"),
                   torch.empty(2, dtype=torch.complex64).conj(), torch.empty(2).requires_grad_()]
        sets = [torch._C._dispatch_keys(t) for t in samples]
        raws = [k.raw_repr() for k in sets]
        return len(set(raws)) >= 3 and all(native.keyset_raw(k) == r for k, r in zip(sets, raws))
    except Exception:  # noqa: BLE001 - any surprise: keep the == comparison
        return False


def _layout_samples() -> list:
    """Tensors whose key sets differ in many bits: backends, autograd, conj/neg, inference, views."""
    import torch

    with torch.inference_mode():
        inference = torch.empty(3)
    z = torch.empty(2, dtype=torch.complex64)
    return [torch.empty(2), torch.empty(2, dtype=torch.int64), torch.empty(2, device="meta"),
            z.conj(), torch.empty(2).requires_grad_(), inference, torch.nn.Parameter(torch.empty(2)),
            torch.empty(4, 4).t(), z._neg_view(), torch.empty(2, dtype=torch.bool)[:1],
            torch.empty(3).to_sparse(), torch.empty(2, dtype=torch.float16, device="meta").requires_grad_()]


def _probe_offset(offsets: range, word: Callable[[int], Any], want: int) -> int | None:
    for off in offsets:
        if word(off) == want:
            return off
    return None


@functools.lru_cache(maxsize=None)
def direct_keys_enabled() -> bool:
    """Whether the extension reads a tensor's dispatch keys straight from its TensorImpl.

    Finds the offset of the TensorImpl pointer in a tensor object (it equals ``t._cdata``)
    and of ``key_set_`` in the TensorImpl (it equals ``_dispatch_keys(t).raw_repr()``) on
    half of the samples, enables the read, and keeps it only when every sample then reads
    back its own key set; any disagreement or surprise leaves the ``_dispatch_keys`` call.
    """
    native = load()
    if native is None or not hasattr(native, "set_tensor_layout"):
        return False
    import torch

    try:
        samples = _layout_samples()
        raws = [torch._C._dispatch_keys(t).raw_repr() for t in samples]
        if len(set(raws)) < 6:
            return False
        found = set()
        for t, raw in zip(samples[::2], raws[::2]):
            cdata = _probe_offset(range(16, type(t).__basicsize__ - 7, 8),
                                  functools.partial(native.probe_object_word, t), t._cdata)
            if cdata is None:
                return False
            keys = _probe_offset(range(0, 200 - 7, 8),
                                 functools.partial(native.probe_impl_word, t, cdata), raw)
            found.add((cdata, keys))
        if len(found) != 1 or None in next(iter(found)):
            return False
        native.set_tensor_layout(*found.pop())
        if all(native.tensor_keys(t) == raw for t, raw in zip(samples, raws)):
            return True
        native.set_tensor_layout(-1, -1)
    except Exception:  # noqa: BLE001 - any surprise: keep calling _dispatch_keys
        native.set_tensor_layout(-1, -1)
    return False


def _raw_keys(cls: type, keys: Any) -> tuple[Any, Any, bool]:
    """(DispatchKeySet type or None, its 64-bit value or None, read directly) for the C path.

    The value is compared with a direct read from the tensor when that is enabled (only for
    torch tensor classes), else with the pybind object's value when its layout is verified;
    with neither, the key sets are compared with ``==``.
    """
    import torch

    if keys is None:
        return None, None, False
    direct = direct_keys_enabled() and isinstance(cls, type) and issubclass(cls, torch._C.TensorBase)
    pybind = _raw_keys_verified()
    if not (direct or pybind):
        return None, None, False
    return (type(keys) if pybind else None), keys.raw_repr(), direct


def _strides_by_contiguity(cls: type, sizes: tuple, strides: tuple) -> bool:
    """Whether ``t.is_contiguous()`` decides the stride guard exactly (once sizes matched).

    True when every size is a known int >= 2 (PyTorch skips size-1 dimensions and empty
    tensors when computing contiguity) and the expected strides are the row-major ones:
    then contiguous <=> strides equal.  Only for plain tensors and parameters, whose
    ``is_contiguous`` is TensorImpl's maintained flag (a subclass may override it).
    """
    import torch

    if cls not in (torch.Tensor, torch.nn.Parameter) or sizes is None or strides is None:
        return False
    if len(sizes) != len(strides) or any(type(s) is not int or s < 2 for s in sizes):
        return False
    expected, step = [], 1
    for s in reversed(sizes):
        expected.append(step)
        step *= s
    return tuple(reversed(expected)) == tuple(strides)


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
            raise _Unsupported("required keyword-only parameter")
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

    def node(self, source: Source) -> int:
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
                raise _Unsupported(f"{name} is not a parameter")
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
        else:
            raise _Unsupported(f"source {type(source).__name__}")
        self.nodes.append(node)
        self.index[source] = len(self.nodes) - 1
        return self.index[source]

    def guard(self, g: Guard) -> tuple:
        k = g.kind
        if k in (SHAPE_RELATION, PYTHON):
            return (G_CALL, tuple(self.node(s) for s in g.sources), g.check_fn)
        if g.source is None:
            raise _Unsupported(f"{k.name} guard without a source")
        n = self.node(g.source)
        if k is TENSOR_MATCH:
            import torch

            f = g.expected
            device = None if device_implied_by_keys(f.device) else f.device  # None: not read
            keys_type, keys_raw, keys_direct = _raw_keys(f.cls, f.dispatch_keys)
            return (G_TENSOR, n, f.cls, f.dtype, device, f.requires_grad, f.sizes, f.strides,
                    f.dispatch_keys, torch._C._dispatch_keys, keys_type, keys_raw,
                    _strides_by_contiguity(f.cls, f.sizes, f.strides), keys_direct)
        if k is TYPE_MATCH:
            return (G_TYPE, n, g.expected)
        if k is ID_MATCH:
            return (G_ID, n, g.expected)
        if k is EQUALS_MATCH:
            return (G_CONST, n, g.expected)
        if k is LENGTH_MATCH:
            return (G_LEN, n, g.expected)
        if k is KEY_ABSENT:
            return (G_NO_KEY, n, g.expected)
        if k is NO_HOOKS:
            return (G_NO_HOOKS, n, g.expected)
        if k is GLOBAL_STATE:
            return (G_EQ, n, g.expected)
        raise _Unsupported(f"guard kind {k}")


def plan_for(gs: GuardSet) -> Any:
    """The plan tuple of a guard set, or its generated Python check when inexpressible."""
    try:
        b = _PlanBuilder(gs)
        guards = tuple(b.guard(g) for g in gs.guards)
    except _Unsupported:
        return gs.index_fn
    if len(b.nodes) > MAX_NODES:
        return gs.index_fn
    return (b.npos, b.nrequired, b.varargs is not None, None, tuple(b.nodes), guards, gs.index_fn,
            tuple(b.positional), tuple(b.kwonly), b.nposonly, b.varkw is not None)


# ------------------------------------------------------------ the Python twin of guards.c

class _Fail(Exception):
    pass


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
    else:
        raise SystemError(f"unknown node kind {kind}")
    values[i] = v
    return v


_MISSING = object()


def _dims_eq(got: Any, expected: tuple) -> bool:
    if not isinstance(got, tuple) or len(got) != len(expected):
        return False
    return all(e is None or g == e for g, e in zip(got, expected))


def _guard_ok(plan: tuple, values: list, g: tuple, args: tuple, kwargs: dict) -> bool:
    op = g[0]
    if op == G_CALL:
        return bool(g[2](*[_node_value(plan, values, n, args, kwargs) for n in g[1]]))
    v = _node_value(plan, values, g[1], args, kwargs)
    if op == G_TENSOR:
        return (type(v) is g[2] and v.dtype is g[3] and v.requires_grad is g[5]
                and _dims_eq(v.size(), g[6]) and _dims_eq(v.stride(), g[7])
                and (g[4] is None or bool(v.device == g[4])) and bool(g[9](v) == g[8]))
    if op == G_TYPE:
        return type(v) is g[2]
    if op == G_ID:
        return v is g[2]
    if op == G_CONST:
        return check_const(v, g[2])
    if op == G_LEN:
        return len(v) == g[2]
    if op == G_NO_KEY:
        return g[2] not in v
    if op == G_NO_HOOKS:
        return no_hooks_hold(v, g[2])
    if op == G_EQ:
        return bool(v == g[2])
    raise SystemError(f"unknown guard op {op}")


def _kwargs_bind(plan: tuple, nargs: int, kwargs: dict) -> bool:
    """Twin of ``kwargs_bind`` in guards.c."""
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


# ------------------------------------------------------------ loading the extension

def constant_mismatches(module: Any) -> list[str]:
    """The plan constants whose value in the C ``module`` differs from this file's (missing ones too)."""
    here = globals()
    return [name for name in SHARED_CONSTANTS if getattr(module, name, None) != here[name]]


@functools.lru_cache(maxsize=None)
def load() -> Any:
    """The ``autograph._native`` module, or None (logged once) when it is not built."""
    try:
        from autograph import _native
    except ImportError as exc:
        log.info("autograph._native is not available (%s); guards run in Python "
                 "(reinstall with a C compiler present for the fast path)", exc)
        return None
    differing = constant_mismatches(_native)
    if differing:
        log.warning("autograph._native was built from other sources (plan constants differ: %s); guards "
                    "run in Python (rebuild with `python setup.py build_ext --inplace`)", ", ".join(differing))
        return None
    return _native


_forced_python = False


def force_python(flag: bool) -> None:
    """Use the generated Python checks even when the extension is built (tests, benchmarks)."""
    global _forced_python
    _forced_python = flag


def available() -> bool:
    return not _forced_python and load() is not None


def runtime_plan(gs: GuardSet) -> Any:
    """What the shim stores per entry: a native plan, or the generated check without the extension."""
    return plan_for(gs) if available() else gs.index_fn


def runtime_dispatch() -> Callable[[tuple, tuple, dict | None], int]:
    """``dispatch(plans, args, kwargs) -> entry index or -1`` for the hit path."""
    return load().dispatch if available() else _dispatch_generated
