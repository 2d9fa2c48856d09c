"""Triton source for one kernel group (see ``fuse.KernelGroup``).

``KernelWriter`` is the object values emit code into: it deduplicates
expressions (CSE), turns buffer loads into ``tl.load`` with the right mask,
and resolves loads of buffers computed earlier *in the same kernel* to the
register holding them (raising :class:`CannotFuse` when that is not possible
so that the fuser starts a new kernel instead).
"""
from __future__ import annotations

import math

import sympy
import torch


from autograph.backends.triton.context import CompileContext
from autograph.backends.triton.indexing import contiguous_strides, is_size_symbol, linearize, symbol, texpr
from autograph.backends.triton.ir import Buffer, PointwiseItem, ReductionItem

PERSISTENT_MAX = 1024
MAX_KERNEL_OPS = 64

TL_DTYPES = {
    torch.float32: "tl.float32",
    torch.float16: "tl.float16",
    torch.bfloat16: "tl.bfloat16",
    torch.float64: "tl.float64",
    torch.int64: "tl.int64",
    torch.int32: "tl.int32",
    torch.int16: "tl.int16",
    torch.int8: "tl.int8",
    torch.uint8: "tl.uint8",
    torch.bool: "tl.int1",
}


class CannotFuse(Exception):
    """The candidate item cannot join this kernel; the fuser starts a new one."""


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """Arithmetic happens in fp32 for half types (as the GPU does it fastest and exactly enough)."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def tl_dtype(dtype: torch.dtype) -> str:
    try:
        return TL_DTYPES[dtype]
    except KeyError:
        raise NotImplementedError(f"dtype {dtype} in a Triton kernel") from None


def literal(value, dtype: torch.dtype | None = None) -> str:
    """A Python scalar (or a size expression, whose symbols are kernel arguments) as Triton source."""
    if isinstance(value, sympy.Expr) and not value.is_Number:
        if not all(is_size_symbol(f) for f in value.free_symbols):
            raise NotImplementedError(f"scalar expression {value}")
        return f"({texpr(value)})"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        if math.isnan(value):
            return 'float("nan")'
        return repr(value)
    return repr(int(value))


def next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def reduction_identity(kind: str, dtype: torch.dtype) -> str:
    floating = dtype.is_floating_point
    if kind == "sum":
        return "0.0" if floating else "0"
    if kind == "prod":
        return "1.0" if floating else "1"
    if kind in ("max", "argmax"):
        return 'float("-inf")' if floating else str(torch.iinfo(dtype).min if dtype != torch.bool else 0)
    if kind in ("min", "argmin"):
        return 'float("inf")' if floating else str(torch.iinfo(dtype).max if dtype != torch.bool else 1)
    raise NotImplementedError(kind)


class KernelWriter:
    """Collects the body of one kernel; values call ``load_buffer``/``emit`` on it."""

    def __init__(self, group, *, persistent: bool, stores: set | None):
        self.group = group
        self.persistent = persistent
        self.stores = stores  # buffers to store; None = all
        self.in_args: dict[str, str] = {}  # buffer name -> in_ptrN
        self.out_args: dict[str, str] = {}
        self.arg_buffers: dict[str, Buffer] = {}
        self.lines: list[str] = []
        self.indent = 1
        self.cse: list[dict[str, str]] = [{}]
        self.counter = 0
        self.space = "x"  # "x": per-row values; "xr": full iteration space
        self.extra_masks: list[str] = []
        self.scope = 0  # loop id; registers of full-space values only valid inside it
        self.registers: dict[Buffer, tuple[str, str, int]] = {}  # buffer -> (var, space, scope)
        self.op_names: list[str] = []
        self.ops = 0
        self._setup_symbols()

    # -- iteration space -------------------------------------------------
    def _setup_symbols(self) -> None:
        g = self.group
        self.xsyms = [symbol(f"x{i}", s) if s != 1 else sympy.Integer(0) for i, s in enumerate(g.xshape)]
        self.rsyms = [symbol(f"r{i}", s) if s != 1 else sympy.Integer(0) for i, s in enumerate(g.rshape)]
        self.xlinear = linearize(self.xsyms, contiguous_strides(g.xshape))
        if g.kind == "pointwise":
            self.full_index = list(self.xsyms)
        else:
            xi, ri = iter(self.xsyms), iter(self.rsyms)
            self.full_index = [next(ri) if d in g.rdims else next(xi) for d in range(len(g.full_shape))]
        self.full_linear = linearize(self.full_index, contiguous_strides(g.full_shape))

    def index_for(self, shape: tuple[int, ...]) -> tuple[list, str]:
        """The loop index for a value of ``shape`` in this kernel, and its space."""
        g = self.group
        if tuple(shape) == tuple(g.full_shape):
            return list(self.full_index), "xr" if g.kind == "reduction" else "x"
        if g.kind == "reduction":
            if tuple(shape) == g.keep_shape:
                xi = iter(self.xsyms)
                return [sympy.Integer(0) if d in g.rdims else next(xi) for d in range(len(g.full_shape))], "x"
            if tuple(shape) == tuple(g.xshape):
                return list(self.xsyms), "x"
        raise CannotFuse(f"shape {shape} does not match the kernel's iteration space")

    @property
    def mask(self) -> str:
        base = "xrmask" if self.space == "xr" else "xmask"
        return " & ".join([base] + self.extra_masks) if self.extra_masks else base

    def masked(self, condition: str):
        """Loads inside the ``with`` block also require ``condition`` (cat, padding)."""
        writer = self

        class _Ctx:
            def __enter__(self):
                writer.extra_masks.append(f"({condition})")

            def __exit__(self, *exc):
                writer.extra_masks.pop()

        return _Ctx()

    # -- emission --------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def emit(self, expr: str) -> str:
        """Assign ``expr`` to a temporary (reusing an identical one in scope)."""
        for table in reversed(self.cse):
            if expr in table:
                return table[expr]
        name = f"tmp{self.counter}"
        self.counter += 1
        self.line(f"{name} = {expr}")
        self.cse[-1][expr] = name
        return name

    def count_op(self, name: str) -> None:
        self.ops += 1
        if name not in self.op_names:
            self.op_names.append(name)

    def load_buffer(self, buf: Buffer, index: list) -> str:
        reg = self.registers.get(buf)
        if reg is not None:
            var, space, scope = reg
            flat = sympy.expand(buf.flat_index(index) - buf.offset)
            want = self.xlinear if space == "x" else self.full_linear
            if space == "x" and buf.numel != self.group.xnumel:
                raise CannotFuse("per-row buffer of another size")
            if sympy.expand(flat - want) == 0 and (space == "x" or scope == self.scope):
                return var
            raise CannotFuse(f"{buf.name} is computed in this kernel but read at another index")
        if buf.producer is not None and buf.producer in self.group.items:
            raise CannotFuse(f"{buf.name} is read before it is computed in this kernel")
        ptr = self.in_args.get(buf.name)
        if ptr is None:
            ptr = self.in_args[buf.name] = f"in_ptr{len(self.in_args)}"
            self.arg_buffers[buf.name] = buf
        offset = self.offset(buf.flat_index(index))
        value = self.emit(f"tl.load({ptr} + ({offset}), {self.mask}, other=0)")
        if compute_dtype(buf.dtype) != buf.dtype:
            value = self.emit(f"{value}.to({tl_dtype(compute_dtype(buf.dtype))})")
        return value

    def store(self, buf: Buffer, index: list, value: str, space: str) -> None:
        self.registers[buf] = (value, space, self.scope)
        if self.stores is not None and buf not in self.stores:
            return
        ptr = self.out_args.setdefault(buf.name, f"out_ptr{len(self.out_args)}")
        self.arg_buffers[buf.name] = buf
        if buf.dtype != torch.float32:
            value = f"{value}.to({tl_dtype(buf.dtype)})"
        self.line(f"tl.store({ptr} + ({self.offset(buf.flat_index(index))}), {value}, {self.mask})")

    def offset(self, expr) -> str:
        """Offset source; a constant offset is broadcast to a block (triton needs a block pointer)."""
        if all(is_size_symbol(f) for f in expr.free_symbols):
            return f"{texpr(expr)} + 0 * xindex"
        return texpr(expr)

    # -- loops -----------------------------------------------------------
    def dims_code(self, syms, shape, var: str) -> None:
        strides = contiguous_strides(shape)
        outer_seen = False  # the outermost non-1 dim needs no modulo (the mask bounds it)
        for sym, size, stride in zip(syms, shape, strides):
            if size == 1:
                continue
            expr = var if stride == 1 else f"({var} // {_paren(stride)})"
            if outer_seen:
                expr = f"{expr} % {_paren(size)}"
            outer_seen = True
            self.line(f"{sym} = {expr}")

    def open_rloop(self) -> None:
        g = self.group
        if self.persistent:
            return
        self.scope += 1
        self.line("for roffset in range(0, rnumel, RBLOCK):")
        self.indent += 1
        self.cse.append({})
        self.line("rindex = roffset + tl.arange(0, RBLOCK)[None, :]")
        self.line("rmask = rindex < rnumel")
        self.line("xrmask = xmask & rmask")
        self.dims_code(self.rsyms, g.rshape, "rindex")

    def close_rloop(self) -> None:
        if self.persistent:
            return
        self.indent -= 1
        self.cse.pop()


def write_item(k: KernelWriter, item) -> None:
    """Emit the code computing ``item`` into kernel ``k``."""
    if isinstance(item, PointwiseItem):
        index, space = k.index_for(item.buffer.shape)
        if space == "xr" and not k.persistent:
            k.open_rloop()
            k.space = "xr"
            value = item.value.load(k, index)
            k.store(item.buffer, index, value, space)
            k.close_rloop()
            k.registers[item.buffer] = ("<loop>", "xr", -1)
        else:
            k.space = space
            value = item.value.load(k, index)
            k.store(item.buffer, index, value, space)
        return
    assert isinstance(item, ReductionItem)
    g = k.group
    if tuple(item.input.shape) != tuple(g.full_shape) or tuple(item.rdims) != tuple(g.rdims):
        raise CannotFuse("reduction over another iteration space")
    acc_dtype = compute_dtype(item.buffer.dtype) if item.kind not in ("argmax", "argmin") else compute_dtype(item.input.dtype)
    ident = reduction_identity(item.kind, acc_dtype)
    cast = f".to({tl_dtype(acc_dtype)})" if compute_dtype(item.input.dtype) != acc_dtype else ""
    out_index, _ = k.index_for(item.buffer.shape)
    floating = acc_dtype.is_floating_point
    if k.persistent:
        k.open_rloop()
        k.space = "xr"
        value = item.input.load(k, list(k.full_index))
        masked = k.emit(f"tl.where(xrmask, {value}{cast}, {ident})")
        red = _row_reduce(k, item.kind, masked, floating)
    else:
        if item.kind in ("argmax", "argmin"):
            raise CannotFuse("arg-reductions are persistent only")
        acc = f"acc{k.counter}"
        k.counter += 1
        k.line(f"{acc} = tl.full([XBLOCK, RBLOCK], {ident}, {tl_dtype(acc_dtype)})")
        k.open_rloop()
        k.space = "xr"
        value = item.input.load(k, list(k.full_index))
        v = k.emit(f"{value}{cast}") if cast else value
        combine = {"sum": f"{acc} + {v}", "prod": f"{acc} * {v}",
                   "max": nan_max(acc, v) if floating else f"tl.maximum({acc}, {v})",
                   "min": nan_min(acc, v) if floating else f"tl.minimum({acc}, {v})"}[item.kind]
        k.line(f"{acc} = tl.where(xrmask, {combine}, {acc})")
        k.close_rloop()
        red = _row_reduce(k, item.kind, acc, floating)
    k.count_op(item.kind)
    k.space = "x"
    k.store(item.buffer, out_index, red, "x")


HELPERS = '''

@triton.jit
def _prod_combine(a, b):
    return a * b
'''


def kernel_source(group, name: str, *, persistent: bool, stores: set | None, gpu: bool,
                  ctx: CompileContext) -> tuple[str, KernelWriter]:
    """Generate the complete module source (imports + kernel) for ``group``."""
    k = KernelWriter(group, persistent=persistent, stores=stores)
    head = KernelWriter.__new__(KernelWriter)  # only used for dims code
    head.lines, head.indent = [], 1
    if group.kind == "pointwise":
        head.lines += ["    xoffset = tl.program_id(0) * XBLOCK",
                       "    xindex = xoffset + tl.arange(0, XBLOCK)",
                       "    xmask = xindex < xnumel"]
        KernelWriter.dims_code(head, k.xsyms, group.xshape, "xindex")
    else:
        head.lines += ["    xoffset = tl.program_id(0) * XBLOCK",
                       "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]",
                       "    xmask = xindex < xnumel"]
        KernelWriter.dims_code(head, k.xsyms, group.xshape, "xindex")
        if persistent:
            head.lines += ["    rindex = tl.arange(0, RBLOCK)[None, :]",
                           "    rmask = rindex < rnumel",
                           "    xrmask = xmask & rmask"]
            KernelWriter.dims_code(head, k.rsyms, group.rshape, "rindex")
    for item in group.items:
        write_item(k, item)
    ins = list(k.in_args.values())
    outs = list(k.out_args.values())
    if not outs:
        raise CannotFuse("kernel stores nothing")
    params = ins + outs + ["xnumel"]
    consts = ["XBLOCK: tl.constexpr"]
    if group.kind == "reduction":
        params.append("rnumel")
        consts.append("RBLOCK: tl.constexpr")
    k.size_args = ctx.size_args_of("\n".join(head.lines + k.lines))
    params += k.size_args
    src = ["import triton", "import triton.language as tl"]
    if group.kind == "reduction" and "tl.reduce(" in "\n".join(k.lines):
        src.append(HELPERS)
    src += ["", ""]
    if gpu:
        src.append(autotune_decorator(group, persistent, ctx))
    src.append("@triton.jit")
    src.append(f"def {name}({', '.join(params + consts)}):")
    src += head.lines + k.lines
    return "\n".join(src) + "\n", k


def _paren(expr) -> str:
    text = texpr(sympy.sympify(expr))
    return text if sympy.sympify(expr).is_Atom else f"({text})"


def launch_config(group, persistent: bool, gpu: bool, ctx: CompileContext) -> dict[str, int]:
    """Block sizes from the problem size (the interpreter prefers few, large blocks)."""
    if group.kind == "pointwise":
        numel = ctx.size_hint(group.xnumel)
        block = next_pow2(max(256, min(numel // 128, 1024))) if gpu else 8192
        return {"XBLOCK": min(block, next_pow2(numel))}
    rblock = next_pow2(group.rnumel) if persistent else (1024 if gpu else 512)
    budget = (4096 if gpu else 16384) // rblock
    return {"XBLOCK": max(1, min(next_pow2(ctx.size_hint(group.xnumel)), budget, 64 if gpu else 1 << 30)), "RBLOCK": rblock}


def autotune_decorator(group, persistent: bool, ctx: CompileContext) -> str:
    """A handful of configs around the heuristic (GPU only)."""
    base = launch_config(group, persistent, True, ctx)
    if group.kind == "pointwise":
        numel = ctx.size_hint(group.xnumel)
        xs = sorted({base["XBLOCK"], min(1024, next_pow2(numel)), min(256, next_pow2(numel))})
        configs = [f"triton.Config({{'XBLOCK': {x}}}, num_warps={4 if x <= 512 else 8})" for x in xs]
        key = "['xnumel']"
    else:
        r = base["RBLOCK"]
        xs = sorted({base["XBLOCK"], 1, max(1, min(8, base["XBLOCK"]))})
        configs = [f"triton.Config({{'XBLOCK': {x}, 'RBLOCK': {r}}}, num_warps={8 if x * r >= 2048 else 4})" for x in xs]
        key = "['xnumel', 'rnumel']"
    return f"@triton.autotune(configs=[{', '.join(configs)}], key={key})"


def nan_max(a: str, b: str) -> str:
    """torch's maximum: NaN wins (triton's tl.maximum drops NaN on the GPU)."""
    return f"tl.where(({a} > {b}) | ({a} != {a}), {a}, {b})"


def nan_min(a: str, b: str) -> str:
    return f"tl.where(({a} < {b}) | ({a} != {a}), {a}, {b})"


def _row_reduce(k: KernelWriter, kind: str, block: str, floating: bool) -> str:
    """Reduce a [XBLOCK, RBLOCK] block along the row, with torch's NaN semantics for floats."""
    if kind == "prod":
        return k.emit(f"tl.reduce({block}, 1, _prod_combine)[:, None]")
    fn = {"sum": "tl.sum", "max": "tl.max", "min": "tl.min", "argmax": "tl.argmax", "argmin": "tl.argmin"}[kind]
    red = k.emit(f"{fn}({block}, 1)[:, None]")
    if kind == "sum" or not floating:
        return red
    isnan = k.emit(f"({block} != {block}).to(tl.int32)")
    any_nan = k.emit(f"tl.max({isnan}, 1)[:, None] > 0")
    if kind in ("max", "min"):
        return k.emit(f'tl.where({any_nan}, float("nan"), {red})')
    first_nan = k.emit(f"tl.argmax({isnan}, 1)[:, None]")  # torch: the first NaN is the arg-extremum
    return k.emit(f"tl.where({any_nan}, {first_nan}, {red})")
