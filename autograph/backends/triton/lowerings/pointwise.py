"""Pointwise lowerings: element i of the result from element i of the (broadcast) inputs.

Masked-load values (cat, padding, slice_scatter) are pointwise too: each element
reads the input whose range holds it.
"""
from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import sympy
import torch

from autograph.backends.triton.indexing import FloorDiv, is_static
from autograph.backends.triton.ir import Pointwise, IRNode
from autograph.backends.triton.lower import LoweringDeclined, meta, promoted, register, scalar, shape_of
from autograph.backends.triton.ops import HALF_DTYPES, compute_dtype

if TYPE_CHECKING:
    from autograph.backends.triton.lower import Lowering

aten = torch.ops.aten
prims = torch.ops.prims


BOOL_ARITHMETIC = {"add": "or_", "mul": "and_"}


def cpu_half_scalar(L: Lowering, a, b):
    """``(a, b)`` with a Python float operand rounded to the half dtype of the tensor operand,
    on CPU tensors only: aten's CPU kernels of add/sub/rsub convert such a scalar to the tensor's
    dtype before computing in float32 (``fp16(-0.3) + 0.3`` is 0 there); its CUDA kernels keep
    the scalar in float32, as the kernels do (comparisons: :func:`half_scalar`)."""
    if L.device is None or L.device.type != "cpu":
        return a, b

    def rounded(scalar, tensor):
        if isinstance(tensor, IRNode) and tensor.dtype in HALF_DTYPES and isinstance(scalar, float):
            return float(torch.tensor(scalar, dtype=tensor.dtype))
        return scalar

    return rounded(a, b), rounded(b, a)


def on_cuda(L: Lowering) -> bool:
    """Whether the graph's tensors are on a CUDA device (aten's CUDA kernels round some results
    differently from its CPU kernels; the kernels follow the device the graph runs on)."""
    return L.device is not None and L.device.type == "cuda"


def half_scalar(a, b):
    """``(a, b)`` with a Python float operand rounded to the half dtype of the tensor operand:
    aten's comparison kernels, CPU and CUDA alike, compare in the tensor's dtype
    (``fp16(0.3) == 0.3`` is true in eager)."""

    def rounded(scalar, tensor):
        if isinstance(tensor, IRNode) and tensor.dtype in HALF_DTYPES and isinstance(scalar, float):
            return float(torch.tensor(scalar, dtype=tensor.dtype))
        return scalar

    return rounded(a, b), rounded(b, a)


def _binary(op: str, name: str):
    """``a op b`` (``alpha`` scales ``b``, as in ``add(a, b, alpha=2)``)."""

    def lower(L: Lowering, node, a, b, **kw):
        if op in ("add", "sub"):
            a, b = cpu_half_scalar(L, a, b)
        alpha = kw.get("alpha", 1)
        if meta(node).dtype == torch.bool:  # bool + bool is logical or, bool * bool logical and
            if op not in BOOL_ARITHMETIC or alpha != 1:
                raise LoweringDeclined(f"{op} of bools")
            return L.pointwise(node, [a, b], lambda ops, x, y: getattr(ops, BOOL_ARITHMETIC[op])(x, y), name)

        def body(ops, x, y):
            if alpha != 1:
                y = ops.mul(ops.constant(alpha, meta(node).dtype), y)
            return getattr(ops, op)(x, y)

        return L.pointwise(node, [a, b], body, name)

    return lower


register(aten.add.Tensor, aten.add.Scalar)(_binary("add", "add"))
register(aten.sub.Tensor, aten.sub.Scalar)(_binary("sub", "sub"))
register(aten.mul.Tensor, aten.mul.Scalar)(_binary("mul", "mul"))


@register(aten.rsub.Scalar, aten.rsub.Tensor)
def _rsub(L, node, a, b, alpha=1):
    a, b = cpu_half_scalar(L, a, b)
    return L.pointwise(node, [a, b], lambda ops, x, y: ops.sub(y, ops.mul(ops.constant(alpha, meta(node).dtype), x)),
                       "rsub")


