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

from autograph.guards.kinds import check_const, check_namespace, device_implied_by_keys, make_tensor_check, spec_of
from autograph.guards.model import Guard
from autograph.guards.sources import GLOBAL_STATE_KINDS, AttrSource, ItemSource, Source

__all__ = ["GuardSet", "check_const", "device_implied_by_keys", "make_tensor_check", "parameter_name",
           "signature_source"]

_counter = itertools.count()


def _dispatch_tls_reader():
    return GLOBAL_STATE_KINDS["dispatch_tls"][1]


# GLOBAL_STATE kind -> code reading it (``___torch`` is bound in the namespace)
def _global_state_code(kind: str) -> str:
    if kind == "dispatch_tls":
        return "___dispatch_tls()"
    return "___" + GLOBAL_STATE_KINDS[kind][0]


def parameter_name(local: str) -> str:
    """The name a parameter has in generated Python: a comprehension's implicit ``.0`` is no
    identifier, and is ``implicit0`` there, as ``inspect.signature`` (and so every source) names it."""
    if local.startswith(".") and local[1:].isdigit():
        return "implicit" + local[1:]
    return local


def signature_source(fn: types.FunctionType, ns: dict) -> tuple[str, list[str]]:
    """The parameter list of ``fn`` as source text (defaults bound in ``ns``) and its names."""
    code = fn.__code__
    names = tuple(parameter_name(n) for n in code.co_varnames)
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
        return spec_of(guard.kind).python(self, guard)


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
            "___dispatch_tls": _dispatch_tls_reader(),
            **check_namespace(),
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
