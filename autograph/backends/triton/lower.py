"""Lower an aten-level FX graph into the loop IR (``ir.py``).

Each supported aten op has a lowering that returns a lazily evaluated value
(pointwise ops, views) or realizes a reduction. Everything else becomes an
:class:`~autograph.backends.triton.ir.ExternItem`: the wrapper calls the aten
op on real tensors. A lowering that meets a case it does not handle raises
:class:`Unsupported`, and the op becomes an extern call too — an unsupported
op never fails the graph.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import sympy
import torch
import torch.fx

from autograph.backends.triton.codegen import PERSISTENT_MAX, compute_dtype, literal, tl_dtype
from autograph.backends.triton.indexing import contiguous_strides, delinearize, linearize
from autograph.backends.triton.ir import (Buffer, ExternItem, Pointwise, PointwiseItem, ReductionItem,
                                          Value, View, new_buffer)

aten = torch.ops.aten
prims = torch.ops.prims

INLINE_MULTI_USE_OPS = 8  # a pointwise value read by several nodes is recomputed up to this size
MAX_INLINE_OPS = 64


class Unsupported(Exception):
    """This op (with these arguments) has no Triton lowering; call aten instead."""


class GraphUnsupported(Exception):
    """The whole graph cannot go through this backend (the caller runs it with aten)."""


@dataclass
class WrapperVar:
    """A non-tensor value known only when the wrapper runs (an extern's result)."""

    name: str


@dataclass
class LoweredGraph:
    inputs: list[Buffer]
    items: list
    outputs: list  # Buffer | WrapperVar | python constant
    constants: dict[str, Any] = field(default_factory=dict)  # wrapper globals (get_attr tensors)
    needed: set = field(default_factory=set)  # buffer names used as tensors (outputs, extern args)


def meta(node: torch.fx.Node):
    return node.meta.get("val")


def eager_layout(node: torch.fx.Node | None, shape: tuple) -> tuple[int, ...] | None:
    """Strides eager gives ``node``'s tensor when they are a dense permutation, else None."""
    val = meta(node) if node is not None else None
    if not isinstance(val, torch.Tensor) or tuple(val.shape) != tuple(shape):
        return None
    stride = tuple(val.stride())
    if val.storage_offset() != 0 or stride == contiguous_strides(tuple(shape)):
        return None
    dims = sorted((i for i in range(len(shape)) if shape[i] != 1), key=lambda i: stride[i])
    expected = 1
    for i in dims:  # dense and non-overlapping: each dim steps over all faster ones
        if stride[i] != expected:
            return None
        expected *= shape[i]
    return tuple(stride[i] if shape[i] != 1 else 1 for i in range(len(shape)))


def broadcast_index(index: list, out_shape: tuple, in_shape: tuple) -> list:
    lead = len(out_shape) - len(in_shape)
    return [sympy.Integer(0) if s == 1 else index[lead + i] for i, s in enumerate(in_shape)]


LOWERINGS: dict[Any, Callable] = {}


def register(*ops):
    def deco(fn):
        for op in ops:
            LOWERINGS[op] = fn
        return fn

    return deco


class Lowering:
    """Walks an aten graph once, producing scheduled items in program order."""

    def __init__(self, gm: torch.fx.GraphModule):
        self.gm = gm
        self.env: dict[torch.fx.Node, Any] = {}
        self.items: list = []
        self.realized: dict[int, Buffer] = {}
        self.counter = 0
        self.needed: set[str] = set()
        self.constants: dict[str, Any] = {}
        self.device: torch.device | None = None
        self.node: torch.fx.Node | None = None

    def fresh(self, prefix: str = "buf") -> str:
        name = f"{prefix}{self.counter}"
        self.counter += 1
        return name

    # -- driver ----------------------------------------------------------
    def run(self) -> LoweredGraph:
        inputs: list[Buffer] = []
        outputs: list = []
        for node in self.gm.graph.nodes:
            self.node = node
            if node.op == "placeholder":
                val = meta(node)
                if not isinstance(val, torch.Tensor):
                    raise GraphUnsupported(f"input {node.name} is not a tensor ({type(val).__name__})")
                buf = self.tensor_buffer(node.name, val)
                inputs.append(buf)
                self.env[node] = buf
            elif node.op == "get_attr":
                tensor = getattr(self.gm, node.target)
                name = f"const_{node.name}"
                self.constants[name] = tensor
                self.env[node] = self.tensor_buffer(name, tensor) if isinstance(tensor, torch.Tensor) else WrapperVar(name)
            elif node.op == "call_function":
                self.env[node] = self.call_function(node)
            elif node.op == "output":
                flat = node.args[0]
                if not isinstance(flat, (tuple, list)):
                    flat = (flat,)
                for out in flat:
                    value = self.env[out] if isinstance(out, torch.fx.Node) else out
                    if isinstance(value, Value):
                        value = self.realize(value, out)
                        self.needed.add(value.name)
                    outputs.append(value)
            else:
                raise GraphUnsupported(f"node kind {node.op} ({node.target})")
        return LoweredGraph(inputs, self.items, outputs, self.constants, self.needed)

    def tensor_buffer(self, name: str, val: torch.Tensor) -> Buffer:
        if any(not isinstance(s, int) for s in val.shape) or any(not isinstance(s, int) for s in val.stride()):
            raise GraphUnsupported("dynamic (symbolic) shapes")
        if self.device is None:
            self.device = val.device
        elif val.device != self.device and val.numel() > 1 and val.dim() > 0:
            raise GraphUnsupported(f"tensors on several devices ({self.device}, {val.device})")
        return Buffer(name, tuple(val.shape), tuple(val.stride()), val.dtype, val.device)

    def call_function(self, node: torch.fx.Node):
        lowering = LOWERINGS.get(node.target)
        out = meta(node)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if lowering is not None and all(isinstance(o, torch.Tensor) and o.numel() > 0 for o in outs):
            try:
                args = [self.env_of(a) for a in node.args]
                kwargs = {k: self.env_of(v) for k, v in node.kwargs.items()}
                value = lowering(self, node, *args, **kwargs)
                if isinstance(value, Pointwise) and (
                    value.ops > MAX_INLINE_OPS or (len(node.users) > 1 and value.ops > INLINE_MULTI_USE_OPS)
                ):
                    value = self.realize(value, node)
                return value
            except Unsupported:
                pass
        return self.extern(node, reason="no Triton lowering" if lowering is None else "lowering declined")

    def env_of(self, arg):
        if isinstance(arg, torch.fx.Node):
            return self.env[arg]
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.env_of(a) for a in arg)
        return arg

    # -- realization -----------------------------------------------------
    def realize(self, value: Any, node: torch.fx.Node | None = None) -> Buffer:
        """Make ``value`` a tensor in memory (a kernel output or a zero-copy view)."""
        if isinstance(value, Buffer):
            return value
        cached = self.realized.get(id(value))
        if cached is not None:
            return cached
        if isinstance(value, View) and value.fx_node is not None:
            buf = self.extern(value.fx_node, reason="view of a tensor in memory")
        else:
            buf = new_buffer(self.fresh(), value.shape, value.dtype, self.device)
            layout = eager_layout(node, value.shape)
            if layout is not None:
                buf.stride = layout  # the layout eager gives this tensor (extern ops may depend on it)
            item = PointwiseItem(buf, value, value.op_names)
            buf.producer = item
            self.items.append(item)
        self.realized[id(value)] = buf
        return buf

    def realize_live_values(self, mutation: torch.fx.Node) -> None:
        """Before an op mutates memory, compute every lazy value still needed later.

        Lazy values read their inputs when the kernel that inlines them runs; after
        the mutation they would read the new contents.
        """
        order = {n: i for i, n in enumerate(self.gm.graph.nodes)}
        here = order[mutation]
        for n, value in list(self.env.items()):
            if isinstance(value, Value) and not isinstance(value, Buffer) and any(order[u] > here for u in n.users):
                self.env[n] = self.realize(value, n)
            elif isinstance(value, (tuple, list)):
                if any(order[u] > here for u in n.users):
                    self.env[n] = type(value)(self.realize(v) if isinstance(v, Value) else v for v in value)

    def materialize_node_arg(self, arg):
        """An extern's argument as wrapper values, tensors realized in eager's layout."""
        if isinstance(arg, torch.fx.Node):
            value = self.env[arg]
            if isinstance(value, Value):
                buf = self.realize(value, arg)
                self.needed.add(buf.name)
                return buf
            return self.materialize_arg(value)
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.materialize_node_arg(a) for a in arg)
        return arg

    def materialize_arg(self, arg):
        if isinstance(arg, Value):
            buf = self.realize(arg)
            self.needed.add(buf.name)
            return buf
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.materialize_arg(a) for a in arg)
        return arg

    def extern(self, node: torch.fx.Node, reason: str):
        schema = getattr(node.target, "_schema", None)
        if schema is not None and schema.is_mutable:
            self.realize_live_values(node)
        args = tuple(self.materialize_node_arg(a) for a in node.args)
        kwargs = {k: self.materialize_node_arg(v) for k, v in node.kwargs.items()}
        name = self.fresh()
        item = ExternItem(name, node.target, args, kwargs, reason=f"{node.target}: {reason}")
        self.items.append(item)
        out = meta(node)
        if isinstance(out, torch.Tensor):
            buf = self.tensor_buffer(name, out)
            buf.producer = item
            item.check_strides.append((name, tuple(out.shape), tuple(out.stride())))
            return buf
        return WrapperVar(name)

    # -- helpers for lowerings -------------------------------------------
    def pointwise(self, node, args: list, body: Callable[..., str], name: str, *,
                  compute: torch.dtype | None = None, cast: tuple[bool, ...] | None = None) -> Pointwise:
        out = meta(node)
        shape, dtype = tuple(out.shape), out.dtype
        for a in args:
            if isinstance(a, WrapperVar) or (isinstance(a, (list, tuple))):
                raise Unsupported("runtime scalar argument")
            if isinstance(a, Value) and a.dtype in (torch.complex64, torch.complex128):
                raise Unsupported("complex")
        if compute is None:
            compute = compute_dtype(dtype)
        tl_dtype(compute)
        casts = cast or tuple(True for _ in args)

        def fn(k, index):
            exprs = []
            for a, do_cast in zip(args, casts):
                if isinstance(a, Value):
                    e = a.load(k, broadcast_index(index, shape, a.shape))
                    if do_cast and compute_dtype(a.dtype) != compute:
                        e = k.emit(f"{e}.to({tl_dtype(compute)})")
                else:
                    e = literal(a)
                exprs.append(e)
            k.count_op(name)
            result = body(*exprs)
            return result if result in exprs else k.emit(result)

        inner = [a for a in args if isinstance(a, Value)]
        names = tuple(dict.fromkeys((name,) + tuple(n for a in inner for n in a.op_names)))
        return Pointwise(shape, dtype, fn, 1 + sum(a.ops for a in inner), names)

    def reduce_to(self, x: Value, rdims: tuple, kind: str, shape: tuple, dtype: torch.dtype) -> Buffer:
        buf = new_buffer(self.fresh(), shape, dtype, self.device)
        item = ReductionItem(buf, x, rdims, kind, False, (kind,) + x.op_names)
        buf.producer = item
        self.items.append(item)
        return buf

    def pointwise_value(self, shape, dtype, args, body, name) -> Pointwise:
        """A pointwise value not tied to an FX node (inputs already in ``dtype``)."""

        def fn(k, index):
            exprs = [a.load(k, broadcast_index(index, shape, a.shape)) for a in args]
            k.count_op(name)
            return k.emit(body(*exprs))

        return Pointwise(tuple(shape), dtype, fn, 1 + sum(a.ops for a in args), (name,))

    def reduce(self, node, x: Value, dims, keepdim: bool, kind: str, out_dtype=None) -> Value:
        if not isinstance(x, Value):
            raise Unsupported("reduction of a non-tensor")
        ndim = len(x.shape)
        if ndim == 0:
            raise Unsupported("reduction of a 0-d tensor")
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = list(range(ndim))
        if isinstance(dims, int):
            dims = [dims]
        rdims = tuple(sorted({d % ndim for d in dims}))
        rnumel = math.prod(x.shape[d] for d in rdims)
        if rnumel == 0 or x.numel == 0:
            raise Unsupported("empty reduction")
        if kind in ("argmax", "argmin") and (len(rdims) != 1 or rnumel > PERSISTENT_MAX):
            raise Unsupported("arg-reduction over a large or multi-dim range")
        out = meta(node)
        dtype = out_dtype or out.dtype
        if x.dtype == torch.bool and kind in ("max", "min"):
            raise Unsupported("bool max/min")
        buf = new_buffer(self.fresh(), out.shape, dtype, self.device)
        item = ReductionItem(buf, x, rdims, kind, keepdim, (kind,) + x.op_names)
        buf.producer = item
        self.items.append(item)
        return buf


