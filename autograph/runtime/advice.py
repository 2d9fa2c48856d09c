"""What to tell a user whose function hit ``recompile_limit``: advice that fits the failing guard.

A float that changes every call, a tensor whose size changes, an object that is a different
one on every call and global torch state each have their own remedy; "mark the dimension
dynamic" is only right for the second.
"""
from __future__ import annotations

import types

from autograph.guards.model import (
    EQUALS_MATCH,
    GLOBAL_STATE,
    ID_MATCH,
    KEY_ABSENT,
    LENGTH_MATCH,
    SHAPE_RELATION,
    TENSOR_MATCH,
    TYPE_MATCH,
    Guard,
)
from autograph.settings import Settings

EXCLUDE = ("or keep this function out of the selection (a packages.deny rule such as "
           "'{module}:{qualname}', or @autograph.skip)")


def recompile_advice(guard: Guard, fn: types.FunctionType, args: tuple, kwargs: dict, settings: Settings) -> str:
    """One or two sentences: what changes between calls and what the user can do about it."""
    expr = guard.source.expr if guard.source is not None else "a value"
    exclude = EXCLUDE.format(**dict(zip(("module", "qualname"), deny_rule_parts(fn))))
    kind = guard.kind
    if kind is TENSOR_MATCH:
        return _tensor_advice(guard, expr, fn, args, kwargs, settings, exclude)
    if kind is EQUALS_MATCH:
        value = guard.expected
        if isinstance(value, float):
            return (f"{expr} is a Python float that takes a new value on (almost) every call, and each value is "
                    f"compiled as a constant: pass it as a tensor (torch.tensor({expr})) {exclude}.")
        if isinstance(value, int) and not isinstance(value, bool):
            return (f"{expr} is a Python int with many values, each compiled separately: if it is a size, derive "
                    f"it from a tensor's shape inside the function (sizes can be dynamic); otherwise raise "
                    f"recompile_limit if the values are few, {exclude}.")
        return (f"{expr} ({type(value).__name__}) takes many values, each compiled separately: raise "
                f"recompile_limit if they are few, {exclude}.")
    if kind is ID_MATCH:
        return (f"{expr} is a different object on each call (the compiled code is specialised on its "
                f"identity, e.g. one entry per module instance): pass the tensors the function needs rather "
                f"than varying objects, {exclude}.")
    if kind is TYPE_MATCH:
        return f"{expr} changes type between calls; each type is compiled separately: raise recompile_limit, {exclude}."
    if kind is LENGTH_MATCH:
        return (f"the length of {expr} changes between calls and the code is specialised on it: pass a "
                f"tensor instead of a list of varying length, {exclude}.")
    if kind is GLOBAL_STATE:
        return ("global torch state (grad mode, default dtype, autocast, ...) differs between calls; each "
                f"combination is compiled separately: raise recompile_limit, {exclude}.")
    if kind is SHAPE_RELATION:
        return (f"a relation between dynamic sizes the compiled code relies on ({guard.src}) no longer holds: "
                f"mark the dimensions static (autograph.mark_static) or raise recompile_limit.")
    if kind is KEY_ABSENT:
        return f"an attribute or key that was absent ({guard.src}) now exists on some calls: {exclude}."
    return f"raise recompile_limit if the variants are few, {exclude}."


def deny_rule_parts(fn: types.FunctionType) -> tuple[str, str]:
    """``(module, qualname)`` of the function a deny rule must name to keep ``fn`` out: where its
    code lives (a decorated function's own), and for a resume function the function it resumes
    (resume functions are never instrumented themselves: denying their function removes them)."""
    from autograph.runtime.outside import code_module

    module, qualname = code_module(fn)
    return module, qualname.split(".__resume_at_")[0]


def _tensor_advice(guard: Guard, expr: str, fn: types.FunctionType, args: tuple, kwargs: dict,
                   settings: Settings, exclude: str) -> str:
    from autograph.runtime.dynamic import changed_dims

    dims = changed_dims(guard, fn, args, kwargs)
    if dims:
        where = ", ".join(str(d) for d in sorted(dims))
        if settings.dynamic == "static":
            return (f"the size of {expr} changes in dimension {where} and dynamic is 'static': set dynamic to "
                    f"'auto', or autograph.mark_dynamic({expr}, {sorted(dims)[0]}) before the call.")
        return (f"the size of {expr} changes in dimension {where}: mark it dynamic "
                f"(autograph.mark_dynamic({expr}, {sorted(dims)[0]})) or use dynamic: always.")
    return (f"{expr} changes dtype, device, requires_grad, rank or layout between calls; each combination is "
            f"compiled separately: raise recompile_limit if they are few, {exclude}.")
