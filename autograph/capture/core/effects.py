"""Which torch calls have an effect beyond their result, decided by the ops' schemas.

A captured torch call is run on fake tensors; :class:`EffectRecorder` watches the
aten/c10d ops it reaches (whatever Python wrapper called them: ``F.relu(inplace=True)``,
``torch.add(out=)``, ``dist.all_reduce``) and reports a call as effectful when

* an op writes (schema ``Tensor(a!)``: in-place, ``out=``, in-place views such as
  ``t_``/``resize_``/``as_strided_``/``set_``) a tensor whose storage the call was given,
* an op is a collective (``c10d`` namespace: its effect is on other processes), or
* an op consumes the random generator (tag ``nondeterministic_seeded``): dropping it
  would shift every later random number.

It also foresees run-time errors: an op that checks tensor *values* (an index against a size,
a class target, an integer divisor) can raise in the compiled graph where the fake run did not
(``may_raise``, decided by the aten ops reached: :data:`VALUE_CHECKED_OPS`). The graph builder
splits the graph before such an op when replayed side effects are pending or a ``with``
block's ``__exit__``/a ``finally`` would run user code on the way out (families/side_effects.py).

Effectful nodes stay in the graph whether or not their result is used.  Tensor-level
effects no aten op shows (``requires_grad_``, ``detach_``) are in-place by Tensor's own
naming rule (a method ending in one underscore) and are kept by that rule.
"""
from __future__ import annotations

import operator

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

_SEEDED = torch.Tag.nondeterministic_seeded
_INPLACE_VIEW = torch.Tag.inplace_view

# effect kinds (``node.meta["effects"]``); backends read them to know what they must reproduce
WRITE = "write"            # data written into a tensor the call was given
METADATA = "metadata"      # sizes/strides/storage of a tensor the call was given changed (t_, resize_, set_)
AUTOGRAD = "autograd"      # autograd metadata changed (requires_grad_, detach_): no aten op shows it
COLLECTIVE = "collective"  # a c10d collective: an effect on other processes
RANDOM = "random"          # consumes the random generator


# aten ops that raise on tensor *values* fake tensors do not have: indices against sizes, class
# targets, sampling probabilities, linalg failures. (An op missing here is judged by its siblings:
# ops checking only sizes, dtypes and devices raise during the fake run already.)
VALUE_CHECKED_OPS = frozenset({
    "index", "_unsafe_index", "index_put", "index_put_", "_index_put_impl_", "index_select", "gather",
    "scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_", "embedding",
    "embedding_bag", "_embedding_bag", "_embedding_bag_forward_only", "embedding_renorm_", "take",
    "take_along_dim", "put", "put_", "index_add", "index_add_", "index_copy", "index_copy_", "index_fill",
    "index_fill_", "index_reduce", "index_reduce_", "one_hot", "nll_loss_forward", "nll_loss2d_forward",
    "nll_loss", "nll_loss_nd", "multi_margin_loss", "multilabel_margin_loss_forward", "ctc_loss", "_ctc_loss",
    "binary_cross_entropy", "bincount", "_assert_async", "_assert_scalar", "multinomial", "poisson",
    "binomial", "_linalg_check_errors", "searchsorted", "histc", "histogram", "max_unpool2d", "max_unpool3d",
    "masked_scatter", "masked_scatter_", "_cdist_forward",
    # composites a dispatch mode sees whole under inference mode (no decomposition to the ops above)
    "cross_entropy_loss", "nll_loss2d", "multilabel_margin_loss"})
# integer division and remainder raise on a zero divisor, integer pow on a negative exponent
_INTEGER_CHECKED_OPS = frozenset({"div", "div_", "floor_divide", "floor_divide_", "remainder", "remainder_",
                                  "fmod", "fmod_", "pow", "pow_"})
# sampling ops that check a probability/std tensor's values
_PARAMETER_CHECKED_OPS = frozenset({"bernoulli", "bernoulli_", "normal", "normal_"})
# ops that check an int index against a size: only a symbolic index is unseen by the fake run
_SYMBOLIC_INDEX_OPS = frozenset({"select", "narrow", "select_scatter"})


def _may_raise_on_values(func, args, kwargs) -> bool:
    """Whether the aten op call can raise at run time on values the fake run cannot see."""
    name = getattr(getattr(func, "overloadpacket", None), "__name__", "")
    if name in VALUE_CHECKED_OPS:
        return True
    if name not in _INTEGER_CHECKED_OPS and name not in _PARAMETER_CHECKED_OPS and name not in _SYMBOLIC_INDEX_OPS:
        return False
    flat = tree_flatten((args, kwargs))[0]
    if name in _INTEGER_CHECKED_OPS:
        return any(isinstance(t, torch.Tensor) and not t.dtype.is_floating_point and not t.dtype.is_complex
                   for t in flat)
    if name in _PARAMETER_CHECKED_OPS:
        return any(isinstance(t, torch.Tensor) for t in tree_flatten((args[1:], kwargs))[0])
    if name in _SYMBOLIC_INDEX_OPS:
        return any(isinstance(t, torch.SymInt) for t in flat)
    return False


