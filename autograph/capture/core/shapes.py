"""Dynamic shapes for one capture: symbolic fake inputs, sizes as graph values, shape guards.

torch's own machinery does the algebra: a ``ShapeEnv`` behind the capture's
``FakeTensorMode`` gives dynamic dimensions symbolic sizes (``s0``), records a
guard each time Python code branches on one (``if x.size(0) > 3``) and
specialises a size that must become a plain int (``range(x.size(0))``).
This module only

* decides which input dimensions are symbolic (the runtime's :class:`Plan`,
  ``autograph.mark_dynamic`` / ``mark_static`` on the tensor),
* turns a ``SymInt`` used by a graph operation into FX nodes computed from
  the inputs' sizes (``aten.sym_size.int(x, 0) // 2``), and a ``SymInt`` the
  transformed code needs into a Python expression (``x.size(0) // 2``),
* rewrites the TENSOR_MATCH guards of dynamic inputs (``None`` for symbolic
  sizes/strides) and adds one readable SHAPE_RELATION guard per ShapeEnv guard
  (``x.size(1) == y.size(0)``, ``2 <= x.size(0)``).

Without a plan (or under ``dynamic: static``) nothing changes: static fake
tensors, no ShapeEnv.
"""
from __future__ import annotations

import contextlib
import math
import contextvars
import operator
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch

from autograph.capture.core.breaks import Unsupported
from autograph.guards import model
from autograph.guards.sources import is_module_state


class NeedsStaticSizes(Exception):
    """Raised by a symbolic capture that cannot be exact; the runtime captures statically instead.

    Not an ``Unsupported`` (that would be a graph break): the whole symbolic capture is abandoned.
    """


@dataclass(frozen=True)
class Plan:
    """Which dimensions one capture makes symbolic.

    ``mode`` is the ``dynamic`` setting; ``dims`` maps a source expression
    (``x``, ``self.cache``) to the dimensions that changed size in earlier calls
    ("automatic dynamic"); ``scalars`` names the Python ``int``/``float`` values
    (``dt``, ``self.lr``) that changed value in earlier calls; ``symbolic`` says
    whether a ShapeEnv is needed at all.
    """

    mode: str = "auto"
    dims: dict = field(default_factory=dict)
    symbolic: bool = False
    scalars: frozenset = frozenset()  # source expressions of Python ints/floats read as graph inputs
    floats_in_graph: bool = True      # the backend takes SymFloat inputs (eager); else floats specialise there
    strides: dict = field(default_factory=dict)  # source expression -> dimensions whose stride changed alone


STATIC = Plan("static", {}, False)
_current: contextvars.ContextVar[Plan] = contextvars.ContextVar("autograph_dynamic_plan", default=STATIC)


@contextlib.contextmanager
def using(plan: Plan) -> Iterator[None]:
    """Captures started inside use ``plan`` (set by ``autograph.runtime.dynamic``)."""
    token = _current.set(plan)
    try:
        yield
    finally:
        _current.reset(token)


def current_plan() -> Plan:
    return _current.get()


def make_fake_mode():
    """The capture's FakeTensorMode: with a ShapeEnv only when the plan wants symbolic sizes."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    plan = current_plan()
    if not plan.symbolic:
        return FakeTensorMode(allow_non_fake_inputs=False)
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    return FakeTensorMode(allow_non_fake_inputs=False, shape_env=ShapeEnv())


def dynamic_dims_for(source: Any, real: torch.Tensor, plan: Plan) -> set[int]:
    """The dimensions of input ``real`` (reached through ``source``) made symbolic under ``plan``;
    a module's parameters and buffers only when marked with ``mark_dynamic``."""
    if is_module_state(source):
        dims = set()
    elif plan.mode == "always":
        dims = set(range(real.dim()))
    else:
        dims = set(plan.dims.get(getattr(source, "expr", None), ()))
    dims |= set(getattr(real, "_autograph_dynamic_dims", ()) or ())
    dims -= set(getattr(real, "_autograph_static_dims", ()) or ())
    return {d for d in dims if d < real.dim() and real.size(d) >= 2}  # 0 and 1 stay specialised


