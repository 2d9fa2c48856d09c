"""The loop-level IR: lazily evaluated tensors and the scheduled items. Backend-neutral.

A *value* knows its shape and dtype and how to produce one element given an
index (a list of sympy expressions): ``value.load(ops, index)`` computes it with
the operations of an ops handler (``ops.py``) and returns the handler's value. The
IR holds no target text: the Triton code generator is one handler (``codegen.TritonOps``).

* :class:`Buffer` lives in memory (a graph input, a kernel output, an extern
  call's result) and is loaded through its strides.
* :class:`Pointwise` computes an element from its inputs' elements (its inner
  function ``fn(ops, index)``); it is inlined into whatever consumes it until it
  is *realized* into a Buffer.
* :class:`View` re-indexes another value (permute, reshape, expand, slice...):
  no copy, only index arithmetic.

Scheduled items (what the wrapper runs, in order) are :class:`PointwiseItem`,
:class:`ReductionItem` (a reduction as data: kind, dims, dtype; these two are
grouped into kernels by ``fuse.py``) and :class:`ExternItem` (an aten call in
the wrapper).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import sympy
import torch

from autograph.backends.triton.indexing import contiguous_strides, is_static, linearize

if TYPE_CHECKING:
    from autograph.backends.triton.ops import OpsHandler, OpsValue

Index = list  # list[sympy.Expr]


class IRNode:
    """A tensor-valued node of the Triton IR (not capture's symbolic ``Value``)."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    ops: int = 0  # number of ops inlined when this value is loaded (fusion bound)
    op_names: tuple[str, ...] = ()

    def load(self, ops: "OpsHandler", index: Index) -> "OpsValue":  # pragma: no cover - interface
        """The element at ``index``, computed with ``ops``."""
        raise NotImplementedError

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


@dataclass(eq=False)
class Buffer(IRNode):
    """A tensor in memory; ``name`` is its variable in the wrapper."""

    name: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    offset: int = 0
    producer: Any = None  # the item writing it (None for graph inputs)

    def load(self, ops: "OpsHandler", index: Index) -> "OpsValue":
        return ops.load(self, index)

    def flat_index(self, index: Index) -> sympy.Expr:
        return linearize(index, self.stride, self.offset)


def new_buffer(name: str, shape, dtype, device) -> Buffer:
    shape = tuple(int(s) if is_static(s) else s for s in shape)  # sizes may be size expressions
    return Buffer(name, shape, contiguous_strides(shape), dtype, device)


@dataclass(eq=False)
class Pointwise(IRNode):
    """An element computed by ``fn(ops, index)`` from other values' elements.

    ``op_names[0]`` names the op it counts as in a kernel (the kernel's name, its op total)
    unless ``counted`` is False (a helper value of a decomposed op, such as var's mean)."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    fn: Callable[["OpsHandler", Index], "OpsValue"]
    ops: int = 1
    op_names: tuple[str, ...] = ()
    counted: bool = True
    # the item that realized this value into a buffer, when items after it may read that buffer
    # instead of recomputing the value (set by ``fuse.note_stored_values``)
    stored: "PointwiseItem | None" = None

    def load(self, ops: "OpsHandler", index: Index) -> "OpsValue":
        return ops.pointwise(self, index)


@dataclass(eq=False)
class View(IRNode):
    base: IRNode
    shape: tuple[int, ...]
    reindex: Callable[[Index], Index]
    fx_node: Any = None

    @property
    def dtype(self) -> torch.dtype:  # type: ignore[override]
        return self.base.dtype

    @property
    def ops(self) -> int:  # type: ignore[override]
        return self.base.ops

    @property
    def op_names(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.base.op_names

    def load(self, ops: "OpsHandler", index: Index) -> "OpsValue":
        return self.base.load(ops, self.reindex(list(index)))


# torch's semantics: max/min propagate NaN, argmax/argmin pick the first NaN (else the first extremum)
# welford_mean/welford_m2: a row's mean and sum of squared deviations in one pass (``online.py``;
# var of looped rows)
REDUCTION_KINDS = ("sum", "prod", "max", "min", "argmax", "argmin", "welford_mean", "welford_m2")

# A reduction over at most this many (static) elements is computed in one block per row; longer or
# symbolic ones loop. Arg-reductions are written for one block only (lowerings decline the others).
PERSISTENT_MAX = 1024


@dataclass(eq=False)
class PointwiseItem:
    """Compute ``value`` over ``buffer.shape`` and store it into ``buffer``."""

    buffer: Buffer
    value: IRNode
    op_names: tuple[str, ...] = ()
    order: int = -1  # position in program order among the graph's items (-1: unknown)

    @property
    def ops(self) -> int:
        return max(1, self.value.ops)


@dataclass(eq=False)
class ReductionItem:
    """Reduce ``input`` over ``rdims`` (dims of ``input.shape``) into ``buffer``.

    ``kind`` is one of :data:`REDUCTION_KINDS`; the accumulator's dtype is ``buffer.dtype``'s
    compute dtype (``input``'s for arg-reductions)."""

    buffer: Buffer
    input: IRNode
    rdims: tuple[int, ...]
    kind: str
    keepdim: bool
    op_names: tuple[str, ...] = ()
    order: int = -1  # position in program order among the graph's items (-1: unknown)

    @property
    def ops(self) -> int:
        return max(1, self.input.ops) + 1

    @property
    def xshape(self) -> tuple[int, ...]:
        return tuple(s for d, s in enumerate(self.input.shape) if d not in self.rdims)

    @property
    def rshape(self) -> tuple[int, ...]:
        return tuple(self.input.shape[d] for d in self.rdims)


@dataclass(eq=False)
class ExternItem:
    """``name = target(*args, **kwargs)`` run by the wrapper (aten op on real tensors)."""

    name: str
    target: Any
    args: tuple
    kwargs: dict
    reason: str = ""
    check_strides: list = field(default_factory=list)  # (name, size, stride) to enforce
    # a view of a tensor in memory with a layout known when compiling: (base Buffer, size, stride,
    # storage offset from the base's); the wrapper makes it without a dispatcher call
    view: tuple | None = None
    aliases_only: bool = False  # the op only makes views (no effect, no new memory): dropped when unused


Item = Any  # PointwiseItem | ReductionItem | ExternItem
