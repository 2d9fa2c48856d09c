"""Lower an aten-level FX graph into the loop IR (``ir.py``).

Each supported aten op has a lowering that returns a lazily evaluated value
(pointwise ops, views) or realizes a reduction. Everything else becomes an
:class:`~autograph.backends.triton.ir.ExternItem`: the wrapper calls the aten
op on real tensors. A lowering that meets a case it does not handle raises
:class:`LoweringDeclined`, and the op becomes an extern call too — an unsupported
op never fails the graph.
"""
from __future__ import annotations

import logging
import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import sympy
import torch
import torch.fx

from autograph.backends.triton.context import CompileContext
from autograph.backends.triton.indexing import contiguous_strides, delinearize, is_static
from autograph.backends.triton.ir import (PERSISTENT_MAX, Buffer, ExternItem, Pointwise, PointwiseItem,
                                          ReductionItem, IRNode, View, new_buffer)
from autograph.backends.triton.ops import OpsHandler, OpsValue, check_dtype, compute_dtype

aten = torch.ops.aten
prims = torch.ops.prims

kernel_log = logging.getLogger("autograph.kernels")  # the `backend` log channel
# prefix of an extern's reason when a lowering raised with symbolic sizes (counted per graph)
LOWERING_ERROR = "lowering error with symbolic sizes:"

INLINE_MULTI_USE_OPS = 8  # a pointwise value read by several nodes is recomputed up to this size
MAX_INLINE_OPS = 64


class LoweringDeclined(Exception):
    """This op (with these arguments) has no Triton lowering; call aten instead."""


class GraphNotLowerable(Exception):
    """The whole graph cannot go through this backend (the caller runs it with aten)."""


@dataclass
class WrapperVar:
    """A non-tensor value known only when the wrapper runs (an extern's result)."""

    name: str


@dataclass
class SizeInput:
    """A graph input that is a size (int/SymInt), e.g. a size AOTAutograd saved for backward."""

    name: str
    expr: Any  # sympy expression over size symbols, or a Python int


def size_expr(val) -> Any:
    """A SymInt's sympy expression over ShapeEnv symbols (an int stays an int).

    Unbacked symbols (data-dependent sizes) have no input to read them from."""
    if isinstance(val, int):
        return val
    if isinstance(val, torch.SymInt):
        expr = val.node.expr
        if expr.is_Integer:
            return int(expr)
        for f in expr.free_symbols:
            if not f.name.startswith("s"):
                raise GraphNotLowerable(f"data-dependent (unbacked) size {f}")
        return expr
    raise GraphNotLowerable(f"size of type {type(val).__name__}")


def _size_hint_of(val) -> int:
    """The example's value of a size (a SymInt's hint)."""
    if isinstance(val, torch.SymInt):
        hint = val.node.hint
        return int(hint) if hint is not None else 8192
    return int(val)


def graph_context(gm: torch.fx.GraphModule) -> CompileContext:
    """The size symbols of ``gm`` and their example values, read off its inputs (every size
    symbol of a graph is backed by an input's size, stride or a SymInt input)."""
    ctx = CompileContext()

    def note(size) -> None:
        if isinstance(size, torch.SymInt):
            expr = size.node.expr
            env = size.node.shape_env
            hints = (getattr(env, "backed_var_to_val", None) or getattr(env, "var_to_val", {})) if env else {}
            for f in expr.free_symbols:
                hint = hints.get(f)
                ctx.add_symbol(f, int(hint) if hint is not None else None)

    for node in gm.graph.find_nodes(op="placeholder"):
        val = meta(node)
        if isinstance(val, torch.Tensor):
            for size in (*val.shape, *val.stride(), val.storage_offset()):
                note(size)
        elif isinstance(val, torch.SymInt):
            note(val)
    return ctx


@dataclass
class LoweredGraph:
    inputs: list  # Buffer | SizeInput
    items: list
    outputs: list  # Buffer | WrapperVar | python constant
    constants: dict[str, Any] = field(default_factory=dict)  # wrapper globals (get_attr tensors)
    needed: set = field(default_factory=set)  # buffer names used as tensors (outputs, extern args)
    ctx: CompileContext = field(default_factory=CompileContext)  # size symbols and their hints


def meta(node: torch.fx.Node):
    return node.meta.get("val")


