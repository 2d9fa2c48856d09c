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
    return _view_of(L, node, a, lambda idx: delinearize(linearize(idx, contiguous_strides(out_shape)), in_shape))


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
