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
from autograph.capture.families.state_walk import walk_state

TORCH_COND = break_kind(
    "torch-cond", "a `torch.cond` whose branches cannot become subgraphs: a branch changes something "
    "outside itself (a list, dict, attribute or global, a print, a generator), breaks the graph itself, "
    "returns something other than new tensors, or writes its operands with grad enabled; or the "
    "predicate or operands are not a one-element tensor and a tuple of tensors. The `torch.cond` call "
    "runs in Python",
    "keep both branches pure tensor functions of their operands (return new values instead of storing "
    "them), pass tensors as operands, and use a one-element tensor (or a Python bool) as predicate")

_COND_OPS = (torch.cond, torch.ops.higher_order.cond)

# the roots of the branch graphs being traced (a nested cond installs its subgraphs in its branch's)
_ROOTS = registry.state_slot("cond_branch_roots", list, __name__)


class _Refused(Exception):
    """A branch cannot be a subgraph; the message says why."""


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
    except _Refused as why:
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
        raise _Refused(f"the predicate {pred.describe()} is not a one-element tensor or a Python bool")
    if items is None or not all(item.is_tensor() for item in items):
        raise _Refused("the operands are not a tuple or list of tensors")
    builder = tx.graph
    roots = _ROOTS.of(tx)
    grad = torch.is_grad_enabled()
    true_branch = _Branch.trace(tx, true_fn, items, "true", grad)
    false_branch = _Branch.trace(tx, false_fn, items, "false", grad)
    if true_branch.spec != false_branch.spec:
        raise _Refused(f"the branches return different structures ({true_branch.spec} and {false_branch.spec})")
    lifted = list(dict.fromkeys(true_branch.lifted + false_branch.lifted))
    root = roots[-1] if roots else builder.root
    # an input neither branch uses is no operand (as in Dynamo): it would make the outputs require grad
    outer_operands = [item.node for item in items] + lifted
    true_inputs, false_inputs = true_branch.inputs(lifted), false_branch.inputs(lifted)
    kept = [i for i in range(len(outer_operands)) if true_inputs[i].users or false_inputs[i].users]
    true_gm = true_branch.module([true_inputs[i] for i in kept])
    false_gm = false_branch.module([false_inputs[i] for i in kept])
    outer_operands = [outer_operands[i] for i in kept]
    index = 0
    while hasattr(root, f"cond_true_{index}") or hasattr(root, f"cond_false_{index}"):
        index += 1
    root.register_module(f"cond_true_{index}", true_gm)
    root.register_module(f"cond_false_{index}", false_gm)
    attrs = []
    for name in (f"cond_true_{index}", f"cond_false_{index}"):
        node = builder.graph.get_attr(name)
        node.meta["example_value"] = None
        node.stack_trace = builder.current_trace
        attrs.append(node)
    fakes = [node.meta.get("example_value") for node in outer_operands]
    try:
        with builder.fake_mode:
            result = torch.ops.higher_order.cond(pred.fake, true_gm, false_gm, tuple(fakes))
    except Exception as exc:  # torch refuses the branches (outputs that do not agree, ...)
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise _Refused(f"torch refuses the branches ({type(exc).__name__}: {first})") from None
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
    return _unflatten(true_branch.spec, list(out.items))