def _dtype_of(x) -> torch.dtype:
    if isinstance(x, Value):
        return x.dtype
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    return torch.float32


def promoted(*args) -> torch.dtype:
    """torch's type promotion over tensors and Python scalars (for comparisons)."""
    tensors = [a for a in args if isinstance(a, Value)]
    dims = [torch.empty((1,) * max(1, len(a.shape)) if len(a.shape) else (), dtype=a.dtype, device="meta") for a in tensors]
    scalars = [a for a in args if not isinstance(a, Value)]
    return compute_dtype(torch.result_type(*(dims + scalars))) if len(dims + scalars) > 1 else compute_dtype(_dtype_of(args[0]))


# ---------------------------------------------------------------- pointwise
def _binary(template: str, name: str):
    def lower(L: Lowering, node, a, b, **kw):
        if kw.get("alpha", 1) != 1:
            alpha = kw["alpha"]
            return L.pointwise(node, [a, b], lambda x, y: template.format(x, f"{literal(alpha)} * {y}"), name)
        return L.pointwise(node, [a, b], lambda x, y: template.format(x, y), name)

    return lower


register(aten.add.Tensor, aten.add.Scalar)(_binary("{} + {}", "add"))
register(aten.sub.Tensor, aten.sub.Scalar)(_binary("{} - {}", "sub"))
register(aten.mul.Tensor, aten.mul.Scalar)(_binary("{} * {}", "mul"))