def dynamic_strides_for(source: Any, real: torch.Tensor, plan: Plan) -> set[int]:
    """The dimensions of input ``real`` whose stride is symbolic: those whose stride alone changed
    between calls (a contiguous tensor, then a transposed or sliced one), as Dynamo's automatic
    dynamic makes a wobbling stride dynamic; a module's parameters and buffers never."""
    if is_module_state(source) or not plan.strides:
        return set()
    dims = plan.strides.get(getattr(source, "expr", None), ())
    return {d for d in dims if d < real.dim() and real.stride(d) >= 2}  # 0 and 1 stay specialised


def fake_input(graph: Any, source: Any, real: torch.Tensor, node: torch.fx.Node) -> torch.Tensor:
    """The fake tensor standing for input ``real``: symbolic in its dynamic dimensions (sizes, and
    strides that changed alone)."""
    env = graph.fake_mode.shape_env
    plan = current_plan()
    dims = dynamic_dims_for(source, real, plan) if env is not None else set()
    strides = dynamic_strides_for(source, real, plan) if env is not None else set()
    if (not dims and not strides) or type(real) is not torch.Tensor:
        return graph._fake(real)
    from torch.fx.experimental.symbolic_shapes import DimDynamic, StatelessSymbolicContext

    context = StatelessSymbolicContext(
        dynamic_sizes=[DimDynamic.DYNAMIC if d in dims else DimDynamic.STATIC for d in range(real.dim())],
        dynamic_strides=[DimDynamic.DYNAMIC if d in strides else DimDynamic.INFER_STRIDE for d in range(real.dim())])
    fake = graph.fake_mode.from_tensor(real, symbolic_context=context)
    for d, size in enumerate(fake.size()):
        if isinstance(size, torch.SymInt):
            expr = size.node.expr
            if getattr(expr, "is_Symbol", False):
                graph.shape_records.symbols.setdefault(expr, (source, node, d))
    for d, stride in enumerate(fake.stride()):
        if isinstance(stride, torch.SymInt):
            expr = stride.node.expr
            if getattr(expr, "is_Symbol", False):
                graph.shape_records.symbols.setdefault(expr, (source, node, ("stride", d)))
    graph.shape_records.inputs.append((source, real, fake, node))
    return fake


def is_dynamic_scalar(source: Any, value: Any, graph: Any = None) -> bool:
    """Whether the Python int/float ``value`` read through ``source`` is a graph input in this capture."""
    plan = current_plan()
    if source is None:
        return False
    if plan.mode == "always" and type(value) is int and reached_from_argument(source, graph):
        pass  # ``dynamic=True``: an int argument is symbolic from the first capture, as in Dynamo
    elif not plan.scalars or getattr(source, "expr", None) not in plan.scalars:
        return False
    if type(value) is int:
        return abs(value) < 2 ** 62  # 0 and 1 too: an int is not a size (Dynamo does not specialise them)
    return type(value) is float


def reached_from_argument(source: Any, graph: Any = None) -> bool:
    """Whether ``source`` is an argument or an attribute/item chain from one (``o.n``, ``l[0]``),
    not passing through an ``nn.Module``: what Dynamo's ``dynamic=True`` makes symbolic (it keeps
    globals, module attributes and their contents static, as does this)."""
    from autograph.guards.sources import AttrSource, ItemSource, LocalSource
    modules = graph.shape_records.module_sources if graph is not None else ()
    while isinstance(source, (AttrSource, ItemSource)):  # MemberSource: ``o.n`` read from o.__dict__
        if source in modules:
            return False
        source = source.base
    return type(source) is LocalSource and source not in modules


def note_module(graph: Any, source: Any) -> None:
    """Record that ``source`` holds an ``nn.Module``: ints read through it stay static."""
    if source is not None:
        graph.shape_records.module_sources.add(source)


def _scalar_symbol(graph: Any, source: Any, value: Any):
    """A ShapeEnv symbol for the scalar input ``value`` (no duck sizing, any sign)."""
    from torch._dynamo.source import LocalSource as TorchLocalSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic

    env = graph.fake_mode.shape_env
    if env is None:
        raise Unsupported("a dynamic Python scalar without a ShapeEnv", generic=True, kind="dynamic-shape")
    name = TorchLocalSource(f"___in{len(graph.shape_records.inputs)}")
    symbol = env.create_unspecified_symbol(value, source=name, dynamic_dim=DimDynamic.DYNAMIC)
    return env, name, symbol


