"""Python floats whose value changes between calls: kept as the Python arithmetic that makes them.

When a ``float`` the code reads (``dt``, ``self.lr``) changed value between calls
(``autograph.runtime.dynamic``), the next capture does not fold it: a
:class:`ScalarValue` stands for it, and arithmetic on it (operators, ``math``
functions, ``abs``/``round``/``min``/``max``/``float``/``int``) builds a recipe that
the transformed code evaluates with Python's own operations on the real values,
so results are bit-identical to eager Python, types included. A float passed to
a torch operation is a graph input (a ``SymFloat`` placeholder fed with the
Python float). A recipe that Python must decide (a branch, a formatted string, a
real value) is specialised with a guard on exactly what was relied on (``dt >
0.1`` is True), never on the value itself when the decision suffices.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Callable

import torch

from autograph.capture.core import shapes
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue

_INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
          operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.lt: "<",
          operator.le: "<=", operator.gt: ">", operator.ge: ">=", operator.eq: "==", operator.ne: "!="}
_PREFIX = {operator.neg: "-", operator.pos: "+"}
_NUMERIC = (int, float, bool)
# operations whose result can raise or change type with the operands' values (1.0 / 0.0,
# (-8.0) ** 0.5 is complex, math.sqrt(-1.0)): the entry guards that they still compute the same type
_FRAGILE = {operator.truediv, operator.floordiv, operator.mod, operator.pow, divmod}
# functions of numbers folded into a recipe (everything else specialises or breaks)
_FUNCTIONS = {abs, round, min, max, float, int} | {
    f for f in vars(math).values() if callable(f) and type(f).__name__ == "builtin_function_or_method"}
# operators usable inside a graph on SymFloats (math functions would specialise there)
_GRAPH_OPS = set(_INFIX) | set(_PREFIX)


def _hint(value: Value) -> Any:
    """The value of an operand now, without guarding: a symbolic int's hint."""
    if isinstance(value, ScalarValue):
        return value.hint
    v = value.as_python_constant()
    if isinstance(v, torch.SymInt):
        return v.node.hint
    return v


def _operand(value: Value) -> bool:
    """Whether ``value`` can take part in a recipe: a number, a dynamic int, or another recipe."""
    if isinstance(value, ScalarValue):
        return True
    if not value.is_constant():
        return False
    v = value.as_python_constant()
    return type(v) in _NUMERIC or isinstance(v, torch.SymInt)


