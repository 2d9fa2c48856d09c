"""Compile a list of guards into ONE Python function with the signature of ``fn``.

Python's own argument binding feeds the check (defaults, ``*args``,
``**kwargs`` behave exactly as in the real call), so evaluating a guard set
costs one call plus one comparison per guard.  The generated function returns
the index of the first failing guard, or -1 when all pass; a guard whose
evaluation raises (missing attribute, short list...) counts as failing.
Tensor guards fold every fact into one closure per tensor.
"""
from __future__ import annotations

import builtins
import inspect
import itertools
import re
import types
from typing import Any, Callable, Sequence

from autograph.guards.model import (EQUALS_MATCH, GLOBAL_STATE, ID_MATCH, KEY_ABSENT, LENGTH_MATCH, NO_HOOKS,
                                    PYTHON, SHAPE_RELATION, TENSOR_MATCH, TYPE_MATCH, Guard, TensorFacts,
                                    no_hooks_hold)
from autograph.guards.sources import AttrSource, ItemSource, Source

_counter = itertools.count()


def check_const(value: Any, expected: Any) -> bool:
    """Same type and equal, element by element for tuples (``(1,)`` is not ``(True,)``)."""
    if type(value) is not type(expected):
        return False
    if type(expected) is tuple:
        if len(value) != len(expected):
            return False
        return all(check_const(v, e) for v, e in zip(value, expected))
    return value == expected


def device_implied_by_keys(device: Any) -> bool:
    """A CPU device has no index: the backend bit of the dispatch keys already pins it."""
    return getattr(device, "type", None) == "cpu" and getattr(device, "index", None) is None


def make_tensor_check(facts: TensorFacts) -> Callable[[Any], bool]:
    """One closure comparing every TENSOR_MATCH fact, cheapest facts first."""
    import torch

    keys = torch._C._dispatch_keys
    cls, dtype, device, rg, dk = facts.cls, facts.dtype, facts.device, facts.requires_grad, facts.dispatch_keys
    sizes, strides = facts.sizes, facts.strides
    if device_implied_by_keys(device):
        if None not in sizes and None not in strides:
            def check_cpu_tensor(t):
                return (type(t) is cls and t.dtype is dtype and t.requires_grad is rg
                        and t.size() == sizes and t.stride() == strides and keys(t) == dk)
            return check_cpu_tensor
        device = None
    elif None not in sizes and None not in strides:
        def check_tensor(t):
            return (type(t) is cls and t.dtype is dtype and t.requires_grad is rg
                    and t.size() == sizes and t.stride() == strides
                    and t.device == device and keys(t) == dk)
        return check_tensor

    ndim = len(sizes)
    static_sizes = tuple((i, s) for i, s in enumerate(sizes) if s is not None)
    static_strides = tuple((i, s) for i, s in enumerate(strides) if s is not None)

    def check_tensor_dynamic(t):
        if not (type(t) is cls and t.dtype is dtype and t.requires_grad is rg):
            return False
        size = t.size()
        if len(size) != ndim:
            return False
        for i, s in static_sizes:
            if size[i] != s:
                return False
        stride = t.stride()
        for i, s in static_strides:
            if stride[i] != s:
                return False
        return (device is None or t.device == device) and keys(t) == dk
    return check_tensor_dynamic


def _dispatch_tls_reader():
    from autograph.guards.sources import GLOBAL_STATE_KINDS
    return GLOBAL_STATE_KINDS["dispatch_tls"][1]


# GLOBAL_STATE kind -> code reading it (``___torch`` is bound in the namespace)
def _global_state_code(kind: str) -> str:
    from autograph.guards.sources import GLOBAL_STATE_KINDS

    if kind == "dispatch_tls":
        return "___dispatch_tls()"
    return "___" + GLOBAL_STATE_KINDS[kind][0]


def signature_source(fn: types.FunctionType, ns: dict) -> tuple[str, list[str]]:
    """The parameter list of ``fn`` as source text (defaults bound in ``ns``) and its names."""
    code = fn.__code__
    names = code.co_varnames
    npos, nposonly, nkw = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    parts: list[str] = []
    first_default = npos - len(defaults)
    for i in range(npos):
        name = names[i]
        if i >= first_default:
            ns[f"___default_{i}"] = defaults[i - first_default]
            parts.append(f"{name}=___default_{i}")
        else:
            parts.append(name)
        if nposonly and i == nposonly - 1:
            parts.append("/")
    idx = npos + nkw
    if code.co_flags & inspect.CO_VARARGS:
        parts.append("*" + names[idx])
        idx += 1
    elif nkw:
        parts.append("*")
    for j in range(npos, npos + nkw):
        name = names[j]
        if name in kwdefaults:
            ns[f"___kwdefault_{name}"] = kwdefaults[name]
            parts.append(f"{name}=___kwdefault_{name}")
        else:
            parts.append(name)
    if code.co_flags & inspect.CO_VARKEYWORDS:
        parts.append("**" + names[idx])
    params = [p.lstrip("*") for p in parts if p not in ("/", "*")]
    return ", ".join(parts), [p.split("=")[0] for p in params]


