"""Tracing a function a higher-order op takes (a ``torch.cond`` branch, a checkpointed function)
into a subgraph of its own, and telling whether doing so changed anything outside it.

Strategy: *speculate and refuse*. The function is interpreted like user code on placeholders
standing for its operands, into a fresh graph (``GraphBuilder.subgraph``); tensors of the graphs
around it that it reads (a closure over a tensor, ``self.weight``, an input first read inside)
are lifted into extra placeholders. The capture state reachable from the function and the
capture's own records is fingerprinted before and after; a change, a break inside, a result
that is not tensors, or an effect the op cannot carry is a :class:`Refused` that the family
turns into a break at the call, where Python runs the op itself.
"""
from __future__ import annotations

from typing import Any

import torch
import torch.fx

from autograph.capture.core import effects, registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.families.state_walk import walk_state

# the roots of the subgraphs being traced (a nested op installs its subgraphs in the enclosing one's)
ROOTS = registry.state_slot("subgraph_roots", list, __name__)


class Refused(Exception):
    """A function cannot be a subgraph; the message says why."""


def install_module(tx, gm: torch.fx.GraphModule, prefix: str) -> torch.fx.Node:
    """Register ``gm`` as ``<prefix>_N`` (the first free N) in the module the graph being built
    belongs to, and return a ``get_attr`` node for it."""
    builder = tx.graph
    roots = ROOTS.of(tx)
    root = roots[-1] if roots else builder.root
    index = 0
    while hasattr(root, f"{prefix}_{index}"):
        index += 1
    root.register_module(f"{prefix}_{index}", gm)
    node = builder.graph.get_attr(f"{prefix}_{index}")
    node.meta["example_value"] = None
    node.stack_trace = builder.current_trace
    return node


class TracedFunction:
    """One function traced into its own graph: its placeholders (operands first), the outer nodes it
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
    def trace(cls, tx, fn: Value, items: list[Value], name: str, label: str,
              writes_refused: str | None, keywords: tuple[str, ...] = ()) -> "TracedFunction":
        """Interpret ``fn`` on ``items``, the tensors among them replaced by placeholders
        ``<name>_argN`` (the others are passed as they are; the last ``len(keywords)`` items go as
        those keywords). ``label`` names the function in refusals ("the true branch"). Writes to
        its operands or to tensors from outside are the op's effect, unless ``writes_refused``
        says why they cannot be (then they are refused)."""
        from autograph.capture.families import contexts
        from autograph.capture.families.tensors import TensorValue
        builder = tx.graph
        before = Fingerprint(tx, fn, items)
        state = contexts.state_snapshot()
        checks = len(builder.pre_checks)
        roots = ROOTS.of(tx)
        roots.append(torch.nn.Module())
        sub = None
        try:
            with builder.subgraph() as sub:
                params, values = [], []
                for i, item in enumerate(items):
                    if not item.is_tensor():
                        values.append(item)
                        continue
                    node = sub.graph.placeholder(builder._name(f"{name}_arg{i}"))
                    node.meta["example_value"] = item.fake
                    params.append(node)
                    value = TensorValue(node, item.fake)
                    value.real_cls = item.real_cls  # the function gets the operand itself (a Parameter stays one)
                    values.append(value)
                positional = values[:len(values) - len(keywords)]
                try:
                    result = tx.call(fn, positional, dict(zip(keywords, values[len(positional):])))
                except Unsupported as exc:
                    raise Refused(f"{label} ({fn.describe()}) cannot be traced: {exc.reason}") from None
                leaves: list[Value] = []
                spec = flatten(result, leaves)
                if spec is None:
                    raise Refused(f"{label} returns {result.describe()}, not tensors")
                sub.graph.output(tuple(leaf.node for leaf in leaves))
            branch = cls(sub.graph, params, spec)
            branch.root = roots[-1]
            if len(builder.pre_checks) != checks:  # a check on inputs the entry would make even when not taken
                raise Refused(f"{label} has an operation that can raise at run time after effects "
                          "replayed after the graph")
            branch._check(tx, before, state, sub, label, writes_refused)
            return branch
        except BaseException:
            discard(sub)
            raise
        finally:
            roots.pop()

    def _check(self, tx, before: Fingerprint, state: tuple, sub, label: str, writes_refused: str | None) -> None:
        from autograph.capture.families import contexts
        if not before.unchanged(tx):
            raise Refused(f"{label} changes something outside itself (a container, an attribute, "
                           "a global, an effect replayed after the graph)")
        if contexts.state_snapshot() != state:
            raise Refused(f"{label} switches grad mode or autocast")
        self._lift()
        inputs = effects.storages_of([p.meta.get("example_value") for p in self.graph.nodes if p.op == "placeholder"])
        for node in self.graph.nodes:
            if node.meta.get("state"):
                raise Refused(f"{label} switches grad mode or autocast")
            kinds = set(node.meta.get("effects", ()))
            if kinds - {effects.WRITE, effects.RANDOM}:
                raise Refused(f"{label} changes {', '.join(sorted(kinds - {effects.WRITE, effects.RANDOM}))} "
                              "of a tensor")
            self.kinds |= kinds
        self.writes = sub.written & inputs
        if self.writes and writes_refused:
            raise Refused(f"{label} {writes_refused}")
        output = next(n for n in self.graph.nodes if n.op == "output")
        if len(set(output.args[0])) != len(output.args[0]):  # the op's outputs would be distinct objects
            raise Refused(f"{label} returns the same tensor twice")
        for node in output.args[0]:
            fake = node.meta.get("example_value")
            if node.op == "placeholder" or effects.storages_of(fake) & inputs:
                raise Refused(f"{label} returns one of its operands (or a view of one)")

    def _lift(self) -> None:
        """Nodes of the graphs around this one that the function reads become placeholders."""
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
        """The placeholders for the operands, then for every node in ``lifted`` (lifted by this
        function or by another one traced for the same op, as the other ``torch.cond`` branch)."""
        anchor = next(n for n in self.graph.nodes if n.op != "placeholder")
        for outer in lifted:
            if outer not in self.lifted_params:
                self.lifted_params[outer] = self._placeholder(outer, anchor)
        return self.params + [self.lifted_params[outer] for outer in lifted]

    def module(self, kept: list[torch.fx.Node]) -> torch.fx.GraphModule:
        """The function as a module taking the placeholders ``kept``, in order (the others go)."""
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


def discard(sub) -> None:
    """Erase a refused branch's nodes: they are registered as users of the outer nodes they read."""
    if sub is None:
        return
    for node in reversed(list(sub.graph.nodes)):
        sub.graph.erase_node(node)


