"""Pre-checks: value-checked ops whose checked operand is a graph input, checked before the graph.

An op that checks tensor values (an embedding's ids, a loss's class targets, a gather's index)
can raise inside the compiled graph where the fake run did not. While replayed side effects
are pending, or a ``with`` exit/``finally`` would run user code on the way out, the graph
builder splits before such an op (effects.py). When the checked operand is an input of the
graph (the caller's tensor, not computed in the graph nor written by it) and the bound is a
static size, the entry instead checks the condition before calling the graph; when it fails,
the whole call runs the original function in Python (nothing has run yet, so that is exact:
the error, the ``finally`` and the effects happen as in eager). No split, one graph.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from autograph.capture.core import effects
from autograph.capture.engine import value_bounds

_INDEX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8)
_SMALL = 256  # elements up to which a pre-check reads the values into Python


@dataclass(frozen=True)
class PreCheck:
    """``low <= t < high`` for every element of the input ``node`` (or ``t == allowed``)."""
    node: Any  # the placeholder of the checked input
    low: int
    high: int
    allowed: int | None = None  # a value also accepted (a loss's ignore_index)
    nonzero: bool = False  # instead: no element is 0 (an integer divisor)


PROVEN = "proven"  # the op cannot raise: no pre-check needed


def values_in_range(t: torch.Tensor, low: int, high: int, allowed: int | None = None) -> bool:
    """Whether every element of ``t`` is in ``[low, high)`` or equals ``allowed`` (empty: True).

    autograph's own check: no ``__torch_function__`` (a mode's, a subclass's) sees its calls. A
    small 1-D tensor (a batch's class targets) is read into Python once: cheaper than ``aminmax``."""
    with torch._C.DisableTorchFunction():
        if t.dim() == 1 and t.numel() <= _SMALL:
            values = t.tolist()
            return all(low <= v < high or v == allowed for v in values) if values and \
                not (low <= min(values) and max(values) < high) else True
        if t.numel() == 0:  # min/max of an empty tensor raise; an empty index checks nothing
            return True
        lo, hi = torch.aminmax(t)
        if int(lo) >= low and int(hi) < high:
            return True
        if allowed is None:
            return False
        return bool(((t == allowed) | ((t >= low) & (t < high))).all())


def values_nonzero(t: torch.Tensor) -> bool:
    """Whether no element of ``t`` is 0 (an integer divisor; empty: True)."""
    with torch._C.DisableTorchFunction():
        return bool((t != 0).all())


# integer ops that raise on an operand's values: the operand's position and what it must be
_DIVISIONS = {operator.floordiv: 1, operator.mod: 1, operator.truediv: 1, torch.div: 1, torch.floor_divide: 1,
              torch.remainder: 1, torch.fmod: 1, "div": 1, "floor_divide": 1, "remainder": 1, "fmod": 1,
              "__floordiv__": 1, "__mod__": 1, "__truediv__": 1, "__rfloordiv__": 0, "__rmod__": 0,
              "__rtruediv__": 0}
_POWERS = {operator.pow: 1, torch.pow: 1, "pow": 1, "__pow__": 1, "__rpow__": 0}


def _arithmetic_operand(target: Any, args: tuple) -> tuple[Any, str] | None:
    """``(operand, "nonzero" | "nonnegative")`` for integer division and power, else None."""
    try:
        if target in _DIVISIONS and len(args) > _DIVISIONS[target]:
            return args[_DIVISIONS[target]], "nonzero"
        if target in _POWERS and len(args) > _POWERS[target]:
            return args[_POWERS[target]], "nonnegative"
    except TypeError:  # an unhashable target
        return None
    return None


def _arg(args: tuple, kwargs: dict, index: int, name: str, default: Any = None) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def _constant(value: Any) -> Any:
    """The Python constant a Value (or a plain object) stands for; raises when it is not one."""
    from autograph.capture.core.base import Value
    return value.as_python_constant() if isinstance(value, Value) else value


def _size(fake: torch.Tensor, dim: int) -> int | None:
    size = fake.shape[dim]
    return size if isinstance(size, int) else None


def _classes(fake: torch.Tensor) -> int | None:
    return _size(fake, 1 if fake.dim() >= 2 else 0)


def _plan(target: Any, args: tuple, kwargs: dict):
    """``(checked value, low, high, allowed)`` for an op call the rules below know, else None."""
    if target is F.embedding:
        if _constant(_arg(args, kwargs, 3, "max_norm")) is not None:  # renorms the weight in place
            return None
        weight = _arg(args, kwargs, 1, "weight")
        return _arg(args, kwargs, 0, "input"), 0, _size(weight.fake, 0), None
    if target is torch.embedding:
        weight = _arg(args, kwargs, 0, "weight")
        return _arg(args, kwargs, 1, "indices"), 0, _size(weight.fake, 0), None
    if target in (F.cross_entropy, F.nll_loss):
        logits = _arg(args, kwargs, 0, "input")
        ignore = _constant(_arg(args, kwargs, 4, "ignore_index", -100))
        return _arg(args, kwargs, 1, "target"), 0, _classes(logits.fake), int(ignore)
    if target in (torch.gather, torch.index_select, "gather", "index_select"):
        source = _arg(args, kwargs, 0, "input")
        dim = _constant(_arg(args, kwargs, 1, "dim"))
        if not isinstance(dim, int):
            return None
        return _arg(args, kwargs, 2, "index"), 0, _size(source.fake, dim), None
    if target in (operator.getitem, operator.setitem, "__getitem__", "__setitem__"):  # x[idx], x[idx] = v
        source, index = args[0], args[1]
        if source.fake.dim() == 0:
            return None
        n = _size(source.fake, 0)
        return index, -n if n is not None else 0, n, None
    return None


def plan(graph, target: Any, args: tuple, kwargs: dict) -> PreCheck | str | None:
    """:data:`PROVEN` when static bounds show the op cannot raise, else the pre-check that makes
    ``target(*args, **kwargs)``'s run-time errors foreseeable before the graph runs, or None (the
    op's operand is computed in the graph, the graph wrote an input before, the bound is not a
    static size, or no rule knows the op). A checked input whose memory an op of the graph wrote
    before is not pre-checked (``_input_behind``'s ``stale``: the entry would check old values);
    writes to other memory (a BatchNorm's running statistics) do not matter, since which inputs
    share memory is guarded whenever a graph writes."""
    return _plan_call(graph, target, args, kwargs)


def _plan_call(graph, target: Any, args: tuple, kwargs: dict) -> PreCheck | str | None:
    from autograph.capture.families.tensors import TensorValue

    def stale(node) -> bool:  # written in place by an op of the graph: its example value is old news
        return bool(effects.storages_of(node.meta.get("example_value")) & graph.written_storages)

    if target in (torch.histc, "histc"):
        return _plan_histc(args, kwargs)
    arithmetic = _arithmetic_operand(target, args)
    if arithmetic is not None:
        return _plan_arithmetic(graph, *arithmetic, stale)
    try:
        planned = _plan(target, args, kwargs)
    except Exception:  # a non-constant argument, an unexpected argument shape
        return None
    if planned is None:
        return None
    checked, low, high, allowed = planned
    if high is None or not isinstance(checked, TensorValue):
        return None

    def accepted(value: int) -> bool:
        return low <= value < high or value == allowed

    known = value_bounds.bounds(checked.node, stale) or value_bounds.evaluated_bounds(graph.graph, checked.node)
    if known is not None and (low <= known[0] and known[1] < high or known == (allowed, allowed)):
        return PROVEN  # computed in the graph from ops that keep it in range whatever the inputs hold
    node = _input_behind(checked.node, stale, accepted)
    if node is None or checked.fake.dtype not in _INDEX_DTYPES:
        return None
    return PreCheck(node, low, high, allowed)


def _plan_histc(args: tuple, kwargs: dict) -> str | None:
    """``histc`` checks values only to find a range it is not given (min == max): a finite
    constant range raises on no value (values outside it, NaN included, are not counted)."""
    try:
        bins = _constant(_arg(args, kwargs, 1, "bins", 100))
        low = _constant(_arg(args, kwargs, 2, "min", 0))
        high = _constant(_arg(args, kwargs, 3, "max", 0))
    except Exception:  # a symbolic bound
        return None
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (bins, low, high))
    if numbers and isinstance(bins, int) and bins > 0 and math.isfinite(low) and math.isfinite(high) and low < high:
        return PROVEN
    return None


