"""Triton source for one kernel group (see ``fuse.KernelGroup``): the only place kernel text is made.

``KernelWriter`` collects one kernel's lines: it deduplicates expressions (CSE), turns buffer
loads into ``tl.load`` with the right mask, and resolves loads of buffers computed earlier *in
the same kernel* to the register holding them (raising :class:`CannotFuse` when that is not
possible so that the fuser starts a new kernel instead). ``TritonOps`` is the loop IR's ops
handler (``ops.py``) for it: each op becomes a Triton expression; each IR value, load and
conversion of a named value gets a temporary; everything inside one IR value stays one
expression. Reductions (``ir.ReductionItem``: kind and dtype as data) are written here too,
with torch's NaN rules.
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

import sympy
import torch

from autograph.backends.triton.context import CompileContext
from autograph.backends.triton.indexing import (FloorDiv, ModularIndexing, contiguous_strides, in_block_index, is_size_symbol,
                                                linearize, symbol)
from autograph.backends.triton.ir import Buffer, PointwiseItem, ReductionItem
from autograph.backends.triton.ops import HALF_DTYPES, OpsHandler, compute_dtype
from autograph.backends.triton.tiling import tile_config, tile_configs, tile_numels

MAX_KERNEL_OPS = 64
_BLOCK_INDEX = {axis: sympy.Symbol(f"{axis}index", integer=True, nonnegative=True) for axis in "xyr"}
_R_NAME = re.compile(r"\br(?:\d+|index|offset)\b")  # a reduced-dim variable in a mask's source

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


def tl_dtype(dtype: torch.dtype) -> str:
    try:
        return TL_DTYPES[dtype]
    except KeyError:
        raise NotImplementedError(f"dtype {dtype} in a Triton kernel") from None


@functools.lru_cache(maxsize=8192)
def texpr(expr: sympy.Expr) -> str:
    """Print an index expression (integer arithmetic over loop variables and size symbols) as
    Python source, valid in kernels and in the wrapper."""
    if expr.is_Integer or expr.is_Symbol:
        return str(expr)
    if isinstance(expr, (FloorDiv, ModularIndexing)) or type(expr).__name__ in ("FloorDiv", "PythonMod", "Mod"):
        # also torch's own FloorDiv / PythonMod found in ShapeEnv expressions (same semantics on sizes)
        num, den = texpr(expr.args[0]), texpr(expr.args[1])
        if expr.args[0].is_Add or expr.args[0].is_Mul:
            num = f"({num})"
        if expr.args[1].is_Add or expr.args[1].is_Mul:
            den = f"({den})"
        op = "//" if type(expr).__name__ == "FloorDiv" else "%"
        return f"({num} {op} {den})"
    if expr.is_Add:
        return " + ".join(texpr(a) for a in sorted(expr.args, key=str))
    if expr.is_Mul:
        return "*".join(texpr(a) if not a.is_Add else f"({texpr(a)})" for a in expr.args)
    if expr.is_Pow and expr.exp.is_Integer and int(expr.exp) > 1:
        return "*".join([texpr(expr.base) if not expr.base.is_Add else f"({texpr(expr.base)})"] * int(expr.exp))
    if isinstance(expr, (sympy.Max, sympy.Min)) or type(expr).__name__ in ("Max", "Min"):
        # also torch's own Max / Min (ShapeEnv expressions). max(a, b) = a - (a - b) * (a < b),
        # min with >: one spelling for kernels (where the comparison is an int1 tensor) and the
        # wrapper (a bool), with no builtin the Triton interpreter lacks
        cmp = "<" if type(expr).__name__ == "Max" else ">"
        first, *rest = expr.args
        out = texpr(first)
        for arg in rest:
            other = texpr(arg)
            out = f"(({out}) - (({out}) - ({other})) * (({out}) {cmp} ({other})))"
        return out
    raise NotImplementedError(f"index expression {expr}")


def literal(value) -> str:
    """A Python scalar as Triton source."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        if math.isnan(value):
            return 'float("nan")'
        return repr(value)
    return repr(int(value))


FLOAT32_NORMAL_RANGE = (2.0 ** -126, (2 - 2 ** -23) * 2.0 ** 127)
# 2**-126, float32's smallest normal number: below it libdevice's float32 functions (linked
# flushing denormals, as triton links them) read their operand as zero
SMALLEST_NORMAL32 = repr(FLOAT32_NORMAL_RANGE[0])
SIGN_BITS = {torch.float32: ("-2147483648", "tl.int32"), torch.float64: ("-9223372036854775808", "tl.int64")}


