"""``torch.nn.attention.sdpa_kernel(backends)`` as a torch state context (as TorchDynamo's
``SDPAKernelVariable``).

Its body only switches five global flags (``torch._C._set_sdp_use_<name>``) on entry and
puts the previous ones back on exit. Modelled like ``no_grad()`` (contexts.py): entering
puts one ``_set_sdp_use_<name>(enabled)`` node per flag in the graph and switches the flags
for real while capture is inside the block (so a query such as ``_cur_sdpa_kernel_backends()``
answers as it will at run time); exiting puts the flags of the entry back. A graph break
inside the block resumes inside it (a fresh ``sdpa_kernel(backends)`` re-entered, as for the
other state contexts). The flags the outermost block replaces are guarded: the exit restores
them as constants. ``set_priority=True`` (which reorders a priority list) is interpreted
like any other library code.
"""
from __future__ import annotations

from typing import Any

import torch

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.families.contexts import StateContextValue, _state_node
from autograph.guards.sources import AttrSource

_attention = torch.nn.attention


def _setters() -> list[tuple[str, Any, Any]]:
    """``(flag name, SDPBackend member, torch._C setter)`` of each flag sdpa_kernel switches."""
    return [(name, getattr(_attention.SDPBackend, member), getattr(torch._C, f"_set_sdp_use_{name}"))
            for name, member in _attention._backend_names.items()]


def current_backends() -> tuple:
    """The backends enabled now, in sdpa_kernel's own order."""
    return tuple(_attention._cur_sdpa_kernel_backends())


_BACKENDS_CALL = "torch.nn.attention._cur_sdpa_kernel_backends()"


def _put_back(backends: list) -> None:
    _attention._sdpa_kernel(backends)


def _switch(tx, backends: tuple) -> None:
    """Enable exactly ``backends``: in the graph (one node per flag) and for the capture. A graph
    that raises puts the flags of its call back (engine/graph_state.py)."""
    for name, member, setter in _setters():
        enabled = member in backends
        setter(enabled)
        node = _state_node(tx, setter, (enabled,), f"set_sdp_use_{name}")
        node.meta["state_restore"] = (_attention._cur_sdpa_kernel_backends, _put_back)


class ReenteredSdpaKernel:
    """What a resume function re-enters for an open ``sdpa_kernel`` block: the same switch as
    ``sdpa_kernel(backends)`` (its generator's body, without the generator), a type capture
    wraps as :class:`SdpaKernelValue` again."""

    def __init__(self, backends: list):
        self.backends = list(backends)
        self.prev: list | None = None

    def __enter__(self) -> dict:
        self.prev = _attention._cur_sdpa_kernel_backends()
        _attention._sdpa_kernel(self.backends)
        return {}

    def __exit__(self, *exc) -> None:
        _attention._sdpa_kernel(self.prev)


class SdpaKernelValue(StateContextValue):
    """``sdpa_kernel(backends)`` made during capture."""

    def __init__(self, backends: tuple):
        self.backends = backends  # unique, in the order given (sdpa_kernel's dict.fromkeys)
        self.prev: tuple | None = None

    def describe(self):
        return f"torch.nn.attention.sdpa_kernel({list(self.backends)!r})"

    def python_type(self):
        import contextlib
        return contextlib._GeneratorContextManager

    def enter(self, tx) -> Value:
        super().enter(tx)
        from autograph.capture.families.containers import DictValue
        return DictValue({})  # what the generator yields: a new empty dict

    def _enter(self, tx) -> None:
        self.prev = current_backends()
        if not any(isinstance(c, SdpaKernelValue) for c in tx.open_contexts):
            # the flags at the call: restored as constants on exit
            tx.guards.answer(current_backends, (), {}, _BACKENDS_CALL, self.prev)
        _switch(tx, self.backends)

    def _exit(self, tx) -> None:
        _switch(tx, self.prev)
        self.prev = None

    def release(self) -> None:
        if self.prev is not None:
            _attention._sdpa_kernel(list(self.prev))
            self.prev = None

    def clone(self, tx):
        return SdpaKernelValue(self.backends)

    def fresh(self, cg) -> str:
        return f"{cg.const(ReenteredSdpaKernel)}({cg.const(list(self.backends))})"


def _backend_of(value: Value) -> Any:
    try:
        real = value.real_value() if not value.is_constant() else value.as_python_constant()
    except Unsupported:
        return None
    return real if isinstance(real, _attention.SDPBackend) else None


def _sdpa_kernel_call(tx, args, kwargs):
    """``sdpa_kernel(backends)``: a state context when the backends are known members."""
    if len(args) != 1 or kwargs:
        return NotImplemented  # set_priority=...: interpreted
    arg = args[0]
    single = _backend_of(arg)
    if single is not None:
        backends = [single]
    else:
        items = getattr(arg, "items", None)
        if not isinstance(items, list) or arg.python_type() is not list:
            return NotImplemented
        backends = [_backend_of(item) for item in items]
        if any(b is None for b in backends):
            return NotImplemented
    return SdpaKernelValue(tuple(dict.fromkeys(backends)))


def _cur_backends_call(tx, args, kwargs):
    """``_cur_sdpa_kernel_backends()``: the flags as capture has switched them (a new list of
    members); the flags at the call are guarded unless a block of this capture set them."""
    if args or kwargs:
        return NotImplemented
    backends = current_backends()
    if not any(isinstance(c, SdpaKernelValue) for c in tx.open_contexts):
        tx.guards.answer(current_backends, (), {}, _BACKENDS_CALL, backends)
    from autograph.capture.families.containers import ListValue
    return ListValue([tx.wrap(b, None, trusted=True) for b in backends])


def _wrap_reentered(tx, obj, source):
    if obj.prev is not None:
        raise Unsupported("a re-entered sdpa_kernel block that is active", kind="state-context")
    tx.guards.type_(source, obj)
    backends = list(obj.backends)  # another capture's break may re-enter other backends here
    tx.guards.read_equals(AttrSource(source, "backends"), backends)
    return SdpaKernelValue(tuple(backends))


def install() -> None:
    """Register sdpa_kernel, its flag query and the resume functions' re-entered blocks."""
    registry.register_type_wrapper(ReenteredSdpaKernel, _wrap_reentered)
    registry.register_torch_call(_attention.sdpa_kernel, _sdpa_kernel_call)
    registry.register_torch_call(_attention._cur_sdpa_kernel_backends, _cur_backends_call)