def _plan_arithmetic(graph, operand: Any, need: str, stale) -> PreCheck | str | None:
    """Integer division needs a divisor without zeros, integer power an exponent without negatives."""
    from autograph.capture.families.tensors import TensorValue
    if not isinstance(operand, TensorValue):
        try:
            value = _constant(operand)
        except Exception:  # a symbolic number: unknown until the run
            return None
        if isinstance(value, float) or isinstance(value, int) and (value != 0 if need == "nonzero" else value >= 0):
            return PROVEN  # a float operand makes the op a float one: nothing to raise
        return None
    if operand.fake.dtype.is_floating_point or operand.fake.dtype.is_complex:
        return PROVEN
    known = value_bounds.bounds(operand.node, stale) or value_bounds.evaluated_bounds(graph.graph, operand.node)
    if known is not None and (known[0] > 0 or known[1] < 0 if need == "nonzero" else known[0] >= 0):
        return PROVEN
    if operand.fake.dtype not in _INDEX_DTYPES:
        return None
    node = _input_behind(operand.node, stale, lambda v: v != 0 if need == "nonzero" else v >= 0)
    if node is None:
        return None
    if need == "nonzero":
        return PreCheck(node, 0, 0, nonzero=True)
    return PreCheck(node, 0, 1 << 63)


