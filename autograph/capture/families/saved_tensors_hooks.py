"""``torch.autograd.graph.disable_saved_tensors_hooks(message)`` as a torch state context (as
TorchDynamo records it).

Its body only sets autograd's "saved-tensors hooks disabled" message on entry and puts the
previous one back on exit (``_saved_tensors_hooks_enable()`` when there was none). Modelled
like ``sdpa_kernel`` (families/sdpa_kernel.py): the switches are graph nodes, the message is
set for real while capture is inside the block, a graph break inside the block resumes inside it,
the message the outermost block replaces is guarded (the exit restores it as a constant) and a
graph that raises puts the message of its call back (engine/graph_state.py).
"""
from __future__ import annotations

import contextlib

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.families.contexts import StateContextValue, _state_node
from autograph.guards.sources import AttrSource

_autograd = torch._C._autograd
current_message = _autograd._saved_tensors_hooks_get_disabled_error_message
_MESSAGE_CALL = "torch._C._autograd._saved_tensors_hooks_get_disabled_error_message()"


def put_back(message: str | None) -> None:
    """Set the disabled message to ``message`` (None: hooks enabled), as the context's exit does."""
    if message is None:
        _autograd._saved_tensors_hooks_enable()
    else:
        _autograd._saved_tensors_hooks_disable(message)


def _switch(tx, message: str | None) -> None:
    put_back(message)
    if message is None:
        node = _state_node(tx, _autograd._saved_tensors_hooks_enable, (), "_saved_tensors_hooks_enable")
    else:
        node = _state_node(tx, _autograd._saved_tensors_hooks_disable, (message,), "_saved_tensors_hooks_disable")
    node.meta["state_restore"] = (current_message, put_back)


class ReenteredHooksDisabled:
    """What a resume function re-enters for an open block: the same switch, a type capture wraps
    as :class:`HooksDisabledValue` again."""

    def __init__(self, message: str):
        self.message = message
        self.prev: str | None = None
        self.active = False

    def __enter__(self) -> None:
        self.prev = current_message()
        self.active = True
        _autograd._saved_tensors_hooks_disable(self.message)

    def __exit__(self, *exc) -> None:
        self.active = False
        put_back(self.prev)


class HooksDisabledValue(StateContextValue):
    """``disable_saved_tensors_hooks(message)`` made during capture."""

    def __init__(self, message: str):
        self.message = message
        self.prev: str | None = None
        self.active = False

    def describe(self):
        return f"torch.autograd.graph.disable_saved_tensors_hooks({self.message!r})"

    def python_type(self):
        return contextlib._GeneratorContextManager

    def _enter(self, tx) -> None:
        self.prev = current_message()
        self.active = True
        if not any(isinstance(c, HooksDisabledValue) for c in tx.open_contexts):
            tx.guards.answer(current_message, (), {}, _MESSAGE_CALL, self.prev)
        _switch(tx, self.message)

    def _exit(self, tx) -> None:
        _switch(tx, self.prev)
        self.active = False

    def release(self) -> None:
        if self.active:
            self.active = False
            put_back(self.prev)

    def clone(self, tx):
        return HooksDisabledValue(self.message)

    def fresh(self, cg) -> str:
        return f"{cg.const(ReenteredHooksDisabled)}({self.message!r})"


def _constant_str(value: Value) -> str | None:
    try:
        real = value.as_python_constant() if value.is_constant() else None
    except Unsupported:
        return None
    return real if type(real) is str else None


def _disable_call(tx, args, kwargs):
    """``disable_saved_tensors_hooks(message)`` with a constant message: a state context."""
    values = list(args) + [v for k, v in kwargs.items() if k == "error_message"]
    if len(values) != 1 or len(kwargs) > (0 if args else 1):
        return NotImplemented
    message = _constant_str(values[0])
    return NotImplemented if message is None else HooksDisabledValue(message)


def _message_call(tx, args, kwargs):
    """``_saved_tensors_hooks_get_disabled_error_message()``: the message as capture has set it;
    the message at the call is guarded unless a block of this capture set it."""
    if args or kwargs:
        return NotImplemented
    message = current_message()
    if not any(isinstance(c, HooksDisabledValue) for c in tx.open_contexts):
        tx.guards.answer(current_message, (), {}, _MESSAGE_CALL, message)
    return tx.wrap(message, None, trusted=True)


def _wrap_reentered(tx, obj, source):
    if obj.active:
        raise Unsupported("a re-entered disable_saved_tensors_hooks block that is active", kind="state-context")
    tx.guards.type_(source, obj)
    message = obj.message  # another capture's break may re-enter another message here
    tx.guards.read_equals(AttrSource(source, "message"), message)
    return HooksDisabledValue(message)


def install() -> None:
    """Register the context, its message query and the resume functions' re-entered blocks."""
    registry.register_torch_call(torch.autograd.graph.disable_saved_tensors_hooks, _disable_call)
    registry.register_torch_call(current_message, _message_call)
    registry.register_type_wrapper(ReenteredHooksDisabled, _wrap_reentered)