def makes_views_only(target) -> bool:
    """Whether ``target`` returns views of its first argument (a tensor or a list of them) and
    does nothing else: no write, no new memory (``view``, ``permute``, ``split``...)."""
    schema = getattr(target, "_schema", None)
    if schema is None or len(schema.returns) != 1 or not schema.arguments:
        return False
    ret, first = schema.returns[0].alias_info, schema.arguments[0].alias_info
    if ret is None or first is None or ret.is_write or first.is_write or schema.is_mutable:
        return False
    return ret.before_set == first.before_set or str(schema.returns[0].type) == "List[Tensor]"


def view_op(node: torch.fx.Node) -> tuple[torch.fx.Node, int | None] | None:
    """``(the view op's node, list index)`` when ``node`` is a view of the graph value that op
    reads first: the op itself (index None), or an item of a list of views (``split(x)[i]``,
    the split and ``i``); None for anything else."""
    index = None
    if node.target is operator.getitem:
        node, index = node.args
        if not isinstance(node, torch.fx.Node) or not isinstance(index, int):
            return None
    if not makes_views_only(node.target) or not node.args or not isinstance(node.args[0], torch.fx.Node):
        return None
    return node, index


def replayed_view_layout(op: torch.fx.Node, index: int | None, base_shape: tuple,
                         base_stride: tuple) -> tuple | None:
    """``(size, stride, storage offset relative to the base's)`` of the view ``op`` makes (item
    ``index`` of its list) of a base of the given layout, when everything is a plain int: the
    view op replayed on a meta tensor of that layout (the recorded values of the graph's nodes
    need not carry exact storage offsets). None when the layout depends on sizes known only
    later."""
    rest = op.args[1:]
    plain = (int, float, bool, type(None), torch.dtype, torch.memory_format)
    if (not _plain_ints(tuple(base_shape) + tuple(base_stride))
            or not all(isinstance(a, plain) or (isinstance(a, (list, tuple)) and _plain_ints(a)) for a in rest)
            or not all(isinstance(v, plain) for v in op.kwargs.values())):
        return None
    base = meta(op.args[0])
    stand_in = torch.empty_strided(tuple(int(v) for v in base_shape), tuple(int(v) for v in base_stride),
                                   dtype=base.dtype, device="meta")
    try:
        view = op.target(stand_in, *rest, **op.kwargs)
    except RuntimeError:  # (a view the base's layout does not allow: aten decides at run time)
        return None
    if index is not None:
        view = view[index]
    if not isinstance(view, torch.Tensor) or view.dtype != base.dtype:
        return None
    return tuple(view.shape), tuple(view.stride()), view.storage_offset()


def _plain_ints(values) -> bool:
    return all(type(v) is int or isinstance(v, sympy.Integer) for v in values)


def shape_of(val) -> tuple:
    """A (fake) tensor's shape with symbolic sizes as sympy expressions."""
    return tuple(size_expr(s) for s in val.shape)


def stride_of(val) -> tuple:
    return tuple(size_expr(s) for s in val.stride())


def eager_layout(node: torch.fx.Node | None, shape: tuple) -> tuple[int, ...] | None:
    """Strides eager gives ``node``'s tensor when they are a dense permutation, else None."""
    val = meta(node) if node is not None else None
    if not isinstance(val, torch.Tensor) or shape_of(val) != tuple(shape):
        return None
    stride = stride_of(val)
    if not isinstance(val.storage_offset(), int) or val.storage_offset() != 0 or stride == contiguous_strides(tuple(shape)):
        return None
    # order dims by stride (symbolic strides by their example values), then prove density exactly
    dims = sorted((i for i in range(len(shape)) if shape[i] != 1), key=lambda i: _size_hint_of(val.stride()[i]))
    expected = 1
    for i in dims:  # dense and non-overlapping: each dim steps over all faster ones
        if sympy.expand(sympy.sympify(stride[i]) - expected) != 0:
            return None
        expected *= shape[i]
    return tuple(stride[i] if shape[i] != 1 else 1 for i in range(len(shape)))


def broadcast_index(index: list, out_shape: tuple, in_shape: tuple) -> list:
    lead = len(out_shape) - len(in_shape)
    return [sympy.Integer(0) if s == 1 else index[lead + i] for i, s in enumerate(in_shape)]


