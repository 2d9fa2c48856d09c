"""``torch.distributed`` in captured code: collectives as graph nodes, the rest guarded or in Python.

* **In-place c10d collectives** (``dist.all_reduce`` with any ``ReduceOp``, ``broadcast``,
  ``all_gather_into_tensor``/``all_gather_single``, ``reduce_scatter_tensor``/
  ``reduce_scatter_single``, ``all_to_all_single``) become the functional collective op
  (``torch.ops._c10d_functional.*``), its ``wait_tensor`` and a ``copy_`` back into the
  tensor the call writes, as TorchDynamo rewrites them: every backend sees a functional
  graph (AOTAutograd keeps the collectives as extern calls) and the caller's tensor holds
  the result afterwards. ``async_op=True`` runs the collective and its write-back at the
  call (a valid schedule of the asynchronous op) and returns a work object whose ``wait()``
  returns True; a work object used otherwise (kept past a graph break, returned) moves the
  break to the call, which then runs in Python.
* **Functional collectives** (``torch.distributed._functional_collectives``) are inlined:
  their own Python runs symbolically down to the ``_c10d_functional`` ops, waited at once
  (``_are_we_tracing()`` is True inside captured code, as under TorchDynamo), so no
  ``AsyncCollectiveTensor`` reaches the graph.  A collective node stays in the graph even
  when its result is unused: the other processes take part in it.
* **Process groups** and **``ReduceOp``s** are constants of the capture, guarded by identity
  (the default group: ``_get_default_group() is pg``).
* **Rank queries** (``get_rank()``, ``get_world_size()``, ``get_process_group_ranks(g)``...)
  are answered by calling them now; a guard calls them again, so rank-dependent Python
  specialises per process, exactly like eager.
* ``barrier()`` and every other ``torch.distributed`` call (point-to-point, object
  collectives, list-form collectives) run in Python: a graph break of their own kind.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import torch

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core import registry
from autograph.capture.families import builder
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.tensors import TensorValue
from autograph.guards.sources import AttrSource, ObjectSource

BARRIER = break_kind(
    "distributed-barrier",
    "`torch.distributed.barrier()` synchronises processes and has no tensor to put in a graph",
    "nothing to do: the barrier runs in Python between the graphs before and after it")
DISTRIBUTED_CALL = break_kind(
    "distributed-call",
    "a torch.distributed call autograph does not put in a graph (point-to-point send/recv, "
    "object collectives, list-form collectives, coalescing managers) runs in Python",
    "use the tensor forms (all_reduce, all_gather_into_tensor, reduce_scatter_tensor, broadcast, "
    "all_to_all_single) or torch.distributed._functional_collectives to keep it in the graph")
ASYNC_WORK = break_kind(
    "distributed-async-work",
    "the work object of an `async_op=True` collective is used for more than `wait()` (kept past "
    "a graph break, returned, or asked for its future): the collective runs in Python",
    "call `work.wait()` in the same function, or use the synchronous form")


def _functional_ops():
    return torch.ops._c10d_functional


# ---------------------------------------------------------------------------
# values


class ProcessGroupValue(Value):
    """A process group known at capture time (its name, rank and size never change)."""

    # methods whose answer is fixed for the life of the group object
    _QUERIES = frozenset({"rank", "size", "name", "group_desc"})
    _ATTRS = frozenset({"group_name", "group_desc", "bound_device_id"})

    def __init__(self, pg, source=None):
        self.pg = pg
        self.source = source

    def describe(self):
        return f"process group {getattr(self.pg, 'group_name', '?')!r}"

    def python_type(self):
        return type(self.pg)

    def real_value(self):
        return self.pg

    def truth(self, tx) -> bool:
        return bool(self.pg)

    def getattr(self, tx, name):
        if name in self._ATTRS:
            return tx.wrap(getattr(self.pg, name), None, trusted=True)
        if name in self._QUERIES:
            method = getattr(self.pg, name)
            return vb.PyFunctionValue(method, name, pure=True)
        raise Unsupported(f"`{name}` of a process group in captured code", kind=DISTRIBUTED_CALL)

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.const(self.pg)


class AsyncWorkValue(Value):
    """The work handle of an ``async_op=True`` collective whose effect is already in the graph."""

    def __init__(self, created_step: int):
        self.created_step = created_step  # kept past a break or returned: break at the collective

    def describe(self):
        return "work handle of an async collective"

    def python_type(self):
        return torch.distributed.Work

    def getattr(self, tx, name):
        if name in ("wait", "is_completed", "is_success"):
            return vb.PyFunctionValue(lambda *a, **k: True, f"Work.{name}", pure=True)
        raise Unsupported(f"`Work.{name}` of an async collective", kind=ASYNC_WORK)

    def reconstruct(self, cg):
        raise Unsupported("the work object of an async collective is used after the graph", kind=ASYNC_WORK)


def _wrap_process_group(tx, pg, source) -> Value:
    dist = torch.distributed
    if source is not None:
        tx.guards.id_(source, pg)
    elif dist.is_initialized() and pg is dist.distributed_c10d._get_default_group():
        _guard_default_group(tx, pg)
    return ProcessGroupValue(pg, source)


def _guard_default_group(tx, pg) -> None:
    """The default group is read from torch's live state: recapture when it changes."""
    c10d = torch.distributed.distributed_c10d
    tx.guards.id_(AttrSource(ObjectSource(c10d.GroupMember, "torch.distributed.GroupMember"), "WORLD"), pg)


