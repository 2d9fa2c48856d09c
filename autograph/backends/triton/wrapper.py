"""The Python wrapper of one compiled aten graph: allocate, launch, call externs.

The wrapper is generated as readable source (shown by explain/dump) and run
with ``exec``; ``call(args)`` takes the boxed argument list AOTAutograd passes.
"""
from __future__ import annotations

import math
import operator
from typing import Any

import sympy
import torch

from autograph.backends.triton.codegen import texpr
from autograph.backends.triton.indexing import is_static
from autograph.backends.triton.ir import Buffer, ExternItem
from autograph.backends.triton.lower import GraphNotLowerable, SizeInput, WrapperVar
from autograph.backends.triton.tiling import tile_numels


def pyexpr(v: Any) -> str:
    """A size (int or sympy expression over size symbols bound in the wrapper) as Python source."""
    if is_static(v):
        return repr(int(v))
    text = texpr(v)
    return text if v.is_Atom else f"({text})"


def pysizes(sizes: tuple) -> str:
    return "(" + "".join(pyexpr(x) + ", " for x in sizes) + ")" if sizes else "()"


def size_bindings(inputs: list, needed: set[str]) -> list[str]:
    """``s0 = x.size(0)`` lines binding each needed size symbol to an input's size at call time.

    Plain size inputs win (they are the value itself); then tensor sizes, then strides.
    """
    where: dict[str, str] = {}
    for inp in inputs:
        if isinstance(inp, SizeInput) and isinstance(inp.expr, sympy.Symbol):
            where.setdefault(inp.expr.name, inp.name)
    for attr in ("shape", "stride"):
        for inp in inputs:
            if isinstance(inp, Buffer):
                for d, v in enumerate(getattr(inp, attr)):
                    if isinstance(v, sympy.Symbol):
                        where.setdefault(v.name, f"{inp.name}.{'size' if attr == 'shape' else 'stride'}({d})")
    missing = sorted(needed - set(where))
    if missing:
        raise GraphNotLowerable(f"size symbols {missing} are not a size of any input")
    return [f"{n} = {where[n]}" for n in sorted(needed, key=lambda n: (len(n), n))]


class WrapperWriter:
    def __init__(self):
        self.constants: dict[str, Any] = {}
        self.header: list[str] = []

    def const(self, value: Any, prefix: str = "const") -> str:
        for name, v in self.constants.items():
            if v is value:
                return name
        name = f"{prefix}_{len(self.constants)}"
        self.constants[name] = value
        return name

    def arg(self, a: Any) -> str:
        if isinstance(a, (Buffer, WrapperVar)):
            return a.name
        if isinstance(a, sympy.Expr):
            return pyexpr(a)
        if isinstance(a, list):
            return "[" + ", ".join(self.arg(x) for x in a) + "]"
        if isinstance(a, tuple):
            return "(" + "".join(self.arg(x) + ", " for x in a) + ")"
        if isinstance(a, float) and (math.isinf(a) or math.isnan(a)):
            return f"float('{a}')"
        if a is None or isinstance(a, (bool, int, float, str)):
            return repr(a)
        if isinstance(a, torch.dtype) or isinstance(a, (torch.layout, torch.memory_format)):
            return str(a)
        if isinstance(a, torch.device):
            return f"torch.device({str(a)!r})"
        return self.const(a)

    def target(self, t: Any) -> str:
        if isinstance(t, torch._ops.OpOverload):
            ns = t.namespace
            if ns in ("aten", "prims"):
                return str(t)
        return self.const(t, "extern")