@register(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode)
def _div(L, node, a, b, rounding_mode=None):
    if not meta(node).dtype.is_floating_point:
        raise LoweringDeclined("integer division")
    dtype = meta(node).dtype
    if rounding_mode is None:
        if on_cuda(L) and isinstance(b, (int, float)) and not isinstance(b, bool):
            # aten's CUDA kernel divides by a CPU scalar as a * (1 / b), the reciprocal computed
            # once in the op-math type (div_true_kernel_cuda): x / 3 there is not x / 3 on the CPU
            inverse = reciprocal_in(float(b), compute_dtype(dtype))
            return L.pointwise(node, [a], lambda ops, x: ops.mul(x, ops.constant(inverse, dtype)), "div")
        return L.pointwise(node, [a, b], lambda ops, x, y: ops.truediv(x, y), "div")
    if dtype in HALF_DTYPES:
        # aten rounds intermediate results of its rounding division to the half type (vectorized
        # and scalar loops alike); the float32 registers of a kernel would give other integers
        raise LoweringDeclined(f"{rounding_mode} division of {dtype}")
    if rounding_mode == "floor":
        if on_cuda(L) and isinstance(b, (int, float)) and not isinstance(b, bool):
            # div_floor_kernel_cuda: by a CPU scalar b, (a - fmod(a, b)) * (1 / b); by zero, a * (1 / b)
            inverse = reciprocal_in(float(b), compute_dtype(dtype))
            if b == 0:
                return L.pointwise(node, [a], lambda ops, x: ops.mul(x, ops.constant(inverse, dtype)), "div")
            return L.pointwise(node, [a, b], lambda ops, x, y: floor_divide(ops, x, y, dtype, inverse), "div")
        return L.pointwise(node, [a, b], lambda ops, x, y: floor_divide(ops, x, y, dtype), "div")
    if on_cuda(L) and isinstance(b, (int, float)) and not isinstance(b, bool):
        # div_trunc_kernel_cuda: by a CPU scalar b, trunc(a * (1 / b)), the reciprocal in the
        # op-math type (uint8 30 / 0.3 truncates to 100 on CUDA, 99 on the CPU)
        inverse = reciprocal_in(float(b), compute_dtype(dtype))
        return L.pointwise(node, [a], lambda ops, x: ops.trunc(ops.mul(x, ops.constant(inverse, dtype))), "div")
    return L.pointwise(node, [a, b], lambda ops, x, y: ops.trunc(ops.truediv(x, y)), "div")


def reciprocal_in(value: float, dtype: torch.dtype) -> float:
    """``1 / value`` computed in ``dtype`` (float32 or float64), as a Python float (IEEE: ±inf for ±0)."""
    divisor = torch.tensor(value, dtype=dtype)
    return float(torch.tensor(1.0, dtype=dtype) / divisor)


def floor_divide(ops, a, b, dtype: torch.dtype, inverse: float | None = None):
    """Python's ``a // b`` of floats, exactly as aten computes it (``div_floor_floating``): from
    the exact remainder ``fmod(a, b)``, not ``floor(a / b)``, whose rounding can cross an integer
    (``3.0 // 0.3`` is 9, ``floor(3.0 / 0.3)`` is 10). ``inverse``: ``1 / b`` for a nonzero scalar
    ``b``, which aten's CUDA kernel multiplies by instead of dividing."""
    zero, one = ops.constant(0.0, dtype), ops.constant(1.0, dtype)
    mod = ops.fmod(a, b)
    if inverse is None:
        div, quotient = ops.truediv(ops.sub(a, mod), b), ops.truediv(a, b)
    else:
        div, quotient = (ops.mul(v, ops.constant(inverse, dtype)) for v in (ops.sub(a, mod), a))
    wrong_sign = ops.and_(ops.ne(mod, zero), ops.ne(ops.lt(b, zero), ops.lt(mod, zero)))
    div = ops.where(wrong_sign, ops.sub(div, one), div)
    floored = ops.floor(div)
    floored = ops.where(ops.gt(ops.sub(div, floored), ops.constant(0.5, dtype)), ops.add(floored, one), floored)
    signed_zero = ops.where(ops.lt(quotient, zero), ops.constant(-0.0, dtype),
                            ops.where(ops.gt(quotient, zero), zero, quotient))  # copysign(0, a / b)
    floored = ops.where(ops.eq(div, zero), signed_zero, floored)
    if inverse is not None:  # b is a nonzero scalar
        return floored
    return ops.where(ops.eq(b, zero), quotient, floored)  # division by zero: the IEEE quotient


def _float_only(node):
    if not meta(node).dtype.is_floating_point:
        raise LoweringDeclined("float-only op on integers")


