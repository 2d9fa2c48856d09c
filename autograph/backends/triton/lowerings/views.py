"""View lowerings: no copy, only index arithmetic (``View.reindex``)."""
from __future__ import annotations

import operator

import sympy
import torch

from autograph.backends.triton.indexing import contiguous_strides, delinearize, is_static, linearize
from autograph.backends.triton.ir import IRNode, View
from autograph.backends.triton.lower import LoweringDeclined, broadcast_index, meta, register, shape_of

aten = torch.ops.aten
prims = torch.ops.prims


def _view_of(L, node, base, reindex):
    if not isinstance(base, IRNode):
        raise LoweringDeclined("view of a non-tensor")
    return View(base, shape_of(meta(node)), reindex, fx_node=node)


@register(aten.view.default, aten._unsafe_view.default, aten.reshape.default)
def _reshape(L, node, a, shape):
    out_shape = shape_of(meta(node))
    in_shape = tuple(a.shape)
    groups = reshape_groups(out_shape, in_shape)

    def reindex(idx):
        if groups is None:
            return delinearize(linearize(idx, contiguous_strides(out_shape)), in_shape, in_range=True)
        out: list = []
        for (o0, o1), (i0, i1) in groups:
            flat = linearize(idx[o0:o1], contiguous_strides(out_shape[o0:o1]))
            out += delinearize(flat, in_shape[i0:i1], in_range=True)
        return out

    return _view_of(L, node, a, reindex)


def reshape_groups(out_shape: tuple, in_shape: tuple) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:
    """The reshape as independent groups of dims, ``((out_start, out_end), (in_start, in_end))``
    whose sizes have equal products, or None when sizes cannot be matched (symbolic sizes that
    differ): then the whole index is flattened and split again.

    Only a group's own dims are flattened: ``(8, 512, 768) -> (8, 512, 12, 64)`` keeps ``x0`` and
    ``x1`` and splits only ``x2`` into ``x2 // 64, x2 % 64``, where a whole flatten gives every dim
    a ``//`` and ``%`` of the flat index, which later simplification cannot always undo (a cat's
    shifted index ``x2 - 1536`` has no known sign) and which hides contiguity from triton's
    vectorizer (Inductor's ``_dynamic_reshape_indexer`` works this way)."""
    groups = []
    i = j = 0
    while i < len(out_shape) and j < len(in_shape):
        o0, i0 = i, j
        po, pi = out_shape[i], in_shape[j]
        i, j = i + 1, j + 1
        while sympy.expand(sympy.sympify(po) - pi) != 0:
            if not (is_static(po) and is_static(pi)):
                return None
            if int(po) < int(pi) and i < len(out_shape):
                po, i = po * out_shape[i], i + 1
            elif int(pi) < int(po) and j < len(in_shape):
                pi, j = pi * in_shape[j], j + 1
            else:
                return None
        groups.append(((o0, i), (i0, j)))
    rest_out, rest_in = out_shape[i:], in_shape[j:]
    if any(s != 1 for s in rest_out + rest_in):
        return None
    if rest_in:  # trailing size-1 input dims: index 0
        groups.append(((i, i), (j, len(in_shape))))
    return groups


@register(aten.permute.default)
def _permute(L, node, a, dims):
    dims = [d % max(1, len(a.shape)) for d in dims]

    def reindex(idx):
        out = [None] * len(dims)
        for i, d in enumerate(dims):
            out[d] = idx[i]
        return out

    return _view_of(L, node, a, reindex)


@register(aten.t.default)
def _t(L, node, a):
    return _view_of(L, node, a, lambda idx: list(reversed(idx)))


@register(aten.transpose.int)
def _transpose(L, node, a, d0, d1):
    n = max(1, len(a.shape))
    d0, d1 = d0 % n, d1 % n

    def reindex(idx):
        idx = list(idx)
        if len(idx) > 1:
            idx[d0], idx[d1] = idx[d1], idx[d0]
        return idx

    return _view_of(L, node, a, reindex)


@register(aten.expand.default)
def _expand(L, node, a, sizes):
    out_shape = shape_of(meta(node))
    return _view_of(L, node, a, lambda idx: broadcast_index(idx, out_shape, tuple(a.shape)))


@register(aten.unsqueeze.default)
def _unsqueeze(L, node, a, dim):
    dim = dim % (len(a.shape) + 1)
    return _view_of(L, node, a, lambda idx: idx[:dim] + idx[dim + 1:])


@register(aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default)
def _squeeze(L, node, a, dims=None):
    in_shape = tuple(a.shape)
    if dims is None:
        dims = [d for d, s in enumerate(in_shape) if s == 1]
    elif isinstance(dims, int):
        dims = [dims]
    removed = {d % max(1, len(in_shape)) for d in dims if in_shape and in_shape[d % len(in_shape)] == 1}

    def reindex(idx):
        it = iter(idx)
        return [sympy.Integer(0) if d in removed else next(it) for d in range(len(in_shape))]

    return _view_of(L, node, a, reindex)


@register(aten.slice.Tensor)
def _slice(L, node, a, dim=0, start=None, end=None, step=1):
    size = a.shape[dim]
    dim = dim % len(a.shape)
    start = 0 if start is None else start
    if not isinstance(start, int):
        raise LoweringDeclined("slice start known only at run time")
    if is_static(size):
        start = max(0, min(size, start + size if start < 0 else start))
    elif start < 0:
        raise LoweringDeclined("negative slice start on a symbolic size")
    # a symbolic size with 0 <= start: elements start, start+step, ... (the output is not empty)

    def reindex(idx):
        idx = list(idx)
        idx[dim] = start + step * idx[dim]
        return idx

    return _view_of(L, node, a, reindex)


@register(aten.flip.default)
def _flip(L, node, a, dims):
    n = len(a.shape)
    flipped = {d % n for d in dims}
    return _view_of(L, node, a, lambda idx: [a.shape[d] - 1 - i if d in flipped else i for d, i in enumerate(idx)])


@register(aten.select.int)
def _select(L, node, a, dim, index):
    dim = dim % len(a.shape)
    index = index % a.shape[dim]
    return _view_of(L, node, a, lambda idx: idx[:dim] + [sympy.Integer(index)] + idx[dim:])


@register(prims.broadcast_in_dim.default)
def _broadcast_in_dim(L, node, a, shape, broadcast_dimensions):
    in_shape = tuple(a.shape)
    return _view_of(L, node, a, lambda idx: [sympy.Integer(0) if in_shape[i] == 1 else idx[d]
                                             for i, d in enumerate(broadcast_dimensions)])


@register(operator.getitem)
def _getitem(L, node, seq, i):
    if isinstance(seq, (list, tuple)):
        return seq[i]
    raise LoweringDeclined("getitem of a runtime value")