LOWERINGS: dict[Any, Callable] = {}  # aten/prims op -> lowering (filled by ``lowerings/``)


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
        self.symbolic = False  # some size is a symbol (sizes are kernel arguments)

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
                if isinstance(val, (int, torch.SymInt)) and not isinstance(val, bool):
                    size = SizeInput(node.name, size_expr(val))
                    self.symbolic |= not is_static(size.expr)
                    inputs.append(size)
                    self.env[node] = size.expr
                    continue
                if not isinstance(val, torch.Tensor):
                    raise GraphNotLowerable(f"input {node.name} is not a tensor ({type(val).__name__})")
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
                    if isinstance(value, IRNode):
                        value = self.realize(value, out)
                        self.needed.add(value.name)
                    outputs.append(value)
            else:
                raise GraphNotLowerable(f"node kind {node.op} ({node.target})")
        return LoweredGraph(inputs, self.items, outputs, self.constants, self.needed, graph_context(self.gm))

    def tensor_buffer(self, name: str, val: torch.Tensor) -> Buffer:
        shape = tuple(size_expr(s) for s in val.shape)
        stride = tuple(size_expr(s) for s in val.stride())
        self.symbolic |= not all(is_static(s) for s in shape + stride)
        if self.device is None:
            self.device = val.device
        elif val.device != self.device and val.numel() > 1 and val.dim() > 0:
            raise GraphNotLowerable(f"tensors on several devices ({self.device}, {val.device})")
        return Buffer(name, shape, stride, val.dtype, val.device)

    def call_function(self, node: torch.fx.Node):
        lowering = LOWERINGS.get(node.target)
        out = meta(node)
        if isinstance(out, torch.SymInt):
            # a size computed from sizes (sym_size, s0 * 64, ...): its value is its expression
            return size_expr(out)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        # (shapes are read as expressions: comparing SymInts would add guards to the ShapeEnv)
        if lowering is not None and all(isinstance(o, torch.Tensor) and 0 not in shape_of(o) for o in outs):
            try:
                args = [self.env_of(a) for a in node.args]
                kwargs = {k: self.env_of(v) for k, v in node.kwargs.items()}
                value = lowering(self, node, *args, **kwargs)
                if isinstance(value, Pointwise) and (
                    value.ops > MAX_INLINE_OPS or (len(node.users) > 1 and value.ops > INLINE_MULTI_USE_OPS)
                ):
                    value = self.realize(value, node)
                return value
            except LoweringDeclined as exc:  # the lowering declined this case: say why
                kernel_log.info("triton lowering of %s declined; it runs as an aten call (%s)", node.target, exc)
                return self.extern(node, reason=f"lowering declined: {exc}" if str(exc) else "lowering declined")
            except (TypeError, ValueError, NotImplementedError) as exc:
                if not self.symbolic:
                    raise
                # Most likely the lowering needed a concrete size (int(), a comparison) and met
                # a symbol; it may also be a bug in the lowering. Either way the op runs as aten
                # (correct), but it is said out loud: logged on the `backend` channel and kept in
                # the graph's record (``CompiledAtenGraph.lowering_errors``).
                reason = f"{LOWERING_ERROR} {type(exc).__name__}: {exc}"
                kernel_log.warning("triton lowering of %s failed with symbolic sizes; it runs as an aten "
                                   "call (%s)", node.target, reason)
                return self.extern(node, reason=reason)
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
            if isinstance(value, IRNode) and not isinstance(value, Buffer) and any(order[u] > here for u in n.users):
                self.env[n] = self.realize(value, n)
            elif isinstance(value, (tuple, list)):
                if any(order[u] > here for u in n.users):
                    self.env[n] = type(value)(self.realize(v) if isinstance(v, IRNode) else v for v in value)

    def materialize_node_arg(self, arg):
        """An extern's argument as wrapper values, tensors realized in eager's layout."""
        if isinstance(arg, torch.fx.Node):
            value = self.env[arg]
            if isinstance(value, IRNode):
                buf = self.realize(value, arg)
                self.needed.add(buf.name)
                return buf
            return self.materialize_arg(value)
        if isinstance(arg, (list, tuple)):
            return type(arg)(self.materialize_node_arg(a) for a in arg)
        return arg

    def materialize_arg(self, arg):
        if isinstance(arg, IRNode):
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
        item = ExternItem(name, node.target, args, kwargs, reason=f"{node.target}: {reason}",
                          aliases_only=makes_views_only(node.target))
        self.items.append(item)
        out = meta(node)
        if isinstance(out, torch.Tensor):
            buf = self.tensor_buffer(name, out)
            item.view = self.static_view(node, buf)
            buf.producer = item
            item.check_strides.append((name, shape_of(out), stride_of(out)))
            return buf
        return WrapperVar(name)

    def static_view(self, node: torch.fx.Node, buf: Buffer) -> tuple | None:
        """``(base buffer, size, stride, offset)`` when ``node`` is a view whose layout is known
        now and is the one ``buf`` (how kernels read it) says; else None (an aten call)."""
        found = view_op(node)
        base = self.materialize_node_arg(found[0].args[0]) if found is not None else None
        if not isinstance(base, Buffer) or not _plain_ints(buf.shape + buf.stride):
            return None
        layout = replayed_view_layout(*found, base.shape, base.stride)
        if layout is None or layout[:2] != (tuple(map(int, buf.shape)), tuple(map(int, buf.stride))):
            return None
        return (base,) + layout

    # -- helpers for lowerings -------------------------------------------
    def pointwise(self, node, args: list, body: Callable[..., OpsValue], name: str, *,
                  compute: torch.dtype | None = None, cast: tuple[bool, ...] | None = None) -> Pointwise:
        """The value of ``node`` computed element by element: ``body(ops, *elements)``.

        Tensor arguments are read at the (broadcast) index and converted to ``compute`` (default:
        the output's compute dtype) unless ``cast`` says otherwise; Python scalars and size
        expressions are constants."""
        out = meta(node)
        shape, dtype = shape_of(out), out.dtype
        for a in args:
            if isinstance(a, WrapperVar) or (isinstance(a, (list, tuple))):
                raise LoweringDeclined("runtime scalar argument")
            if isinstance(a, IRNode) and a.dtype in (torch.complex64, torch.complex128):
                raise LoweringDeclined("complex")
        if compute is None:
            compute = compute_dtype(dtype)
        check_dtype(compute)
        casts = cast or tuple(True for _ in args)

        def fn(ops: OpsHandler, index) -> OpsValue:
            elements = []
            for a, do_cast in zip(args, casts):
                if isinstance(a, IRNode):
                    e = a.load(ops, broadcast_index(index, shape, a.shape))
                    if do_cast and compute_dtype(a.dtype) != compute:
                        e = ops.to_dtype(e, compute, a.dtype)
                else:
                    e = scalar(ops, a, compute)
                elements.append(e)
            return body(ops, *elements)

        inner = [a for a in args if isinstance(a, IRNode)]
        names = tuple(dict.fromkeys((name,) + tuple(n for a in inner for n in a.op_names)))
        return Pointwise(shape, dtype, fn, 1 + sum(a.ops for a in inner), names)

    def reduce_to(self, x: IRNode, rdims: tuple, kind: str, shape: tuple, dtype: torch.dtype) -> Buffer:
        buf = new_buffer(self.fresh(), shape, dtype, self.device)
        item = ReductionItem(buf, x, rdims, kind, False, (kind,) + x.op_names)
        buf.producer = item
        self.items.append(item)
        return buf

    def pointwise_value(self, shape, dtype, args, body: Callable[..., OpsValue], name) -> Pointwise:
        """A pointwise value not tied to an FX node (inputs already in ``dtype``): ``body(ops, *elements)``."""

        def fn(ops: OpsHandler, index) -> OpsValue:
            return body(ops, *(a.load(ops, broadcast_index(index, shape, a.shape)) for a in args))

        return Pointwise(tuple(shape), dtype, fn, 1 + sum(a.ops for a in args), (name,))

    def reduce(self, node, x: IRNode, dims, keepdim: bool, kind: str, out_dtype=None) -> IRNode:
        if not isinstance(x, IRNode):
            raise LoweringDeclined("reduction of a non-tensor")
        ndim = len(x.shape)
        if ndim == 0:
            raise LoweringDeclined("reduction of a 0-d tensor")
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = list(range(ndim))
        if isinstance(dims, int):
            dims = [dims]
        rdims = tuple(sorted({d % ndim for d in dims}))
        rnumel = math.prod(x.shape[d] for d in rdims)
        if rnumel == 0 or x.numel == 0:
            raise LoweringDeclined("empty reduction")
        if kind in ("argmax", "argmin") and (len(rdims) != 1 or not is_static(rnumel) or rnumel > PERSISTENT_MAX):
            # a looped arg-reduction is not written yet; a symbolic range may exceed one block
            raise LoweringDeclined("arg-reduction over a large, symbolic (needs a concrete size) or multi-dim range")
        out = meta(node)
        dtype = out_dtype or out.dtype
        if x.dtype == torch.bool and kind in ("max", "min"):
            raise LoweringDeclined("bool max/min")
        if len(rdims) == ndim and kind in SPLIT_KINDS and is_static(rnumel) and int(rnumel) >= SPLIT_MIN:
            return self.split_reduce(x, kind, dtype, shape_of(out))
        parts = outer_split_parts(x.shape, rdims) if kind in SPLIT_KINDS else 1
        if parts > 1:
            return self.split_outer_reduce(x, rdims, kind, dtype, parts, shape_of(out), keepdim)
        buf = new_buffer(self.fresh(), shape_of(out), dtype, self.device)
        item = ReductionItem(buf, x, rdims, kind, keepdim, (kind,) + x.op_names)
        buf.producer = item
        self.items.append(item)
        return buf

    def split_reduce(self, x: IRNode, kind: str, dtype: torch.dtype, out_shape: tuple) -> IRNode:
        """A reduction of every element in two stages: ``parts`` programs each reduce one
        contiguous chunk into a partial result, then one small reduction combines the partials.

        (One program reducing the whole tensor leaves all but one streaming multiprocessor idle:
        Inductor's split reduction.) The last chunk is padded with the reduction's identity."""
        n = int(x.numel)
        parts = min(SPLIT_MAX_PARTS, 1 << max(0, math.ceil(math.log2(max(1, n // SPLIT_CHUNK)))))
        chunk = -(-n // parts)
        shape = tuple(x.shape)
        acc = compute_dtype(dtype)
        identity = split_identity(kind, acc)

        def element(ops: OpsHandler, idx) -> OpsValue:
            flat = idx[0] * chunk + idx[1]
            if parts * chunk == n:
                return x.load(ops, delinearize(flat, shape))
            inside = ops.lt(ops.index_expr(flat, torch.int64), ops.index_expr(n, torch.int64))
            return ops.masked(inside, lambda: x.load(ops, delinearize(flat, shape)), ops.constant(identity, acc))

        chunks = Pointwise((parts, chunk), x.dtype, element, x.ops, x.op_names, counted=False)
        partial = self.reduce_to(chunks, (1,), kind, (parts,), acc)
        total = self.reduce_to(partial, (0,), kind, (), dtype)
        if tuple(out_shape) == ():
            return total
        return View(total, tuple(out_shape), lambda idx: [])


    def split_outer_reduce(self, x: IRNode, rdims: tuple, kind: str, dtype: torch.dtype, parts: int,
                           out_shape: tuple, keepdim: bool) -> IRNode:
        """A column reduction (the innermost dim kept: bias and norm-weight gradients) in two
        stages: ``parts`` row chunks each reduce into a partial row, then a small reduction sums
        the ``parts`` partial rows in a fixed order (deterministic; partials in the accumulation
        dtype).

        Unsplit, a (4096, 768) column sum gives a handful of programs (768 columns in blocks of
        64-128) each looping over all 4096 rows, on a GPU with 132 SMs: Inductor splits these
        too. A padded last chunk holds the reduction's identity."""
        shape = tuple(x.shape)
        rshape = tuple(shape[d] for d in rdims)
        xshape = tuple(s for d, s in enumerate(shape) if d not in rdims)
        rnumel = math.prod(rshape)
        chunk = -(-rnumel // parts)
        acc = compute_dtype(dtype)
        identity = split_identity(kind, acc)

        def full_index(r, kept):
            rs, ks = iter(delinearize(r, rshape)), iter(kept)
            return [next(rs) if d in rdims else next(ks) for d in range(len(shape))]

        def element(ops: OpsHandler, idx) -> OpsValue:
            r = idx[0] * chunk + idx[1]
            if parts * chunk == rnumel:
                return x.load(ops, full_index(r, idx[2:]))
            inside = ops.lt(ops.index_expr(r, torch.int64), ops.index_expr(rnumel, torch.int64))
            return ops.masked(inside, lambda: x.load(ops, full_index(r, idx[2:])), ops.constant(identity, acc))

        chunks = Pointwise((parts, chunk) + xshape, x.dtype, element, x.ops, x.op_names, counted=False)
        partial = self.reduce_to(chunks, (1,), kind, (parts,) + xshape, acc)
        total = self.reduce_to(partial, (0,), kind, xshape, dtype)
        if not keepdim:
            return total
        return View(total, tuple(out_shape), lambda idx: [i for d, i in enumerate(idx) if d not in rdims])


def outer_split_parts(shape: tuple, rdims: tuple) -> int:
    """How many row chunks a column reduction is split into (1: not split).

    Split when the innermost dim is kept (lanes go across it, see ``codegen.launch_config``),
    sizes are static, and the unsplit kernel would have fewer than ``OUTER_SPLIT_PROGRAMS``
    programs of ``OUTER_COLUMNS`` columns: the chunks then have ``OUTER_CHUNK_ROWS`` rows, at most
    ``OUTER_SPLIT_MAX_PARTS`` of them."""
    last = len(shape) - 1
    if last < 0 or last in rdims or not all(is_static(s) for s in shape):
        return 1
    rnumel = math.prod(int(shape[d]) for d in rdims)
    xnumel = math.prod(int(s) for d, s in enumerate(shape) if d not in rdims)
    if int(shape[last]) == 1 or rnumel < 2 * OUTER_CHUNK_ROWS:
        return 1
    if -(-xnumel // OUTER_COLUMNS) >= OUTER_SPLIT_PROGRAMS:
        return 1
    return min(OUTER_SPLIT_MAX_PARTS, -(-rnumel // OUTER_CHUNK_ROWS))


SPLIT_KINDS = ("sum", "prod", "max", "min")
OUTER_COLUMNS = 128  # columns per program of an unsplit column reduction (launch_config)
OUTER_SPLIT_PROGRAMS = 264  # two programs per SM of an H100 (132 SMs)
OUTER_CHUNK_ROWS = 64  # rows per partial program: a persistent block of 64 rows
OUTER_SPLIT_MAX_PARTS = 256
SPLIT_MIN = 1 << 16  # a full reduction of at least this many elements is split
SPLIT_CHUNK = 4096  # elements per partial program, about
SPLIT_MAX_PARTS = 1024


def split_identity(kind: str, dtype: torch.dtype) -> bool | int | float:
    """The value a padded element of a split reduction has (it changes no result)."""
    if kind == "sum":
        return 0.0 if dtype.is_floating_point else 0
    if kind == "prod":
        return 1.0 if dtype.is_floating_point else 1
    if dtype.is_floating_point:
        return -math.inf if kind == "max" else math.inf
    info = torch.iinfo(dtype)
    return info.min if kind == "max" else info.max


def scalar(ops: OpsHandler, value, dtype: torch.dtype) -> OpsValue:
    """A Python scalar, or a size expression (its symbols are kernel arguments), as a value."""
    if isinstance(value, sympy.Expr) and not value.is_Number:
        return ops.index_expr(value, torch.int64)
    return ops.constant(value, dtype)


def _dtype_of(x) -> torch.dtype:
    if isinstance(x, IRNode):
        return x.dtype
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    return torch.float32


def promoted(*args) -> torch.dtype:
    """torch's type promotion over tensors and Python scalars (for comparisons)."""
    tensors = [a for a in args if isinstance(a, IRNode)]
    dims = [torch.empty((1,) * max(1, len(a.shape)) if len(a.shape) else (), dtype=a.dtype, device="meta") for a in tensors]
    scalars = [a for a in args if not isinstance(a, IRNode)]
    return compute_dtype(torch.result_type(*(dims + scalars))) if len(dims + scalars) > 1 else compute_dtype(_dtype_of(args[0]))


# The lowerings register themselves into LOWERINGS when imported.
from autograph.backends.triton.lowerings import pointwise as _pointwise, reductions as _reductions, views as _views  # noqa: E402,F401,I001
