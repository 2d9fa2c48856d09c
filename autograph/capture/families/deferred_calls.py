"""Library calls run after the graph, in program order, with no break: an LR scheduler's
``sched.step()``.

``LRScheduler.step`` only changes the scheduler's counters and the learning rates in its
optimizer's ``param_groups`` (and may warn). Interpreting it would guard its integer counters,
which change on every call (a recompile per step), and a tensor ``lr`` is written in place; so
the call is recorded and made by the transformed code after the graph, once, in order with the
capture's other recorded effects (families/side_effects.py).

Nothing the capture does after the recorded call may observe what it changes, so the capture
goes on only through instructions that read or write nothing but the frame's own stack and
locals (``return loss``, ``return {"loss": loss}``), and through tensor methods that draw no
random numbers and write nothing, of plain tensors the deferred call cannot write: ones the graph
made that share no memory with its inputs, or any when the scheduler writes none (its
``param_groups`` hold no tensor, guarded, and it calls no user function: ``return
loss.detach()``). The first other instruction is a graph break (``after-deferred-call``), before
which the transformed code makes the recorded call: later reads of ``opt.param_groups[0]["lr"]``
run in Python and see the new rate.

Not deferred (the call then runs in Python at a break, as before): a scheduler class with a
``step`` of its own (``ReduceLROnPlateau``, ``SequentialLR``, ...), an argument (the deprecated
``epoch``), a scheduler the transformed code cannot rebuild, a call inside ``try``/``with`` blocks
whose handlers would see its exception, or under a switched grad/autocast state.
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported, break_kind

AFTER_DEFERRED_CALL = break_kind(
    "after-deferred-call", "the code goes on after a call that runs after the graph (an LR scheduler's "
    "step(), or a call that would be a graph break: loss.backward(), opt.step()): what follows could "
    "observe what that call changes, so it runs in Python after it",
    "nothing to do when this is the end of the step; put sched.step() and opt.step() last in the "
    "function to keep the rest in the graph")

_DEFERRABLE = (torch.optim.lr_scheduler.LRScheduler.step,)

# instructions that touch nothing but the frame's own stack and locals
TAIL_SAFE_OPS = frozenset({
    "NOP", "RESUME", "CACHE", "EXTENDED_ARG", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_CONST",
    "STORE_FAST", "POP_TOP", "RETURN_VALUE", "RETURN_CONST", "COPY", "SWAP", "PUSH_NULL",
    "BUILD_TUPLE", "BUILD_LIST", "BUILD_MAP", "BUILD_CONST_KEY_MAP", "JUMP_FORWARD", "JUMP_BACKWARD",
})


def deferred_call(tx, fn: Any, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """Record ``fn(*args, **kwargs)`` for after the graph when it is a deferrable library call
    made where that is exact; None otherwise (the caller goes on as before)."""
    if fn not in _DEFERRABLE or len(args) != 1 or kwargs:
        return None
    owner = args[0]
    if getattr(owner, "source", None) is None:
        return None  # the transformed code must rebuild the scheduler to call it
    if tx.graph.inside_try or tx.graph.unwinds or _state_switched(tx):
        return None
    from autograph.capture.families.side_effects import record_call
    out = record_call(tx, fn, list(args), {})
    tx.tail_after = f"{getattr(fn, '__qualname__', 'a call')}() runs after the graph"
    DEFERRED.of(tx).append(owner)
    return out


# the schedulers stepped after the graph (None: a call deferred instead of a break, engine/deferred_breaks.py)
DEFERRED = registry.state_slot("deferred_calls", list, __name__)


def _writes_no_tensor(sched) -> bool:
    """Whether ``sched.step()`` writes no tensor: no tensor in its optimizer's param groups (a
    tensor ``lr`` is filled in place) and no user function called for the rates."""
    if getattr(sched, "lr_lambdas", None) is not None or not hasattr(sched, "optimizer"):
        return False
    for group in getattr(sched.optimizer, "param_groups", None) or [None]:
        if not isinstance(group, dict):
            return False
        for key, v in group.items():
            if key == "params":  # the parameters themselves: a scheduler never writes them
                continue
            if isinstance(v, torch.Tensor) or (isinstance(v, (tuple, list)) and
                                               any(isinstance(x, torch.Tensor) for x in v)):
                return False
    return True


def _inputs_unwritten(tx) -> bool:
    """No deferred call writes a tensor (then graph inputs stay what they were): guarded."""
    for owner in DEFERRED.of(tx):
        if owner is None:  # a call deferred instead of a break (engine/deferred_breaks.py): writes unknown
            return False
        real = owner.real_value()
        if not _writes_no_tensor(real):
            return False
        tx.guards.python("scheduler-writes-no-tensor", owner.source,
                         "the LR scheduler writes no tensor (no tensor in its param groups, no lr_lambdas)",
                         _writes_no_tensor, [owner.source])
    return True


def _state_switched(tx) -> bool:
    from autograph.capture.families.contexts import state_snapshot
    return bool(tx.open_contexts) or state_snapshot() != tx.initial_state


def check_tail(tx, frame, inst) -> bool:
    """After a deferred call, whether ``inst`` may be captured (module docstring); raises when it
    may not. True when it is a method call whose graph operations must be checked after it ran
    (:func:`check_tail_nodes`)."""
    if inst.opname in TAIL_SAFE_OPS:
        return False
    if inst.opname in ("LOAD_METHOD", "LOAD_ATTR") and frame.stack and _local(tx, frame.stack[-1]):
        return False
    if frame.parent is None and tail_method_call(frame, inst):  # `sched.step()`: deferred too, or a break
        return False
    if inst.opname == "CALL" and isinstance(inst.arg, int) and len(frame.stack) >= inst.arg + 2 \
            and all(_local(tx, v) for v in frame.stack[-(inst.arg + 2):]):
        return True
    err = Unsupported(f"{inst.opname} after {tx.tail_after}", kind=AFTER_DEFERRED_CALL)
    # a read of a tensor a deferred call may write: the calls before it stay after the graph
    # (else the break goes back to the first of them: engine/api.py)
    err.on_tensor = inst.opname in ("LOAD_METHOD", "LOAD_ATTR") and bool(frame.stack) \
        and isinstance(frame.stack[-1], _tensor_class())
    raise err


def _tensor_class() -> type:
    from autograph.capture.families.tensors import TensorValue
    return TensorValue


# the instructions that may come between a tail method load and its call: argument loads
ARGUMENT_LOADS = frozenset({"LOAD_FAST", "LOAD_CONST", "KW_NAMES", "PRECALL", "CACHE", "EXTENDED_ARG", "NOP"})


def tail_method_call(frame, inst) -> bool:
    """``inst`` loads a method of a frame local (``LOAD_FAST x; LOAD_METHOD m``) that a statement
    call then calls with loaded arguments: the call is deferred (or a break: engine/deferred_breaks.py),
    so the load (lazy: a ``MethodRef``) reads nothing now."""
    insts = frame.instructions
    if inst.opname != "LOAD_METHOD" or inst.index == 0 or insts[inst.index - 1].opname != "LOAD_FAST":
        return False
    i = inst.index + 1
    while i < len(insts) and insts[i].opname in ARGUMENT_LOADS:
        i += 1
    return i + 1 < len(insts) and insts[i].opname == "CALL" and insts[i + 1].opname == "POP_TOP"


# storages of the tensors the graph made that a call deferred instead of a break may reach (its
# arguments, what the capture stored into objects from outside); None: any of them
ESCAPED = registry.state_slot("deferred_escapes", set, __name__)
_ANY = "any"


def note_escapes(tx, values: list) -> None:
    """The tensors among ``values`` (through containers, bound methods, recorded effects) may be
    written by a call made after the graph. A fresh object of another kind (made during capture)
    may hold any of them."""
    from autograph.capture.core.effects import storages_of
    from autograph.capture.core.method_refs import MethodRef
    from autograph.capture.families.containers import BaseSequenceValue, DictValue
    from autograph.capture.families.tensors import TensorValue
    escaped = ESCAPED.of(tx)
    stack, seen = list(values), set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, TensorValue):
            escaped.update(storages_of(v.fake) if v.fake is not None else {_ANY})
        elif isinstance(v, MethodRef):
            stack.append(v.obj)
        elif isinstance(v, BaseSequenceValue):
            stack.extend(v.items)
        elif isinstance(v, DictValue):
            stack.extend(v.items.values())
        elif isinstance(v, Value) and getattr(v, "self_value", None) is not None:
            stack.append(v.self_value)  # a bound method
        elif isinstance(v, Value) and not v.is_constant() and getattr(v, "source", None) is None \
                and not _holds_nothing(v):
            escaped.add(_ANY)  # what a fresh object holds is not followed
            return


def _holds_nothing(value) -> bool:
    """A torch function, or a function with no closure: it holds no tensor the graph made."""
    from autograph.capture.families.functions import UserFunctionValue
    from autograph.capture.families.torch_calls import TorchFunctionValue
    return isinstance(value, TorchFunctionValue) or (
        isinstance(value, UserFunctionValue) and not getattr(value.fn, "__closure__", None))


def _escaped(tx, value) -> bool:
    from autograph.capture.core.effects import storages_of
    escaped = ESCAPED.of(tx)
    return bool(escaped) and (_ANY in escaped or bool(storages_of(value.fake) & escaped))


def check_tail_nodes(tx, nodes_before: int) -> None:
    """The method call just captured after a deferred call neither wrote nor drew anything."""
    nodes = list(tx.graph.graph.nodes)[nodes_before:]
    # (one that may raise would raise before the deferred call, which Python makes first)
    if any(node.meta.get("effects") or node.meta.get("mutates") or node.meta.get("may_raise") for node in nodes):
        raise Unsupported(f"a tensor method with effects after {tx.tail_after}", kind=AFTER_DEFERRED_CALL)


def node_count(tx) -> int:
    return len(tx.graph.graph.nodes)


def _local(tx, value: Value) -> bool:
    """A value nothing outside the frame can change: NULL, a constant, a tensor the graph made
    that shares no memory with the graph's inputs, or a method of such a tensor."""
    from autograph.capture.core.base import NULL
    from autograph.capture.core.effects import storages_of
    from autograph.capture.core.method_refs import MethodRef
    from autograph.capture.families.tensors import TensorValue
    if value is NULL or value.is_constant():
        return True
    if isinstance(value, MethodRef):
        return _local(tx, value.obj)
    if isinstance(value, TensorValue):
        if value.real_cls not in (None, torch.Tensor, torch.nn.Parameter):
            return False  # a subclass's Python methods could read anything
        if value.node.op != "placeholder" and not storages_of(value.fake) & tx.graph.input_storages:
            return not _escaped(tx, value)  # (a deferred call may write what it was given)
        return _inputs_unwritten(tx)
    return False