@register(aten.rsub.Scalar, aten.rsub.Tensor)
def _rsub(L, node, a, b, alpha=1):
    return L.pointwise(node, [a, b], lambda x, y: f"{y} - {literal(alpha)} * {x}", "rsub")


@register(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode)
def _div(L, node, a, b, rounding_mode=None):
    if not meta(node).dtype.is_floating_point:
        raise Unsupported("integer division")
    if rounding_mode is None:
        return L.pointwise(node, [a, b], lambda x, y: f"{x} / {y}", "div")
    if rounding_mode == "floor":
        return L.pointwise(node, [a, b], lambda x, y: f"tl.floor({x} / {y})", "div")
    return L.pointwise(node, [a, b], lambda x, y: f"tl.where({x} / {y} < 0, tl.math.ceil({x} / {y}), tl.floor({x} / {y}))", "div")


def k_emitless(expr: str) -> str:
    """Parenthesize a sub-expression that is used several times in a bigger one."""
    return f"({expr})"


def _float_only(node):
    if not meta(node).dtype.is_floating_point:
        raise Unsupported("float-only op on integers")


def _unary(template: str, name: str, float_only: bool = True):
    def lower(L: Lowering, node, a):
        if float_only:
            _float_only(node)
        return L.pointwise(node, [a], lambda x: template.format(x=x), name)

    return lower