class _Branch:
    """One branch traced into its own graph: its placeholders (operands first), the outer nodes it
    reads (lifted), the structure of what it returns and its effects."""

    def __init__(self, graph: torch.fx.Graph, params: list[torch.fx.Node], spec: Any):
        self.graph = graph
        self.params = params
        self.spec = spec
        self.lifted: list[torch.fx.Node] = []
        self.lifted_params: dict[torch.fx.Node, torch.fx.Node] = {}
        self.kinds: set[str] = set()
        self.writes: set = set()

    @classmethod
    def trace(cls, tx, fn: Value, items: list[Value], which: str, grad: bool) -> "_Branch":
        from autograph.capture.families import contexts
        from autograph.capture.families.tensors import TensorValue
        builder = tx.graph
        before = _Fingerprint(tx, fn)
        state = contexts.state_snapshot()
        checks = len(builder.pre_checks)
        roots = _ROOTS.of(tx)
        roots.append(torch.nn.Module())
        sub = None
        try:
            with builder.subgraph() as sub:
                params = []
                for i, item in enumerate(items):
                    node = sub.graph.placeholder(builder._name(f"{which}_arg{i}"))
                    node.meta["example_value"] = item.fake
                    params.append(node)
                values = [TensorValue(node, item.fake) for node, item in zip(params, items)]
                for value, item in zip(values, items):
                    value.real_cls = item.real_cls  # the branch gets the operand itself (a Parameter stays one)
                try:
                    result = tx.call(fn, values, {})
                except Unsupported as exc:
                    raise _Refused(f"the {which} branch {fn.describe()} cannot be traced: {exc.reason}") from None
                leaves: list[Value] = []
                spec = _flatten(result, leaves)
                if spec is None:
                    raise _Refused(f"the {which} branch returns {result.describe()}, not tensors")
                sub.graph.output(tuple(leaf.node for leaf in leaves))
            branch = cls(sub.graph, params, spec)
            branch.root = roots[-1]
            if len(builder.pre_checks) != checks:  # a check on inputs the entry would make even when not taken
                raise _Refused(f"the {which} branch has an operation that can raise at run time after effects "
                               "replayed after the graph")
            branch._check(tx, before, state, sub, which, grad)
            return branch
        except BaseException:
            _discard(sub)
            raise
        finally:
            roots.pop()

    def _check(self, tx, before: _Fingerprint, state: tuple, sub, which: str, grad: bool) -> None:
        from autograph.capture.families import contexts
        if not before.unchanged(tx):
            raise _Refused(f"the {which} branch changes something outside itself (a container, an attribute, "
                           "a global, an effect replayed after the graph)")
        if contexts.state_snapshot() != state:
            raise _Refused(f"the {which} branch switches grad mode or autocast")
        self._lift()
        inputs = effects.storages_of([p.meta.get("example_value") for p in self.graph.nodes if p.op == "placeholder"])
        for node in self.graph.nodes:
            if node.meta.get("state"):
                raise _Refused(f"the {which} branch switches grad mode or autocast")
            kinds = set(node.meta.get("effects", ()))
            if kinds - {effects.WRITE, effects.RANDOM}:
                raise _Refused(f"the {which} branch changes {', '.join(sorted(kinds - {effects.WRITE, effects.RANDOM}))} "
                               "of a tensor")
            self.kinds |= kinds
        self.writes = sub.written & inputs
        if self.writes and grad:
            raise _Refused(f"the {which} branch writes its operands while grad mode is on")
        output = next(n for n in self.graph.nodes if n.op == "output")
        for node in output.args[0]:
            fake = node.meta.get("example_value")
            if node.op == "placeholder" or effects.storages_of(fake) & inputs:
                raise _Refused(f"the {which} branch returns one of its operands (or a view of one)")

    def _lift(self) -> None:
        """Nodes of the graphs around this one that the branch reads become placeholders."""
        graph = self.graph
        anchor = next(n for n in graph.nodes if n.op != "placeholder")
        for node in list(graph.nodes):
            for arg in list(node.all_input_nodes):
                if arg.graph is graph:
                    continue
                if arg not in self.lifted_params:
                    self.lifted_params[arg] = self._placeholder(arg, anchor)
                    self.lifted.append(arg)
                node.replace_input_with(arg, self.lifted_params[arg])

    def _placeholder(self, outer: torch.fx.Node, anchor: torch.fx.Node) -> torch.fx.Node:
        with self.graph.inserting_before(anchor):
            node = self.graph.placeholder(f"lifted_{outer.name}")
        node.meta["example_value"] = outer.meta.get("example_value")
        return node

    def inputs(self, lifted: list[torch.fx.Node]) -> list[torch.fx.Node]:
        """The placeholders for the operands, then for every lifted node of both branches."""
        anchor = next(n for n in self.graph.nodes if n.op != "placeholder")
        for outer in lifted:
            if outer not in self.lifted_params:
                self.lifted_params[outer] = self._placeholder(outer, anchor)
        return self.params + [self.lifted_params[outer] for outer in lifted]

    def module(self, kept: list[torch.fx.Node]) -> torch.fx.GraphModule:
        """The branch as a module taking the placeholders ``kept``, in order (the others go)."""
        anchor = next(n for n in self.graph.nodes if n.op != "placeholder")
        for node in [n for n in self.graph.nodes if n.op == "placeholder" and n not in kept]:
            self.graph.erase_node(node)
        for node in kept:
            anchor.prepend(node)
        self.graph.lint()
        gm = torch.fx.GraphModule(self.root, self.graph)
        try:  # show the user's lines in the subgraph's code too
            gm._code = self.graph.python_code(root_module="self", verbose=True).src
        except Exception:  # noqa: BLE001 - display only
            pass
        return gm


