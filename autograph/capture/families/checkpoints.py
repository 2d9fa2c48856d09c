"""``torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False)``: ``fn`` traced into a
subgraph, one ``torch.ops.higher_order.tag_activation_checkpoint`` node, as TorchDynamo's
``CheckpointHigherOrderVariable`` does.

The function is interpreted like user code on placeholders for its tensor arguments (other
arguments pass through as the values they are) by the shared *speculate and refuse* machinery
of ``subgraphs.py``; tensors it reads from around it (``self.weight``, a closure) are lifted
into extra operands. The node's subgraph is what ``checkpoint`` runs: the eager backend runs it
through the real ``torch.utils.checkpoint.checkpoint`` with the caller's options
(``backends/checkpoints.py``), so memory and the RNG state replayed for the recomputation are
the user's; AOTAutograd (inductor, triton) tags its nodes for recomputation in backward.
``checkpoint_sequential`` is interpreted like user code and calls ``checkpoint`` per segment.

Anything that cannot be modelled exactly is a break at the call, where Python runs the real
``checkpoint``: the reentrant variant (``use_reentrant=True``, or not given: torch's default is
the reentrant one, whose gradients differ -- none when no input requires grad, no
``torch.autograd.grad``), a ``context_fn``, ``debug``, a non-default ``determinism_check``
(``checkpoint-options``); a function that changes something outside itself, breaks, returns
something other than new tensors, writes a tensor from outside (the recomputation would write it
again), or a checkpoint inside another subgraph (``checkpoint-function``).
"""
from __future__ import annotations

from typing import Any

import torch
import torch.utils.checkpoint

from autograph.capture.core import effects, registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.families.subgraphs import ROOTS, Refused, TracedFunction, install_module, unflatten

CHECKPOINT_OPTIONS = break_kind(
    "checkpoint-options", "a `torch.utils.checkpoint.checkpoint` call with options a subgraph cannot model "
    "exactly: the reentrant variant (`use_reentrant=True`, or `use_reentrant` not given, whose default is "
    "the reentrant one), a `context_fn`, `debug=True` or a `determinism_check` other than the default. "
    "The `checkpoint` call runs in Python",
    "pass `use_reentrant=False` (what PyTorch recommends) and leave `context_fn`, `debug` and "
    "`determinism_check` at their defaults")
CHECKPOINT_FUNCTION = break_kind(
    "checkpoint-function", "a `torch.utils.checkpoint.checkpoint` whose function cannot become a subgraph: "
    "it changes something outside itself (a list, dict, attribute or global, a print), breaks the graph "
    "itself, returns something other than new tensors, writes a tensor from outside it (the recomputation "
    "in backward would write it again), or the checkpoint is inside a `torch.cond` branch or another "
    "checkpointed function. The `checkpoint` call runs in Python",
    "keep the checkpointed function a pure tensor function of its arguments: return new tensors instead "
    "of storing them, and write only tensors it makes itself")

TAG = torch.ops.higher_order.tag_activation_checkpoint

# checkpoint's own keywords; any other keyword goes to the function (as checkpoint does)
_OPTIONS = ("use_reentrant", "context_fn", "determinism_check", "debug", "early_stop", "preserve_rng_state")
# options passed on to the node (and so to the real checkpoint under the eager backend)
_PASSED_ON = ("early_stop", "preserve_rng_state")


def _checkpoint(tx, args: list[Value], kwargs: dict[str, Value]) -> Any:
    if not args:
        return NotImplemented  # torch's own TypeError, where Python calls it
    options = {k: v for k, v in kwargs.items() if k in _OPTIONS}
    fn_kwargs = {k: v for k, v in kwargs.items() if k not in _OPTIONS}
    try:
        node_kwargs = _node_options(options)
    except Refused as why:
        raise Unsupported(f"torch.utils.checkpoint.checkpoint: {why}", kind=CHECKPOINT_OPTIONS) from None
    try:
        return _capture_checkpoint(tx, args[0], list(args[1:]), fn_kwargs, node_kwargs)
    except Refused as why:
        raise Unsupported(f"torch.utils.checkpoint.checkpoint: {why}", kind=CHECKPOINT_FUNCTION) from None