def flatten(result: Value, leaves: list[Value]) -> Any:
    """The structure of a branch's result (``"tensor"``, or ``(tuple|list, [specs])``) with its
    tensors appended to ``leaves``; None when something in it is not a tensor."""
    from autograph.capture.families.containers import BaseSequenceValue
    if result.is_tensor():
        leaves.append(result)
        return "tensor"
    if isinstance(result, BaseSequenceValue) and result.kind in (tuple, list) and type(result).__name__ in (
            "TupleValue", "ListValue"):
        specs = [flatten(item, leaves) for item in result.items]
        return None if any(s is None for s in specs) else (result.kind, tuple(specs))
    return None


def unflatten(spec: Any, leaves: list[Value]) -> Value:
    from autograph.capture.families.containers import ListValue, TupleValue
    if spec == "tensor":
        return leaves.pop(0)
    kind, specs = spec
    items = [unflatten(s, leaves) for s in specs]
    return TupleValue(items) if kind is tuple else ListValue(items)


# slots that register what the capture *read* (lists and dicts from outside): a branch may add an
# entry, when the entry says nothing was changed (a change is also a side effect, checked apart)
_READ_REGISTRIES = {"outside_containers": lambda entry: not entry[2]}


class Fingerprint:
    """What the capture knows about the world that a branch could change: every value reachable
    from the branch function and from the capture's records (family slots -- side effects among
    them --, generators made, open contexts, grad-mode switches), by identity and length, in a
    fixed order. A slot first used by the branch must still be empty after it; a read registry
    may grow by entries that record reads only."""

    def __init__(self, tx, fn: Value, arguments: list[Value] = ()):
        self.slots = {slot: len(value) for slot, value in tx.state.slots.items()
                      if slot is not ROOTS and slot.name in _READ_REGISTRIES}
        self.slots.update({slot: None for slot in tx.state.slots if slot is not ROOTS and slot not in self.slots})
        self.roots = [fn, *arguments]
        self.walked = self._walk(tx)

    def _walk(self, tx) -> list:
        roots = list(self.roots)
        for slot, n in self.slots.items():  # (a registry's entries one by one: a slice is a new list each time)
            roots.extend([tx.state.slots[slot]] if n is None else tx.state.slots[slot][:n])
        return walk_state(tx, [*roots, tx.generators_made, tx.open_contexts, tx.graph.immediate_switches])

    def unchanged(self, tx) -> bool:
        for slot, value in tx.state.slots.items():
            if slot is ROOTS:
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
