"""FX graph building with fake-tensor propagation.

One :class:`GraphBuilder` per capture: a fresh ``FakeTensorMode`` (no real kernel
runs), placeholders for tensor inputs (by source) — parameters and buffers of
modules included, read from the live module on every call so one graph serves
every instance and optimizers and autograd see the real tensors — and ``call_function``/``call_method`` nodes whose ``example_value`` is computed
on fake tensors. Each node gets ``stack_trace`` so ``gm.code`` shows the user line.
"""
from __future__ import annotations

import contextlib
import operator
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch
import torch.fx

from autograph.capture.core import effects
from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.keyword_args import printable_call
from autograph.capture.core.state import ShapeRecords
from autograph.capture.core.base import Value
from autograph.capture.engine import argument_writes
from autograph.capture.families import numpy_ints


INPLACE_OVERLAP = break_kind(
    "inplace-overlap", "an in-place operation writes a tensor that shares memory with another of its "
    "operands as a different view (`w *= w[-1]`): whether they overlap, an error in eager, is checked "
    "only on real memory, so it runs in Python, in program order",
    "clone() the operand first (`w *= w[-1].clone()`)")
RUN_TIME_ERROR = break_kind(
    "effects-before-run-time-error", "a tensor operation that can raise on tensor values (an index out of "
    "range, a class target, an integer division by zero) follows an effect on the world replayed after the "
    "graph, or sits in a `with`/`finally` block whose exit runs Python code; or an in-place write follows a "
    "logging call that formats the tensor: the graph ends before it so every effect happens in program "
    "order, also when it raises",
    "move logging, attribute/list/dict stores and `with` blocks that run Python on exit away from the "
    "indexing (or the in-place update)")

@dataclass
class Subgraph:
    """A branch of a higher-order op being traced (``GraphBuilder.subgraph``): its graph and the
    storages its operations wrote (known once the tracing is over)."""

    graph: torch.fx.Graph
    written: set = field(default_factory=set)


