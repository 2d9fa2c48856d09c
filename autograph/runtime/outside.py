"""Which functions are outside the selection: library code that never gets a shim of its own.

A callee that capture could not inline whole (a graph break inside it) is called at the break
through its own shim when it is the user's code, so it compiles on its own. Code outside the
selection -- torch, the standard library, autograph's dependencies, and, when allow rules are
set, every module they do not select -- is called as it is instead: one opaque call in Python,
with no resume functions, cache entries or report rows of its own (TorchDynamo's trace rules
skip these files the same way).
"""
from __future__ import annotations

import sys
import types

from autograph.settings import NEVER_INSTRUMENTED, Rule, Settings

_SCRIPTS = ("__main__", "__mp_main__")  # the user's script: never library code


def code_module(fn: types.FunctionType) -> tuple[str, str]:
    """``(module, qualname)`` of the code a function runs: the innermost ``__wrapped__`` function's
    (``@torch.no_grad()`` on a user function is the user's; torch's ``_disable_dynamo`` wrapper
    around ``Optimizer.zero_grad`` is torch's), by the globals its code reads."""
    inner, seen = fn, {id(fn)}
    while True:
        nxt = getattr(inner, "__wrapped__", None)
        if not isinstance(nxt, types.FunctionType) or id(nxt) in seen:
            break
        seen.add(id(nxt))
        inner = nxt
    module = inner.__globals__.get("__name__") if isinstance(inner.__globals__, dict) else None
    return (module if isinstance(module, str) else inner.__module__ or ""), inner.__qualname__


def is_library_module(module: str) -> bool:
    """torch, the standard library, autograph and its dependencies (not the user's script)."""
    if module in _SCRIPTS or module == "autograph.testing" or module.startswith("autograph.testing."):
        return False
    top = module.partition(".")[0]
    return top in NEVER_INSTRUMENTED or top in sys.stdlib_module_names or top in sys.builtin_module_names


_rules_cache: dict[tuple, tuple[tuple[Rule, ...], tuple[Rule, ...]]] = {}


def _rules(settings: Settings) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    key = (settings.packages.allow, settings.packages.deny)
    rules = _rules_cache.get(key)
    if rules is None:
        rules = _rules_cache[key] = (tuple(Rule.parse(r) for r in key[0]), tuple(Rule.parse(r) for r in key[1]))
    return rules


def outside_selection(fn: types.FunctionType, settings: Settings, *, beside: types.FunctionType | None = None) -> bool:
    """Whether ``fn`` is library code for this run: called as it is, never compiled on its own.

    ``beside``: the function whose capture met ``fn`` (an ``autograph.compile`` target's own
    module is always inside)."""
    module, qualname = code_module(fn)
    if is_library_module(module):
        return True
    allow, deny = _rules(settings)
    if not allow:  # autograph.compile only: every non-library function is the user's
        return False
    if beside is not None and code_module(beside)[0] == module:
        return False
    selected = any(r.matches_function(module, qualname) for r in allow)
    return not selected or any(r.matches_function(module, qualname) for r in deny)


# frames a call passes through on its way from the caller to the shim, skipped when looking for
# the caller: autograph's own, wrapt's, and a module call's ``__call__`` (``model(x)`` runs
# ``forward`` through ``Module._call_impl``: the caller is whoever called the module)
_PASS_THROUGH = {("torch.nn.modules.module", "_call_impl"), ("torch.nn.modules.module", "_wrapped_call_impl")}


def library_caller(frame: types.FrameType | None, settings: Settings) -> str | None:
    """``module:function`` of the library code that called the shim whose frames start at
    ``frame`` (a callback: ``Module.apply(self._init_weights)``, a hook), or None when the
    caller is the user's code."""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        module = module if isinstance(module, str) else ""
        if not ((module == "autograph" or module.startswith(("autograph.", "wrapt")))
                and not module.startswith("autograph.testing")) \
                and (module, frame.f_code.co_name) not in _PASS_THROUGH:
            break
        frame = frame.f_back
    if frame is None:
        return None
    module, qualname = frame.f_globals.get("__name__", ""), frame.f_code.co_qualname
    if not isinstance(module, str) or module in _SCRIPTS:
        return None
    if is_library_module(module):
        return f"{module}:{qualname}"
    allow, deny = _rules(settings)
    if allow and not (any(r.matches_function(module, qualname) for r in allow)
                      and not any(r.matches_function(module, qualname) for r in deny)):
        return f"{module}:{qualname}"
    return None