def _wrap_reduce_op(tx, op, source) -> Value:
    if source is not None:
        tx.guards.id_(source, op)  # ReduceOp members are singletons
    return ConstantValue(op, source)


# ---------------------------------------------------------------------------
# arguments


def _bind(fn: Callable, args: list, kwargs: dict) -> dict[str, Value]:
    """Arguments by parameter name, defaults filled in, as Python binds them."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        raise Unsupported(f"TypeError calling torch.distributed.{fn.__name__}: {exc}", generic=True, kind="python-exception")
    out: dict[str, Value] = {}
    for name, param in inspect.signature(fn).parameters.items():
        if name in bound.arguments:
            out[name] = bound.arguments[name]
        else:
            default = param.default
            if isinstance(default, Value):
                out[name] = default
            else:
                out[name] = ConstantValue(default)
    return out


def _constant(value: Value, what: str) -> Any:
    if not value.is_constant():
        raise Unsupported(f"{what} of a torch.distributed call is not a constant", kind=DISTRIBUTED_CALL)
    return value.as_python_constant()


def _group(tx, value: Value):
    """The real process group an argument names (None: the default group, guarded)."""
    dist = torch.distributed
    if isinstance(value, ProcessGroupValue):
        return value.pg
    if value.is_constant() and value.as_python_constant() is None:
        try:
            pg = dist.distributed_c10d._get_default_group()
        except Exception as exc:  # not initialised: Python raises it
            raise Unsupported(f"torch.distributed: {exc}", generic=True, exc=exc, kind="python-exception")
        _guard_default_group(tx, pg)
        return pg
    raise Unsupported(f"{value.describe()} as a process group (only ProcessGroup objects and None are "
                      f"put in graphs)", kind=DISTRIBUTED_CALL)


def _reduce_op(value: Value) -> str:
    from torch.distributed._functional_collectives import REDUCE_OP_TO_STR
    op = _constant(value, "the reduce op")
    if isinstance(op, torch.distributed.ReduceOp):  # ReduceOp(ReduceOp.MAX) wraps a RedOpType
        op = getattr(op, "op", op)
    try:
        return REDUCE_OP_TO_STR[op]
    except (KeyError, TypeError):
        raise Unsupported(f"reduce op {op!r} (no functional collective for it)", kind=DISTRIBUTED_CALL)


def _tensor(value: Value, what: str):
    if not value.is_tensor():
        raise Unsupported(f"{what} of a torch.distributed call is {value.describe()}, not a tensor",
                          kind=DISTRIBUTED_CALL)
    fake = value.fake
    if not fake.is_contiguous():  # c10d refuses it: Python raises the error
        raise Unsupported(f"{what} of a torch.distributed call is not contiguous", generic=True, kind="python-exception")
    return value


def _not_differentiated(*tensors: Value) -> None:
    """c10d's in-place collectives have no autograd formula (eager warns and the gradient flows
    as if the tensor were unchanged) while the functional ones do: with a tensor that requires
    grad, the call runs in Python so gradients stay eager's."""
    if torch.is_grad_enabled() and any(t.fake.requires_grad for t in tensors):
        raise Unsupported("in-place collective on a tensor that requires grad (c10d's in-place collectives "
                          "are not differentiable; the functional ones are)", kind=DISTRIBUTED_CALL)