def float_constant(value: float, dtype: torch.dtype) -> str | None:
    """Triton source for a float constant of compute dtype ``dtype`` where a bare literal would
    be wrong on the GPU, else None (the literal is exact).

    Triton types a Python float literal float32 when it is a normal float32 number and float64
    otherwise, so ``x64 == 0.3`` compares with float32 0.3 and ``x32 * 1e-40`` computes in float64;
    and its compiler (before 3.7) makes a constant equal to zero the null value, +0.0, so a -0.0
    literal loses its sign. A float64 constant, and a float32 one outside the normal range, is a
    ``tl.full`` of its dtype; -0.0 is the sign bit reinterpreted."""
    if value == 0 and math.copysign(1.0, value) < 0:
        bits, int_dtype = SIGN_BITS[dtype]
        return f"tl.full([], {bits}, {int_dtype}).to({tl_dtype(dtype)}, bitcast=True)"
    if dtype == torch.float64 and not (value == 0 or math.isinf(value) or math.isnan(value)):
        return f"tl.full([], {value!r}, tl.float64)"
    if dtype == torch.float32 and value != 0 and math.isfinite(value) \
            and not FLOAT32_NORMAL_RANGE[0] <= abs(value) <= FLOAT32_NORMAL_RANGE[1]:
        return f"tl.full([], {value!r}, tl.float32)"
    return None


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
    """Collects the body of one kernel; its ops handler (:class:`TritonOps`) and ``write_item``
    call ``load_buffer``/``emit`` on it (IR values never see it)."""

    def __init__(self, group, *, persistent: bool, stores: set | None, tile: int | None = None):
        self.group = group
        self.persistent = persistent
        self.tile = tile  # pointwise only: leading dims iterated by the tile's y axis (tiling.py)
        self.accesses: list[tuple[Buffer, sympy.Expr]] = []  # (buffer, flat index) of loads and stores
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
        self.handler = TritonOps(self)
        # triton's interpreter truncates float32 -> bfloat16; rounding is then written out (RNE)
        self.emulate_bf16_rounding = False
        self.gpu = False  # CUDA source (PTX inline assembly allowed), not for the interpreter
        self.current_order = -1  # program order of the item being written (ir.PointwiseItem.order)
        self._setup_symbols()

    # -- iteration space -------------------------------------------------
    def _setup_symbols(self) -> None:
        g = self.group
        ydims = self.tile or 0
        self.xsyms = [symbol(f"{'y' if i < ydims else 'x'}{i}", s) if s != 1 else sympy.Integer(0)
                      for i, s in enumerate(g.xshape)]
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

    def load_mask(self, flat: sympy.Expr) -> str:
        """The mask of a load at ``flat``: in a reduction's full space, a load whose address and
        masks do not depend on the reduced dims (a per-row mean, rstd or scale) is masked by
        ``xmask`` alone, so it is an ``[XBLOCK, 1]`` block, one load per row, and what is
        computed from it alone stays per row (Inductor masks a load by the variables of its index
        too). With ``xrmask`` every lane of the row loaded the same element and the per-row
        arithmetic (a division by the row size...) ran once per element."""
        if self.space != "xr":
            return self.mask
        loops = {f.name[0] for f in flat.free_symbols if not is_size_symbol(f)}
        if "r" in loops or any(_R_NAME.search(m) for m in self.extra_masks):
            return self.mask
        return " & ".join(["xmask"] + self.extra_masks)

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
        flat = buf.flat_index(index)
        self.accesses.append((buf, flat))
        offset = self.offset(flat)
        value = self.emit(f"tl.load({ptr} + ({offset}), {self.load_mask(flat)}, other=0)")
        if buf.dtype == torch.bfloat16 and self.emulate_bf16_rounding:  # exact widening (see bf16_bits)
            return self.emit(f"({value}.to(tl.int16, bitcast=True).to(tl.int32) << 16).to(tl.float32, bitcast=True)")
        if compute_dtype(buf.dtype) != buf.dtype:
            value = self.emit(f"{value}.to({tl_dtype(compute_dtype(buf.dtype))})")
        return value

    def store(self, buf: Buffer, index: list, value: str, space: str) -> None:
        self.registers[buf] = (value, space, self.scope)
        if self.stores is not None and buf not in self.stores:
            return
        self.accesses.append((buf, buf.flat_index(index)))
        ptr = self.out_args.setdefault(buf.name, f"out_ptr{len(self.out_args)}")
        self.arg_buffers[buf.name] = buf
        if buf.dtype == torch.bfloat16 and self.emulate_bf16_rounding:
            value = f"({self.bf16_bits(value)} >> 16).to(tl.int16).to(tl.bfloat16, bitcast=True)"
        elif buf.dtype != torch.float32:
            value = f"{value}.to({tl_dtype(buf.dtype)})"
        self.line(f"tl.store({ptr} + ({self.offset(buf.flat_index(index))}), {value}, {self.mask})")

    def bf16_bits(self, value: str) -> str:
        """The int32 bits of a float32 value rounded to the nearest bfloat16 (ties to even).

        For the interpreter only, whose own bfloat16 conversions truncate and lose subnormals:
        bfloat16 is the high half of a float32, so adding 0x7FFF plus the lowest kept bit and
        clearing the low 16 bits rounds to nearest even (an overflow becomes inf, as in the
        hardware conversion); NaN keeps its bits."""
        v = value if value.isidentifier() else self.emit(value)
        bits = self.emit(f"{v}.to(tl.float32).to(tl.int32, bitcast=True)")
        return self.emit(f"tl.where({v} != {v}, {bits}, ({bits} + (32767 + (({bits} >> 16) & 1))) & -65536)")

    def bf16_rounded(self, value: str) -> str:
        """A float32 value rounded to the nearest bfloat16, still as float32 (see :meth:`bf16_bits`)."""
        return self.emit(f"{self.bf16_bits(value)}.to(tl.float32, bitcast=True)")

    def offset(self, expr) -> str:
        """Offset source; one with divisions is written over the block indices
        (``indexing.in_block_index``: triton vectorizes ``(xindex // 64) % 36`` but not
        ``x2 // 64`` of ``x2 = xindex % 2304``); a constant offset is broadcast to a block (triton needs a block pointer), and in a 2-D
        tile an offset over one tile axis only to the whole tile (the mask's shape)."""
        loops = {f.name[0] for f in expr.free_symbols if not is_size_symbol(f)}
        if expr.has(FloorDiv, ModularIndexing):  # a linear offset stays over the loop variables
            expr = in_block_index(expr, self.block_spaces())
        if not self.tile:
            expr = self.over_flat_index(expr)
            return texpr(expr) if loops else f"{texpr(expr)} + 0 * xindex"
        missing = [f"0 * {axis}index" for axis in "xy" if axis not in loops]
        return " + ".join([texpr(expr)] + missing)

    def over_flat_index(self, expr):
        """``expr`` with its per-row part written as ``c * xindex`` when it is ``c`` times the
        row's flat index (the kept dims are contiguous in this buffer): no division or modulo
        per element to rebuild each dim, and triton sees the contiguity directly."""
        xs = [s for s in self.xsyms if isinstance(s, sympy.Symbol)]
        if len(xs) < 2 or not set(xs) <= expr.free_symbols:  # (a broadcast read skips a dim)
            return expr
        expr = sympy.expand(expr)
        rest = expr.subs({s: 0 for s in xs})
        per_row = sympy.expand(expr - rest)
        scale = per_row.coeff(xs[-1])
        if scale == 0 or sympy.expand(per_row - scale * self.xlinear) != 0:
            return expr
        return scale * _BLOCK_INDEX["x"] + rest

    def block_spaces(self) -> list:
        """``(block index, loop variables, sizes)`` of each index space of this kernel."""
        g = self.group
        xshape = tuple(g.xshape)
        if self.tile:
            spaces = [(_BLOCK_INDEX["y"], self.xsyms[:self.tile], xshape[:self.tile]),
                      (_BLOCK_INDEX["x"], self.xsyms[self.tile:], xshape[self.tile:])]
        else:
            spaces = [(_BLOCK_INDEX["x"], self.xsyms, xshape)]
        if g.kind == "reduction":
            spaces.append((_BLOCK_INDEX["r"], self.rsyms, tuple(g.rshape)))
        return spaces

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