def _constant(value: Value, name: str) -> Any:
    if not value.is_constant():
        raise Refused(f"`{name}` is {value.describe()}, not a Python constant")
    return value.as_python_constant()


def _node_options(options: dict[str, Value]) -> dict[str, Any]:
    """The options the node carries; Refused when one of them cannot be modelled."""
    reentrant = _constant(options["use_reentrant"], "use_reentrant") if "use_reentrant" in options else None
    if reentrant is None:
        raise Refused("`use_reentrant` is not given, so the reentrant variant runs (and PyTorch warns)")
    if reentrant is not False:
        raise Refused(f"use_reentrant={reentrant!r}: the reentrant variant is not modelled")
    if "context_fn" in options and not _is_noop_context_fn(options["context_fn"]):
        raise Refused(f"a context_fn ({options['context_fn'].describe()}) is not modelled")
    if "debug" in options and _constant(options["debug"], "debug") is not False:
        raise Refused("debug=True is not modelled")
    if "determinism_check" in options and _constant(options["determinism_check"], "determinism_check") != "default":
        raise Refused("a determinism_check other than 'default' is not modelled")
    node_kwargs: dict[str, Any] = {"use_reentrant": False}
    for name in _PASSED_ON:
        if name in options:
            value = _constant(options[name], name)
            if not isinstance(value, bool):
                raise Refused(f"{name}={value!r} is not a bool")
            node_kwargs[name] = value
    return node_kwargs


def _is_noop_context_fn(value: Value) -> bool:
    """``value`` is checkpoint's default ``context_fn`` (a function value's identity is guarded
    where it was loaded)."""
    from autograph.capture.families.functions import UserFunctionValue
    from autograph.capture.families.torch_calls import TorchFunctionValue
    noop = torch.utils.checkpoint.noop_context_fn
    if value.is_constant():
        return value.as_python_constant() is noop
    return isinstance(value, (TorchFunctionValue, UserFunctionValue)) and value.fn is noop


def _capture_checkpoint(tx, fn: Value, items: list[Value], fn_kwargs: dict[str, Value],
                        node_kwargs: dict[str, Any]) -> Value:
    if ROOTS.of(tx):
        raise Refused("a checkpoint inside a torch.cond branch or another checkpointed function is not modelled")
    builder = tx.graph
    operands = items + list(fn_kwargs.values())
    traced = TracedFunction.trace(
        tx, fn, operands, "ckpt", "the checkpointed function",
        "writes a tensor from outside it (the recomputation in backward would write it again)",
        keywords=tuple(fn_kwargs))
    outer = [item.node for item in operands if item.is_tensor()] + traced.lifted
    params = traced.inputs(traced.lifted)
    kept = [i for i, param in enumerate(params) if param.users]
    gm = traced.module([params[i] for i in kept])
    outer = [outer[i] for i in kept]
    attr = install_module(tx, gm, "checkpointed")
    fakes = [node.meta.get("example_value") for node in outer]
    try:
        with builder.fake_mode:
            result = TAG(gm, *fakes, use_reentrant=False)
    except Exception as exc:  # noqa: BLE001 - torch cannot run the subgraph on fakes: Python runs the call
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise Refused(f"torch cannot run the checkpointed subgraph ({type(exc).__name__}: {first})") from None
    kinds = [k for k in (effects.RANDOM,) if k in traced.kinds]
    out = builder.wrap_result("call_function", TAG, (attr, *outer), node_kwargs, tuple(result),
                              effect_kinds=kinds or None)
    if any(node.meta.get("may_raise") for node in traced.graph.nodes):
        builder.last_call_node.meta["may_raise"] = True  # unused, it still raises as the function would
    return unflatten(traced.spec, list(out.items))


def install() -> None:
    registry.register_torch_call(torch.utils.checkpoint.checkpoint, _checkpoint)