def _unary(op: str, float_only: bool = True):
    def lower(L: Lowering, node, a):
        if float_only:
            _float_only(node)
        return L.pointwise(node, [a], lambda ops, x: getattr(ops, op)(x), op)

    return lower


for _op in ["exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh",
            "sigmoid", "erf", "reciprocal", "floor", "ceil", "trunc"]:
    register(getattr(aten, _op).default)(_unary(_op))

register(aten.neg.default)(_unary("neg", float_only=False))
register(aten.abs.default)(_unary("abs", float_only=False))


def nan_max(ops, x, bound):
    """``max(x, bound)`` keeping a NaN ``x`` (torch's clamp and relu: ``clamp(nan) is nan``)."""
    return ops.where(ops.or_(ops.gt(x, bound), ops.isnan(x)), x, bound)


def nan_min(ops, x, bound):
    return ops.where(ops.or_(ops.lt(x, bound), ops.isnan(x)), x, bound)


@register(aten.relu.default)
def _relu(L, node, a):
    dtype = meta(node).dtype
    if dtype == torch.bool:
        raise LoweringDeclined("relu of bools")
    # relu(nan) is nan; relu(-0.0) is -0.0 in aten's CPU kernel (only negatives become 0) and
    # +0.0 in its CUDA kernel (every x <= 0 becomes 0)
    below = (lambda ops, x, zero: ops.le(x, zero)) if on_cuda(L) else (lambda ops, x, zero: ops.lt(x, zero))
    return L.pointwise(node, [a], lambda ops, x: ops.where(below(ops, x, ops.constant(0, dtype)), ops.constant(0, dtype), x),
                       "relu")


@register(aten.sign.default)
def _sign(L, node, a):
    if a.dtype == torch.bool:
        raise LoweringDeclined("sign of bool")

    def body(ops, x):
        zero = ops.constant(0, a.dtype)
        return ops.sub(ops.to_dtype(ops.gt(x, zero), a.dtype, torch.bool), ops.to_dtype(ops.lt(x, zero), a.dtype, torch.bool))

    return L.pointwise(node, [a], body, "sign")


@register(aten.isnan.default)
def _isnan(L, node, a):
    return L.pointwise(node, [a], lambda ops, x: ops.isnan(x), "isnan", compute=compute_dtype(a.dtype))


@register(aten.logical_not.default)
def _lnot(L, node, a):
    return L.pointwise(node, [a], lambda ops, x: ops.logical_not(x), "logical_not", compute=compute_dtype(a.dtype))


@register(aten.bitwise_not.default)
def _bnot(L, node, a):
    if a.dtype != torch.bool:
        raise LoweringDeclined("bitwise_not of integers")
    return L.pointwise(node, [a], lambda ops, x: ops.logical_not(x), "bitwise_not", compute=torch.bool)


def _compare(name: str):
    def lower(L, node, a, b):
        compute = promoted(a, b)
        a, b = half_scalar(a, b)
        return L.pointwise(node, [a, b], lambda ops, x, y: getattr(ops, name)(x, y), name, compute=compute)

    return lower


for _name in ["eq", "ne", "lt", "le", "gt", "ge"]:
    register(getattr(aten, _name).Tensor, getattr(aten, _name).Scalar)(_compare(_name))


def _logical(op: str, name: str):
    """``logical_and`` & co: the truth of each input (``!= 0``) combined."""

    def lower(L, node, a, b):
        compute = promoted(a, b)

        def body(ops, x, y):
            zero = ops.constant(0, compute)
            return getattr(ops, op)(ops.ne(x, zero), ops.ne(y, zero))

        return L.pointwise(node, [a, b], body, name, compute=compute)

    return lower


register(aten.logical_and.default)(_logical("and_", "logical_and"))
register(aten.logical_or.default)(_logical("or_", "logical_or"))
register(aten.logical_xor.default)(_logical("xor", "logical_xor"))


def _bitwise(op: str, name: str):
    def lower(L, node, a, b):
        if meta(node).dtype.is_floating_point:
            raise LoweringDeclined("bitwise op on floats")
        return L.pointwise(node, [a, b], lambda ops, x, y: getattr(ops, op)(x, y), name)

    return lower


register(aten.bitwise_and.Tensor, aten.bitwise_and.Scalar)(_bitwise("and_", "bitwise_and"))
register(aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)(_bitwise("or_", "bitwise_or"))
register(aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar)(_bitwise("xor", "bitwise_xor"))