def call_may_raise(target, recorder: "EffectRecorder") -> bool:
    """Whether a captured call can raise at run time on values its fake run did not see: by the
    aten ops it reached, or by its own name (a composite op's fake run may reach only ops that
    check nothing: ``one_hot`` decomposes to ``eq`` with ``arange``)."""
    name = target if isinstance(target, str) else getattr(target, "__name__", "")
    return recorder.may_raise or name in VALUE_CHECKED_OPS


def storages_of(*trees) -> set:
    """Weak references to the storages of every tensor in ``trees`` (args, kwargs)."""
    flat, _ = tree_flatten(trees)
    out = set()
    for t in flat:
        if isinstance(t, torch.Tensor):
            try:
                out.add(StorageWeakRef(t.untyped_storage()))
            except Exception:  # pragma: no cover - tensors without storage (sparse, nested)
                out.add(id(t))
    return out


def _written_args(func, args, kwargs) -> list:
    """The tensors an op call writes, read off its schema's mutable aliases."""
    schema = func._schema
    written = []
    for i, arg in enumerate(schema.arguments):
        if arg.alias_info is None or not arg.alias_info.is_write:
            continue
        if arg.kwarg_only or i >= len(args):
            value = kwargs.get(arg.name)
        else:
            value = args[i]
        written.extend(t for t in tree_flatten(value)[0] if isinstance(t, torch.Tensor))
    return written


class EffectRecorder(TorchDispatchMode):
    """Pushed above the fake mode while a captured call runs; collects its effects."""

    def __init__(self, inputs: set, graph_inputs: set = frozenset()):
        super().__init__()
        self.inputs = inputs  # storages of the call's arguments
        self.graph_inputs = graph_inputs  # storages of the graph's inputs, parameters and buffers
        self.kinds: list[str] = []  # effect kinds seen, in order, without repeats
        self.writes_graph_input = False  # a write lands in memory the caller can see
        # a written tensor shares memory with another argument as a different view: whether
        # they overlap (an error) is checked only on real memory, never by fake tensors
        self.may_overlap = False
        self.may_raise = False  # an op that can raise on values only the run sees (VALUE_CHECKED_OPS)
        self.written: set = set()  # storages this call writes

    def _add(self, kind: str) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tags = getattr(func, "tags", ())
        if getattr(func, "namespace", "") == "c10d":
            self._add(COLLECTIVE)
        if _SEEDED in tags:
            self._add(RANDOM)
        self.may_raise = self.may_raise or _may_raise_on_values(func, args, kwargs)
        for t in _written_args(func, args, kwargs):
            storages = storages_of(t)
            self.written |= storages
            if storages & self.inputs:  # (a temporary of a composite op lays out the same on real memory)
                self.may_overlap = self.may_overlap or _shares_memory_as_another_view(t, storages, (args, kwargs))
                self._add(METADATA if _INPLACE_VIEW in tags else WRITE)
                self.writes_graph_input = self.writes_graph_input or bool(storages & self.graph_inputs)
        return func(*args, **kwargs)


def _shares_memory_as_another_view(written, storages: set, operands) -> bool:
    """Whether a tensor among ``operands`` (not ``written`` itself, nor the same view of it)
    lives in ``written``'s storage."""
    flat, _ = tree_flatten(operands)
    layout = (written.storage_offset(), tuple(written.shape), tuple(written.stride()))
    return any(isinstance(t, torch.Tensor) and t is not written and storages_of(t) & storages
               and (t.storage_offset(), tuple(t.shape), tuple(t.stride())) != layout for t in flat)


_INPLACE_OPERATORS = {operator.setitem, operator.iadd, operator.isub, operator.imul, operator.itruediv,
                      operator.ifloordiv, operator.imod, operator.ipow, operator.imatmul, operator.iand,
                      operator.ior, operator.ixor, operator.ilshift, operator.irshift}
_DUNDER_INPLACE = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
                   "xor", "lshift", "rshift"}


# Tensor methods whose effect is on autograd metadata only (no aten op runs for them)
_AUTOGRAD_METHODS = {"requires_grad_", "detach_", "retain_grad"}


def by_name(target) -> list[str]:
    """Effects a call has by Python's or Tensor's naming rule, beyond what its aten ops show:
    ``requires_grad_``/``detach_`` change autograd metadata; ``operator.iadd``, ``__iadd__`` and
    ``add_`` are in-place by name (their writes also show in the ops, this is the safety net)."""
    name = target if isinstance(target, str) else getattr(target, "__name__", "")
    if name in _AUTOGRAD_METHODS:
        return [AUTOGRAD]
    return [WRITE] if inplace_by_name(target) else []


def inplace_by_name(target) -> bool:
    """In-place by Python's or Tensor's naming rule: ``operator.iadd``, ``__iadd__``, ``add_``."""
    try:
        if target in _INPLACE_OPERATORS:
            return True
    except TypeError:  # unhashable target
        return False
    name = target if isinstance(target, str) else getattr(target, "__name__", "")
    if not isinstance(name, str):
        return False
    if name.startswith("__i") and name.endswith("__"):  # __iadd__, __imul__, ... (not __init__/__index__)
        return name[3:-2] in _DUNDER_INPLACE
    return name.endswith("_") and not name.endswith("__")
