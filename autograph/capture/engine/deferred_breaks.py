"""A call that would be a graph break, made after the graph instead, when nothing after it in the
function can tell the difference.

A call capture cannot trace (``opt.step()``: torch's ``_use_grad_for_differentiable`` asks for
graph breaks around the step; any library function that breaks inside) runs once in Python at a
break, and the rest of the function becomes a resume function. When the call is a statement (its
value is dropped: ``CALL`` then ``POP_TOP``) in the root function, outside ``try``/``with`` blocks
and under the grad/autocast state the function started with, the transformed code can make the
same call right after the graph instead, in order with the capture's other recorded effects
(families/side_effects.py), with no resume function: provided the code after it can observe
nothing the call changes and changes nothing the call reads. That is the tail rule of
families/deferred_calls.py (frame-local instructions; effect-free tensor methods of tensors the
graph made that share no memory with its inputs; a call's writes are unknown, so a tensor the
graph reads is not such a tensor), extended here: a later statement call of a method of a local
(``sched.step()``, ``opt.zero_grad()``) is deferred the same way, after the first, and its method
is looked up when it runs (as Python's ``LOAD_METHOD`` would, after the earlier call). Anything
else after the call is a break (``after-deferred-call``) before which the deferred calls run.

The capture finds the break first (``BreakAt`` at the ``CALL``), then replays with the call's step
deferred (engine/api.py); a step that turns out not to be deferrable on the replay is the break
it was.
"""
from __future__ import annotations

from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families import deferred_calls, side_effects
from autograph.capture.families.compile_markers import FORCED_BREAK

# the instructions that may come between a tail method load and its call: argument loads
_ARGUMENT_LOADS = frozenset({"LOAD_FAST", "LOAD_CONST", "KW_NAMES", "PRECALL", "CACHE", "EXTENDED_ARG", "NOP"})
# every instruction the tail rule may let through (deferred_calls.check_tail)
_TAIL_OPS = deferred_calls.TAIL_SAFE_OPS | _ARGUMENT_LOADS | {"LOAD_METHOD", "LOAD_ATTR", "CALL"}


def deferrable(code_instructions: list, exc: Any) -> bool:
    """Whether the break ``exc`` (a ``BreakAt`` of the root frame) is at a statement call, worth
    a replay that defers it."""
    inst = exc.inst
    if inst.opname != "CALL" or exc.cause.generic:
        return False
    if exc.cause.kind == FORCED_BREAK and len(exc.cause.user_stack) <= 1:
        return False  # the function's own torch._dynamo.graph_break(): the break it asks for
    following = code_instructions[inst.index + 1] if inst.index + 1 < len(code_instructions) else None
    if following is None or following.opname != "POP_TOP":
        return False
    # an instruction the tail rule never lets through: the code after the call would break anyway
    return all(i.opname in _TAIL_OPS for i in code_instructions[inst.index + 2:])


def tail_method_call(frame, inst) -> bool:
    """``inst`` loads a method of a frame local (``LOAD_FAST x; LOAD_METHOD m``) that a statement
    call then calls with loaded arguments: the call is deferred (or a break), so the load (lazy:
    a ``MethodRef``) reads nothing now."""
    insts = frame.instructions
    if inst.opname != "LOAD_METHOD" or inst.index == 0 or insts[inst.index - 1].opname != "LOAD_FAST":
        return False
    i = inst.index + 1
    while i < len(insts) and insts[i].opname in _ARGUMENT_LOADS:
        i += 1
    return i + 1 < len(insts) and insts[i].opname == "CALL" and insts[i + 1].opname == "POP_TOP"


def defer(tx, frame, inst, cause: Unsupported) -> None:
    """Record the statement call ``inst`` (with its callable and arguments on the stack) for after
    the graph; raises ``BreakAt`` (the break it was) where that would not be exact."""
    from autograph.capture.core.method_refs import MethodRef
    from autograph.capture.engine.interpreter import BreakAt, _resolve_callable
    chained = tx.tail_after is not None
    argc = inst.arg
    slots = frame.stack[len(frame.stack) - argc - 2:len(frame.stack) - argc]
    fn_v, args = _resolve_callable(tx, slots, frame.stack[len(frame.stack) - argc:])
    if tx.graph.inside_try or tx.graph.unwinds or deferred_calls._state_switched(tx) \
            or (chained and not (isinstance(fn_v, MethodRef) and getattr(fn_v.obj, "source", None) is not None)):
        raise BreakAt(inst, cause, tx.step)
    del frame.stack[len(frame.stack) - argc - 2:]
    kw_names = tuple(inst.argval or ())

    def line(cg) -> str:
        from autograph.capture.engine.api import _called_from, _user_site
        from autograph.capture.engine.python_methods import method_call
        site = _user_site(cg, frame, inst)
        if chained:  # looked up when it runs, after the calls deferred before it
            callee = cg.const(site.method(fn_v.name) if site is not None else method_call(fn_v.name))
            call_args = [fn_v.obj, *args]
        else:
            callee, call_args = cg.native_callable(fn_v, list(args), site)
        npos = len(call_args) - len(kw_names)
        parts = [cg.reconstruct(a) for a in call_args[:npos]]
        parts += [f"{k}={cg.reconstruct(v)}" for k, v in zip(kw_names, call_args[npos:])]
        return f"{_called_from(cg, site, callee)}{', '.join(parts)})"

    side_effects.record_replay(tx, line)
    frame.push(ConstantValue(None))  # dropped by the POP_TOP that follows
    tx.tail_after = f"{getattr(fn_v, 'name', None) or fn_v.describe()}() runs after the graph"
    deferred_calls.DEFERRED.of(tx).append(None)  # what it writes is not known