for _op, _tpl, _name in [
    (aten.exp.default, "tl.exp({x})", "exp"),
    (aten.exp2.default, "tl.math.exp2({x})", "exp2"),
    (aten.log.default, "tl.log({x})", "log"),
    (aten.log2.default, "tl.log({x}) * 1.4426950408889634", "log2"),
    (aten.log10.default, "tl.log({x}) * 0.4342944819032518", "log10"),
    (aten.log1p.default, "tl.log(1.0 + {x})", "log1p"),
    (aten.expm1.default, "tl.exp({x}) - 1.0", "expm1"),
    (aten.sqrt.default, "tl.sqrt({x})", "sqrt"),
    (aten.rsqrt.default, "tl.rsqrt({x})", "rsqrt"),
    (aten.sin.default, "tl.sin({x})", "sin"),
    (aten.cos.default, "tl.cos({x})", "cos"),
    (aten.tanh.default, "2.0 * tl.sigmoid(2.0 * {x}) - 1.0", "tanh"),
    (aten.sigmoid.default, "tl.sigmoid({x})", "sigmoid"),
    (aten.erf.default, "tl.math.erf({x})", "erf"),
    (aten.reciprocal.default, "1.0 / {x}", "reciprocal"),
    (aten.floor.default, "tl.floor({x})", "floor"),
    (aten.ceil.default, "tl.math.ceil({x})", "ceil"),
    (aten.trunc.default, "tl.where({x} < 0, tl.math.ceil({x}), tl.floor({x}))", "trunc"),
]:
    register(_op)(_unary(_tpl, _name))

register(aten.neg.default)(_unary("-{x}", "neg", float_only=False))
register(aten.abs.default)(_unary("tl.abs({x})", "abs", float_only=False))


@register(aten.relu.default)
def _relu(L, node, a):
    if meta(node).dtype.is_floating_point:  # relu(nan) is nan in torch
        return L.pointwise(node, [a], lambda x: f"tl.where(({x} > 0) | ({x} != {x}), {x}, 0.0)", "relu")
    return L.pointwise(node, [a], lambda x: f"tl.maximum({x}, 0)", "relu")


@register(aten.sign.default)
def _sign(L, node, a):
    if a.dtype == torch.bool:
        raise Unsupported("sign of bool")
    return L.pointwise(node, [a], lambda x: f"({x} > 0).to({tl_dtype(compute_dtype(a.dtype))}) - ({x} < 0).to({tl_dtype(compute_dtype(a.dtype))})", "sign")


@register(aten.isnan.default)
def _isnan(L, node, a):
    return L.pointwise(node, [a], lambda x: f"{x} != {x}", "isnan", compute=compute_dtype(a.dtype))


@register(aten.logical_not.default)
def _lnot(L, node, a):
    return L.pointwise(node, [a], lambda x: f"{x} == 0", "logical_not", compute=compute_dtype(a.dtype))


@register(aten.bitwise_not.default)
def _bnot(L, node, a):
    if a.dtype != torch.bool:
        raise Unsupported("bitwise_not of integers")
    return L.pointwise(node, [a], lambda x: f"{x} == 0", "bitwise_not", compute=torch.bool)