class GraphBuilder:
    def __init__(self, shape_records: ShapeRecords | None = None):
        from autograph.capture.core import shapes
        self.fake_mode = shapes.make_fake_mode()  # with a ShapeEnv when sizes are dynamic
        # the capture's symbols and symbolic inputs (its CaptureState's; shapes.py)
        self.shape_records = shape_records if shape_records is not None else ShapeRecords()
        self.graph = torch.fx.Graph()
        self.root = torch.nn.Module()
        self.inputs: list[tuple[Any, Any, torch.fx.Node]] = []  # (source, real tensor, node)
        self._input_by_source: dict[Any, Any] = {}
        self.op_count = 0
        self.current_trace: str = ""
        # the current instruction is covered by a user's ``except`` (maybe in a caller)
        self.inside_try = False
        # the current instruction's exception would run user code on its way out (a ``with``
        # block's Python ``__exit__``, a ``finally``; maybe in a caller)
        self.unwinds = False
        # the capture's effects replayed after the graph (families/side_effects.py), once it has any
        self.side_effects = None
        # ``torch.set_grad_enabled(b)`` calls: one no ``with`` entered is a lasting effect the entry
        # sets after the graph (restore_state_on_error undoes it when the graph raises)
        self.immediate_switches: list = []
        # "self" is the generated forward's own first parameter: an input named so gets "self_1"
        self.names: set[str] = {"self"}
        self.input_storages: set = set()  # storages of inputs, parameters and buffers (effects.py)
        self.last_call_node: torch.fx.Node | None = None  # the latest operation node (create_node)
        # conditions on graph inputs the entry checks before the graph instead of splitting
        # before a value-checked op (prechecks.py); whether the entry can; whether an op of the graph
        # wrote an input and which storages ops wrote (values read off the graph's ops may be stale)
        self.pre_checks: list = []
        self.can_precheck = False
        self.wrote_input = False
        self.written_storages: set = set()
        # the graphs around the one being built while a higher-order op's branch is traced
        # (``subgraph``): inputs (placeholders) always go to the outermost one
        self.outer_graphs: list[torch.fx.Graph] = []

    # --- leaves ------------------------------------------------------------
    def _fake(self, real: torch.Tensor) -> torch.Tensor:
        return self.fake_mode.from_tensor(real, static_shapes=True)

    def _name(self, hint: str) -> str:
        base = re.sub(r"\W", "_", hint).strip("_") or "x"
        if base[0].isdigit():
            base = "_" + base
        name, n = base, 0
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    def add_input(self, source, real: torch.Tensor):
        """The TensorValue for a real tensor input reached through ``source`` (one per source)."""
        from autograph.capture.families.tensors import TensorValue
        if source in self._input_by_source:
            return self._input_by_source[source]
        for _src, other, node in self.inputs:
            if other is real:  # the same tensor reached two ways: one placeholder
                value = TensorValue(node, node.meta["example_value"], source)
                value.real_cls = type(real)
                self._input_by_source[source] = value
                return value
        node = self._placeholder(self._name(source.expr))
        from autograph.capture.core import shapes
        fake = shapes.fake_input(self, source, real, node)
        node.meta["example_value"] = fake
        node.meta["source"] = source.expr
        self.input_storages |= effects.storages_of(fake)
        self.inputs.append((source, real, node))
        value = TensorValue(node, fake, source)
        value.real_cls = type(real)  # (a Parameter passed in: TENSOR_MATCH guards its class)
        self._input_by_source[source] = value
        return value

    @contextlib.contextmanager
    def subgraph(self) -> Iterator[Subgraph]:
        """Trace the operations of a higher-order op's branch (``torch.cond``: families/cond_branches.py)
        into a fresh ``fx.Graph`` that shares this capture's fake mode, inputs, names and effects.
        Inputs read for the first time in the branch are placeholders of the outermost graph; the
        branch's nodes refer to nodes of the graphs around it directly until the caller lifts them.
        What the branch's nodes leave in this builder (last node, op count, size nodes cached for
        symbols) is restored, since those nodes live in the branch's graph only."""
        saved = (self.graph, self.last_call_node, self.op_count, self.current_trace, self.written_storages,
                 dict(self.shape_records.nodes))
        sub = Subgraph(torch.fx.Graph())
        self.outer_graphs.append(self.graph)
        self.graph, self.written_storages = sub.graph, set()
        try:
            yield sub
        finally:
            sub.written = self.written_storages
            self.outer_graphs.pop()
            self.graph, self.last_call_node, self.op_count, self.current_trace, written, nodes = saved
            self.written_storages = written | sub.written
            self.shape_records.nodes.clear()
            self.shape_records.nodes.update(nodes)

    def _placeholder(self, name: str) -> torch.fx.Node:
        graph = self.outer_graphs[0] if self.outer_graphs else self.graph
        last = None
        for node in graph.nodes:
            if node.op == "placeholder":
                last = node
        if last is None:
            first = next(iter(graph.nodes), None)
            ctx = graph.inserting_before(first) if first is not None else None
        else:
            ctx = graph.inserting_after(last)
        if ctx is None:
            return graph.placeholder(name)
        with ctx:
            return graph.placeholder(name)

    def real_tensor(self, value) -> torch.Tensor | None:
        """The caller's tensor (an input) or the parameter/buffer (an attribute) ``value``
        stands for; None for a tensor computed in the graph."""
        node = value.node
        if node is None:
            return None
        if node.op == "get_attr":
            return getattr(self.root, node.target, None)
        if node.op == "placeholder":
            for _, real, input_node in self.inputs:
                if input_node is node:
                    return real
        return None

    # --- operations --------------------------------------------------------
    def call(self, kind: str, target: Any, args: tuple, kwargs: dict) -> Value:
        """Add ``call_function``/``call_method`` on symbolic args; returns the wrapped result."""
        if self.inside_try and not _errors_foreseen(kind, target):
            # fake tensors cannot predict every run-time error (memory overlap of in-place
            # ops, out-of-range tensor indices): under an ``except``, the op must run where
            # the user's handler can catch its error, not later inside a compiled graph
            raise Unsupported(f"tensor operation {_target_name(target)} inside a try/except "
                              f"(its run-time errors must reach your handler) — runs in Python",
                              generic=True, kind="tensor-op-in-try")
        from autograph.capture.families.tensors import to_fake_arg
        with numpy_ints.as_operands(kind, target):  # ``x * n``, ``x[:n]``: a dynamic NumPy int's symbol
            node_args = to_node_arg(args)
            node_kwargs = to_node_arg(kwargs)
            fake_args = to_fake_arg(args)
            fake_kwargs = to_fake_arg(kwargs)
        node_args, node_kwargs = _numpy_scalars_as_numbers(kind, target, node_args, node_kwargs)
        if self.fake_mode.shape_env is not None:  # sizes computed from the inputs' sizes
            from autograph.capture.core import shapes
            node_args, node_kwargs = shapes.symints_to_nodes(self, node_args, node_kwargs)
        recorder = effects.EffectRecorder(effects.storages_of(fake_args, fake_kwargs), self.input_storages)
        python_body = argument_writes.python_body(kind, target, fake_args)
        if python_body:  # its Python writes would be made at capture, or on copies and lost
            before = argument_writes.fingerprint(fake_args, fake_kwargs, _target_name(target))
        try:
            try:
                result = self._run_fake(kind, target, fake_args, fake_kwargs, recorder)
            except torch._subclasses.fake_tensor.DataDependentOutputException:
                from autograph.capture.engine.scalar_args import with_scalar_placeholders
                swapped = with_scalar_placeholders(target, fake_args, fake_kwargs, method=kind == "call_method")
                if swapped is None:
                    raise
                recorder = effects.EffectRecorder(effects.storages_of(fake_args, fake_kwargs), self.input_storages)
                result = self._run_fake(kind, target, *swapped, recorder)  # a 0-d tensor as a value-only Scalar
        except Unsupported:
            raise
        except (torch._subclasses.fake_tensor.DataDependentOutputException,
                torch._subclasses.fake_tensor.DynamicOutputShapeException):
            raise Unsupported(f"data-dependent operation {_target_name(target)} "
                              f"(its result depends on tensor values)", kind="data-dependent-operation")
        except Exception as exc:
            name = type(exc).__name__
            if "DataDependent" in name or "GuardOnDataDependent" in name:
                raise Unsupported(f"data-dependent operation {_target_name(target)} "
                                  f"(its result depends on tensor values)", kind="data-dependent-operation")
            raise Unsupported(f"{_target_name(target)} failed during capture "
                              f"({name}: {str(exc).splitlines()[0] if str(exc) else ''})", generic=True,
                              kind="fake-tensor-failure")
        if python_body:
            argument_writes.refuse_if_written(before, fake_args, fake_kwargs, _target_name(target))
        from autograph.capture.core.run_time import refuse_fake_answer
        refuse_fake_answer(result, _target_name(target), (fake_args, fake_kwargs))  # never fold a fake's answer
        if _has_symbolic_shape(result):
            raise Unsupported(f"data-dependent output shape of {_target_name(target)} "
                              f"(its size depends on tensor values)", kind="data-dependent-operation")
        if recorder.may_overlap:  # eager raises a partial-overlap error only on real memory
            raise Unsupported(f"in-place {_target_name(target)} on a tensor sharing memory with its operand "
                              "— runs in Python", generic=True, kind=INPLACE_OVERLAP)
        self._split_before_unseen_errors(target, recorder, args, kwargs)
        kinds = recorder.kinds + [k for k in effects.by_name(target) if k not in recorder.kinds]
        if effects.METADATA in kinds and self.fake_mode.shape_env is not None:
            from autograph.capture.core import shapes
            # the fake input's sizes/strides change in place, and the guards and the backend's
            # example inputs are read from it at the end: capture with static sizes instead
            raise shapes.NeedsStaticSizes(f"{_target_name(target)} changes a tensor's sizes or strides in place")
        from autograph.capture.families.tensors import tensor_values
        before = self.last_call_node
        value = self.wrap_result(kind, target, node_args, node_kwargs, result, effect_kinds=kinds,
                                 arguments=tensor_values((args, kwargs)))
        if effects.call_may_raise(target, recorder) and self.last_call_node is not before:
            self.last_call_node.meta["may_raise"] = True  # unused, it still raises as in eager
        if recorder.writes_graph_input or effects.AUTOGRAD in kinds:
            self.last_call_node.meta["writes_input"] = True  # the caller can see this effect
        self.wrote_input = self.wrote_input or recorder.writes_graph_input
        self.written_storages |= recorder.written
        return value

    def _split_before_unseen_errors(self, target: Any, recorder: effects.EffectRecorder, args: tuple = (),
                                    kwargs: dict | None = None) -> None:
        """Break before an operation whose effect or error the world would see out of order.

        * It can raise at run time on values the fake run cannot see, while effects replayed after
          the graph are pending (they come first in program order and would be lost) or while a
          ``with`` block's ``__exit__``/a ``finally`` would run user code on the way out (a graph
          call is outside the block): the op then runs in Python, inside the real blocks — unless
          the operand it checks is a graph input the entry can check before the graph
          (prechecks.py): then the condition becomes a pre-check and the graph goes on.
        * It writes a tensor a pending logging call will format: the handler must see the value
          the tensor had at the call.
        """
        may_raise = effects.call_may_raise(target, recorder)
        pending = (self.side_effects is not None and bool(self.side_effects)) or \
            any(switch.entered_step is None for switch in self.immediate_switches)
        if may_raise and (pending or self.unwinds):
            check = self._pre_check(target, args, kwargs or {})
            if check is not None:
                if check != "proven":
                    self.pre_checks.append(check)
                may_raise = False
        if may_raise and (pending or self.unwinds):
            why = "effects before it are replayed after the graph" if pending else \
                "a `with` block's exit or a `finally` must run if it raises"
            raise Unsupported(f"{_target_name(target)} can raise at run time on tensor values and {why} "
                              "— runs in Python", kind=RUN_TIME_ERROR)
        if recorder.written and pending and any(
                effects.storages_of(t.fake) & recorder.written for t in self.side_effects.formatted_tensors()):
            raise Unsupported(f"in-place {_target_name(target)} on a tensor a logging call before it formats "
                              "— the graph ends before the write", kind=RUN_TIME_ERROR)

    def _pre_check(self, target: Any, args: tuple, kwargs: dict):
        if not self.can_precheck:
            return None
        from autograph.capture.engine import prechecks
        return prechecks.plan(self, target, args, kwargs)

    def _run_fake(self, kind: str, target: Any, fake_args: tuple, fake_kwargs: dict, recorder) -> Any:
        from autograph.capture.core.capture_warnings import silenced
        from autograph.capture.core.grad_reads import GradReads, may_read_grads
        reads = GradReads() if kind == "call_function" and may_read_grads(target, fake_args, fake_kwargs) else None
        with self.fake_mode, recorder, silenced():  # the graph's run warns, from the user's line
            if kind == "call_method":
                return getattr(fake_args[0], target)(*fake_args[1:], **fake_kwargs)
            if reads is None:
                return target(*fake_args, **fake_kwargs)
            with reads:
                out = target(*fake_args, **fake_kwargs)
        reads.refuse(target)
        return out

    def wrap_result(self, kind, target, node_args, node_kwargs, result, *, effect_kinds: list | None = None,
                    arguments: list | None = None) -> Value:
        """The node for a call and the value of its result.

        ``effect_kinds`` (what the call does beyond its result, see ``capture/core/effects.py``)
        keep the node whatever happens to its result.  A result tensor that *is* one of the
        ``arguments`` (``x.add_(1)``, ``torch.add(a, b, out=o)``, ``x.t_()`` return their
        argument) is that argument's value again, so ``y is x`` holds as in Python.
        """
        from autograph.capture.families.builder import wrap_fake_result
        mutates = bool(effect_kinds)
        if not _has_tensor(result) and not mutates:
            if result is None:  # (``t.storage_type()`` is None on a fake: the fake's storage is on meta)
                raise Unsupported(f"{_target_name(target)} answered None on a fake tensor; what it answers on the "
                                  "real tensor is only known when it runs — runs in Python", kind="unsupported-torch-value")
            return wrap_fake_result(self, None, result)
        name = self._name(_target_name(target).split(".")[-1])
        node = self.graph.create_node(*printable_call(kind, target, node_args, node_kwargs), name=name)
        node.meta["example_value"] = result
        node.stack_trace = self.current_trace
        node.meta["mutates"] = mutates
        self.last_call_node = node
        if effect_kinds:
            node.meta["effects"] = tuple(effect_kinds)
        self.op_count += 1
        if not _has_tensor(result):
            return wrap_fake_result(self, None, result)
        return wrap_fake_result(self, node, result, same_as=arguments or ())

    def getitem_node(self, node: torch.fx.Node, index: int, fake) -> torch.fx.Node:
        item = self.graph.create_node("call_function", operator.getitem, (node, index), {},
                                      name=self._name("getitem"))
        item.meta["example_value"] = fake
        item.stack_trace = self.current_trace
        return item

    def finish(self, outputs: list[torch.fx.Node]) -> torch.fx.GraphModule:
        """Close the graph returning ``outputs`` (a tuple) and build the GraphModule."""
        self.graph.output(tuple(outputs))
        self._eliminate_dead_code()
        gm = torch.fx.GraphModule(self.root, self.graph)
        try:  # show the user's source lines in gm.code (the executed code is unchanged)
            gm._code = self.graph.python_code(root_module="self", verbose=True).src
        except Exception:  # pragma: no cover - display only
            pass
        return gm


    def release_fake_values(self) -> None:
        """Forget the fake values once the graph is compiled and its guards are built.

        With symbolic sizes a FakeTensor holds SymNodes from C++, whose ShapeEnv refers back
        to graph nodes: a cycle the garbage collector cannot see, so a kept graph module
        would never be freed.  The displayed code (``gm._code``) was rendered already.
        """
        from autograph.capture.core import shapes
        for node in self.graph.nodes:
            node.meta.pop("example_value", None)
            node.meta.pop("val", None)
        if self.fake_mode is not None:
            shapes.forget_inputs(self)
        self.inputs = [(source, None, node) for source, _, node in self.inputs]
        self._input_by_source.clear()
        self.fake_mode = None

    def _eliminate_dead_code(self) -> None:
        """Drop unused pure nodes; in-place ops and item stores stay (their effect is the point), and
        so do ops that may raise on values (``x[idx]`` unused still raises out of range) or whose
        real kernel may refuse the dtypes (dead_ops.py)."""
        from autograph.capture.engine.dead_ops import may_raise_unused
        for node in reversed(list(self.graph.nodes)):
            if node.op in ("call_function", "call_method", "get_attr") and not node.users \
                    and not node.meta.get("mutates") and not node.meta.get("may_raise") \
                    and not may_raise_unused(node):
                self.graph.erase_node(node)

    def has_unused_ops_that_may_raise(self, outputs: list[torch.fx.Node]) -> bool:
        """Whether an op no output needs still has to run, for the error eager would raise."""
        from autograph.capture.engine.dead_ops import may_raise_unused
        kept = set(outputs)
        return any(node.op in ("call_function", "call_method") and not node.users and node not in kept
                   and not node.meta.get("state") and may_raise_unused(node) for node in self.graph.nodes)