def _check_group_member(tx, pg) -> None:
    c10d = torch.distributed.distributed_c10d
    if c10d._rank_not_in_group(pg):  # eager warns and does nothing
        raise Unsupported("collective on a process group this rank is not part of", kind=DISTRIBUTED_CALL)
    # inside `with dist._coalescing_manager()` collectives are queued, not issued: Python does that
    # (of any group: the guard below, that none is open, would never pass again)
    if c10d._world.pg_coalesce_state:
        raise Unsupported("collective inside a coalescing manager", kind=DISTRIBUTED_CALL)
    world = AttrSource(ObjectSource(c10d, "torch.distributed.distributed_c10d"), "_world")
    tx.guards.length(AttrSource(world, "pg_coalesce_state"), c10d._world.pg_coalesce_state)  # none open


# ---------------------------------------------------------------------------
# graph nodes


def keep(tx, value: Value, before) -> Value:
    """Mark the nodes made since ``before`` as effects: a collective is never dropped from the
    graph, even when its result is unused (the other processes take part in it)."""
    graph = tx.graph.graph
    for node in reversed(graph.nodes):
        if node is before:
            break
        if node.op in ("call_function", "call_method"):
            node.meta["mutates"] = True
    return value


def _last_node(tx):
    return next(iter(reversed(tx.graph.graph.nodes)), None)


def _functional(tx, name: str, *args) -> Value:
    """``wait_tensor(_c10d_functional.<name>(*args))``: the collective's result, waited."""
    ops = _functional_ops()
    before = _last_node(tx)
    started = tx.graph.call("call_function", getattr(ops, name).default, tuple(args), {})
    done = tx.graph.call("call_function", ops.wait_tensor.default, (started,), {})
    return keep(tx, done, before)


def _as_real(tx, t: Value) -> Value:
    """Complex tensors travel as their real view, as c10d does (``view_as_real``)."""
    if t.fake.is_complex():
        return tx.graph.call("call_function", torch.view_as_real, (t,), {})
    return t


def _write_back(tx, dest: Value, result: Value) -> None:
    """``dest.copy_(result)`` (reshaped to ``dest``'s shape): the in-place collective's effect."""
    if tuple(result.fake.shape) != tuple(dest.fake.shape):
        result = tx.graph.call("call_method", "view", (result, ConstantValue(tuple(dest.fake.shape))), {})
    before = _last_node(tx)
    keep(tx, tx.graph.call("call_method", "copy_", (dest, result), {}), before)


def _returned(tx, async_op: bool) -> Value:
    return AsyncWorkValue(tx.step) if async_op else ConstantValue(None)


def _group_size(pg) -> int:
    return torch.distributed.get_world_size(pg)


# ---------------------------------------------------------------------------
# in-place collectives


def _all_reduce(fn):
    def handler(tx, args, kwargs):
        a = _bind(fn, args, kwargs)
        tensor = _tensor(a["tensor"], "the tensor")
        op = _reduce_op(a["op"])
        pg = _group(tx, a["group"])
        async_op = bool(_constant(a["async_op"], "async_op"))
        _not_differentiated(tensor)
        _check_group_member(tx, pg)
        if tensor.fake.is_complex() and op not in ("sum", "avg"):
            raise Unsupported(f"all_reduce {op} on a complex tensor (eager raises)", generic=True, kind="python-exception")
        target = _as_real(tx, tensor)
        _write_back(tx, target, _functional(tx, "all_reduce", target, ConstantValue(op),
                                            ConstantValue(pg.group_name)))
        return _returned(tx, async_op)
    return handler


def _broadcast(fn):
    def handler(tx, args, kwargs):
        a = _bind(fn, args, kwargs)
        tensor = _tensor(a["tensor"], "the tensor")
        pg = _group(tx, a["group"])
        async_op = bool(_constant(a["async_op"], "async_op"))
        src = _constant(a["src"], "src")
        group_src = _constant(a.get("group_src", ConstantValue(None)), "group_src")
        c10d = torch.distributed.distributed_c10d
        try:  # torch's own rank translation, on the real constants
            root = c10d._canonicalize_group_rank(pg, src, group_src, return_global=False)
        except Exception as exc:
            raise Unsupported(f"broadcast: {type(exc).__name__}: {exc}", generic=True, exc=exc, kind="python-exception")
        _not_differentiated(tensor)
        _check_group_member(tx, pg)
        target = _as_real(tx, tensor)
        _write_back(tx, target, _functional(tx, "broadcast", target, ConstantValue(root),
                                            ConstantValue(pg.group_name)))
        return _returned(tx, async_op)
    return handler