# Python operator precedence, for parenthesizing operands only where needed
ATOM, UNARY, MUL, ADD, BIT_AND, BIT_XOR, BIT_OR, COMPARE = 100, 90, 80, 70, 60, 55, 50, 40


@dataclass(frozen=True)
class TritonExpr:
    """A Triton expression (the handler's value): its text, its precedence, and whether it is a
    name (a temporary), which later uses read instead of recomputing."""

    text: str
    prec: int = ATOM
    named: bool = False

    def __str__(self) -> str:
        return self.text


def _is_literal(x: TritonExpr) -> bool:
    """A Python number in the source (a constexpr in the kernel: it has no dtype)."""
    text = x.text.strip("()")
    if text.startswith("float("):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def _typed_like(x: TritonExpr, probe: TritonExpr) -> str:
    """``x``'s source; a literal (int or float: triton types it int32 or float32) as a float
    value of the named value ``probe``'s dtype."""
    if not _is_literal(x):
        return x.text
    text = x.text.strip("()")
    value = repr(float(text)) if text.lstrip("-").isdigit() else x.text
    return f"tl.full([], {value}, {probe.text}.dtype)"


def _operand(x: TritonExpr, prec: int) -> str:
    return x.text if x.prec >= prec else f"({x.text})"


def _index_prec(expr) -> int:
    if expr.is_Add:
        return ADD
    if expr.is_Mul or expr.is_Pow:
        return MUL
    return UNARY if expr.is_Number and expr < 0 else ATOM


