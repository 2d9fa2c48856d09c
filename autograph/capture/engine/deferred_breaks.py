"""A call that would be a graph break, made after the graph instead, when nothing after it in the
function can tell the difference.

A call capture cannot trace (``loss.backward()``; ``opt.step()``, where torch's
``_use_grad_for_differentiable`` asks for graph breaks around the step; any callee that breaks
inside) runs once in Python at a break, and the rest of the function becomes a resume function.
When the call is a statement (its value is dropped: ``CALL`` then ``POP_TOP``) of the root
function, outside ``try``/``with`` blocks, under the grad/autocast state the function started
with, and every instruction after it is one the tail rule may let through, the transformed code
makes the same call right after the graph instead, in order with the capture's other recorded
effects (families/side_effects.py), with no resume function.

The code after it is then held to the tail rule of families/deferred_calls.py: frame-local
instructions, and effect-free tensor methods (none that may raise) of tensors the graph made that
share no memory with its inputs and that no deferred call may reach (what it is given, what the
capture stored into objects from outside: ``note_escapes``; a call's writes are unknown). A later
statement call of a method of a local (``sched.step()``, ``opt.zero_grad()``) is deferred the same
way, after it, its method looked up when it runs (as Python's ``LOAD_METHOD``, after the earlier
calls). A read of a tensor they may write is a break (``after-deferred-call``) before which the
deferred calls run: ``return loss.detach()`` after ``loss.backward(); opt.step()`` runs after
both, in a resume function compiled when called (``is_order_break``); anything else the tail rule refuses puts the break back at the first deferred call. The
function's own ``torch._dynamo.graph_break()`` stays the break it asks for.

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

# every instruction the tail rule may let through (deferred_calls.check_tail)
_TAIL_OPS = deferred_calls.TAIL_SAFE_OPS | deferred_calls.ARGUMENT_LOADS | {"LOAD_METHOD", "LOAD_ATTR", "CALL"}


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
        from autograph.capture.engine.api import _call_text, _user_site
        from autograph.capture.engine.codegen import at_user_line
        from autograph.capture.engine.python_methods import method_call
        site = _user_site(cg, frame, inst)
        if chained:  # looked up when it runs, after the calls deferred before it
            callee = cg.step_call(fn_v, cg.const(site.method(fn_v.name) if site is not None else method_call(fn_v.name)))
            call_args = [fn_v.obj, *args]
        else:
            callee, call_args = cg.native_callable(fn_v, list(args), site)
        npos = len(call_args) - len(kw_names)
        parts = [cg.reconstruct(a) for a in call_args[:npos]]
        parts += [f"{k}={cg.reconstruct(v)}" for k, v in zip(kw_names, call_args[npos:])]
        # made by the entry itself at the statement's own line, as the user's frame made it
        return at_user_line(_call_text(cg, site, callee, parts), inst.lineno)

    # what it is given, and what the capture stored into objects from outside, it may write
    deferred_calls.note_escapes(tx, [fn_v, list(args), [list(e[1:]) for e in side_effects.of(tx).events
                                                         if e[0] != "replay"]])
    side_effects.record_replay(tx, line)
    frame.push(ConstantValue(None))  # dropped by the POP_TOP that follows
    tx.tail_after = f"{getattr(fn_v, 'name', None) or fn_v.describe()}() runs after the graph"
    deferred_calls.DEFERRED.of(tx).append(None)  # what it writes is not known


def made_any(tx) -> bool:
    """Whether the capture deferred a call that would have been a break: its code is the
    transformed code even with no graph (the calls are made from the user's line, as at a break)."""
    return None in deferred_calls.DEFERRED.of(tx)


def undoes(cause: Unsupported) -> bool:
    """Whether a break after deferred calls moves back to the first of them: unless it reads a
    tensor they may write (``return loss.detach()`` after ``loss.backward()``), the code after
    them would have broken anyway, and the break keeps its own reason where the user made it."""
    return cause.kind == deferred_calls.AFTER_DEFERRED_CALL and not getattr(cause, "on_tensor", False)


def is_order_break(cause: Unsupported) -> bool:
    """Whether a break is one of order only: its instruction can be captured once the calls made
    after the graph have run, so the code from it on is a compiled resume function."""
    return cause.kind == deferred_calls.AFTER_DEFERRED_CALL
