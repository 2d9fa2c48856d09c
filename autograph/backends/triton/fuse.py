"""Group scheduled items into kernels.

Items arrive in program order. Each pointwise or reduction item tries to join
the kernel being built (the last group): a pointwise item over the same shape
(vertical fusion of a realized chain, or horizontal siblings), a reduction over
the same iteration space (several reductions of one row, e.g. mean and
variance), or an epilogue reading a reduction's result per row (softmax's
``exp(x - max) / sum``). The writer in ``codegen.py`` decides whether the
join is valid by generating the kernel; if a value computed in the kernel
would have to be read at another index, it raises ``CannotFuse`` and the item
starts a new kernel. An extern call always ends the current kernel.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import sympy

from autograph.backends.triton.context import CompileContext
from autograph.backends.triton.codegen import MAX_KERNEL_OPS, CannotFuse, kernel_source
from autograph.backends.triton.indexing import is_static
from autograph.backends.triton.ir import PERSISTENT_MAX, ExternItem, Pointwise, PointwiseItem, ReductionItem
from autograph.backends.triton.online import ExprRecorder


@dataclass(eq=False)
class KernelGroup:
    kind: str  # "pointwise" | "reduction"
    full_shape: tuple[int, ...]
    rdims: tuple[int, ...] = ()
    items: list = field(default_factory=list)

    @property
    def xshape(self) -> tuple[int, ...]:
        return tuple(s for d, s in enumerate(self.full_shape) if d not in self.rdims)

    @property
    def rshape(self) -> tuple[int, ...]:
        return tuple(self.full_shape[d] for d in self.rdims)

    @property
    def keep_shape(self) -> tuple[int, ...]:
        return tuple(1 if d in self.rdims else s for d, s in enumerate(self.full_shape))

    @property
    def xnumel(self) -> int:
        return math.prod(self.xshape)

    @property
    def rnumel(self) -> int:
        return math.prod(self.rshape)

    @property
    def persistent(self) -> bool:
        # a symbolic reduced size loops (correct for any size) instead of one block per row
        return self.kind == "reduction" and is_static(self.rnumel) and self.rnumel <= PERSISTENT_MAX

    @property
    def ops(self) -> int:
        return sum(item.ops for item in self.items)

    def with_item(self, item) -> "KernelGroup | None":
        """A copy of this group with ``item`` added, or None when shapes cannot match."""
        if isinstance(item, ReductionItem):
            shape, rdims = tuple(item.input.shape), tuple(item.rdims)
            if self.kind == "pointwise" and shape == self.full_shape:
                return KernelGroup("reduction", shape, rdims, self.items + [item])
            if self.kind == "reduction" and (shape, rdims) == (self.full_shape, self.rdims):
                return KernelGroup("reduction", shape, rdims, self.items + [item])
            return None
        shape = tuple(item.buffer.shape)
        if shape == self.full_shape or (self.kind == "reduction" and shape in (self.keep_shape, self.xshape)):
            return KernelGroup(self.kind, self.full_shape, self.rdims, self.items + [item])
        return None


def new_group(item) -> KernelGroup:
    if isinstance(item, ReductionItem):
        return KernelGroup("reduction", tuple(item.input.shape), tuple(item.rdims), [item])
    return KernelGroup("pointwise", tuple(item.buffer.shape), (), [item])


def fits(group: KernelGroup, gpu: bool, ctx: CompileContext) -> bool:
    if group.ops > MAX_KERNEL_OPS:
        return False
    try:
        kernel_source(group, "probe", persistent=group.persistent, stores=None, gpu=False, ctx=ctx)
    except CannotFuse:
        return False
    return True


def _reads(item, ctx: CompileContext) -> set[str]:
    """Names of the buffers ``item`` loads (by generating it alone)."""
    group = new_group(item)
    _, writer = kernel_source(group, "probe", persistent=group.persistent, stores=None, gpu=False, ctx=ctx)
    return set(writer.in_args)


def _writes(step) -> set[str]:
    if isinstance(step, ExternItem):
        return {step.name}
    return {item.buffer.name for item in step.items}


def _is_barrier(step) -> bool:
    """An extern that mutates memory: nothing moves across it."""
    if not isinstance(step, ExternItem) or step.target is operator.getitem:
        return False
    schema = getattr(step.target, "_schema", None)
    return schema is None or schema.is_mutable


LOOKBACK_KERNELS = 6  # how many earlier kernels an item may try to join


class _LeafLoads(ExprRecorder):
    """Records the buffers a value loads (its leaves, with every lazy value inlined)."""

    def __init__(self):
        self.buffers: dict[str, object] = {}

    def load(self, buffer, index):
        self.buffers[buffer.name] = buffer
        return ("load", buffer.name)


def _recompute_bytes(value) -> float | None:
    """Bytes per element recomputing ``value`` reads from memory, or None if the value cannot be
    followed (or has symbolic sizes). A leaf buffer smaller than the value counts in proportion
    to its size: a cat's inputs together are read once, a broadcast bias almost never."""
    if not is_static(value.numel):
        return None
    leaves = _LeafLoads()
    try:
        value.load(leaves, [sympy.Integer(0)] * len(value.shape))
    except Exception:  # noqa: BLE001 - such a value is simply recomputed, as before
        return None
    if not all(is_static(b.numel) for b in leaves.buffers.values()):
        return None
    return sum(b.dtype.itemsize * min(1.0, int(b.numel) / max(1, int(value.numel))) for b in leaves.buffers.values())