class TritonOps(OpsHandler):
    """The loop IR's ops handler writing Triton source into a :class:`KernelWriter`.

    Temporaries: a load, each IR value (``pointwise``), a ``masked`` selection and a conversion
    of a named value get one (reused through the writer's CSE); the ops inside one IR value form
    one expression.
    """

    def __init__(self, writer: "KernelWriter"):
        self.k = writer

    def _name(self, x: TritonExpr) -> TritonExpr:
        return x if x.named else TritonExpr(self.k.emit(x.text), ATOM, True)

    def _binary(self, a: TritonExpr, b: TritonExpr, symbol: str, prec: int) -> TritonExpr:
        return TritonExpr(f"{_operand(a, prec)} {symbol} {_operand(b, prec + 1)}", prec)

    def _compare(self, a: TritonExpr, b: TritonExpr, symbol: str) -> TritonExpr:
        return TritonExpr(f"{_operand(a, COMPARE + 1)} {symbol} {_operand(b, COMPARE + 1)}", COMPARE)

    def _call(self, fn: str, *args: TritonExpr) -> TritonExpr:
        return TritonExpr(f"{fn}({', '.join(a.text for a in args)})")

    # -- leaves and structure ---------------------------------------------
    def load(self, buffer, index):
        return TritonExpr(self.k.load_buffer(buffer, index), ATOM, True)

    def constant(self, value, dtype):
        if dtype == torch.uint8 and not isinstance(value, bool) and isinstance(value, int) and value < 0:
            value %= 256  # torch wraps a negative scalar into uint8; triton refuses the negative literal
        if dtype.is_floating_point and not isinstance(value, bool):
            text = float_constant(float(value), compute_dtype(dtype))
            if text is not None:
                return TritonExpr(text, ATOM)
        text = literal(value)
        return TritonExpr(text, UNARY if text.startswith("-") else ATOM)

    def index_expr(self, expr, dtype):
        if dtype.is_floating_point or dtype == torch.bool:
            raise NotImplementedError(f"index expression as {dtype}")
        expr = sympy.sympify(expr)
        return TritonExpr(texpr(expr), _index_prec(expr))

    def pointwise(self, value, index):
        stored = getattr(value, "stored", None)
        if stored is not None and 0 <= stored.order < self.k.current_order:
            # computed into memory by an earlier item: read it (fuse.note_stored_values); in
            # this kernel at another index it is recomputed instead
            try:
                return self.load(stored.buffer, index)
            except CannotFuse:
                pass
        result = value.fn(self, index)
        if value.counted and value.op_names:
            self.k.count_op(value.op_names[0])
        return self._name(result)

    def masked(self, mask, body, other):
        with self.k.masked(mask.text):
            value = body()
        if other is None:
            return value
        return self._name(self._call("tl.where", mask, value, other))

    def to_dtype(self, x, dtype, src_dtype=None):
        if src_dtype is not None:
            if src_dtype == dtype:
                return x
            if dtype == torch.bool:
                return self._converted(x, self.ne(x, self.constant(0, src_dtype)))
            if src_dtype != torch.bool and dtype in HALF_DTYPES:
                # values of half types are kept in fp32 registers: round them as a store would
                if compute_dtype(src_dtype) != torch.float32:
                    x = self._converted(x, self._to(x, torch.float32))
                if dtype == torch.bfloat16 and self.k.emulate_bf16_rounding:
                    return TritonExpr(self.k.bf16_rounded(x.text), ATOM, True)
                return self._converted(x, TritonExpr(f"{self._to(x, dtype).text}.to(tl.float32)"))
            if src_dtype != torch.bool and compute_dtype(src_dtype) == compute_dtype(dtype):
                return x
        return self._converted(x, self._to(x, compute_dtype(dtype)))

    def _to(self, x: TritonExpr, dtype: torch.dtype) -> TritonExpr:
        return TritonExpr(f"{_operand(x, ATOM)}.to({tl_dtype(dtype)})")

    def _converted(self, x: TritonExpr, result: TritonExpr) -> TritonExpr:
        """A conversion of a named value is named too (an input converted once, read by many)."""
        return self._name(result) if x.named else result

    # -- arithmetic ---------------------------------------------------------
    def add(self, a, b):
        return self._binary(a, b, "+", ADD)

    def sub(self, a, b):
        return self._binary(a, b, "-", ADD)

    def mul(self, a, b):
        return self._binary(a, b, "*", MUL)

    def truediv(self, a, b):
        # triton's float32 `/` is the approximate div.full.f32 (2 ulp); torch divides with IEEE rounding
        probe = b if not _is_literal(b) else a
        if _is_literal(probe):
            return self._binary(a, b, "/", MUL)
        a, b = (x if _is_literal(x) else self._name(x) for x in (a, b))
        probe = b if not _is_literal(b) else a
        return self._float32_choice(probe, f"tl.math.div_rn({a.text}, {b.text})", self._binary(a, b, "/", MUL).text)

    def _float32_choice(self, probe: TritonExpr, float32: str, other: str) -> TritonExpr:
        """``float32`` where the named value ``probe`` is float32, else ``other``: chosen when
        triton compiles the kernel (a constexpr condition), for its float32-only IEEE functions."""
        return TritonExpr(f"({float32} if {probe.text}.dtype == tl.float32 else {other})")

    def mod(self, a, b):
        return self._binary(a, b, "%", MUL)

    def fmod(self, a, b):
        # triton's float % is LLVM's frem: numpy's exact fmod in the interpreter, but the NVPTX
        # backend expands it as a - b * trunc(a / b), each step rounded (3.0 % 0.3 is 0.0 there,
        # not 0.29999989). CUDA kernels call CUDA's fmod (libdevice: exact, as aten's std::fmod).
        # Triton links libdevice flushing float32 denormals (its fmodf reads |a|, |b| with
        # abs.ftz.f32: fmod(1e-40, 2) is 0, fmod(x, 1e-40) NaN); float32's fmod is therefore
        # taken in float64, where float32 denormals are normal numbers and the exact remainder
        # is a float32 value, so narrowing it back is exact
        if not self.k.gpu:
            return self._binary(a, b, "%", MUL)
        a, b = (x if _is_literal(x) else self._name(x) for x in (a, b))
        probe = b if _is_literal(a) else a
        fa, fb = (_typed_like(x, probe) for x in (a, b))  # libdevice wants two operands of one float type
        wide = f"libdevice.fmod({fa}.to(tl.float64), {fb}.to(tl.float64)).to(tl.float32)"
        floating = self._float32_choice(probe, wide, f"libdevice.fmod({fa}, {fb})").text
        return self._name(self._float_or_int(probe, floating, self._binary(a, b, "%", MUL).text))

    def neg(self, x):
        # triton before 3.7 compiles a float's unary minus to 0 - x, so -(+0.0) is +0.0 there
        if _is_literal(x):
            return TritonExpr(f"-{_operand(x, UNARY)}", UNARY)
        x = self._name(x)
        return self._float_or_int(x, f"{x.text} * -1.0", f"-{x.text}")

    def _float_or_int(self, probe: TritonExpr, floating: str, other: str) -> TritonExpr:
        """``floating`` where the named value ``probe`` is a float, else ``other`` (compile time)."""
        return TritonExpr(f"({floating} if {probe.text}.dtype.is_floating() else {other})")

    def abs(self, x):
        return self._call("tl.abs", x)

    def reciprocal(self, x):
        return self.truediv(TritonExpr("1.0"), self._name(x))

    def maximum(self, a, b):
        return self._call("tl.maximum", a, b)

    def minimum(self, a, b):
        return self._call("tl.minimum", a, b)

    def where(self, cond, a, b):
        return self._call("tl.where", cond, a, b)

    # -- comparisons, logical -----------------------------------------------
    def eq(self, a, b):
        return self._compare(a, b, "==")

    def ne(self, a, b):
        return self._compare(a, b, "!=")

    def lt(self, a, b):
        return self._compare(a, b, "<")

    def le(self, a, b):
        return self._compare(a, b, "<=")

    def gt(self, a, b):
        return self._compare(a, b, ">")

    def ge(self, a, b):
        return self._compare(a, b, ">=")

    def isnan(self, x):
        return self.ne(x, x)

    def and_(self, a, b):
        return self._binary(a, b, "&", BIT_AND)

    def or_(self, a, b):
        return self._binary(a, b, "|", BIT_OR)

    def xor(self, a, b):
        return self._binary(a, b, "^", BIT_XOR)

    def logical_not(self, x):
        return self.eq(x, TritonExpr("0"))

    # -- math -------------------------------------------------------------------
    def exp(self, x):
        return self._call("tl.exp", x)

    def exp2(self, x):
        # tl.math.exp2 of float32 is libdevice's exp2f, linked flushing denormals: the
        # ex2.approx.ftz.f32 instruction, 0 for results below 2**-126. aten's CUDA kernel calls
        # exp2f unflushed, the ex2.approx.f32 instruction, emitted as such on the GPU
        if not self.k.gpu:
            return self._call("tl.math.exp2", x)
        x = self._name(x)
        float32 = (f'tl.inline_asm_elementwise("ex2.approx.f32 $0, $1;", "=r,r", [{x.text}], '
                   "dtype=tl.float32, is_pure=True, pack=1)")
        return self._float32_choice(x, float32, f"tl.math.exp2({x.text})")

    def expm1(self, x):
        # exp(x) - 1 loses every digit for tiny x; Kahan's correction (u - 1) * x / log(u) does not
        x = self._name(x)
        u = self._name(self.exp(x))
        um1 = self._name(self.sub(u, TritonExpr("1.0")))
        # (u - 1) * (x / log u): the ratio is near 1, so no intermediate overflows below log(FLT_MAX)
        corrected = self.mul(um1, self.truediv(x, self.log(u)))
        exact = self.or_(self.eq(u, TritonExpr("1.0")), self.eq(u, TritonExpr('float("inf")')))
        return self.where(exact, self.where(self.eq(u, TritonExpr("1.0")), x, u),
                          self.where(self.eq(um1, TritonExpr("-1.0")), um1, corrected))

    def log(self, x):
        return self._call("tl.log", x)

    def log2(self, x):
        return self._scaled(self._name(self.log(x)), 1.4426950408889634)

    def log10(self, x):
        return self._scaled(self._name(self.log(x)), 0.4342944819032518)

    def _scaled(self, x: TritonExpr, factor: float) -> TritonExpr:
        """``x * factor`` with the factor in ``x``'s dtype (a bare literal is float32, also for float64)."""
        return self._float32_choice(x, f"{x.text} * {factor!r}", f"{x.text} * tl.full([], {factor!r}, {x.text}.dtype)")

    def log1p(self, x):
        # log(1 + x) loses every digit for tiny x; Goldberg's correction log(u) * x / (u - 1) does not
        # (written log(u) * (x / (u - 1)): the ratio is near 1, so a huge x does not overflow)
        x = self._name(x)
        u = self._name(self.add(TritonExpr("1.0"), x))
        corrected = self.mul(self.log(u), self.truediv(x, self.sub(u, TritonExpr("1.0"))))
        plain = self.or_(self.eq(u, TritonExpr('float("inf")')), self.le(u, TritonExpr("0.0")))
        return self.where(self.eq(u, TritonExpr("1.0")), x, self.where(plain, self.log(u), corrected))

    def sqrt(self, x):
        # tl.sqrt of float32 is the approximate sqrt.approx.ftz.f32 (0 for denormals); torch's is IEEE
        x = self._name(x)
        return self._float32_choice(x, f"tl.math.sqrt_rn({x.text})", f"tl.sqrt({x.text})")

    def rsqrt(self, x):
        # tl.rsqrt of float32 is libdevice's, linked flushing denormals (rsqrt(1e-40) is inf). aten's
        # CUDA kernel calls rsqrtf: the non-flushing rsqrt.approx.f32, emitted as such on the GPU;
        # the interpreter's is exact (1 / sqrt with IEEE rounding here)
        x = self._name(x)
        if self.k.gpu:
            float32 = (f'tl.inline_asm_elementwise("rsqrt.approx.f32 $0, $1;", "=r,r", [{x.text}], '
                       "dtype=tl.float32, is_pure=True, pack=1)")
        else:
            float32 = f"tl.math.div_rn(1.0, tl.math.sqrt_rn({x.text}))"
        return self._float32_choice(x, float32, f"tl.rsqrt({x.text})")

    def sin(self, x):
        if not self.k.gpu:
            return self._call("tl.sin", x)
        # libdevice's sinf is linked flushing denormals: sin(1e-40) would be 0.0. Below the
        # smallest normal float, sin(x) is x (correctly rounded), as CUDA's unflushed sinf returns
        x = self._name(x)
        return self.where(self.lt(self.abs(x), TritonExpr(SMALLEST_NORMAL32)), x, self._call("tl.sin", x))

    def cos(self, x):
        return self._call("tl.cos", x)

    def tanh(self, x):
        if self.k.gpu:
            # CUDA's own tanhf/tanh (libdevice), which aten's CUDA kernels call too; cheaper than
            # the formula below (an exp, a log and two IEEE divisions per element), as Inductor emits
            # libdevice is linked flushing denormals: tanh(x) is x (correctly rounded) below the
            # smallest normal float, kept as is (and -0.0 stays -0.0)
            x = self._name(x)
            return self.where(self.lt(self.abs(x), TritonExpr(SMALLEST_NORMAL32)), x,
                              self._call("libdevice.tanh", x))
        # tanh|x| = -t / (t + 2) with t = expm1(-2|x|): accurate near 0, where 2 sigmoid(2x) - 1 is not
        x = self._name(x)
        t = self._name(self.expm1(self.mul(TritonExpr("-2.0"), self.abs(x))))
        magnitude = self._name(self.truediv(self.neg(t), self.add(t, TritonExpr("2.0"))))
        signed = self.where(self.lt(x, TritonExpr("0.0")), self.neg(magnitude), magnitude)
        return self.where(self.eq(x, TritonExpr("0.0")), x, signed)  # tanh(-0.0) is -0.0

    def sigmoid(self, x):
        return self._call("tl.sigmoid", x)

    def erf(self, x):
        if not self.k.gpu:
            return self._call("tl.math.erf", x)
        # libdevice's erff is linked flushing denormals: erf(1e-40) would be 0.0, not 1.128e-40.
        # Below the smallest normal float, erf(x) is 2x/sqrt(pi) (the next term, x**3, is far
        # below a denormal's spacing), rounded to float32 through float64
        x = self._name(x)
        denormal = self.lt(self.abs(x), TritonExpr(SMALLEST_NORMAL32)).text
        float32 = (f"tl.where({denormal}, ({x.text}.to(tl.float64) * 1.1283791670955126).to(tl.float32), "
                   f"tl.math.erf({x.text}))")
        return self._float32_choice(x, float32, f"tl.math.erf({x.text})")

    def floor(self, x):
        # libdevice is linked flushing denormals to zero: floor(-1e-40) would be -0.0, not -1.0
        x = self._name(x)
        floored = self._name(self._call("tl.floor", x))
        flushed = self.and_(self.lt(x, TritonExpr("0.0")), self.eq(floored, TritonExpr("0.0")))
        return self.where(flushed, TritonExpr("-1.0"), floored)

    def ceil(self, x):
        # ceil(1e-40) would be 0.0, not 1.0, for the same reason
        x = self._name(x)
        ceiled = self._name(self._call("tl.math.ceil", x))
        flushed = self.and_(self.gt(x, TritonExpr("0.0")), self.eq(ceiled, TritonExpr("0.0")))
        return self.where(flushed, TritonExpr("1.0"), ceiled)

    def trunc(self, x):
        return self.where(self.lt(x, TritonExpr("0")), self.ceil(x), self.floor(x))