def generate_wrapper(lowered, schedule: list, kernels: dict, gpu: bool) -> tuple[str, dict[str, Any]]:
    """Return ``(source, constants)``; ``kernels`` maps group -> (name, writer, config)."""
    w = WrapperWriter()
    w.constants.update(lowered.constants)
    lines: list[str] = []
    module_lines: list[str] = []
    names_in = [b.name for b in lowered.inputs]
    lines.append("def call(args):")
    if names_in:
        lines.append(f"    {', '.join(names_in)}{',' if len(names_in) == 1 else ''} = args")
    read_by_kernels = {n for (name, writer, cfg) in kernels.values() for n in writer.in_args}
    bind_at = len(lines)
    for b in lowered.inputs:  # kernels and extern calls both see the layout they were traced with
        if isinstance(b, Buffer) and (not all(is_static(x) for x in b.shape) or math.prod(b.shape) > 1):
            lines.append(f"    if {b.name}.stride() != {pysizes(b.stride)}: "
                         f"{b.name} = restride({b.name}, {pysizes(b.shape)}, {pysizes(b.stride)})")
    outputs = {o.name for o in lowered.outputs if isinstance(o, (Buffer, WrapperVar))}
    inputs = set(names_in)
    steps: list[tuple[list[str], set[str]]] = []  # (lines, names used)
    devices: dict[str, str] = {}
    viewed = {step.view[0].name for step in schedule if isinstance(step, ExternItem) and step.view}
    for step in schedule:
        body: list[str] = []
        used: set[str] = set()
        if isinstance(step, ExternItem) and step.view:
            base, size, stride, offset = step.view
            body.append(f"{step.name} = reinterpret_tensor({base.name}, {pysizes(size)}, {pysizes(stride)}, {offset})")
            used |= {base.name, step.name}
        elif isinstance(step, ExternItem):
            if step.target is operator.getitem:
                call = f"{w.arg(step.args[0])}[{w.arg(step.args[1])}]"
            else:
                args = [w.arg(a) for a in step.args] + [f"{k}={w.arg(v)}" for k, v in step.kwargs.items()]
                call = f"{w.target(step.target)}({', '.join(args)})"
            body.append(f"{step.name} = {call}")
            for name, size, stride in step.check_strides:
                if name in read_by_kernels or name in viewed:  # (views are made from these strides)
                    body.append(f"{name} = ensure_strides({name}, {pysizes(size)}, {pysizes(stride)})")
            used |= _names(step.args) | _names(step.kwargs.values()) | {step.name}
        else:
            name, writer, cfg = kernels[step]
            for bname in writer.out_args:
                b = writer.arg_buffers[bname]
                dev = devices.setdefault(str(b.device), f"device{len(devices)}")
                body.append(f"{bname} = empty_strided({pysizes(b.shape)}, {pysizes(b.stride)}, device={dev}, dtype={b.dtype})")
            call_args = list(writer.in_args) + list(writer.out_args) + [pyexpr(step.xnumel)]
            if step.kind == "reduction":
                call_args.append(pyexpr(step.rnumel))
            call_args += getattr(writer, "size_args", [])
            static = is_static(step.xnumel)
            if getattr(writer, "tile", None):  # a 2-D tile (static sizes): x part, y part
                xnumel, ynumel = tile_numels(step, writer.tile)
                at = len(writer.in_args) + len(writer.out_args)
                call_args[at:at + 1] = [str(xnumel), str(ynumel)]
                if gpu:
                    grid = f"grid_{name}"
                    module_lines.append(f"def {grid}(meta):\n    return (({xnumel} + meta['XBLOCK'] - 1) // meta['XBLOCK'], "
                                        f"({ynumel} + meta['YBLOCK'] - 1) // meta['YBLOCK'])")
                    body.append(f"{name}[{grid}]({', '.join(call_args)})")
                else:
                    consts = [f"{k}={v}" for k, v in cfg.items()]
                    grid = f"({-(-xnumel // cfg['XBLOCK'])}, {-(-ynumel // cfg['YBLOCK'])})"
                    body.append(f"{name}[{grid}]({', '.join(call_args + consts)})")
            elif gpu and static:
                grid = f"grid_{name}"
                module_lines.append(f"def {grid}(meta):\n    return ((({step.xnumel}) + meta['XBLOCK'] - 1) // meta['XBLOCK'],)")
                body.append(f"{name}[{grid}]({', '.join(call_args)})")
            elif gpu:  # the grid depends on sizes known only at call time
                grid = f"(lambda meta: (({pyexpr(step.xnumel)} + meta['XBLOCK'] - 1) // meta['XBLOCK'],))"
                body.append(f"{name}[{grid}]({', '.join(call_args)})")
            else:
                consts = [f"{k}={v}" for k, v in cfg.items()]
                xb = cfg["XBLOCK"]
                grid = (f"({-(-int(step.xnumel) // xb)},)" if static
                        else f"(({pyexpr(step.xnumel)} + {xb - 1}) // {xb},)")
                body.append(f"{name}[{grid}]({', '.join(call_args + consts)})")
            used |= set(writer.in_args) | set(writer.out_args)
        steps.append((body, used))
    steps = _without_unused_views(schedule, steps, outputs)
    last_use: dict[str, int] = {}
    for i, (_, used) in enumerate(steps):
        for n in used:
            last_use[n] = i
    defined = {s.name for s in schedule if isinstance(s, ExternItem)} | {
        n for (_, writer, _) in kernels.values() for n in writer.out_args}
    for i, (body, _) in enumerate(steps):
        lines += ["    " + b for b in body]
        dead = sorted(n for n, j in last_use.items()
                      if j == i and n in defined and n not in outputs and n not in inputs)
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    outs = [w.arg(o) if not isinstance(o, (Buffer, WrapperVar)) else o.name for o in lowered.outputs]
    lines.append(f"    return [{', '.join(outs)}]")
    used_syms = set(lowered.ctx.size_args_of("\n".join(lines[bind_at:])))
    lines[bind_at:bind_at] = ["    " + b for b in size_bindings(lowered.inputs, used_syms)]
    for dev, var in devices.items():
        w.constants[var] = torch.device(dev)
    source = "\n\n".join(module_lines + ["\n".join(lines)]) + "\n"
    header = "".join(f"# {v} = {w.constants[v]!r}\n" for v in devices.values())
    return header + source, w.constants


def _without_unused_views(schedule: list, steps: list, outputs: set[str]) -> list:
    """``steps`` less the ones that only make a view or pick a list item nobody reads (a
    ``split`` whose pieces became ``reinterpret_tensor`` views of its input)."""
    live = set(outputs)
    kept = []
    for step, (body, used) in reversed(list(zip(schedule, steps))):
        pure = isinstance(step, ExternItem) and (step.aliases_only or step.target is operator.getitem)
        if pure and step.name not in live:
            continue
        live |= used
        kept.append((body, used))
    return kept[::-1]


def _names(values) -> set[str]:
    out: set[str] = set()
    for v in values:
        if isinstance(v, (Buffer, WrapperVar)):
            out.add(v.name)
        elif isinstance(v, (list, tuple)):
            out |= _names(v)
    return out