def note_stored_values(items: list, needed: set[str]) -> None:
    """Number the kernel items in program order, and mark each realized pointwise value whose
    buffer later items should read instead of recomputing the value.

    A realized value stays lazy for the lowerings that read it afterwards: a reduction over the
    input of a matmul (a bias gradient) recomputes the whole pointwise chain from its inputs (the
    GELU backward from the saved pre-activation, its tanh and the output gradient: 8 bytes per
    element) although the matmul's operand is already in memory (2 bytes). Reading the buffer is
    chosen when it reads no more bytes than recomputing (a value that is in memory anyway: an
    extern's argument or a graph output) or at most half (a value stored only for such readers:
    the store costs as much as the read)."""
    for i, item in enumerate(items):
        if isinstance(item, (PointwiseItem, ReductionItem)):
            item.order = i
    for item in items:
        if not isinstance(item, PointwiseItem) or not isinstance(item.value, Pointwise):
            continue
        value = item.value
        recompute = _recompute_bytes(value)
        if recompute is None:
            continue
        stored = item.buffer.dtype.itemsize * (1 if item.buffer.name in needed else 2)
        value.stored = item if stored <= recompute else None


def fuse(items: list, *, ctx: CompileContext, gpu: bool = False, enabled: bool = True,
         needed: set[str] | None = None) -> list:
    """Return the schedule: a list of ``KernelGroup`` and ``ExternItem`` in run order.

    A kernel item joins the latest compatible kernel it can legally move up to:
    it may hop over extern calls and other kernels that produce nothing it
    reads (e.g. a saved activation realized at the end of a forward graph joins
    the kernel that computed its inputs, before a matmul). ``needed``: buffers in memory
    anyway (graph outputs, extern arguments), see :func:`note_stored_values`.
    """
    note_stored_values(items, needed or set())
    schedule: list = []
    for item in items:
        if isinstance(item, ExternItem):
            schedule.append(item)
            continue
        assert isinstance(item, (PointwiseItem, ReductionItem))
        if enabled:
            reads = _reads(item, ctx)
            placed, tried = False, 0
            for pos in range(len(schedule) - 1, -1, -1):
                step = schedule[pos]
                if isinstance(step, KernelGroup):
                    tried += 1
                    if tried > LOOKBACK_KERNELS:
                        break
                    candidate = step.with_item(item)
                    if candidate is not None and fits(candidate, gpu, ctx):
                        schedule[pos] = candidate
                        placed = True
                        break
                if _is_barrier(step) or (_writes(step) & reads):
                    break
            if placed:
                continue
        schedule.append(new_group(item))
    return schedule