def _output_input_collective(op_name: str, out_param: str, in_param: str,
                             arguments: Callable[[dict, Any, Any, int], tuple]) -> Callable:
    """Handler factory of the collectives that write an output tensor from an input tensor:
    ``_c10d_functional.<op_name>(input, *arguments(...), group_name)``, waited and copied into the
    output. ``arguments(bound, out_fake, in_fake, group_size)`` gives the op's arguments between
    the input and the group name, raising ``Unsupported`` where eager raises."""
    def factory(fn):
        def handler(tx, args, kwargs):
            a = _bind(fn, args, kwargs)
            out = _tensor(a[out_param], "the output tensor")
            inp = _tensor(a[in_param], "the input tensor")
            pg = _group(tx, a["group"])
            async_op = bool(_constant(a["async_op"], "async_op"))
            extra = arguments(a, out.fake, inp.fake, _group_size(pg))
            _not_differentiated(out, inp)
            _check_group_member(tx, pg)
            out, inp = _as_real(tx, out), _as_real(tx, inp)
            _write_back(tx, out, _functional(tx, op_name, inp, *(ConstantValue(x) for x in extra),
                                             ConstantValue(pg.group_name)))
            return _returned(tx, async_op)
        return handler
    return factory


def _gather_arguments(a: dict, out, inp, size: int) -> tuple:
    if out.dtype != inp.dtype or out.numel() != size * inp.numel():
        raise Unsupported("all_gather_into_tensor with mismatched sizes or dtypes (eager raises)",
                          generic=True, kind="python-exception")
    return (size,)


def _scatter_arguments(a: dict, out, inp, size: int) -> tuple:
    op = _reduce_op(a["op"])
    if out.dtype != inp.dtype or inp.numel() != size * out.numel() or inp.dim() == 0 or inp.shape[0] % size:
        raise Unsupported("reduce_scatter_tensor with mismatched sizes or dtypes (eager raises)",
                          generic=True, kind="python-exception")
    return (op, size)