def symbolic_int(graph: Any, source: Any, value: int) -> torch.SymInt:
    """The ``SymInt`` standing for the Python int input ``value`` read through ``source``.

    Arithmetic on it stays symbolic (exact: integer algebra), a branch on it becomes a
    SHAPE_RELATION guard, a real int (``range(n)``) specialises it; a graph operation
    using it gets a placeholder fed with the int itself.
    """
    for src, _, fake, _ in graph.shape_records.inputs:
        if src == source and isinstance(fake, torch.SymInt):  # read twice: one symbol
            return fake
    env, name, symbol = _scalar_symbol(graph, source, value)
    symint = env.create_symintnode(symbol, hint=value, source=name)
    graph.shape_records.symbols[symbol] = (source, None, None)  # placeholder made when a graph op needs it
    graph.shape_records.inputs.append((source, value, symint, None))
    return symint


def scalar_placeholder(graph: Any, source: Any, value: Any, fake: Any) -> torch.fx.Node:
    """The placeholder feeding the scalar input read through ``source`` to the graph (one per source)."""
    for src, _, node in graph.inputs:
        if src == source and node.meta.get("autograph_scalar"):
            return node
    node = graph._placeholder(graph._name(source.expr))
    node.meta["example_value"] = fake
    node.meta["source"] = source.expr
    node.meta["autograph_scalar"] = True
    graph.inputs.append((source, value, node))
    return node


def symbolic_float_input(graph: Any, source: Any, value: float) -> tuple[torch.fx.Node, torch.SymFloat]:
    """Placeholder and ``SymFloat`` of the Python float input ``value``, for a graph operation using it."""
    for src, _, fake, node in graph.shape_records.inputs:
        if src == source and isinstance(fake, torch.SymFloat):
            return node, fake
    env, name, symbol = _scalar_symbol(graph, source, value)
    symfloat = env.create_symfloatnode(symbol, hint=value, source=name)
    node = scalar_placeholder(graph, source, value, symfloat)
    graph.shape_records.inputs.append((source, value, symfloat, node))
    return node, symfloat


def forget_inputs(graph: Any) -> None:
    """Drop the records of the capture's symbolic inputs (real tensors, fakes, graph nodes).

    Fakes hold their SymNodes from C++, so records (and a ShapeEnv cache) that point back at
    them form a cycle the garbage collector cannot see; they are not needed after the guards.
    """
    graph.shape_records.forget()
    env = graph.fake_mode.shape_env
    if env is not None:
        for cache in ("fake_tensor_cache", "fx_node_cache"):  # their FakeTensors / nodes close the same cycle
            if isinstance(getattr(env, cache, None), dict):
                getattr(env, cache).clear()


def _expr(sym: Any):
    node = sym.node
    return node.shape_env.replace(node.expr) if node.shape_env is not None else node.expr


def _lower(expr, leaf, const, ops):
    """Walk a sympy size expression bottom-up: ``leaf(symbol)``, ``const(int)``, ``ops[name](a, b)``."""
    import sympy
    from torch.utils._sympy import functions as F

    def go(e):
        if e.is_Integer:
            return const(int(e))
        if e.is_Symbol:
            return leaf(e)
        if isinstance(e, (sympy.Add, sympy.Mul)):
            args = list(e.args)
            # keep integer coefficients last: `s0 * 2`, `s0 + -1`
            args.sort(key=lambda a: a.is_Integer)
            out = go(args[0])
            for a in args[1:]:
                out = ops["add" if isinstance(e, sympy.Add) else "mul"](out, go(a))
            return out
        if isinstance(e, F.FloorDiv):
            return ops["floordiv"](go(e.args[0]), go(e.args[1]))
        if isinstance(e, (F.PythonMod, F.Mod)) or type(e).__name__ == "Mod":
            return ops["mod"](go(e.args[0]), go(e.args[1]))
        if isinstance(e, sympy.Pow) and e.args[1].is_Integer and int(e.args[1]) > 0:
            return ops["pow"](go(e.args[0]), go(e.args[1]))
        if isinstance(e, (F.Max, sympy.Max)) and len(e.args) == 2:
            return ops["max"](go(e.args[0]), go(e.args[1]))
        if isinstance(e, (F.Min, sympy.Min)) and len(e.args) == 2:
            return ops["min"](go(e.args[0]), go(e.args[1]))
        if isinstance(e, sympy.Abs) and "abs" in ops:  # ``abs(n - 6)``: Python's abs of an int
            return ops["abs"](go(e.args[0]))
        raise Unsupported(f"symbolic size expression {e} is not supported (compiled statically instead)",
                          generic=True, kind="dynamic-shape")

    return go(expr)