def _compare(symbol: str, name: str):
    def lower(L, node, a, b):
        return L.pointwise(node, [a, b], lambda x, y: f"{x} {symbol} {y}", name, compute=promoted(a, b))

    return lower


for _sym, _name in [("==", "eq"), ("!=", "ne"), ("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge")]:
    register(getattr(aten, _name).Tensor, getattr(aten, _name).Scalar)(_compare(_sym, _name))


def _logical(symbol: str, name: str):
    def lower(L, node, a, b):
        return L.pointwise(node, [a, b], lambda x, y: f"({x} != 0) {symbol} ({y} != 0)", name, compute=promoted(a, b))

    return lower


register(aten.logical_and.default)(_logical("&", "logical_and"))
register(aten.logical_or.default)(_logical("|", "logical_or"))
register(aten.logical_xor.default)(_logical("^", "logical_xor"))


def _bitwise(symbol: str, name: str):
    def lower(L, node, a, b):
        if meta(node).dtype.is_floating_point:
            raise Unsupported("bitwise op on floats")
        return L.pointwise(node, [a, b], lambda x, y: f"{x} {symbol} {y}", name)

    return lower


register(aten.bitwise_and.Tensor, aten.bitwise_and.Scalar)(_bitwise("&", "bitwise_and"))
register(aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)(_bitwise("|", "bitwise_or"))
register(aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar)(_bitwise("^", "bitwise_xor"))


@register(aten.maximum.default)
def _maximum(L, node, a, b):
    _float_nan = "tl.where(({x} != {x}) | ({y} != {y}), {x} + {y}, tl.maximum({x}, {y}))"
    if meta(node).dtype.is_floating_point:
        return L.pointwise(node, [a, b], lambda x, y: _float_nan.format(x=x, y=y), "maximum")
    return L.pointwise(node, [a, b], lambda x, y: f"tl.maximum({x}, {y})", "maximum")


@register(aten.minimum.default)
def _minimum(L, node, a, b):
    _float_nan = "tl.where(({x} != {x}) | ({y} != {y}), {x} + {y}, tl.minimum({x}, {y}))"
    if meta(node).dtype.is_floating_point:
        return L.pointwise(node, [a, b], lambda x, y: _float_nan.format(x=x, y=y), "minimum")
    return L.pointwise(node, [a, b], lambda x, y: f"tl.minimum({x}, {y})", "minimum")


@register(aten.clamp.default, aten.clamp.Tensor, aten.clamp_min.default, aten.clamp_max.default,
          aten.clamp_min.Tensor, aten.clamp_max.Tensor)
def _clamp(L, node, a, lo=None, hi=None):
    if node.target in (aten.clamp_max.default, aten.clamp_max.Tensor):
        lo, hi = None, lo
    from autograph.backends.triton.codegen import nan_max, nan_min

    floating = meta(node).dtype.is_floating_point
    args = [a] + [b for b in (lo, hi) if b is not None]

    def body(*xs):
        expr, rest = xs[0], list(xs[1:])
        if lo is not None:  # clamp(nan) is nan in torch
            bound = rest.pop(0)
            expr = k_emitless(nan_max(expr, bound) if floating else f"tl.maximum({expr}, {bound})")
        if hi is not None:
            bound = rest.pop(0)
            expr = nan_min(f"({expr})", bound) if floating else f"tl.minimum({expr}, {bound})"
        return expr

    return L.pointwise(node, args, body, "clamp")