def _all_to_all_arguments(a: dict, out, inp, size: int) -> tuple:
    out_splits = _constant(a["output_split_sizes"], "output_split_sizes")
    in_splits = _constant(a["input_split_sizes"], "input_split_sizes")
    if out.dtype != inp.dtype or inp.dim() == 0 or out.dim() == 0:
        raise Unsupported("all_to_all_single with mismatched dtypes (eager raises)", generic=True, kind="python-exception")
    if in_splits is None:
        if inp.shape[0] % size:
            raise Unsupported("all_to_all_single: input not divisible by the group size", generic=True, kind="python-exception")
        in_splits = [inp.shape[0] // size] * size
    if out_splits is None:
        if out.shape[0] % size:
            raise Unsupported("all_to_all_single: output not divisible by the group size", generic=True, kind="python-exception")
        out_splits = [out.shape[0] // size] * size
    if sum(out_splits) != out.shape[0] or sum(in_splits) != inp.shape[0]:
        raise Unsupported("all_to_all_single: split sizes do not add up (eager raises)", generic=True, kind="python-exception")
    return (list(out_splits), list(in_splits))


_all_gather_into = _output_input_collective("all_gather_into_tensor", "output_tensor", "input_tensor",
                                            _gather_arguments)
_reduce_scatter = _output_input_collective("reduce_scatter_tensor", "output", "input", _scatter_arguments)
_all_to_all_single = _output_input_collective("all_to_all_single", "output", "input", _all_to_all_arguments)


DDP_FORWARD = break_kind(
    "ddp-forward",
    "a DistributedDataParallel module is called: DDP's forward prepares its reducer (gradient "
    "buckets, hooks) in Python, so the call runs in Python",
    "compile the DDP module itself (`autograph.compile(ddp)` compiles the wrapped module) or select "
    "the model's package (AUTOGRAPH_PACKAGES) so the wrapped module's forward is compiled")


def _ddp_in_python(module):
    from torch.nn.parallel import DistributedDataParallel
    if isinstance(module, DistributedDataParallel):
        return "call to a DistributedDataParallel module", DDP_FORWARD
    return None


def _barrier(tx, args, kwargs):
    raise Unsupported("torch.distributed.barrier() runs in Python", kind=BARRIER)


def _in_python(name: str):
    def handler(tx, args, kwargs):
        raise Unsupported(f"torch.distributed.{name}() runs in Python", kind=DISTRIBUTED_CALL)
    return handler


# ---------------------------------------------------------------------------
# queries answered now, guarded by asking again


def _query(fn: Callable, name: str):
    def handler(tx, args, kwargs):
        real_args = [_real(a) for a in args]
        real_kwargs = {k: _real(v) for k, v in kwargs.items()}
        try:
            result = fn(*real_args, **real_kwargs)
        except Exception as exc:
            raise Unsupported(f"torch.distributed.{name}() raised {type(exc).__name__}", generic=True, exc=exc, kind="python-exception")
        shown = ", ".join([_show(a) for a in real_args] + [f"{k}={_show(v)}" for k, v in real_kwargs.items()])
        tx.guards.answer(fn, tuple(real_args), real_kwargs, f"torch.distributed.{name}({shown})", result)
        return tx.wrap(result, None, trusted=True)
    return handler


def _real(value: Value):
    if isinstance(value, ProcessGroupValue):
        return value.pg
    if value.is_constant():
        return value.as_python_constant()
    raise Unsupported(f"{value.describe()} passed to a torch.distributed query", kind=DISTRIBUTED_CALL)


def _show(obj) -> str:
    if isinstance(obj, torch.distributed.ProcessGroup):
        return f"<ProcessGroup {obj.group_name!r}>"
    return repr(obj)


_QUERIES = ("get_rank", "get_world_size", "is_initialized", "is_available", "get_backend",
            "get_process_group_ranks", "get_group_rank", "get_global_rank", "is_gloo_available",
            "is_nccl_available", "is_mpi_available", "is_ucc_available", "is_xccl_available",
            "is_torchelastic_launched", "get_node_local_rank", "get_pg_count", "is_backend_available",
            # what the functional collectives ask while resolving their group argument
            "_get_group_size_by_name", "_get_group_tag", "_resolve_group_name_by_ranks_and_tag",
            "_get_default_group", "_get_process_group_name")

_IN_PLACE = {
    "all_reduce": _all_reduce,
    "broadcast": _broadcast,
    "all_gather_into_tensor": _all_gather_into,
    "all_gather_single": _all_gather_into,
    "_all_gather_base": _all_gather_into,
    "reduce_scatter_tensor": _reduce_scatter,
    "reduce_scatter_single": _reduce_scatter,
    "_reduce_scatter_base": _reduce_scatter,
    "all_to_all_single": _all_to_all_single,
}


# ---------------------------------------------------------------------------
# functional collectives: their Python is inlined


def _inline(fn):
    from autograph.capture.families.functions import UserFunctionValue

    def handler(tx, args, kwargs):
        return tx.inline_function(UserFunctionValue(fn), args, kwargs)
    return handler


def _kept_op(op):
    """A ``_c10d_functional`` op called directly: into the graph, never dropped."""
    def handler(tx, args, kwargs):
        before = _last_node(tx)
        return keep(tx, tx.graph.call("call_function", op, tuple(args), kwargs), before)
    return handler


class AsyncCollectiveValue(TensorValue):
    """What a functional collective returns: eager wraps the collective's output in an
    ``AsyncCollectiveTensor`` (``_maybe_wrap_tensor``) that waits on first use.  In the graph the
    output is waited at once, so this is that waited tensor (same node, same values) that still
    answers as the wrapper: ``wait()``/``trigger_wait()`` give the plain tensor, ``elem`` too,
    ``isinstance(y, AsyncCollectiveTensor)`` holds, and where it leaves the graph (returned, live
    at a break) the caller gets the real wrapper, made by torch's own ``_maybe_wrap_tensor``."""

    _PLAIN = frozenset({"wait", "trigger_wait", "_get_acs_underlying_tensor"})

    def __init__(self, elem: TensorValue, source=None):
        super().__init__(elem.node, elem.fake)
        self.elem = elem
        self.source = source  # a real AsyncCollectiveTensor passed in: rebuilt as that object

    def describe(self):
        return f"AsyncCollectiveTensor {self.node.name}"

    def python_type(self):
        from torch.distributed._functional_collectives import AsyncCollectiveTensor
        return AsyncCollectiveTensor

    def getattr(self, tx, name):
        if name in self._PLAIN:
            return _ReturnsValue(self.elem, f"AsyncCollectiveTensor.{name}")
        if name == "elem":
            return self.elem
        if name == "completed":
            raise Unsupported("`completed` of an AsyncCollectiveTensor (the graph waits at once)",
                              kind=DISTRIBUTED_CALL)
        return super().getattr(tx, name)

    def reconstruct(self, cg):
        from torch.distributed._functional_collectives import _maybe_wrap_tensor
        if self.source is not None:
            return cg.source_expr(self.source)
        return cg.shared(self, f"{cg.const(_maybe_wrap_tensor)}({cg.tensor(self.elem)})")


class _ReturnsValue(Value):
    """A bound method of a modelled object whose call, with no arguments, returns ``value``."""

    def __init__(self, value: Value, name: str):
        self.value = value
        self.name = name

    def describe(self):
        return self.name

    def call(self, tx, args, kwargs):
        if args or kwargs:
            raise Unsupported(f"{self.name}() with arguments", kind=DISTRIBUTED_CALL)
        return self.value


def _wrap_result(tx, args, kwargs):
    """``funcol._maybe_wrap_tensor(t)`` (where eager makes the AsyncCollectiveTensor): the
    collective's output waited in the graph, answering as the wrapper."""
    if len(args) != 1 or kwargs or not args[0].is_tensor() or type(args[0]) is not TensorValue:
        raise Unsupported("_maybe_wrap_tensor on something other than a collective's output",
                          kind=DISTRIBUTED_CALL)
    return AsyncCollectiveValue(_wait(tx, args[0]))


def _wait(tx, tensor: Value) -> TensorValue:
    """``wait_tensor(tensor)`` in the graph, kept whatever reads it."""
    before = _last_node(tx)
    return keep(tx, tx.graph.call("call_function", _functional_ops().wait_tensor.default, (tensor,), {}), before)


def _wrap_async_tensor(tx, act, source) -> Value:
    """A real ``AsyncCollectiveTensor`` reaching the capture (made in Python before a break, or
    passed in): its ``elem`` is the graph input, waited first (as its first use waits in eager)."""
    if source is None:
        raise Unsupported("an AsyncCollectiveTensor reached without a guardable source", kind=DISTRIBUTED_CALL)
    tx.guards.type_(source, act)
    elem = builder.wrap_real(tx, act.elem, AttrSource(source, "elem"))
    if type(elem) is not TensorValue:
        raise Unsupported("an AsyncCollectiveTensor whose elem is not a plain tensor", kind=DISTRIBUTED_CALL)
    return AsyncCollectiveValue(_wait(tx, elem), source)


def _install_functional() -> None:
    import types

    import torch.distributed._functional_collectives as funcol
    for obj in vars(funcol).values():
        if isinstance(obj, types.FunctionType) and obj.__module__ == funcol.__name__:
            registry.register_torch_call(obj, _inline(obj))
    registry.register_torch_call(funcol._are_we_tracing, lambda tx, args, kwargs: ConstantValue(True))
    registry.register_torch_call(funcol._maybe_wrap_tensor, _wrap_result)
    registry.register_type_wrapper(funcol.AsyncCollectiveTensor, _wrap_async_tensor)
    ops = _functional_ops()
    for full in torch._C._dispatch_get_all_op_names():
        namespace, _, name = full.partition("::")
        if namespace != "_c10d_functional" or name == "_wrap_tensor_autograd":
            continue
        packet = getattr(ops, name.split(".")[0], None)
        if packet is None:
            continue
        registry.register_torch_call(packet, _kept_op(packet))
        for overload in packet.overloads():
            op = getattr(packet, overload)
            registry.register_torch_call(op, _kept_op(op))


def install() -> None:
    dist = torch.distributed
    if not dist.is_available():
        return
    import torch.distributed.distributed_c10d as c10d
    registry.register_type_wrapper(c10d.ProcessGroup, _wrap_process_group)
    registry.register_type_wrapper(type(c10d.ReduceOp.SUM), _wrap_reduce_op)
    registry.register_type_wrapper(c10d.ReduceOp, _wrap_reduce_op)
    handled = set()
    for name, make in _IN_PLACE.items():
        fn = getattr(c10d, name, None)
        if fn is not None:
            registry.register_torch_call(fn, make(fn))
            handled.add(fn)
    registry.register_torch_call(c10d.barrier, _barrier)
    handled.add(c10d.barrier)
    for name in _QUERIES:
        fn = getattr(dist, name, None) or getattr(c10d, name, None)
        if fn is not None:
            registry.register_torch_call(fn, _query(fn, name))
            handled.add(fn)
    for name in getattr(c10d, "__all__", ()):  # every other public function: in Python
        fn = getattr(c10d, name, None)
        if callable(fn) and not isinstance(fn, type) and fn not in handled:
            registry.register_torch_call(fn, _in_python(name), replace=False)
    _install_functional()
    registry.add_called_in_python(_ddp_in_python)