def _symbol_origin(records, symbol):
    origin = records.symbols.get(symbol)
    if origin is None:
        raise Unsupported(f"symbolic size {symbol} has no input it comes from", generic=True, kind="dynamic-shape")
    return origin


def _dimension(origin: Any) -> tuple[str, int]:
    """``("size", d)`` or ``("stride", d)`` for a symbol's recorded dimension (an int: a size)."""
    return origin if isinstance(origin, tuple) else ("size", origin)


def symint_node(graph: Any, sym: torch.SymInt) -> Any:
    """FX node (or int) computing ``sym`` at run time from the inputs' sizes."""
    env = sym.node.shape_env
    if env is None or not _expr(sym).free_symbols:
        return int(sym)
    cache = graph.shape_records.nodes  # sympy expression -> node
    key = _expr(sym)
    if key in cache:
        return cache[key]

    def leaf(symbol):
        node = cache.get(symbol)
        if node is None:
            source, placeholder, dim = _symbol_origin(graph.shape_records, symbol)
            if dim is None:  # a Python int input: the placeholder itself
                node = cache[symbol] = _int_placeholder(graph, symbol, source)
                return node
            what, dim = _dimension(dim)
            target = torch.ops.aten.sym_stride.int if what == "stride" else torch.ops.aten.sym_size.int
            node = graph.graph.create_node("call_function", target, (placeholder, dim), {},
                                           name=graph._name(f"sym_{what}_{symbol}"))
            node.meta["example_value"] = getattr(placeholder.meta["example_value"], what)(dim)
            node.stack_trace = graph.current_trace
            cache[symbol] = node
        return node

    def binop(fn):
        def make(a, b):
            if not isinstance(a, torch.fx.Node) and not isinstance(b, torch.fx.Node):
                return fn(a, b)
            node = graph.graph.create_node("call_function", fn, (a, b), {}, name=graph._name(fn.__name__))
            node.stack_trace = graph.current_trace
            return node
        return make

    def unop(fn):
        def make(a):
            if not isinstance(a, torch.fx.Node):
                return fn(a)
            node = graph.graph.create_node("call_function", fn, (a,), {}, name=graph._name(fn.__name__))
            node.stack_trace = graph.current_trace
            return node
        return make

    ops = {"add": binop(operator.add), "mul": binop(operator.mul), "floordiv": binop(operator.floordiv),
           "mod": binop(operator.mod), "pow": binop(operator.pow), "max": binop(max), "min": binop(min),
           "abs": unop(abs)}
    out = cache[key] = _lower(key, leaf, lambda v: v, ops)
    return out


def int_input_terms(graph: Any, sym: torch.SymInt, leaf: Any, const: Any, ops: dict) -> Any:
    """``sym`` rebuilt bottom-up from the Python int inputs it is computed from (``leaf(source,
    value)`` for each, ``const(int)``, ``ops[name](*args)`` for ``add``/``mul``/``floordiv``/
    ``mod``/``pow``/``max``/``min``/``abs``: the int arithmetic Python does); None when it reads
    a tensor's size or stride, or has no free symbol."""
    env = sym.node.shape_env
    if env is None or graph.fake_mode.shape_env is not env:
        return None
    expr = _expr(sym)
    records = graph.shape_records
    values = {}
    for symbol in expr.free_symbols:
        origin = records.symbols.get(symbol)
        if origin is None or origin[2] is not None:
            return None  # a size or stride: stays torch's symbol
        value = next((real for src, real, fake, _ in records.inputs
                      if src == origin[0] and isinstance(fake, torch.SymInt)), None)
        if type(value) is not int:
            return None
        values[symbol] = (origin[0], value)
    if not values:
        return None
    try:
        return _lower(expr, lambda symbol: leaf(*values[symbol]), const, ops)
    except Unsupported:
        return None