def write_item(k: KernelWriter, item) -> None:
    """Emit the code computing ``item`` into kernel ``k``."""
    if isinstance(item, PointwiseItem):
        index, space = k.index_for(item.buffer.shape)
        if space == "xr" and not k.persistent:
            k.open_rloop()
            k.space = "xr"
            value = str(item.value.load(k.handler, index))
            k.store(item.buffer, index, value, space)
            k.close_rloop()
            k.registers[item.buffer] = ("<loop>", "xr", -1)
        else:
            k.space = space
            value = str(item.value.load(k.handler, index))
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
        value = str(item.input.load(k.handler, list(k.full_index)))
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
        value = str(item.input.load(k.handler, list(k.full_index)))
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


# triton >= 3.0 dispatches libdevice calls by target here; older layouts keep the CUDA one
LIBDEVICE_IMPORT = '''try:
    from triton.language.extra import libdevice
except ImportError:  # pragma: no cover - older triton
    from triton.language.extra.cuda import libdevice'''


def kernel_source(group, name: str, *, persistent: bool, stores: set | None, gpu: bool,
                  ctx: CompileContext, tile: int | None = None) -> tuple[str, KernelWriter]:
    """Generate the complete module source (imports + kernel) for ``group``; ``tile`` (pointwise
    only, see ``tiling.py``): iterate the first ``tile`` dims along a 2-D tile's y axis."""
    from autograph.backends.triton.online import (WELFORD_KINDS, is_online_softmax, welford_group,
                                                  write_online_softmax, write_welford)

    k = KernelWriter(group, persistent=persistent, stores=stores, tile=tile)
    k.emulate_bf16_rounding = not gpu
    k.gpu = gpu
    head = KernelWriter.__new__(KernelWriter)  # only used for dims code
    head.lines, head.indent = [], 1
    if tile:
        head.lines += ["    yoffset = tl.program_id(1) * YBLOCK",
                       "    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]",
                       "    xoffset = tl.program_id(0) * XBLOCK",
                       "    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]",
                       "    xmask = (xindex < xnumel) & (yindex < ynumel)"]
        KernelWriter.dims_code(head, k.xsyms[:tile], group.xshape[:tile], "yindex")
        KernelWriter.dims_code(head, k.xsyms[tile:], group.xshape[tile:], "xindex")
    elif group.kind == "pointwise":
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
    items = list(group.items)
    while items:
        k.current_order = getattr(items[0], "order", -1)
        if len(items) > 1 and is_online_softmax(k, items[0], items[1]):  # max + sum of exp: one loop
            write_online_softmax(k, items.pop(0), items.pop(0))
        elif isinstance(items[0], ReductionItem) and items[0].kind in WELFORD_KINDS:  # mean + M2: one loop
            together = welford_group(items)
            del items[:len(together)]
            write_welford(k, together)
        else:
            write_item(k, items.pop(0))
    if needs_int64_indexing(group, k, ctx):  # program_id * XBLOCK and every offset after it in int64
        head.lines = [line.replace("tl.program_id(0) * XBLOCK", "tl.program_id(0).to(tl.int64) * XBLOCK")
                      .replace("tl.program_id(1) * YBLOCK", "tl.program_id(1).to(tl.int64) * YBLOCK")
                      for line in head.lines]
    ins = list(k.in_args.values())
    outs = list(k.out_args.values())
    if not outs:
        raise CannotFuse("kernel stores nothing")
    params = ins + outs + ["xnumel"] + (["ynumel"] if tile else [])
    consts = ["XBLOCK: tl.constexpr"] + (["YBLOCK: tl.constexpr"] if tile else [])
    if group.kind == "reduction":
        params.append("rnumel")
        consts.append("RBLOCK: tl.constexpr")
    k.size_args = ctx.size_args_of("\n".join(head.lines + k.lines))
    params += k.size_args
    src = ["import triton", "import triton.language as tl"]
    if gpu and "libdevice." in "\n".join(k.lines):
        src.append(LIBDEVICE_IMPORT)
    if group.kind == "reduction" and "tl.reduce(" in "\n".join(k.lines):
        src.append(HELPERS)
    src += ["", ""]
    if gpu:
        src.append(autotune_decorator(group, persistent, ctx, tile))
    src.append("@triton.jit")
    src.append(f"def {name}({', '.join(params + consts)}):")
    src += head.lines + k.lines
    return "\n".join(src) + "\n", k