class ScalarValue(Value):
    """A Python number computed at run time from scalar inputs (a leaf is an input itself)."""

    def __init__(self, tx, hint: Any, *, source=None, fn: Callable | None = None, operands: tuple = (),
                 symint: torch.SymInt | None = None):
        self.tx = tx
        self.hint = hint
        self.source = source      # leaves only: where the input is read
        self.fn = fn              # derived: the Python operation applied to ``operands``
        self.operands = operands
        self.symint = symint      # an int input's leaf: its ShapeEnv symbol (the graph reads the int placeholder)
        self._node = None         # (FX node, fake) once a graph operation used it

    # --- facts -------------------------------------------------------------
    def describe(self) -> str:
        return f"dynamic {type(self.hint).__name__} {self._text(lambda leaf: leaf.source.expr)}"[:80]

    def python_type(self) -> type:
        return type(self.hint)

    def is_symbolic_scalar(self) -> bool:
        return True

    def leaves(self) -> list["ScalarValue"]:
        if self.fn is None:
            return [self]
        out: list[ScalarValue] = []
        for op in self.operands:
            for leaf in op.leaves() if isinstance(op, ScalarValue) else ():
                if all(leaf.source != other.source for other in out):
                    out.append(leaf)
        return out

    # --- recipes -----------------------------------------------------------
    @classmethod
    def apply(cls, tx, fn: Callable, operands: list[Value]) -> "ScalarValue | ConstantValue":
        """``fn(*operands)`` as a recipe (its exception, if any, is Python's: a graph break)."""
        operands = [_from_symbolic_int(tx, o) for o in operands]
        try:
            hint = fn(*(_hint(o) for o in operands))
        except Exception as exc:
            # raised for this call's values only (1.0 / v with v == 0.0): not an exception known
            # for every call the entry would serve, so no `except` handler is entered symbolically
            raise Unsupported(f"{getattr(fn, '__name__', fn)}() raised {type(exc).__name__} for this call's "
                              "values", generic=True, kind="python-exception") from None
        if type(hint) not in _NUMERIC:  # a complex number, a tuple (divmod): no recipe for those
            value = cls(tx, hint, fn=fn, operands=tuple(operands))
            return ConstantValue(value.as_python_constant())
        value = cls(tx, hint, fn=fn, operands=tuple(operands))
        if fn in _FRAGILE or fn in _FUNCTIONS:
            value._guard("type", lambda v: type(v) is type(hint),
                         f"type({{}}) is {type(hint).__name__}", "computes without error and keeps its type")
        return value

    def _text(self, leaf_text: Callable[["ScalarValue"], str],
              operand_text: Callable[[Value], str] = lambda op: repr(op.as_python_constant()),
              fn_text: Callable[[Callable], str] | None = None) -> str:
        if self.fn is None:
            return leaf_text(self)

        def part(op):
            return op._text(leaf_text, operand_text, fn_text) if isinstance(op, ScalarValue) else operand_text(op)

        # a negative constant in parentheses: ``(-0.5) ** n``, not ``-0.5 ** n`` (which is ``-(0.5 ** n)``)
        args = [f"({text})" if text.startswith("-") else text for text in (part(op) for op in self.operands)]
        if self.fn in _INFIX and len(args) == 2:
            return f"({args[0]} {_INFIX[self.fn]} {args[1]})"
        if self.fn in _PREFIX:
            return f"({_PREFIX[self.fn]}{args[0]})"
        if fn_text is not None:
            return f"{fn_text(self.fn)}({', '.join(args)})"
        name = getattr(self.fn, "__name__", "fn")
        module = "math." if getattr(self.fn, "__module__", None) == "math" else ""
        return f"{module}{name}({', '.join(args)})"

    def _frozen(self):
        """A recipe over the leaves only (symbolic ints made real, with their ShapeEnv guard)."""
        leaves = self.leaves()

        def freeze(v):
            if isinstance(v, ScalarValue):
                if v.fn is None:
                    return ("leaf", next(i for i, leaf in enumerate(leaves) if leaf.source == v.source))
                return ("call", v.fn, [freeze(o) for o in v.operands])
            c = v.as_python_constant()
            return ("const", int(c) if isinstance(c, torch.SymInt) else c)  # int(): guarded by the ShapeEnv

        return leaves, freeze(self)

    def _guard(self, key: str, test: Callable[[Any], bool], src_template: str, words: str) -> None:
        """Guard that ``test(recipe evaluated on the call's inputs)`` holds (an exception fails it)."""
        leaves, tree = self._frozen()

        def evaluate(node, values):
            tag = node[0]
            if tag == "leaf":
                return values[node[1]]
            if tag == "const":
                return node[1]
            return node[1](*(evaluate(n, values) for n in node[2]))

        def check(*values):
            try:
                return bool(test(evaluate(tree, values)))
            except Exception:  # noqa: BLE001 - raising now: not what the entry was compiled for
                return False

        text = self._text(lambda leaf: leaf.source.expr)
        sources = [leaf.source for leaf in leaves]
        self.tx.guards.python("scalar-recipe", (key, text, repr(self.hint)), src_template.format(text), check, sources,
                              words=f"{text} {words}")

    # --- specialisation ------------------------------------------------------
    def as_python_constant(self) -> Any:
        hint = self.hint
        same = (lambda v: type(v) is type(hint) and (v == hint or (v != v and hint != hint)))
        self._guard("eq", same, f"{{}} == {hint!r}", f"equals {hint!r} (the code needs its value)")
        return hint

    def truth(self, tx) -> bool:
        b = bool(self.hint)
        self._guard("truth", lambda v: bool(v) is b, f"bool({{}}) is {b}", f"is {'true' if b else 'false'}")
        return b

    def real_value(self) -> Any:
        raise Unsupported(f"{self.describe()} has no fixed value at capture time", kind="dynamic-shape")

    def getattr(self, tx, name: str) -> Value:
        return ConstantValue(self.as_python_constant()).getattr(tx, name)

    # --- operations ----------------------------------------------------------
    def binary_op(self, tx, op: str, other: Value):
        fn = _BINARY.get(op.rstrip("=") if op.endswith("=") else op)
        if fn is None or not _operand(other):
            return NotImplemented
        return ScalarValue.apply(tx, fn, [self, other])

    # --- the transformed code and the graph ----------------------------------------
    def reconstruct(self, cg) -> str:
        """The recipe in Python, evaluated once at the top of the entry (before replayed side effects)."""
        text = self._text(lambda leaf: cg.source_expr(leaf.source), cg.reconstruct, cg.const)
        return cg.shared(self, text)

    def graph_arg(self) -> tuple[Any, Any]:
        """(FX argument, fake argument) of this number in a torch operation: the recipe computed in
        the graph from its inputs' placeholders where it can be, else its value (guarded)."""
        if self._node is not None:
            return self._node
        graph = self.tx.graph
        if graph.fake_mode.shape_env is None or not self._in_graph(shapes.current_plan().floats_in_graph):
            value = self.as_python_constant()  # a math function, a float the backend cannot take: specialise
            return value, value
        env = graph.fake_mode.shape_env
        guards = len(env.guards)
        try:
            node = self._graph_node(graph)
        except Exception:  # noqa: BLE001 - torch's symbolic algebra has no model for it ((-0.9) ** n)
            node = None
        if node is None or any(shapes.decides_on_floats(g.expr) for g in env.guards[guards:]):
            # (a fake computation that added a ShapeEnv guard on floats: sympy's algebra, not
            # IEEE's; one on ints, ``2 ** n`` guarding ``n >= 0``, is Python's): the value, guarded exactly
            value = self.as_python_constant()
            return value, value
        self._node = node
        if self.symint is None:
            graph.shape_records.exact_numbers.append(self.as_python_constant)
        return node

    def _graph_node(self, graph) -> tuple[Any, Any] | None:
        if self.fn is None:
            if self.symint is not None:  # an int input: its placeholder
                return shapes.symint_node(graph, self.symint), self.symint
            return shapes.symbolic_float_input(graph, self.source, self.hint)
        args, fakes = [], []
        for op in self.operands:
            if isinstance(op, ScalarValue):
                node, fake = op.graph_arg()
            else:
                c = op.as_python_constant()
                node, fake = (shapes.symint_node(graph, c), c) if isinstance(c, torch.SymInt) else (c, c)
            args.append(node)
            fakes.append(fake)
        target, example = _GRAPH_FUNCTIONS.get(self.fn, (self.fn, self.fn))
        value = example(*fakes)
        if type(value) not in (float, int, bool) and not isinstance(value, (torch.SymInt, torch.SymFloat)):
            return None
        node = graph.graph.create_node("call_function", target, tuple(args), {},
                                       name=graph._name(getattr(self.fn, "__name__", "scalar")))
        node.meta["example_value"] = value
        node.stack_trace = graph.current_trace
        return node, value

    def _in_graph(self, floats: bool) -> bool:
        """Whether the graph can compute this recipe with Python's own operations on its inputs:
        int inputs always, float inputs where the backend takes them (``floats``); operators,
        ``float``, ``abs``, one-argument ``round`` and ``min``/``max`` of two values of one type."""
        if self.fn is None:
            return self.symint is not None or floats
        if self.fn in (min, max):
            if len(self.operands) != 2 or len({type(_hint(op)) for op in self.operands}) != 1:
                return False  # min(1, 2.0) is the int 1: torch's sym_min would answer a float
        elif self.fn is round:
            if len(self.operands) != 1:
                return False
        elif self.fn is operator.pow and type(_hint(self.operands[0])) is int \
                and not (type(_hint(self.operands[1])) is int and _hint(self.operands[1]) >= 0):
            return False  # n ** -1, n ** 0.5: torch's fake guards the base's sign in float algebra
        elif self.fn not in _GRAPH_OPS and self.fn not in _GRAPH_FUNCTIONS:
            return False
        if type(self.hint) not in (int, float):
            return False
        return all(op._in_graph(floats) for op in self.operands if isinstance(op, ScalarValue))