def _int_placeholder(graph: Any, symbol: Any, source: Any) -> torch.fx.Node:
    records = graph.shape_records
    for i, (src, real, fake, node) in enumerate(records.inputs):
        if src == source and isinstance(fake, torch.SymInt):
            if node is None:
                node = scalar_placeholder(graph, source, real, fake)
                records.inputs[i] = (src, real, fake, node)
                records.symbols[symbol] = (source, node, None)
            return node
    raise Unsupported(f"symbolic int {symbol} has no input it comes from", generic=True, kind="dynamic-shape")


def symints_to_nodes(graph: Any, node_args: Any, node_kwargs: Any) -> tuple:
    """Replace every ``SymInt`` in FX node arguments by nodes computing it (no-op without a ShapeEnv)."""
    if graph.fake_mode.shape_env is None:
        return node_args, node_kwargs

    def convert(x):
        if isinstance(x, torch.SymInt):
            return symint_node(graph, x)
        if isinstance(x, (torch.SymFloat, torch.SymBool)):
            raise Unsupported("symbolic float/bool passed to a torch operation", generic=True, kind="dynamic-shape")
        if isinstance(x, slice):
            return slice(convert(x.start), convert(x.stop), convert(x.step))
        if type(x) in (tuple, list):
            return type(x)(convert(i) for i in x)
        if type(x) is dict:
            return {k: convert(v) for k, v in x.items()}
        return x

    return convert(node_args), convert(node_kwargs)


def reconstruct(cg: Any, value: Any) -> str:
    """Python expression for a symbolic value the transformed code needs (``x.size(0) // 2``).

    A SymBool/SymFloat is specialised (its ShapeEnv guard keeps that valid).
    """
    if isinstance(value, torch.SymBool):
        return repr(bool(value))
    if isinstance(value, torch.SymFloat):
        return repr(float(value))
    env = value.node.shape_env
    if env is None or not _expr(value).free_symbols:
        return repr(int(value))

    def leaf(symbol):  # read before any replayed side effect changes where it lives
        source, _, dim = _symbol_origin(cg.tx.graph.shape_records, symbol)
        if dim is None:  # a Python int input
            return cg.read_before_replay(("symbol", str(symbol)), cg.source_expr(source))
        what, dim = _dimension(dim)
        return cg.read_before_replay(("symbol", str(symbol)), f"{cg.source_expr(source)}.{what}({dim})")

    infix = {"add": "+", "mul": "*", "floordiv": "//", "mod": "%", "pow": "**"}
    ops = {k: (lambda a, b, s=s: f"({a} {s} {b})") for k, s in infix.items()}
    ops["max"] = lambda a, b: f"max({a}, {b})"
    ops["min"] = lambda a, b: f"min({a}, {b})"
    ops["abs"] = lambda a: f"abs({a})"
    return _lower(_expr(value), leaf, repr, ops)


# ------------------------------------------------------------------ guards

_NAME = re.compile(r"L\['___in(\d+)'\]")
_PROP = re.compile(r"(___in\d+)\.(size|stride)\(\)\[(\d+)\]")


def finish_guards(tx: Any) -> None:
    """Rewrite the capture's guards for its symbolic inputs (no-op for a static capture).

    TENSOR_MATCH of a dynamic input leaves its symbolic sizes/strides unchecked
    (``None``); every relation the ShapeEnv recorded becomes a SHAPE_RELATION guard.
    """
    graph = tx.graph
    env = graph.fake_mode.shape_env
    if env is None or not graph.shape_records.inputs:
        return
    from torch._dynamo.source import LocalSource as TorchLocalSource


    if graph.shape_records.exact_numbers and any(decides_on_floats(g.expr) for g in env.guards):
        # torch's float algebra is sympy's, not IEEE's ((n * 0.1) * 3 is not 0.3 * n): the numbers
        # the graph computes are guarded by their exact values, evaluated as Python does
        for guard_exact_value in graph.shape_records.exact_numbers:
            guard_exact_value()
    inputs = graph.shape_records.inputs
    by_source = {}
    for source, real, fake, _ in inputs:
        if isinstance(fake, torch.Tensor):
            by_source[source] = _dynamic_tensor_match(source, real, fake)
    tx.guards.relax_tensor_matches(by_source)
    names = [TorchLocalSource(f"___in{i}") for i in range(len(inputs))]
    try:
        texts = env.produce_guards([fake for _, _, fake, _ in inputs], names)
    except Exception as exc:  # noqa: BLE001 - a relation we cannot express: compile statically instead
        raise Unsupported(f"shape guards could not be produced ({type(exc).__name__}: {exc})", generic=True,
                          kind="dynamic-shape")
    for text in texts:
        guard = _relation(text, [s for s, _, _, _ in inputs])
        scalars = [s.expr for s, _, fake, _ in inputs if not isinstance(fake, torch.Tensor) and s in guard.sources]
        if scalars:  # tells the recompile message a Python value, not a size, is what changed
            kind = "float" if any(isinstance(fake, torch.SymFloat) for s, _, fake, _ in inputs if s in guard.sources) \
                else "int"
            guard.reason = (f"the value of the Python {kind} {', '.join(scalars)}: the code branches on it "
                            "or needs it as a real value")
        tx.guards.shape_relation(guard)