def _input_behind(node, stale, accepted):
    """The graph input whose elements, with constants ``accepted`` says pass the check, include
    every element of ``node``'s result; None when some op between them computes new values."""
    while node is not None and node.op != "placeholder":
        if stale(node):
            return None
        if node.op == "call_method" and node.target in value_bounds.SUBSET_METHODS or \
                node.op == "call_function" and node.target in value_bounds.SUBSET_FUNCTIONS:
            pass
        elif node.op == "call_function" and node.target is F.pad:
            padding = value_bounds.constant_padding(node)
            if padding is None or not accepted(padding):
                return None
        else:
            return None
        source = node.args[0] if node.args else None
        if not isinstance(source, torch.fx.Node) or node.kwargs.get("out") is not None \
                or not _same_values(source, node):
            return None
        node = source
    return None if node is None or stale(node) else node


def _same_values(source, result) -> bool:
    """Whether integer elements keep their values from ``source`` to ``result`` (no narrowing)."""
    before = getattr(source.meta.get("example_value"), "dtype", None)
    after = getattr(result.meta.get("example_value"), "dtype", None)
    if before not in _INDEX_DTYPES or after not in _INDEX_DTYPES:
        return False
    return torch.iinfo(after).bits >= torch.iinfo(before).bits


def entry_lines(cg, checks: list[PreCheck], inputs: list[tuple[Any, str]]) -> list[str]:
    """Lines of the entry that run the original function when a pre-check fails.

    ``inputs`` pairs each graph input's placeholder with the variable holding it."""
    if not checks:
        return []
    by_node = {node: name for node, name in inputs}
    in_range, nonzero = cg.const(values_in_range), cg.const(values_nonzero)
    conditions = [f"{nonzero}({by_node[c.node]})" if c.nonzero else
                  f"{in_range}({by_node[c.node]}, {c.low}, {c.high}, {c.allowed!r})" for c in dict.fromkeys(checks)]
    eager = cg.const(cg.fn)
    return [f"if not ({' and '.join(conditions)}):", f"    return {eager}({_forwarded_arguments(cg.fn)})"]


def _forwarded_arguments(fn) -> str:
    """The call arguments passing the entry's parameters on to ``fn`` (same signature)."""
    code = fn.__code__
    names = code.co_varnames
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    parts = list(names[:npos])
    idx = npos + nkw
    if code.co_flags & 0x04:  # CO_VARARGS
        parts.append("*" + names[idx])
        idx += 1
    parts += [f"{name}={name}" for name in names[npos:npos + nkw]]
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        parts.append("**" + names[idx])
    return ", ".join(parts)


def supported(fn) -> bool:
    """Whether the entry of ``fn`` can fall back to calling it (not a generator or coroutine)."""
    return not fn.__code__.co_flags & (0x20 | 0x80 | 0x100 | 0x200)