def _extremum(name: str):
    """``maximum``/``minimum``: a NaN in either input propagates for floats (``x + y`` is NaN)."""
    def lower(L, node, a, b):
        if meta(node).dtype.is_floating_point:
            return L.pointwise(node, [a, b], lambda ops, x, y: ops.where(
                ops.or_(ops.isnan(x), ops.isnan(y)), ops.add(x, y), getattr(ops, name)(x, y)), name)
        return L.pointwise(node, [a, b], lambda ops, x, y: getattr(ops, name)(x, y), name)
    return lower


register(aten.maximum.default)(_extremum("maximum"))
register(aten.minimum.default)(_extremum("minimum"))


@register(aten.clamp.default, aten.clamp.Tensor, aten.clamp_min.default, aten.clamp_max.default,
          aten.clamp_min.Tensor, aten.clamp_max.Tensor)
def _clamp(L, node, a, lo=None, hi=None):
    if node.target in (aten.clamp_max.default, aten.clamp_max.Tensor):
        lo, hi = None, lo
    floating = meta(node).dtype.is_floating_point
    args = [a] + [b for b in (lo, hi) if b is not None]

    def body(ops, x, *bounds):
        rest = list(bounds)
        if lo is not None:  # clamp(nan) is nan in torch
            x = nan_max(ops, x, rest.pop(0)) if floating else ops.maximum(x, rest.pop(0))
        if hi is not None:
            x = nan_min(ops, x, rest.pop(0)) if floating else ops.minimum(x, rest.pop(0))
        return x

    return L.pointwise(node, args, body, "clamp")


