"""Reduction lowerings (sum, prod, max/min, argmax/argmin, mean, var, any/all)."""
from __future__ import annotations

import math

import sympy
import torch

from autograph.backends.triton.indexing import delinearize, is_static
from autograph.backends.triton.ir import PERSISTENT_MAX, Pointwise, IRNode, View
from autograph.backends.triton.lower import LoweringDeclined, meta, register
from autograph.backends.triton.ops import compute_dtype

aten = torch.ops.aten
prims = torch.ops.prims


@register(aten.sum.dim_IntList)
def _sum(L, node, a, dims, keepdim=False, dtype=None):
    return L.reduce(node, a, dims, keepdim, "sum")


@register(aten.sum.default)
def _sum_all(L, node, a, dtype=None):
    return L.reduce(node, a, None, False, "sum")


@register(aten.prod.dim_int)
def _prod(L, node, a, dim, keepdim=False, dtype=None):
    return L.reduce(node, a, [dim], keepdim, "prod")


@register(aten.prod.default)
def _prod_all(L, node, a, dtype=None):
    return L.reduce(node, a, None, False, "prod")


@register(aten.amax.default)
def _amax(L, node, a, dims=(), keepdim=False):
    return L.reduce(node, a, list(dims), keepdim, "max")


@register(aten.amin.default)
def _amin(L, node, a, dims=(), keepdim=False):
    return L.reduce(node, a, list(dims), keepdim, "min")


@register(aten.max.default)
def _max_all(L, node, a):
    return L.reduce(node, a, None, False, "max")


@register(aten.min.default)
def _min_all(L, node, a):
    return L.reduce(node, a, None, False, "min")


def _arg(kind):
    def lower(L, node, a, dim=None, keepdim=False):
        if not isinstance(a, IRNode):
            raise LoweringDeclined("argmax of a non-tensor")
        if dim is None:
            flat = (a.numel,)
            shape = tuple(a.shape)
            a = View(a, flat, lambda idx: delinearize(idx[0], shape))
            dim = 0
        return L.reduce(node, a, [dim], keepdim, kind)

    return lower


register(aten.argmax.default)(_arg("argmax"))
register(aten.argmin.default)(_arg("argmin"))


def _count(ops, count):
    """The element count a mean/var divides by: a float constant (var's ``count - correction``
    may be fractional), or a size expression (its symbols are kernel arguments) when the reduced
    size is symbolic."""
    if isinstance(count, float) or is_static(count):
        return ops.constant(float(count), torch.float32)
    return ops.index_expr(count, torch.int64)


def _divided(name: str, value, count, dtype: torch.dtype, shape: tuple, index_of=lambda idx: idx) -> Pointwise:
    """``value / count`` element by element (a part of var: not counted as an op of its own)."""
    return Pointwise(shape, dtype, lambda ops, idx: ops.truediv(value.load(ops, index_of(idx)), _count(ops, count)),
                     1, (name,), counted=False)


@register(aten.mean.dim, aten.mean.default)
def _mean(L, node, a, dims=None, keepdim=False, dtype=None):
    if not meta(node).dtype.is_floating_point or not isinstance(a, IRNode):
        raise LoweringDeclined("mean of integers")
    ndim = len(a.shape)
    all_dims = range(ndim) if not dims else [d % ndim for d in dims]
    count = math.prod(a.shape[d] for d in all_dims)
    total = L.reduce(node, a, dims, keepdim, "sum", out_dtype=compute_dtype(meta(node).dtype))
    return L.pointwise(node, [total], lambda ops, s: ops.truediv(s, _count(ops, count)), "mean")