# functions computed by a graph node: (the node's target, what computes its fake value without
# deciding anything on the symbols); at run time each is Python's own operation on the numbers
_GRAPH_FUNCTIONS = {float: (torch.sym_float, torch.sym_float), abs: (abs, abs), round: (round, round),
                    min: (min, torch.sym_min), max: (max, torch.sym_max)}


def _from_symbolic_int(tx, value: Value) -> Value:
    """A dynamic Python int (a symbol of the ShapeEnv computed from int inputs only) as a recipe over
    those inputs, so that what Python decides on it is guarded by evaluating the same arithmetic
    on the call's ints (``s / 10 <= 1.0``), not by specialising ``s``; anything else unchanged (a
    size stays torch's symbol, made real with its ShapeEnv guard where Python needs it)."""
    if isinstance(value, ScalarValue) or not value.is_constant():
        return value
    c = value.as_python_constant()
    if not isinstance(c, torch.SymInt):
        return value
    leaves: dict = {}

    def leaf(source, real):
        if source not in leaves:  # (its type is guarded where the int was read)
            leaves[source] = ScalarValue(tx, real, source=source,
                                         symint=shapes.symbolic_int(tx.graph, source, real))
        return leaves[source]

    def derived(fn):
        def make(*args):
            if all(not isinstance(a, ScalarValue) for a in args):
                return fn(*args)
            hint = fn(*(a.hint if isinstance(a, ScalarValue) else a for a in args))
            return ScalarValue(tx, hint, fn=fn, operands=tuple(
                a if isinstance(a, ScalarValue) else ConstantValue(a) for a in args))
        return make

    ops = {"add": derived(operator.add), "mul": derived(operator.mul), "floordiv": derived(operator.floordiv),
           "mod": derived(operator.mod), "pow": derived(operator.pow), "max": derived(max), "min": derived(min),
           "abs": derived(abs)}
    out = shapes.int_input_terms(tx.graph, c, leaf, lambda v: v, ops)
    if not isinstance(out, ScalarValue) or out.hint != c.node.hint:
        return value
    return out