@register(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def _where(L, node, cond, a, b):
    return L.pointwise(node, [cond, a, b], lambda ops, c, x, y: ops.where(ops.ne(c, ops.constant(0, torch.bool)), x, y),
                       "where", cast=(False, True, True))


def _power(ops, x, n: int):
    """``x * x * ... * x`` (``n`` factors)."""
    return functools.reduce(ops.mul, [x] * n)


@register(aten.pow.Tensor_Scalar)
def _pow(L, node, a, e):
    if not isinstance(e, (int, float)) or isinstance(e, bool):
        raise LoweringDeclined("pow exponent")
    dtype = meta(node).dtype
    if math.isnan(e) or dtype == torch.bool:
        raise LoweringDeclined("pow with a NaN exponent or of bools")
    if e == 0:  # x ** 0 is 1 for every x, NaN and inf included
        return L.pointwise(node, [], lambda ops: ops.constant(1, dtype), "pow")
    if float(e).is_integer() and 0 < e <= 8:
        n = int(e)
        return L.pointwise(node, [a], lambda ops, x: _power(ops, x, n), "pow")
    if not dtype.is_floating_point:
        raise LoweringDeclined("integer pow with a negative or fractional exponent")
    if abs(e) == 0.5 and (dtype != torch.float16 or on_cuda(L)):  # aten's kernels use sqrt here (not CPU float16)
        return L.pointwise(node, [a], lambda ops, x: ops.sqrt(x) if e > 0 else ops.rsqrt(x), "pow")
    if float(e).is_integer() and -8 <= e < 0:
        return L.pointwise(node, [a], lambda ops, x: ops.truediv(ops.constant(1.0, dtype), _power(ops, x, int(-e))), "pow")
    if float(e).is_integer() or math.isinf(e):
        raise LoweringDeclined("pow with a large integer or infinite exponent")  # sign and overflow rules of C pow

    def fractional(ops, x):
        # C pow with a non-integer exponent: exp(e * log(x)), but (-inf) ** e is +inf (e > 0) or +0 (e < 0)
        value = ops.exp(ops.mul(ops.constant(float(e), dtype), ops.log(x)))
        return ops.where(ops.eq(x, ops.constant(-math.inf, dtype)), ops.constant(math.inf if e > 0 else 0.0, dtype), value)

    return L.pointwise(node, [a], fractional, "pow")


@register(aten.pow.Scalar)
def _pow_scalar_base(L, node, base, e):
    dtype = meta(node).dtype
    if not isinstance(base, (int, float)) or not 0 < base < math.inf or not dtype.is_floating_point:
        raise LoweringDeclined("pow with a non-positive, infinite or NaN base")
    if base == 1:  # 1 ** x is 1 for every x, NaN included
        return L.pointwise(node, [], lambda ops: ops.constant(1.0, dtype), "pow")

    def power(ops, x):  # b ** 0 is 1 exactly (also where the exponent is -0.0)
        value = ops.exp(ops.mul(x, ops.constant(math.log(base), dtype)))
        return ops.where(ops.eq(x, ops.constant(0.0, dtype)), ops.constant(1.0, dtype), value)

    return L.pointwise(node, [e], power, "pow")


def _convert(L, node, a, dtype):
    if not isinstance(a, IRNode):
        raise LoweringDeclined("convert a scalar")
    out = meta(node).dtype
    compute = compute_dtype(a.dtype) if out == torch.bool else None
    return L.pointwise(node, [a], lambda ops, x: ops.to_dtype(x, out, a.dtype), "to_copy", compute=compute, cast=(False,))


@register(aten._to_copy.default)
def _to_copy(L, node, a, **kw):
    if not isinstance(a, IRNode) or meta(node).device != getattr(meta(node.args[0]), "device", None):
        raise LoweringDeclined("copy to another device")  # runs as aten._to_copy in the wrapper
    return _convert(L, node, a, kw.get("dtype"))


@register(prims.convert_element_type.default)
def _convert_element_type(L, node, a, dtype):
    return _convert(L, node, a, dtype)


@register(aten.clone.default, aten.alias.default, aten.lift_fresh_copy.default, aten.detach.default)
def _identity(L, node, a, **kw):
    if not isinstance(a, IRNode):
        raise LoweringDeclined("clone of a non-tensor")
    return L.pointwise(node, [a], lambda ops, x: x, "clone")


@register(aten.copy.default)
def _copy(L, node, dst, src, non_blocking=False):
    return L.pointwise(node, [src], lambda ops, x: x, "copy")


@register(aten.full.default, aten.scalar_tensor.default)
def _full(L, node, size_or_value, value=None, **kw):
    value = size_or_value if node.target is aten.scalar_tensor.default else value
    if not isinstance(value, (int, float, bool)):
        raise LoweringDeclined("fill value")
    return L.pointwise(node, [], lambda ops: ops.constant(value, meta(node).dtype), "full")


@register(aten.full_like.default)
def _full_like(L, node, a, value, **kw):
    if not isinstance(value, (int, float, bool)):
        raise LoweringDeclined("fill value")
    return L.pointwise(node, [], lambda ops: ops.constant(value, meta(node).dtype), "full")


def _start_plus_step_times_index(start, step, dtype: torch.dtype):
    """The inner function of iota/arange: ``start + step * i`` converted to ``dtype``."""

    def fn(ops, index):
        i = ops.index_expr(index[0], torch.int64)
        return ops.to_dtype(ops.add(scalar(ops, start, dtype), ops.mul(scalar(ops, step, dtype), i)), dtype)

    return fn


@register(prims.iota.default)
def _iota(L, node, length, *, start, step, dtype, device, requires_grad):
    return Pointwise((int(length),), dtype, _start_plus_step_times_index(start, step, dtype), 1, ("iota",))


# prims that torch's reference decompositions emit
register(prims.add.default)(_binary("add", "add"))
register(prims.sub.default)(_binary("sub", "sub"))
register(prims.mul.default)(_binary("mul", "mul"))
register(prims.div.default)(_div)


def _within(ops, pos, lo, hi):
    """``lo <= pos < hi`` (``pos`` an index value; bounds ints or size expressions)."""
    return ops.and_(ops.ge(pos, scalar(ops, lo, torch.int64)), ops.lt(pos, scalar(ops, hi, torch.int64)))


@register(aten.cat.default)
def _cat(L, node, tensors, dim=0):
    """Each element comes from the input whose range along ``dim`` holds it (masked loads)."""
    out = meta(node)
    shape, dtype = shape_of(out), out.dtype
    parts = [t for t in tensors if isinstance(t, IRNode) and not (len(t.shape) == 1 and t.shape[0] == 0)]
    if len(parts) != len([t for t in tensors if isinstance(t, IRNode)]) and any(not isinstance(t, IRNode) for t in tensors):
        raise LoweringDeclined("cat of non-tensors")
    if not parts or len(parts) > 8:
        raise LoweringDeclined("cat of many tensors")
    dim = dim % len(shape)
    compute = compute_dtype(dtype)
    offsets, start = [], 0
    for t in parts:
        offsets.append(start)
        start += t.shape[dim]

    def part(ops, t, index):
        value = t.load(ops, index)
        return ops.to_dtype(value, compute, t.dtype) if compute_dtype(t.dtype) != compute else value

    def fn(ops, index):
        pos = ops.index_expr(index[dim], torch.int64)
        result = None  # the last part is read without a selection: every other position has its own part
        for t, off in reversed(list(zip(parts, offsets))):
            idx = list(index)
            idx[dim] = index[dim] - off
            result = ops.masked(_within(ops, pos, off, off + t.shape[dim]),
                                lambda t=t, idx=idx: part(ops, t, idx), result)
        return result

    return Pointwise(shape, dtype, fn, 1 + sum(t.ops for t in parts), ("cat",) + tuple(n for t in parts for n in t.op_names))


@register(aten.constant_pad_nd.default)
def _pad(L, node, a, pad, value=0):
    """Elements outside the input read ``value``; the input is loaded under a bounds mask."""
    if not isinstance(a, IRNode) or any(p < 0 for p in pad):
        raise LoweringDeclined("negative padding")
    out = meta(node)
    n = len(a.shape)
    before = [0] * n
    for i in range(len(pad) // 2):
        before[n - 1 - i] = pad[2 * i]

    def fn(ops, index):
        idx = [i - b for i, b in zip(index, before)]
        inside = None
        for d in range(n):
            if shape_of(out)[d] != a.shape[d]:
                pos = ops.index_expr(index[d], torch.int64)
                cond = _within(ops, pos, before[d], before[d] + a.shape[d])
                inside = cond if inside is None else ops.and_(inside, cond)
        if inside is None:  # nothing padded
            return a.load(ops, idx)
        return ops.masked(inside, lambda: a.load(ops, idx), ops.constant(value, out.dtype))

    return Pointwise(shape_of(out), out.dtype, fn, 1 + a.ops, ("pad",) + a.op_names)


@register(aten.slice_scatter.default)
def _slice_scatter(L, node, base, src, dim=0, start=None, end=None, step=1):
    """``base`` with ``src`` written into ``base[start:end:step]`` along ``dim`` (masked loads)."""
    if not isinstance(base, IRNode) or not isinstance(src, IRNode):
        raise LoweringDeclined("slice_scatter of non-tensors")
    out = meta(node)
    dim = dim % len(out.shape)
    size = shape_of(out)[dim]
    start = 0 if start is None else start
    if not isinstance(start, int) or not isinstance(step, int):
        raise LoweringDeclined("slice_scatter bounds known only at run time")
    if is_static(size):
        start = max(0, min(size, start + size if start < 0 else start))
    elif start < 0:
        raise LoweringDeclined("negative slice_scatter start on a symbolic size")
    stop = start + step * src.shape[dim]  # a size expression when the slice length is symbolic
    compute = compute_dtype(out.dtype)

    def fn(ops, index):
        pos = ops.index_expr(index[dim], torch.int64)
        inside = _within(ops, pos, start, stop)
        if step != 1:
            offset = ops.sub(pos, ops.constant(start, torch.int64))
            inside = ops.and_(inside, ops.eq(ops.mod(offset, ops.constant(step, torch.int64)), ops.constant(0, torch.int64)))
        src_index = list(index)
        src_index[dim] = (index[dim] - start) if step == 1 else floordiv_index(index[dim] - start, step)
        new = ops.masked(inside, lambda: src.load(ops, src_index), None)  # selected below
        old = base.load(ops, list(index))
        if compute_dtype(src.dtype) != compute:
            new = ops.to_dtype(new, compute, src.dtype)
        return ops.where(inside, new, old)

    return Pointwise(shape_of(out), out.dtype, fn, 1 + base.ops + src.ops,
                     ("slice_scatter",) + base.op_names + src.op_names)


def floordiv_index(expr, d: int):
    return FloorDiv(expr, sympy.Integer(d))


@register(aten.arange.start_step, aten.arange.start, aten.arange.default)
def _arange(L, node, *args, **kw):
    out = meta(node)
    if node.target is aten.arange.default:
        start, step = 0, 1
    else:
        start = args[0]
        step = args[2] if len(args) > 2 else kw.get("step", 1)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, step)):
        raise LoweringDeclined("arange with runtime bounds")
    return Pointwise(shape_of(out), out.dtype, _start_plus_step_times_index(start, step, out.dtype), 1,
                     ("arange",))