def decides_on_floats(expr: Any) -> bool:
    """Whether a ShapeEnv guard's expression computes with floats (a float constant, a true
    division, a conversion to float): a decision on a Python float computed in the graph."""
    import sympy

    if any(atom.is_Float for atom in expr.atoms(sympy.Number)):
        return True
    return any("Float" in type(f).__name__ or "TrueDiv" in type(f).__name__ or "Pow" in type(f).__name__
               or type(f).__name__.startswith("Opaque") for f in expr.atoms(sympy.Function))


def _relation(text: str, sources: list) -> Any:
    """One ShapeEnv guard (``L['___in0'].size()[0] == L['___in1'].size()[1]``) as SHAPE_RELATION."""

    code = _NAME.sub(r"___in\1", text)
    code = _PROP.sub(lambda m: f"{m.group(1)}.{m.group(2)}({m.group(3)})", code)  # x.size(0): no tuple
    used = sorted({int(i) for i in re.findall(r"___in(\d+)", code)})
    params = ", ".join(f"___in{i}" for i in used)
    try:
        check = eval(f"lambda {params}: {code}", {"__builtins__": __builtins__, "math": math})  # noqa: S307
    except SyntaxError as exc:
        raise Unsupported(f"shape guard {text!r} is not plain Python ({exc})", generic=True, kind="dynamic-shape")
    import builtins
    import dis
    # globals the guard reads (attribute names such as ``.size`` or ``math.isnan`` are not reads)
    read = {i.argval for i in dis.get_instructions(check) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    unknown = sorted(n for n in read if not hasattr(builtins, n) and n != "math")
    if unknown:  # a size with no input behind it (a hidden base storage): the guard could never be checked
        raise NeedsStaticSizes(f"shape guard {text!r} reads {', '.join(unknown)}, which is not an input")
    readable = re.sub(r"___in(\d+)", lambda m: sources[int(m.group(1))].expr, code)
    guard = model.shape_relation(readable, check, [sources[i] for i in used])
    guard.reason = "relation between sizes the compiled graph relies on"
    return guard


def _dynamic_tensor_match(source: Any, real: torch.Tensor, fake: torch.Tensor) -> Any:
    """TENSOR_MATCH with ``None`` wherever the fake's size or stride is symbolic."""

    def concrete(values):
        return tuple(int(v) if not isinstance(v, torch.SymInt) or not _expr(v).free_symbols else None
                     for v in values)

    sizes, strides = concrete(fake.size()), concrete(fake.stride())
    guard = model.tensor_match(source, real)
    facts = guard.expected
    facts = model.TensorFacts(facts.cls, facts.dtype, facts.device, facts.requires_grad, sizes, strides,
                              facts.dispatch_keys)
    return model.Guard(model.TENSOR_MATCH, source, facts)  # its text comes from the kind


def backend_inputs(graph: Any, example_inputs: list) -> list:
    """Example inputs for the backend: the symbolic fakes when the graph has symbolic sizes."""
    env = graph.fake_mode.shape_env
    if env is None or not graph.shape_records.inputs:
        return example_inputs
    return [node.meta["example_value"] for _, _, node in graph.inputs]