INT32_LIMIT = 2**31 - 1


def needs_int64_indexing(group, k: KernelWriter, ctx: CompileContext) -> bool:
    """True when an index of this kernel can pass 2**31 - 1 (int32 offsets would wrap): the
    iteration space, or the span of a buffer it reads or writes, at the example's sizes.

    Symbolic sizes are judged at their example values (a later, larger size compiles the same
    kernel: a known limit)."""
    space = ctx.size_hint(group.xnumel) * (ctx.size_hint(group.rnumel) if group.kind == "reduction" else 1)
    if space > INT32_LIMIT:
        return True
    for buf in k.arg_buffers.values():
        span = ctx.size_hint(buf.offset) + sum((ctx.size_hint(n) - 1) * ctx.size_hint(st)
                                               for n, st in zip(buf.shape, buf.stride))
        if span > INT32_LIMIT:
            return True
    return False


def _paren(expr) -> str:
    text = texpr(sympy.sympify(expr))
    return text if sympy.sympify(expr).is_Atom else f"({text})"


def launch_config(group, persistent: bool, gpu: bool, ctx: CompileContext, tile: int | None = None) -> dict[str, int]:
    """Block sizes from the problem size (the interpreter prefers few, large blocks)."""
    if tile:
        return tile_config(*tile_numels(group, tile), gpu)
    if group.kind == "pointwise":
        numel = ctx.size_hint(group.xnumel)
        block = next_pow2(max(256, min(numel // 128, 1024))) if gpu else 8192
        return {"XBLOCK": min(block, next_pow2(numel))}
    if gpu and not persistent and is_outer_reduction(group):
        # the reduced dim is not the contiguous one: lanes go across columns (wide XBLOCK) and
        # a short RBLOCK steps down the rows, so each load reads whole contiguous runs
        return {"XBLOCK": max(1, min(128, next_pow2(ctx.size_hint(group.xnumel)))), "RBLOCK": 16}
    rblock = next_pow2(group.rnumel) if persistent else (1024 if gpu else 512)
    budget = (4096 if gpu else 16384) // rblock
    return {"XBLOCK": max(1, min(next_pow2(ctx.size_hint(group.xnumel)), budget, 64 if gpu else 1 << 30)), "RBLOCK": rblock}


def is_outer_reduction(group) -> bool:
    """A reduction over leading dims whose innermost dim is kept (column sums, bias and norm-weight
    gradients): consecutive output elements are consecutive in memory."""
    last = len(group.full_shape) - 1
    return group.kind == "reduction" and last >= 0 and last not in group.rdims and group.full_shape[last] != 1


def autotune_decorator(group, persistent: bool, ctx: CompileContext, tile: int | None = None) -> str:
    """A handful of configs around the heuristic (GPU only)."""
    base = launch_config(group, persistent, True, ctx)
    if tile:
        configs = [f"triton.Config({{'XBLOCK': {x}, 'YBLOCK': {y}}}, num_warps={w})"
                   for x, y, w in tile_configs(*tile_numels(group, tile))]
        key = "['xnumel', 'ynumel']"
    elif group.kind == "pointwise":
        numel = ctx.size_hint(group.xnumel)
        xs = sorted({base["XBLOCK"], min(1024, next_pow2(numel)), min(256, next_pow2(numel))})
        pairs = {(x, 4 if x <= 512 else 8) for x in xs}
        if numel >= 1024:  # 8 elements per thread: 16-byte loads of 2-byte dtypes (Inductor's config)
            pairs.add((1024, 4))
        configs = [f"triton.Config({{'XBLOCK': {x}}}, num_warps={w})" for x, w in sorted(pairs)]
        key = "['xnumel']"
    elif not persistent and is_outer_reduction(group):
        x = base["XBLOCK"]
        pairs = sorted({(x, 16), (max(1, x // 2), 32), (max(1, min(64, x)), 64), (x, 8)})
        configs = [f"triton.Config({{'XBLOCK': {a}, 'RBLOCK': {b}}}, num_warps={8 if a * b >= 2048 else 4})"
                   for a, b in pairs]
        key = "['xnumel', 'rnumel']"
    elif is_outer_reduction(group):  # persistent column reduction: keep whole column runs per program
        r, x = base["RBLOCK"], base["XBLOCK"]
        xs = sorted({x, max(1, x // 2), max(1, x // 4)})
        configs = [f"triton.Config({{'XBLOCK': {a}, 'RBLOCK': {r}}}, num_warps={w})"
                   for a in xs for w in ((4, 8) if a * r >= 2048 else (4,))]
        key = "['xnumel', 'rnumel']"
    else:
        r = base["RBLOCK"]
        xs = sorted({base["XBLOCK"], 1, max(1, min(8, base["XBLOCK"]))})
        pairs = {(x, 8 if x * r >= 2048 else 4) for x in xs}
        if persistent and 256 <= r <= 1024:
            # Inductor's choice for rows of 256-1024 on CUDA: one warp per program, so each row
            # reduces with warp shuffles alone (no shared memory, no barrier)
            pairs.add((min(1024 // r, 8), 1))
        configs = [f"triton.Config({{'XBLOCK': {x}, 'RBLOCK': {r}}}, num_warps={w})" for x, w in sorted(pairs)]
        key = "['xnumel', 'rnumel']"
    persist = ", cache_results=True" if autotune_results_persist() else ""
    return f"@triton.autotune(configs=[{', '.join(configs)}], key={key}{persist})"


@functools.lru_cache(maxsize=None)
def autotune_results_persist() -> bool:
    """Whether this triton's autotuner can keep its choices on disk (``cache_results``, triton
    >= 3.3): a second process then skips benchmarking the configs of a kernel it has seen."""
    import inspect

    try:
        import triton
    except ImportError:
        return False
    return "cache_results" in inspect.signature(triton.autotune).parameters


def nan_max(a: str, b: str) -> str:
    """torch's maximum: NaN wins (triton's tl.maximum drops NaN on the GPU)."""
    return f"tl.where(({a} > {b}) | ({a} != {a}), {a}, {b})"


def nan_min(a: str, b: str) -> str:
    return f"tl.where(({a} < {b}) | ({a} != {a}), {a}, {b})"


def _row_reduce(k: KernelWriter, kind: str, block: str, floating: bool) -> str:
    """Reduce a [XBLOCK, RBLOCK] block along the row, with torch's NaN semantics for floats."""
    if kind == "prod":
        return k.emit(f"tl.reduce({block}, 1, _prod_combine)[:, None]")
    raw = block
    fn = {"sum": "tl.sum", "max": "tl.max", "min": "tl.min", "argmax": "tl.argmax", "argmin": "tl.argmin"}[kind]
    if kind in ("argmax", "argmin") and floating:  # NaN rows are answered below (the interpreter's
        # argmax rejects an all-NaN row): the search itself sees no NaN
        ident = reduction_identity(kind, torch.float32)
        block = k.emit(f"tl.where({block} != {block}, {ident}, {block})")
    red = k.emit(f"{fn}({block}, 1)[:, None]")
    if kind == "sum" or not floating:
        return red
    isnan = k.emit(f"({raw} != {raw}).to(tl.int32)")
    any_nan = k.emit(f"tl.max({isnan}, 1)[:, None] > 0")
    if kind in ("max", "min"):
        return k.emit(f'tl.where({any_nan}, float("nan"), {red})')
    first_nan = k.emit(f"tl.argmax({isnan}, 1)[:, None]")  # torch: the first NaN is the arg-extremum
    return k.emit(f"tl.where({any_nan}, {first_nan}, {red})")