def int_to_float(fn: Callable, operands: list[Value]) -> bool:
    """Whether ``fn(*operands)`` makes a float from a dynamic int (``n / 10``, ``n * 0.5``,
    ``0.9 ** n``, ``float(n)``, ``min(1.0, n)``) or compares one with a float (``n > 4.5``): a
    recipe (below), where torch's symbolic algebra would answer a SymFloat (SymBool) whose
    ShapeEnv guard is not plain Python."""
    ints = [o for o in operands if o.is_constant() and isinstance(o.as_python_constant(), torch.SymInt)]
    if not ints or not all(_operand(o) for o in operands):
        return False
    floats = any(o.is_constant() and type(o.as_python_constant()) is float for o in operands)
    if fn in (operator.truediv, operator.itruediv, float):
        return True
    if fn in (operator.pow, operator.ipow) and len(operands) == 2 and operands[1].is_constant():
        exponent = operands[1].as_python_constant()  # n ** -1, 2 ** n: a float for a negative exponent
        if isinstance(exponent, torch.SymInt) or type(exponent) is int and exponent < 0:
            return True
    return floats and fn in (operator.add, operator.sub, operator.mul, operator.pow, operator.floordiv,
                             operator.mod, min, max, *_COMPARE.values())


_BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "//": operator.floordiv, "%": operator.mod, "**": operator.pow}
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne}


def leaf(tx, source, value: float) -> ScalarValue:
    """The value of the float input read through ``source`` (its type is guarded, not its value)."""
    tx.guards.type_(source, value)
    return ScalarValue(tx, value, source=source)


def binary(tx, op: str, a: Value, b: Value) -> Value:
    """``a op b`` when a recipe is involved; NotImplemented otherwise (or for non-numbers)."""
    fn = _BINARY.get(op.rstrip("=") if op.endswith("=") else op)
    if fn is None or not (_operand(a) and _operand(b)):
        return NotImplemented
    return ScalarValue.apply(tx, fn, [a, b])


def compare(tx, a: Value, op: str, b: Value) -> Value:
    fn = _COMPARE.get(op)
    if fn is None or not (_operand(a) and _operand(b)):
        return NotImplemented
    return ScalarValue.apply(tx, fn, [a, b])


def unary(tx, op: str, a: Value) -> Value:
    fn = {"-": operator.neg, "+": operator.pos}.get(op)
    if fn is None:
        return NotImplemented
    return ScalarValue.apply(tx, fn, [a])


def call(tx, fn: Any, args: list[Value], kwargs: dict) -> Value:
    """``fn(*args)`` for the numeric functions above; NotImplemented for anything else."""
    try:
        known = fn in _FUNCTIONS
    except TypeError:
        return NotImplemented
    if not known or kwargs or not args or not all(_operand(a) for a in args):
        return NotImplemented
    if fn in (min, max) and len(args) < 2:
        return NotImplemented  # min(iterable): not a recipe
    return ScalarValue.apply(tx, fn, list(args))


def involved(*values: Value) -> bool:
    return any(v.is_symbolic_scalar() for v in values)
