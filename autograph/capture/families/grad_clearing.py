"""``optimizer.zero_grad()`` and ``module.zero_grad()`` with ``set_to_none=True`` (the default):
recorded and run after the graph, with no graph break.

torch's own ``zero_grad`` only sets each parameter's ``.grad`` slot to None: it writes no tensor's
data, draws no random numbers and returns None. A graph never reads a ``.grad`` slot (reading
``t.grad`` and storing into it are graph breaks, families/tensors.py), so the slot cleared after
the graph, in order with the capture's other recorded effects and before the breaking
instruction (``loss.backward()``) or the return, leaves exactly the state plain Python leaves.
``Optimizer.zero_grad`` is marked ``torch._disable_dynamo``; the marker only keeps compilers from
tracing *into* it, which this does not do: the real method runs, once, as one call.

Called before any graph operation or other effect (``opt.zero_grad()`` as a step's first line),
it is made first, before the graph, which is its place in program order
(``side_effects.record_leading_call``). Later in the function it is replayed after the graph
with the other effects; the graph builder then splits the graph before an operation that may
raise on values it cannot check up front (families/side_effects.py), so a raising graph never
leaves the gradients uncleared where plain Python would have cleared them.

Not deferred (a break, as before): ``set_to_none=False`` (it zeroes grad tensors in place, which a
graph holding such a tensor could read), a subclass's own ``zero_grad``, an optimizer or module
capture cannot rebuild after the graph.
"""
from __future__ import annotations

import inspect

import torch

from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue

# the functions themselves (Optimizer.zero_grad is torch._disable_dynamo's wrapper around it)
_ZERO_GRADS = (torch.optim.Optimizer.zero_grad, torch.nn.Module.zero_grad)
_SIGNATURES = {fn: inspect.signature(inspect.unwrap(fn)) for fn in _ZERO_GRADS}


def deferred_zero_grad(tx, fn: object, args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """Record ``fn(*args, **kwargs)`` for after the graph when it is torch's ``zero_grad`` setting
    gradients to None; None otherwise (the caller goes on as before)."""
    if fn not in _SIGNATURES:
        return None
    try:
        bound = _SIGNATURES[fn].bind(*args, **kwargs)
    except TypeError:
        return None  # Python's own error, raised where Python raises it
    set_to_none = bound.arguments.get("set_to_none", ConstantValue(True))
    if not set_to_none.is_constant() or set_to_none.as_python_constant() is not True:
        return None
    owner = args[0] if args else None
    if owner is None or getattr(owner, "source", None) is None:
        return None  # the optimizer or module must be rebuilt by the code that replays the call
    from autograph.capture.families.side_effects import record_call, record_leading_call
    first = record_leading_call(tx, fn, list(args), dict(kwargs))
    return first if first is not None else record_call(tx, fn, list(args), dict(kwargs))


def clears_grads(tx) -> bool:
    """Whether this capture recorded a ``zero_grad`` (run before or after the graph): a ``.grad``
    read as a graph input would see the slots as they are at the entry, not as cleared."""
    from autograph.capture.families.side_effects import SIDE_EFFECTS
    effects = SIDE_EFFECTS.peek(tx)
    if effects is None:
        return False
    calls = [call[0] for call in effects.leading] + [e[1] for e in effects.events if e[0] == "call"]
    return any(fn in _SIGNATURES for fn in calls)