def _numpy_scalars_as_numbers(kind: str, target: Any, args: Any, kwargs: Any) -> tuple[Any, Any]:
    """NumPy scalars among an op's constant arguments, as the Python numbers they equal.

    The graph's generated code cannot spell a NumPy scalar (its repr names ``np``). As the
    operand of a tensor method or operator, torch treats a NumPy scalar exactly as the Python
    number of the same value (a wrapped scalar: same result dtype); as a torch function's
    argument it may be data whose dtype matters (``torch.tensor(np.float64(1))``), so there
    the op runs in Python instead.
    """
    np = sys.modules.get("numpy")
    if np is None:
        return args, kwargs
    found = []

    def convert(leaf: Any) -> Any:
        if isinstance(leaf, np.generic) and not isinstance(leaf, np.longdouble):
            found.append(leaf)
            return leaf.item()
        return leaf

    new_args = torch.fx.node.map_aggregate(args, convert)
    new_kwargs = torch.fx.node.map_aggregate(kwargs, convert)
    if not found:
        return args, kwargs
    operand = kind == "call_method" or getattr(target, "__module__", None) in ("_operator", "operator")
    if not operand or any(not isinstance(x.item(), (bool, int, float, complex)) for x in found):
        raise Unsupported(f"NumPy scalar {found[0]!r} passed to {_target_name(target)} "
                          f"(its NumPy type may matter there) — runs in Python", kind="unsupported-torch-value")
    return new_args, new_kwargs