def _discard(sub) -> None:
    """Erase a refused branch's nodes: they are registered as users of the outer nodes they read."""
    if sub is None:
        return
    for node in reversed(list(sub.graph.nodes)):
        sub.graph.erase_node(node)


def _flatten(result: Value, leaves: list[Value]) -> Any:
    """The structure of a branch's result (``"tensor"``, or ``(tuple|list, [specs])``) with its
    tensors appended to ``leaves``; None when something in it is not a tensor."""
    from autograph.capture.families.containers import BaseSequenceValue
    if result.is_tensor():
        leaves.append(result)
        return "tensor"
    if isinstance(result, BaseSequenceValue) and result.kind in (tuple, list) and type(result).__name__ in (
            "TupleValue", "ListValue"):
        specs = [_flatten(item, leaves) for item in result.items]
        return None if any(s is None for s in specs) else (result.kind, tuple(specs))
    return None


def _unflatten(spec: Any, leaves: list[Value]) -> Value:
    from autograph.capture.families.containers import ListValue, TupleValue
    if spec == "tensor":
        return leaves.pop(0)
    kind, specs = spec
    items = [_unflatten(s, leaves) for s in specs]
    return TupleValue(items) if kind is tuple else ListValue(items)


# slots that register what the capture *read* (lists and dicts from outside): a branch may add an
# entry, when the entry says nothing was changed (a change is also a side effect, checked apart)
_READ_REGISTRIES = {"outside_containers": lambda entry: not entry[2]}


class _Fingerprint:
    """What the capture knows about the world that a branch could change: every value reachable
    from the branch function and from the capture's records (family slots -- side effects among
    them --, generators made, open contexts, grad-mode switches), by identity and length, in a
    fixed order. A slot first used by the branch must still be empty after it; a read registry
    may grow by entries that record reads only."""

    def __init__(self, tx, fn: Value):
        self.slots = {slot: len(value) for slot, value in tx.state.slots.items()
                      if slot is not _ROOTS and slot.name in _READ_REGISTRIES}
        self.slots.update({slot: None for slot in tx.state.slots if slot is not _ROOTS and slot not in self.slots})
        self.fn = fn
        self.walked = self._walk(tx)

    def _walk(self, tx) -> list:
        roots = [self.fn]
        for slot, n in self.slots.items():  # (a registry's entries one by one: a slice is a new list each time)
            roots.extend([tx.state.slots[slot]] if n is None else tx.state.slots[slot][:n])
        return walk_state(tx, [*roots, tx.generators_made, tx.open_contexts, tx.graph.immediate_switches])

    def unchanged(self, tx) -> bool:
        for slot, value in tx.state.slots.items():
            if slot is _ROOTS:
                continue
            if slot not in self.slots:
                read_only = _READ_REGISTRIES.get(slot.name)
                if not (_empty(value) or read_only is not None and all(read_only(entry) for entry in value)):
                    return False
            elif self.slots[slot] is not None:
                if not all(_READ_REGISTRIES[slot.name](entry) for entry in value[self.slots[slot]:]):
                    return False
        return self._walk(tx) == self.walked


def _empty(value: Any) -> bool:
    """A slot's value as its factory makes it: empty containers, or an object whose fields are."""
    if isinstance(value, (list, tuple, dict, set)):
        return not value
    return hasattr(value, "__dict__") and not any(vars(value).values())


def install() -> None:
    for op in _COND_OPS:
        registry.register_torch_call(op, _cond)
    registry.register_type_wrapper(type(torch.ops.higher_order.cond), _wrap_cond_op)


def _wrap_cond_op(tx, obj: Any, source: Any) -> Value:
    from autograph.capture.families.torch_calls import TorchFunctionValue
    if source is not None:
        tx.guards.id_(source, obj)
    return TorchFunctionValue(obj)
