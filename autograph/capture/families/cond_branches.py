"""``torch.cond(pred, true_fn, false_fn, operands)``: each branch traced into a subgraph, one
``torch.ops.higher_order.cond`` node, as TorchDynamo's ``CondHigherOrderVariable`` does.

Strategy: *speculate and refuse*. With a Python constant as ``pred`` the branch it names is
called inline, as ``torch.cond`` itself does. With a one-element tensor each branch function
(a function, lambda, closure or bound method) is interpreted like user code on placeholders
standing for the operands, into a graph of its own (``GraphBuilder.subgraph``). Tensors of the
graphs around it that a branch reads (a closure over a tensor, ``self.buf``, an input first read
in the branch) become extra operands, lifted in the same order into both branches. The two
graphs are installed as submodules of the graph being built, and one node
``torch.ops.higher_order.cond(pred, cond_true_N, cond_false_N, (operands..., lifted...))``
returns the branches' flattened tensors; its fake run is the real op's under the fake mode, so
torch checks the branches' outputs agree.

A branch must leave the world as it found it: the capture state reachable from the branch
functions and the capture's own records (side effects, family slots, generators, open
contexts) is fingerprinted before and after each branch, and anything changed -- a list or
object appended to or stored into, a print, a global, a generator advanced -- is a
``torch-cond`` break at the ``torch.cond`` call, where Python runs it (and torch reports what it
reports). So is a break inside a branch, a branch returning anything but tensors, an output
that is an operand (or a view of one), and a branch writing an operand while grad mode is on
(torch refuses those too); under ``no_grad`` writes to operands are the node's effect.
"""
from __future__ import annotations

from typing import Any

import torch
import torch.fx

from autograph.capture.core import effects, registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.families.subgraphs import Refused, TracedFunction, install_module, unflatten

TORCH_COND = break_kind(
    "torch-cond", "a `torch.cond` whose branches cannot become subgraphs: a branch changes something "
    "outside itself (a list, dict, attribute or global, a print, a generator), breaks the graph itself, "
    "returns something other than new tensors, or writes its operands with grad enabled; or the "
    "predicate or operands are not a one-element tensor and a tuple of tensors. The `torch.cond` call "
    "runs in Python",
    "keep both branches pure tensor functions of their operands (return new values instead of storing "
    "them), pass tensors as operands, and use a one-element tensor (or a Python bool) as predicate")

_COND_OPS = (torch.cond, torch.ops.higher_order.cond)

def _cond(tx, args: list[Value], kwargs: dict[str, Value]) -> Any:
    names = ("pred", "true_fn", "false_fn", "operands")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in bound:
            return NotImplemented  # torch's own TypeError, where Python calls it
        bound[key] = value
    if len(args) > 4 or not all(n in bound for n in names[:3]):
        return NotImplemented
    pred, true_fn, false_fn = bound["pred"], bound["true_fn"], bound["false_fn"]
    operands = bound.get("operands")
    items = _operand_items(operands)
    if pred.is_constant() and isinstance(pred.as_python_constant(), (bool, int, float)) and items is not None:
        branch = true_fn if pred.as_python_constant() else false_fn  # torch.cond's eager case
        return tx.call(branch, list(items), {})
    try:
        return _capture_cond(tx, pred, true_fn, false_fn, items)
    except Refused as why:
        raise Unsupported(f"torch.cond: {why}", kind=TORCH_COND) from None


def _operand_items(operands: Value | None) -> list[Value] | None:
    if operands is None:
        return []
    from autograph.capture.families.containers import BaseSequenceValue
    if isinstance(operands, BaseSequenceValue) and operands.kind in (tuple, list):
        return list(operands.items)
    return None


def _capture_cond(tx, pred: Value, true_fn: Value, false_fn: Value, items: list[Value] | None) -> Value:
    if not pred.is_tensor() or pred.fake.numel() != 1:
        raise Refused(f"the predicate {pred.describe()} is not a one-element tensor or a Python bool")
    if items is None or not all(item.is_tensor() for item in items):
        raise Refused("the operands are not a tuple or list of tensors")
    builder = tx.graph
    # under no_grad writes to operands are the node's effect; with grad torch refuses them
    writes = "writes its operands while grad mode is on" if torch.is_grad_enabled() else None
    true_branch = TracedFunction.trace(tx, true_fn, items, "true", "the true branch", writes)
    false_branch = TracedFunction.trace(tx, false_fn, items, "false", "the false branch", writes)
    if true_branch.spec != false_branch.spec:
        raise Refused(f"the branches return different structures ({true_branch.spec} and {false_branch.spec})")
    lifted = list(dict.fromkeys(true_branch.lifted + false_branch.lifted))
    # an input neither branch uses is no operand (as in Dynamo): it would make the outputs require grad
    outer_operands = [item.node for item in items] + lifted
    true_inputs, false_inputs = true_branch.inputs(lifted), false_branch.inputs(lifted)
    kept = [i for i in range(len(outer_operands)) if true_inputs[i].users or false_inputs[i].users]
    true_gm = true_branch.module([true_inputs[i] for i in kept])
    false_gm = false_branch.module([false_inputs[i] for i in kept])
    outer_operands = [outer_operands[i] for i in kept]
    attrs = [install_module(tx, true_gm, "cond_true"), install_module(tx, false_gm, "cond_false")]
    fakes = [node.meta.get("example_value") for node in outer_operands]
    try:
        with builder.fake_mode:
            result = torch.ops.higher_order.cond(pred.fake, true_gm, false_gm, tuple(fakes))
    except Exception as exc:  # torch refuses the branches (outputs that do not agree, ...)
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise Refused(f"torch refuses the branches ({type(exc).__name__}: {first})") from None
    kinds = [k for k in (effects.WRITE, effects.RANDOM)
             if k in true_branch.kinds or k in false_branch.kinds]
    node_args = (pred.node, attrs[0], attrs[1], tuple(outer_operands))
    out = builder.wrap_result("call_function", torch.ops.higher_order.cond, node_args, {}, tuple(result),
                              effect_kinds=kinds or None)
    if any(node.meta.get("may_raise") for branch in (true_branch, false_branch) for node in branch.graph.nodes):
        builder.last_call_node.meta["may_raise"] = True  # unused, it still raises as the branch would
    if true_branch.writes or false_branch.writes:
        written = true_branch.writes | false_branch.writes
        if written & builder.input_storages:
            builder.last_call_node.meta["writes_input"] = True
            builder.wrote_input = True
    return unflatten(true_branch.spec, list(out.items))


def install() -> None:
    for op in _COND_OPS:
        registry.register_torch_call(op, _cond)
    registry.register_type_wrapper(type(torch.ops.higher_order.cond), _wrap_cond_op)


def _wrap_cond_op(tx, obj: Any, source: Any) -> Value:
    from autograph.capture.families.torch_calls import TorchFunctionValue
    if source is not None:
        tx.guards.id_(source, obj)
    return TorchFunctionValue(obj)