@register(aten.var.correction, aten.var_mean.correction)
def _var(L, node, a, dims=None, *, correction=None, keepdim=False):
    """Two passes over each row in one kernel: the mean, then the squared deviations from it
    (rows of at most ``PERSISTENT_MAX`` elements: exact as before); a looped row takes one pass,
    Welford's (``online.write_welford``).

    The mean is shifted by the row's first element, ``k + sum(x - k) / n``: a row whose plain
    sum overflows (values near the float maximum) still has a finite mean and variance. Where
    the shifted mean is not finite (an inf or NaN in the row, or differences that overflow,
    whose variance is inf anyway) the plain ``sum(x) / n`` is used: it is what eager gives there.
    """
    out = meta(node)
    var_meta = out[0] if isinstance(out, (tuple, list)) else out
    if not var_meta.dtype.is_floating_point or not isinstance(a, IRNode):
        raise LoweringDeclined("var of integers")
    ndim = len(a.shape)
    rdims = tuple(range(ndim)) if not dims else tuple(sorted({d % ndim for d in dims}))
    count = math.prod(a.shape[d] for d in rdims)
    correction = 1 if correction is None else correction
    if not is_static(count) and not (isinstance(correction, (int, float)) and 0 <= correction <= 2):
        raise LoweringDeclined("var of a symbolic size with this correction")
    if is_static(count):
        denom = max(0, count - correction)
    elif correction == int(correction):
        denom = count - int(correction)
    else:
        raise LoweringDeclined("fractional correction with a symbolic size")
    acc = compute_dtype(var_meta.dtype)
    xshape = tuple(s for d, s in enumerate(a.shape) if d not in rdims)
    keep = tuple(1 if d in rdims else s for d, s in enumerate(a.shape))
    full = tuple(a.shape)

    def per_row(idx):
        return [i for d, i in enumerate(idx) if d not in rdims]

    def first_of_row(idx):  # a full index -> the index of its row's first element
        return [sympy.Integer(0) if d in rdims else i for d, i in enumerate(idx)]

    def row_start(idx):  # a row index -> the index of the row's first element
        rows = iter(idx)
        return [sympy.Integer(0) if d in rdims else next(rows) for d in range(ndim)]

    out_shape = keep if keepdim else xshape
    squeeze = (lambda idx: per_row(idx)) if keepdim else (lambda idx: idx)
    if not (is_static(count) and int(count) <= PERSISTENT_MAX):
        # a looped row: Welford's mean and M2 in one pass over it (three passes otherwise)
        mean = L.reduce_to(a, rdims, "welford_mean", xshape, acc)
        var = _divided("var", L.reduce_to(a, rdims, "welford_m2", xshape, acc), denom, var_meta.dtype,
                       out_shape, squeeze)
        return var if node.target is not aten.var_mean.correction else (var, _row_mean(mean, out_shape, var_meta, squeeze))
    total = L.reduce_to(a, rdims, "sum", xshape, acc)
    shifted = L.pointwise_value(full, acc, [a, View(a, full, first_of_row)], lambda ops, x, k: ops.sub(x, k), "sub")
    shifted_total = L.reduce_to(shifted, rdims, "sum", xshape, acc)
    first = View(a, xshape, row_start)

    def mean_of_row(ops, idx):
        n = _count(ops, count)
        plain = ops.truediv(total.load(ops, idx), n)
        k = first.load(ops, idx)
        if compute_dtype(a.dtype) != acc:
            k = ops.to_dtype(k, acc, a.dtype)
        moved = ops.add(k, ops.truediv(shifted_total.load(ops, idx), n))
        finite = ops.lt(ops.abs(moved), ops.constant(math.inf, acc))
        return ops.where(finite, moved, plain)

    mean = Pointwise(xshape, acc, mean_of_row, 1, ("mean",), counted=False)
    mean_full = View(mean, full, per_row)
    dev = L.pointwise_value(full, acc, [a, mean_full], lambda ops, x, m: ops.mul(ops.sub(x, m), ops.sub(x, m)), "sub")
    sq = L.reduce_to(dev, rdims, "sum", xshape, acc)
    var = _divided("var", sq, denom, var_meta.dtype, out_shape, squeeze)
    if node.target is not aten.var_mean.correction:
        return var
    return (var, _row_mean(mean, out_shape, var_meta, squeeze))


def _row_mean(mean, out_shape: tuple, var_meta, squeeze) -> Pointwise:
    """var_mean's mean output, read from the per-row mean."""
    return Pointwise(out_shape, var_meta.dtype, lambda ops, idx: mean.load(ops, squeeze(idx)), 1, ("mean",),
                     counted=False)


@register(prims.sum.default)
def _prims_sum(L, node, a, dims, *, output_dtype=None):
    if not meta(node).dtype.is_floating_point:
        raise LoweringDeclined("prims.sum of integers (its meta dtype is not the dtype eager returns)")
    return L.reduce(node, a, list(dims), False, "sum")


@register(prims.amax.default)
def _prims_amax(L, node, a, dims):
    return L.reduce(node, a, list(dims), False, "max")


@register(prims.amin.default)
def _prims_amin(L, node, a, dims):
    return L.reduce(node, a, list(dims), False, "min")


@register(prims.var.default)
def _prims_var(L, node, a, dims, correction=1, *, output_dtype=None):
    return _var(L, node, a, list(dims), correction=correction, keepdim=False)


def _bool_reduce(kind: str):
    """any/all: max/min of ``x != 0`` as int32, compared back to a bool."""

    def lower(L, node, a, dim=None, keepdim=False):
        if not isinstance(a, IRNode):
            raise LoweringDeclined("any/all of a non-tensor")
        as_int = Pointwise(tuple(a.shape), torch.int32,
                           lambda ops, idx: ops.to_dtype(ops.ne(a.load(ops, idx), ops.constant(0, a.dtype)), torch.int32, torch.bool),
                           1 + a.ops, ("ne",) + a.op_names, counted=False)
        dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
        red = L.reduce(node, as_int, dims, keepdim, kind, out_dtype=torch.int32)
        return L.pointwise(node, [red], lambda ops, v: ops.ne(v, ops.constant(0, torch.int32)), "any" if kind == "max" else "all",
                           compute=torch.int32)

    return lower


register(aten.any.dim, aten.any.dims, aten.any.default)(_bool_reduce("max"))
register(aten.all.dim, aten.all.dims, aten.all.default)(_bool_reduce("min"))