class _Codegen:
    """Turns sources into expressions of the generated function, binding objects in ``ns``."""

    def __init__(self, fn: types.FunctionType, ns: dict):
        self.fn = fn
        self.ns = ns
        self.temps: dict[Source, str] = {}
        self.n = 0

    def bind(self, prefix: str, obj: Any) -> str:
        name = f"___{prefix}{self.n}"
        self.n += 1
        self.ns[name] = obj
        return name

    # --- SourceRenderer (autograph.guards.sources) ---
    def expr(self, source: Source | None) -> str:
        if source is None:
            raise TypeError("this guard kind reads a value: it needs a source")
        if source in self.temps:
            return self.temps[source]
        return source.render(self)

    def constant(self, obj: Any, hint: str) -> str:
        return self.bind(hint, obj)

    def global_read(self, name: str) -> str:
        if name in self.fn.__globals__:
            return f"___G[{name!r}]"
        return f"___G.get({name!r}, ___B[{name!r}])"

    def global_state(self, kind: str) -> str:
        return _global_state_code(kind)

    def guard(self, guard: Guard) -> str:
        k = guard.kind
        if k is TENSOR_MATCH:
            return f"{self.bind('tensor', make_tensor_check(guard.expected))}({self.expr(guard.source)})"
        if k is TYPE_MATCH:
            return f"type({self.expr(guard.source)}) is {self.bind('type', guard.expected)}"
        if k is ID_MATCH:
            return f"{self.expr(guard.source)} is {self.bind('obj', guard.expected)}"
        if k is EQUALS_MATCH:
            value = guard.expected
            x = self.expr(guard.source)
            if value is None or value is True or value is False:
                return f"{x} is {value!r}"
            if type(value) is tuple:
                return f"___check_const({x}, {self.bind('const', value)})"
            return f"type({x}) is {self.bind('type', type(value))} and {x} == {self.bind('const', value)}"
        if k is LENGTH_MATCH:
            return f"len({self.expr(guard.source)}) == {guard.expected}"
        if k is KEY_ABSENT:
            return f"{self.bind('key', guard.expected)} not in {self.expr(guard.source)}"
        if k is NO_HOOKS:
            return f"___no_hooks({self.expr(guard.source)}, {self.bind('names', guard.expected)})"
        if k is GLOBAL_STATE:
            return f"{self.expr(guard.source)} == {self.bind('state', guard.expected)}"
        if k in (SHAPE_RELATION, PYTHON):
            args = ", ".join(self.expr(s) for s in guard.sources)
            return f"{self.bind('fn', guard.check_fn)}({args})"
        raise TypeError(f"unknown guard kind {k!r}")


def _sources_read(guard: Guard) -> list[Source]:
    out = []
    for s in guard.sources:
        while s is not None:
            out.append(s)
            s = s.base
    return out


class GuardSet:
    """The guards of one cache entry, compiled into one check function.

    ``check(*args, **kwargs)`` -> bool; ``first_failure(...)`` -> the failing
    ``Guard`` or None; ``index_fn(...)`` -> index of the first failure or -1
    (the hit path calls this directly); ``source_text`` is the generated code.
    """

    def __init__(self, fn: types.FunctionType, guards: Sequence[Guard]):
        import torch

        self.fn = fn
        self.guards: list[Guard] = list(guards)
        g = fn.__globals__
        b = g.get("__builtins__", builtins.__dict__)
        ns: dict[str, Any] = {
            "___G": g,
            "___B": b.__dict__ if isinstance(b, types.ModuleType) else b,
            "___torch": torch,
            "___check_const": check_const,
            "___no_hooks": no_hooks_hold,
            "___dispatch_tls": _dispatch_tls_reader(),
        }
        params, self.param_names = signature_source(fn, ns)
        gen = _Codegen(fn, ns)
        uses: dict[Source, int] = {}
        for guard in self.guards:
            for s in _sources_read(guard):
                uses[s] = uses.get(s, 0) + 1
        # a valid identifier even for `<lambda>`, `<genexpr>` and resume names
        name = "___guards_%s_%d" % (re.sub(r"\W", "_", fn.__name__), next(_counter))
        lines = [f"def {name}({params}):", "    ___i = 0", "    try:"]
        for i, guard in enumerate(self.guards):
            if i:
                lines.append(f"        ___i = {i}")
            # hoist attribute/item sources read by several guards into temps, outermost first
            for s in reversed(_sources_read(guard)):
                if isinstance(s, (AttrSource, ItemSource)) and uses[s] > 1 and s not in gen.temps:
                    code = gen.expr(s)
                    temp = f"___s{len(gen.temps)}"
                    lines.append(f"        {temp} = {code}")
                    gen.temps[s] = temp
            lines.append(f"        if not ({gen.guard(guard)}): return {i}  # {guard.src}")
        if not self.guards:
            lines = [lines[0], "    return -1"]
        else:
            lines += ["    except Exception:", "        return ___i", "    return -1"]
        self.source_text = "\n".join(lines) + "\n"
        filename = f"<autograph guards of {fn.__qualname__}>"
        exec(compile(self.source_text, filename, "exec"), ns)
        self.index_fn: Callable[..., int] = ns[name]
        self._ns = ns

    def check(self, *args: Any, **kwargs: Any) -> bool:
        return self.index_fn(*args, **kwargs) < 0

    def first_failure(self, *args: Any, **kwargs: Any) -> Guard | None:
        i = self.index_fn(*args, **kwargs)
        return None if i < 0 else self.guards[i]

    def __len__(self) -> int:
        return len(self.guards)

    def __repr__(self) -> str:
        return f"<GuardSet of {self.fn.__qualname__}: {len(self.guards)} guards>"

    def describe(self) -> list[str]:
        return [g.describe() for g in self.guards]