@register(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def _where(L, node, cond, a, b):
    return L.pointwise(node, [cond, a, b], lambda c, x, y: f"tl.where({c} != 0, {x}, {y})", "where",
                       cast=(False, True, True))


@register(aten.pow.Tensor_Scalar)
def _pow(L, node, a, e):
    if not isinstance(e, (int, float)) or isinstance(e, bool):
        raise Unsupported("pow exponent")
    floating = meta(node).dtype.is_floating_point
    if float(e).is_integer() and 0 <= e <= 8:
        n = int(e)
        if n == 0:
            return L.pointwise(node, [a], lambda x: f"{x} * 0 + 1", "pow")
        return L.pointwise(node, [a], lambda x: " * ".join([x] * n), "pow")
    if not floating:
        raise Unsupported("integer pow with a negative or fractional exponent")
    if e == 0.5:
        return L.pointwise(node, [a], lambda x: f"tl.sqrt({x})", "pow")
    if e == -0.5:
        return L.pointwise(node, [a], lambda x: f"tl.rsqrt({x})", "pow")
    if float(e).is_integer() and -8 <= e < 0:
        return L.pointwise(node, [a], lambda x: "1.0 / (" + " * ".join([x] * int(-e)) + ")", "pow")
    return L.pointwise(node, [a], lambda x: f"tl.exp({literal(float(e))} * tl.log({x}))", "pow")


@register(aten.pow.Scalar)
def _pow_scalar_base(L, node, base, e):
    if not isinstance(base, (int, float)) or base <= 0 or not meta(node).dtype.is_floating_point:
        raise Unsupported("pow with a non-positive base")
    return L.pointwise(node, [e], lambda x: f"tl.exp({x} * {literal(math.log(base))})", "pow")


def _convert(L, node, a, dtype):
    if not isinstance(a, Value):
        raise Unsupported("convert a scalar")
    out = meta(node).dtype
    if out == torch.bool:
        return L.pointwise(node, [a], lambda x: f"{x} != 0", "to_copy", compute=compute_dtype(a.dtype))
    if a.dtype == torch.bool:
        return L.pointwise(node, [a], lambda x: f"{x}.to({tl_dtype(compute_dtype(out))})", "to_copy", cast=(False,))
    if out in (torch.float16, torch.bfloat16) and a.dtype != out:
        # values of half types are kept in fp32 registers: round them as a store would
        return L.pointwise(node, [a], lambda x: f"{x}.to({tl_dtype(out)}).to(tl.float32)", "to_copy")
    return L.pointwise(node, [a], lambda x: x, "to_copy")


@register(aten._to_copy.default)
def _to_copy(L, node, a, **kw):
    if not isinstance(a, Value) or meta(node).device != getattr(meta(node.args[0]), "device", None):
        raise Unsupported("copy to another device")  # runs as aten._to_copy in the wrapper
    return _convert(L, node, a, kw.get("dtype"))


@register(prims.convert_element_type.default)
def _convert_element_type(L, node, a, dtype):
    return _convert(L, node, a, dtype)


@register(aten.clone.default, aten.alias.default, aten.lift_fresh_copy.default, aten.detach.default)
def _identity(L, node, a, **kw):
    if not isinstance(a, Value):
        raise Unsupported("clone of a non-tensor")
    return L.pointwise(node, [a], lambda x: x, "clone")


@register(aten.copy.default)
def _copy(L, node, dst, src, non_blocking=False):
    return L.pointwise(node, [src], lambda x: x, "copy")


@register(aten.full.default, aten.scalar_tensor.default)
def _full(L, node, size_or_value, value=None, **kw):
    value = size_or_value if node.target is aten.scalar_tensor.default else value
    if not isinstance(value, (int, float, bool)):
        raise Unsupported("fill value")
    return L.pointwise(node, [], lambda: literal(value), "full")


@register(aten.full_like.default)
def _full_like(L, node, a, value, **kw):
    if not isinstance(value, (int, float, bool)):
        raise Unsupported("fill value")
    return L.pointwise(node, [], lambda: literal(value), "full")


@register(prims.iota.default)
def _iota(L, node, length, *, start, step, dtype, device, requires_grad):
    def fn(k, index):
        k.count_op("iota")
        from autograph.backends.triton.indexing import texpr

        return k.emit(f"({literal(start)} + {literal(step)} * ({texpr(index[0])})).to({tl_dtype(compute_dtype(dtype))})")

    return Pointwise((int(length),), dtype, fn, 1, ("iota",))


# ---------------------------------------------------------------- views
def _view_of(L, node, base, reindex):
    if not isinstance(base, Value):
        raise Unsupported("view of a non-tensor")
    return View(base, tuple(meta(node).shape), reindex, fx_node=node)


@register(aten.view.default, aten._unsafe_view.default, aten.reshape.default)
def _reshape(L, node, a, shape):
    out_shape = tuple(meta(node).shape)
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
    out_shape = tuple(meta(node).shape)
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
    start = max(0, min(size, start + size if start < 0 else start))

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


# ---------------------------------------------------------------- reductions
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
        if not isinstance(a, Value):
            raise Unsupported("argmax of a non-tensor")
        if dim is None:
            flat = (a.numel,)
            shape = tuple(a.shape)
            a = View(a, flat, lambda idx: delinearize(idx[0], shape))
            dim = 0
        return L.reduce(node, a, [dim], keepdim, kind)

    return lower


register(aten.argmax.default)(_arg("argmax"))
register(aten.argmin.default)(_arg("argmin"))


@register(aten.mean.dim, aten.mean.default)
def _mean(L, node, a, dims=None, keepdim=False, dtype=None):
    if not meta(node).dtype.is_floating_point or not isinstance(a, Value):
        raise Unsupported("mean of integers")
    ndim = len(a.shape)
    all_dims = range(ndim) if not dims else [d % ndim for d in dims]
    count = math.prod(a.shape[d] for d in all_dims)
    total = L.reduce(node, a, dims, keepdim, "sum", out_dtype=compute_dtype(meta(node).dtype))
    return L.pointwise(node, [total], lambda s: f"{s} / {literal(float(count))}", "mean")


@register(operator.getitem)
def _getitem(L, node, seq, i):
    if isinstance(seq, (list, tuple)):
        return seq[i]
    raise Unsupported("getitem of a runtime value")


@register(aten.var.correction, aten.var_mean.correction)
def _var(L, node, a, dims=None, *, correction=None, keepdim=False):
    """Two reductions of one row in one kernel: the mean, then the squared deviations."""
    out = meta(node)
    var_meta = out[0] if isinstance(out, (tuple, list)) else out
    if not var_meta.dtype.is_floating_point or not isinstance(a, Value):
        raise Unsupported("var of integers")
    ndim = len(a.shape)
    rdims = tuple(range(ndim)) if not dims else tuple(sorted({d % ndim for d in dims}))
    count = math.prod(a.shape[d] for d in rdims)
    correction = 1 if correction is None else correction
    acc = compute_dtype(var_meta.dtype)
    xshape = tuple(s for d, s in enumerate(a.shape) if d not in rdims)
    keep = tuple(1 if d in rdims else s for d, s in enumerate(a.shape))
    total = L.reduce_to(a, rdims, "sum", xshape, acc)
    full = tuple(a.shape)

    def per_row(idx):
        return [i for d, i in enumerate(idx) if d not in rdims]

    mean_full = View(Pointwise(xshape, acc, lambda k, idx: k.emit(f"{total.load(k, idx)} / {literal(float(count))}"), 1, ("mean",)),
                     full, per_row)
    dev = L.pointwise_value(full, acc, [a, mean_full], lambda x, m: f"({x} - {m}) * ({x} - {m})", "sub")
    sq = L.reduce_to(dev, rdims, "sum", xshape, acc)
    out_shape = keep if keepdim else xshape
    squeeze = (lambda idx: per_row(idx)) if keepdim else (lambda idx: idx)
    denom = literal(float(max(0, count - correction)))
    var = Pointwise(out_shape, var_meta.dtype, lambda k, idx: k.emit(f"{sq.load(k, squeeze(idx))} / {denom}"), 1, ("var",))
    if node.target is not aten.var_mean.correction:
        return var
    mean = Pointwise(out_shape, var_meta.dtype, lambda k, idx: k.emit(f"{total.load(k, squeeze(idx))} / {literal(float(count))}"), 1, ("mean",))
    return (var, mean)


@register(prims.broadcast_in_dim.default)
def _broadcast_in_dim(L, node, a, shape, broadcast_dimensions):
    in_shape = tuple(a.shape)
    return _view_of(L, node, a, lambda idx: [sympy.Integer(0) if in_shape[i] == 1 else idx[d]
                                             for i, d in enumerate(broadcast_dimensions)])


# prims that torch's reference decompositions emit
register(prims.add.default)(_binary("{} + {}", "add"))
register(prims.sub.default)(_binary("{} - {}", "sub"))
register(prims.mul.default)(_binary("{} * {}", "mul"))
register(prims.div.default)(_div)


@register(prims.sum.default)
def _prims_sum(L, node, a, dims, *, output_dtype=None):
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


@register(aten.cat.default)
def _cat(L, node, tensors, dim=0):
    """Each element comes from the input whose range along ``dim`` holds it (masked loads)."""
    from autograph.backends.triton.indexing import texpr

    out = meta(node)
    shape, dtype = tuple(out.shape), out.dtype
    parts = [t for t in tensors if isinstance(t, Value) and not (len(t.shape) == 1 and t.shape[0] == 0)]
    if len(parts) != len([t for t in tensors if isinstance(t, Value)]) and any(not isinstance(t, Value) for t in tensors):
        raise Unsupported("cat of non-tensors")
    if not parts or len(parts) > 8:
        raise Unsupported("cat of many tensors")
    dim = dim % len(shape)
    compute = compute_dtype(dtype)
    offsets, start = [], 0
    for t in parts:
        offsets.append(start)
        start += t.shape[dim]

    def fn(k, index):
        pos = texpr(index[dim])
        result = None
        for t, off in reversed(list(zip(parts, offsets))):
            idx = list(index)
            idx[dim] = index[dim] - off
            lo, hi = off, off + t.shape[dim]
            cond = f"({pos} >= {lo}) & ({pos} < {hi})"
            with k.masked(cond):
                value = t.load(k, idx)
            if compute_dtype(t.dtype) != compute:
                value = k.emit(f"{value}.to({tl_dtype(compute)})")
            result = value if result is None else k.emit(f"tl.where({cond}, {value}, {result})")
        k.count_op("cat")
        return result

    return Pointwise(shape, dtype, fn, 1 + sum(t.ops for t in parts), ("cat",) + tuple(n for t in parts for n in t.op_names))


@register(aten.constant_pad_nd.default)
def _pad(L, node, a, pad, value=0):
    """Elements outside the input read ``value``; the input is loaded under a bounds mask."""
    from autograph.backends.triton.indexing import texpr

    if not isinstance(a, Value) or any(p < 0 for p in pad):
        raise Unsupported("negative padding")
    out = meta(node)
    n = len(a.shape)
    before = [0] * n
    for i in range(len(pad) // 2):
        before[n - 1 - i] = pad[2 * i]

    def fn(k, index):
        idx = [i - b for i, b in zip(index, before)]
        conds = [f"({texpr(index[d])} >= {before[d]}) & ({texpr(index[d])} < {before[d] + a.shape[d]})"
                 for d in range(n) if out.shape[d] != a.shape[d]]
        cond = " & ".join(conds) if conds else "True"
        with k.masked(cond):
            loaded = a.load(k, idx)
        k.count_op("pad")
        return k.emit(f"tl.where({cond}, {loaded}, {literal(value)})")

    return Pointwise(tuple(out.shape), out.dtype, fn, 1 + a.ops, ("pad",) + a.op_names)


@register(aten.slice_scatter.default)
def _slice_scatter(L, node, base, src, dim=0, start=None, end=None, step=1):
    """``base`` with ``src`` written into ``base[start:end:step]`` along ``dim`` (masked loads)."""
    from autograph.backends.triton.indexing import texpr

    if not isinstance(base, Value) or not isinstance(src, Value):
        raise Unsupported("slice_scatter of non-tensors")
    out = meta(node)
    dim = dim % len(out.shape)
    size = out.shape[dim]
    start = 0 if start is None else (start + size if start < 0 else start)
    start = max(0, min(size, start))
    count = src.shape[dim]
    compute = compute_dtype(out.dtype)

    def fn(k, index):
        pos = texpr(index[dim])
        inside = f"({pos} >= {start}) & ({pos} < {start + step * count})"
        if step != 1:
            inside += f" & (({pos} - {start}) % {step} == 0)"
        src_index = list(index)
        src_index[dim] = (index[dim] - start) if step == 1 else floordiv_index(index[dim] - start, step)
        with k.masked(inside):
            new = src.load(k, src_index)
        old = base.load(k, list(index))
        if compute_dtype(src.dtype) != compute:
            new = k.emit(f"{new}.to({tl_dtype(compute)})")
        k.count_op("slice_scatter")
        return k.emit(f"tl.where({inside}, {new}, {old})")

    return Pointwise(tuple(out.shape), out.dtype, fn, 1 + base.ops + src.ops,
                     ("slice_scatter",) + base.op_names + src.op_names)


def floordiv_index(expr, d: int):
    from autograph.backends.triton.indexing import FloorDiv

    return FloorDiv(expr, sympy.Integer(d))


def _bool_reduce(kind: str):
    """any/all: max/min of ``x != 0`` as int32, compared back to a bool."""

    def lower(L, node, a, dim=None, keepdim=False):
        if not isinstance(a, Value):
            raise Unsupported("any/all of a non-tensor")
        as_int = Pointwise(tuple(a.shape), torch.int32,
                           lambda k, idx: k.emit(f"({a.load(k, idx)} != 0).to(tl.int32)"), 1 + a.ops, ("ne",) + a.op_names)
        dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
        red = L.reduce(node, as_int, dims, keepdim, kind, out_dtype=torch.int32)
        return L.pointwise(node, [red], lambda v: f"{v} != 0", "any" if kind == "max" else "all", compute=torch.int32)

    return lower


register(aten.any.dim, aten.any.dims, aten.any.default)(_bool_reduce("max"))
register(aten.all.dim, aten.all.dims, aten.all.default)(_bool_reduce("min"))


@register(aten.arange.start_step, aten.arange.start, aten.arange.default)
def _arange(L, node, *args, **kw):
    out = meta(node)
    if node.target is aten.arange.default:
        start, step = 0, 1
    else:
        start = args[0]
        step = args[2] if len(args) > 2 else kw.get("step", 1)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (start, step)):
        raise Unsupported("arange with runtime bounds")
    from autograph.backends.triton.indexing import texpr

    dtype = out.dtype

    def fn(k, index):
        k.count_op("arange")
        return k.emit(f"({literal(start)} + {literal(step)} * ({texpr(index[0])})).to({tl_dtype(compute_dtype(dtype))})")

    return Pointwise(tuple(out.shape), dtype, fn, 1, ("arange",))