def _has_symbolic_shape(obj) -> bool:
    """True when a result's size is *unbacked* (data-dependent, e.g. ``nonzero``): no input size
    determines it. Backed sizes of dynamic inputs (``s0``) are fine."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    try:
        return bool(free_unbacked_symbols(obj))
    except Exception:  # pragma: no cover - unknown result structure
        return False


def _has_tensor(obj) -> bool:
    if isinstance(obj, torch.Tensor):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_has_tensor(o) for o in obj)
    if isinstance(obj, dict):
        return any(_has_tensor(o) for o in obj.values())
    return False


# Out-of-place operations whose every error depends on what the fake run at capture checks
# (shapes, dtypes, devices), never on tensor values: under an ``except`` they stay in the graph.
# Not here on purpose: indexing, gathers/scatters, integer division and remainder, pow,
# in-place ops (overlap with other tensors), losses checking targets, linalg.
_FORESEEN_OPERATORS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos,
    operator.matmul, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
    operator.and_, operator.or_, operator.xor, operator.invert, operator.abs})
# ops whose every error depends on sizes, strides, dtypes and devices only (guarded, so the fake
# run at capture raised it already): no integer division, no tensor indices, no in-place writes
_FORESEEN_NAMES = frozenset({
    "add", "sub", "mul", "neg", "abs", "sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "rsqrt",
    "sigmoid", "relu", "gelu", "silu", "clamp", "maximum", "minimum", "where", "matmul", "mm",
    "sum", "mean", "softmax", "log_softmax", "transpose", "permute", "reshape", "unsqueeze",
    "squeeze", "flatten", "t", "contiguous", "clone", "detach", "cat", "stack",
    "view", "view_as", "expand", "expand_as", "broadcast_to", "repeat", "movedim", "unflatten",
    "flip", "split", "chunk", "unbind", "amax", "amin", "max", "min", "prod", "any", "all",
    "std", "var", "logsumexp", "cumsum", "square", "erf", "exp2", "log1p", "expm1", "floor", "ceil",
    "trunc", "sign", "reciprocal", "einsum"})


def _errors_foreseen(kind: str, target: Any) -> bool:
    """Whether the operation can only raise what the fake run at capture already raised."""
    if kind == "call_method":
        return target in _FORESEEN_NAMES
    if target in _FORESEEN_OPERATORS:
        return True
    name = getattr(target, "__name__", None)
    return name in _FORESEEN_NAMES and any(getattr(m, name, None) is target
                                           for m in (torch, torch.nn.functional, torch.Tensor))


def _target_name(target) -> str:
    if isinstance(target, str):
        return target
    mod = getattr(target, "__module__", None) or ""
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or repr(target)
    if mod.startswith("torch") or mod in ("_operator", "operator"):
        mod = {"_operator": "operator", "torch._C._nn": "torch.nn.functional",
               "torch._C._VariableFunctions": "torch"}.get(mod, mod)
        return f"{mod}.{name}" if mod else name
    return name


def to_node_arg(obj):
    """Symbolic values → FX node arguments (nodes and plain constants)."""
    from autograph.capture.families.containers import BaseSequenceValue, DictValue, SliceValue
    from autograph.capture.families.tensors import TensorValue

    def node_arg(obj):  # (the imports above made once per call, not once per item)
        if isinstance(obj, TensorValue):
            return obj.node
        if isinstance(obj, SliceValue):
            return slice(*(node_arg(p) for p in obj.parts))
        if isinstance(obj, BaseSequenceValue):
            kind = tuple if obj.kind is not list else list
            return kind(node_arg(i) for i in obj.items)
        if isinstance(obj, DictValue):
            if obj.has_identity_keys():
                raise Unsupported(f"{obj.describe()} keyed by tensors or objects passed to a torch operation",
                                  kind="unsupported-torch-value")
            return {k: node_arg(v) for k, v in obj.items.items()}
        if isinstance(obj, tuple):
            return tuple(node_arg(o) for o in obj)
        if isinstance(obj, list):
            return [node_arg(o) for o in obj]
        if isinstance(obj, dict):
            return {k: node_arg(v) for k, v in obj.items()}
        if isinstance(obj, Value):
            if obj.is_symbolic_scalar():  # a run-time Python float: a placeholder (families/scalars.py)
                return obj.graph_arg()[0]
            if obj.is_constant():
                return obj.as_python_constant()
            raise Unsupported(f"{obj.describe()} passed to a torch operation", kind="unsupported-torch-value")
        return obj

    return node_arg(obj)


