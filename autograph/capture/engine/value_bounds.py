"""Static bounds of an integer tensor computed in the graph, read off the ops that made it.

A value-checked op (an embedding, a gather) whose index is computed in the graph cannot be
pre-checked before the graph runs, but often its values are known to lie in a range whatever the
inputs hold: ``arange(n) + past``, ``cumsum(ids.ne(pad).int(), 1) * mask + pad`` (Hugging Face
position ids). Interval arithmetic over the few ops below proves such an op cannot raise; any
other op, or a size the graph knows only as a symbol, gives no bounds.

A tensor the graph wrote in place has bounds when every write to its memory before the read is an
index assignment into that very tensor with bounded values: it then holds its own op's values and
the written ones, or only the written ones once an index that is a permutation of ``[0, n)`` (the
indices of ``sort``/``argsort`` of a 1-D tensor) wrote all n elements, uninitialised ones included
(``inv = torch.empty_like(perm); inv[perm] = torch.arange(n)``).
"""
from __future__ import annotations

import operator

import torch
import torch.nn.functional as F

from autograph.capture.core import effects

_INTEGER = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)
_PREDICATE_METHODS = frozenset({"ne", "eq", "lt", "le", "gt", "ge", "__ne__", "__eq__", "__lt__", "__le__",
                                "__gt__", "__ge__", "logical_not", "logical_and", "logical_or", "bool"})
_PREDICATE_FUNCTIONS = (torch.ne, torch.eq, torch.lt, torch.le, torch.gt, torch.ge, operator.ne, operator.eq,
                        operator.lt, operator.le, operator.gt, operator.ge, torch.logical_not,
                        torch.logical_and, torch.logical_or)
# ops whose result's elements are elements of their first operand
SUBSET_METHODS = frozenset({"view", "reshape", "flatten", "unflatten", "unsqueeze", "squeeze", "expand",
                             "expand_as", "view_as", "reshape_as", "contiguous", "permute", "transpose", "t",
                             "clone", "detach", "narrow", "select", "__getitem__", "long", "int", "to",
                             "type_as", "repeat", "gather", "index_select", "take_along_dim"})
SUBSET_FUNCTIONS = (torch.reshape, torch.flatten, torch.unsqueeze, torch.squeeze, torch.permute,
                     torch.transpose, torch.narrow, torch.select, torch.clone, operator.getitem, torch.gather,
                     torch.index_select, torch.take_along_dim)
_ADD = (operator.add, torch.add, "add", "__add__", "__radd__")
_SUB = (operator.sub, torch.sub, "sub", "__sub__")
_MUL = (operator.mul, torch.mul, "mul", "__mul__", "__rmul__")
_FLOORDIV = (operator.floordiv, torch.floor_divide, "floor_divide", "__floordiv__")
_MOD = (operator.mod, torch.remainder, "remainder", "__mod__")
# ops giving positions along a dimension: (the dim argument's position, its default; None: all elements)
_POSITIONS = {torch.sort: (1, -1), "sort": (1, -1), torch.topk: (2, -1), "topk": (2, -1), torch.max: (1, None),
              "max": (1, None), torch.min: (1, None), "min": (1, None), torch.kthvalue: (2, -1),
              "kthvalue": (2, -1), torch.argsort: (1, -1), "argsort": (1, -1), torch.argmax: (1, None),
              "argmax": (1, None), torch.argmin: (1, None), "argmin": (1, None)}
_POSITION_FUNCTIONS = (torch.argsort, "argsort", torch.argmax, "argmax", torch.argmin, "argmin")
# ops whose (values, indices) result has indices that, along the only dim of a 1-D tensor and as
# long as it, are a permutation of its positions (``argsort`` gives the indices alone)
_PERMUTING = (torch.sort, "sort", torch.topk, "topk")
# ops giving the same elements in the same order when their result is as long as their 1-D operand
_SAME_SEQUENCE = frozenset({"view", "reshape", "flatten", "contiguous", "clone", "detach", "long", "int", "to",
                            "type_as", "view_as", "reshape_as", torch.reshape, torch.flatten, torch.clone})
_INDEX_WRITES = (operator.setitem, "__setitem__")
_INDEX_PUTS = (torch.index_put_, "index_put_")


def _positions(node):
    """``(0, n - 1)`` for the positions an op like ``sort``/``topk``/``argmax`` gives along a dim of size n."""
    if node.op not in ("call_function", "call_method") or node.target not in _POSITIONS:
        return None
    place, default = _POSITIONS[node.target]
    args = node.args
    dim = args[place] if len(args) > place else node.kwargs.get("dim", default)
    source = args[0].meta.get("example_value") if args and isinstance(args[0], torch.fx.Node) else None
    if not isinstance(source, torch.Tensor) or isinstance(dim, torch.fx.Node):
        return None
    if dim is None:
        if node.target in ("max", "min", torch.max, torch.min):
            return None  # the values themselves, no positions
        size = source.numel()
    else:
        size = source.shape[dim] if source.dim() else 1
    if not isinstance(size, int) or size == 0:
        return None
    return 0, size - 1


def _dtype(node):
    return getattr(node.meta.get("example_value"), "dtype", None) if isinstance(node, torch.fx.Node) else None


def _fits(bounds, dtype) -> bool:
    if dtype == torch.bool:
        return bounds[0] >= 0 and bounds[1] <= 1
    info = torch.iinfo(dtype)
    return info.min <= bounds[0] and bounds[1] <= info.max


def bounds(arg, stale=lambda node: False, depth: int = 0, reader=None) -> tuple[int, int] | None:
    """``(low, high)``, inclusive, of every element ``arg`` (an fx node or a Python int) can hold
    when ``reader`` (a later node; None: after the whole graph) reads it; ``stale(node)``: the
    node's tensor was written in place after it was made (bounds only from the writes)."""
    if isinstance(arg, bool):
        return int(arg), int(arg)
    if isinstance(arg, int):
        return arg, arg
    size = _symbolic_size(arg)
    if size is not None:  # a dynamic size the graph reads: comparing it later guards the entry
        return size, size
    if not isinstance(arg, torch.fx.Node) or depth > 64 or arg.op not in ("call_function", "call_method"):
        return None
    dtype = _dtype(arg)
    if dtype not in _INTEGER:
        return None
    if stale(arg):
        found = _bounds_after_writes(arg, stale, depth + 1, reader)
    else:
        found = _bounds_of_op(arg, stale, depth + 1)
    return found if found is not None and _fits(found, dtype) else None


def _bounds_of_op(node, stale, depth: int):
    target, args = node.target, node.args
    is_method = node.op == "call_method"
    if target in _PREDICATE_FUNCTIONS or is_method and target in _PREDICATE_METHODS:
        return 0, 1
    if target is operator.getitem and len(args) == 2 and args[1] == 1 and isinstance(args[0], torch.fx.Node):
        positions = _positions(args[0])  # the indices half of (values, indices)
        if positions is not None:
            return positions
    if target in _POSITION_FUNCTIONS:
        return _positions(node)
    if is_method and target in SUBSET_METHODS or not is_method and target in SUBSET_FUNCTIONS:
        if node.kwargs.get("out") is not None or not args:
            return None
        return bounds(args[0], stale, depth, node)
    if target is F.pad:
        padding, source = constant_padding(node), bounds(args[0], stale, depth, node)
        if padding is None or source is None:
            return None
        return min(source[0], padding), max(source[1], padding)
    if target is torch.arange:
        return _arange(args, node.kwargs)
    if target in (torch.cumsum, "cumsum"):
        return _cumsum(node, stale, depth)
    if target in (torch.index_put, "index_put"):
        return _index_put(node, stale, depth)
    if len(args) != 2 or node.kwargs:
        return None
    left, right = bounds(args[0], stale, depth, node), bounds(args[1], stale, depth, node)
    if left is None or right is None:
        return None
    if target in _ADD:
        return left[0] + right[0], left[1] + right[1]
    if target in _SUB:
        return left[0] - right[1], left[1] - right[0]
    if target in _FLOORDIV and right[0] == right[1] and right[0] > 0:
        return left[0] // right[0], left[1] // right[0]
    if target in _MOD and right[0] == right[1] and right[0] > 0:
        return 0, right[0] - 1
    if target in _MUL:
        products = [a * b for a in left for b in right]
        return min(products), max(products)
    return None


def _symbolic_size(arg) -> torch.SymInt | None:
    """The SymInt an fx node computes (a dynamic size, ``x.size(1)``), else None."""
    if isinstance(arg, torch.fx.Node):
        value = arg.meta.get("example_value")
        if isinstance(value, torch.SymInt):
            return value
    return None


def _arange(args, kwargs):
    if any(k not in ("dtype", "device", "layout", "requires_grad", "pin_memory") for k in kwargs):
        return None
    if not 1 <= len(args) <= 3:
        return None
    args = tuple(_symbolic_size(a) if _symbolic_size(a) is not None else a for a in args)
    if any(isinstance(a, torch.SymInt) for a in args):
        # arange(n) / arange(start, n) with a dynamic end and unit step: [start, n - 1] when not
        # empty (the comparison guards the entry, as any decision on a dynamic size does)
        start, end, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
        if step != 1 or not all(isinstance(a, (int, torch.SymInt)) and not isinstance(a, bool) for a in (start, end)):
            return None
        return (start, end - 1) if bool(end > start) else None
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return None
    start, end, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    values = range(start, end, step)
    if len(values) == 0:
        return None
    return min(values[0], values[-1]), max(values[0], values[-1])


def _cumsum(node, stale, depth: int):
    args = list(node.args)
    dim = args[1] if len(args) > 1 else node.kwargs.get("dim")
    if not isinstance(dim, int) or set(node.kwargs) - {"dim"}:
        return None
    source = bounds(args[0], stale, depth, node)
    size = node.meta["example_value"].shape[dim]
    if source is None or not isinstance(size, int):
        return None
    low, high = source
    return min(low, size * low), max(high, size * high)


def _index_put(node, stale, depth: int):
    """``index_put``: the operand's values and the written ones, or only these when the index
    writes every element."""
    written = _index_write(node, node.args[0] if node.args else None, stale, depth)
    if written is None:
        return None
    values, whole = written
    if whole:
        return values
    source = bounds(node.args[0], stale, depth, node)
    return None if source is None else (min(source[0], values[0]), max(source[1], values[1]))


def _bounds_after_writes(node, stale, depth: int, reader):
    """Bounds of ``node``'s tensor, written in place, as ``reader`` sees it: every op between them
    that touches its memory must be an index assignment into ``node`` itself."""
    memory = effects.storages_of(node.meta.get("example_value"))
    found, whole = None, False
    step = node.next
    while step is not reader and step.op != "root":
        touched = step.meta.get("mutates") and any(
            effects.storages_of(a.meta.get("example_value")) & memory for a in _node_args(step))
        if touched:
            written = _index_write(step, node, stale, depth)
            if written is None:
                return None
            values, full = written
            found = values if found is None else (min(found[0], values[0]), max(found[1], values[1]))
            whole = whole or full
        step = step.next
    if found is None:
        return None  # written by no op this rule knows (or only after the read)
    if whole:
        return found
    own = _bounds_of_op(node, stale, depth)
    return None if own is None else (min(own[0], found[0]), max(own[1], found[1]))


def _index_write(step, target, stale, depth: int):
    """``(value bounds, writes every element)`` when ``step`` is ``target[index] = values`` or
    ``index_put(_)`` into ``target`` without accumulating; None otherwise."""
    args, kwargs = step.args, step.kwargs
    if step.target in _INDEX_WRITES and len(args) == 3 and not kwargs:
        index, values = args[1], args[2]
    elif step.target in _INDEX_PUTS or step.target in (torch.index_put, "index_put"):
        names = ("indices", "values", "accumulate")
        given = list(args[1:]) + [kwargs[k] for k in names[len(args) - 1:] if k in kwargs]
        if set(kwargs) - set(names) or len(given) < 2 or (len(given) > 2 and given[2] is not False):
            return None
        index, values = given[0], given[1]
    else:
        return None
    if not args or args[0] is not target:
        return None
    found = bounds(values, stale, depth, step)
    if found is None:
        return None
    if isinstance(index, (tuple, list)):
        index = index[0] if len(index) == 1 else None
    size = _length(target)
    return found, size is not None and _is_permutation(index, size, stale)


def _length(node) -> int | None:
    value = node.meta.get("example_value") if isinstance(node, torch.fx.Node) else None
    if not isinstance(value, torch.Tensor) or value.dim() != 1 or not isinstance(value.shape[0], int):
        return None
    return value.shape[0]


def _is_permutation(index, size: int, stale) -> bool:
    """``index`` holds each of ``0 .. size - 1`` once: the indices of sorting a 1-D tensor of
    ``size`` elements, through ops that keep elements and order in integer types that hold them."""
    final = True
    while isinstance(index, torch.fx.Node) and index.op in ("call_function", "call_method") \
            and not stale(index) and _length(index) == size and size > 0:
        dtype = _dtype(index)
        if dtype in (torch.bool, None) or dtype not in _INTEGER or not _fits((0, size - 1), dtype) or \
                final and dtype not in (torch.int64, torch.int32):
            return False
        final = False
        args = index.args
        if index.target is operator.getitem and len(args) == 2 and args[1] == 1 \
                and isinstance(args[0], torch.fx.Node) and args[0].target in _PERMUTING:
            return _length(args[0].args[0] if args[0].args else None) == size \
                and _positions(args[0]) == (0, size - 1)
        if index.target in (torch.argsort, "argsort"):
            return _length(args[0] if args else None) == size and _positions(index) == (0, size - 1)
        if index.target not in _SAME_SEQUENCE or index.kwargs.get("out") is not None or not args:
            return False
        index = args[0]
    return False


def constant_padding(node) -> int | None:
    """The value ``F.pad`` fills in, when it pads with a constant integer (None otherwise)."""
    args, kwargs = node.args, node.kwargs
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    value = args[3] if len(args) > 3 else kwargs.get("value", None)
    if mode != "constant":
        return None
    if value is None:
        return 0
    return int(value) if isinstance(value, int) or isinstance(value, float) and value.is_integer() else None


_MAX_ELEMENTS = 1 << 20  # constant tensors larger than this are not evaluated at capture
_PLAIN = (int, float, bool, str, type(None), torch.dtype, torch.device, torch.layout, torch.memory_format,
          slice, type(Ellipsis))


def evaluated_bounds(graph: torch.fx.Graph, target_node) -> tuple[int, int] | None:
    """Bounds of ``target_node`` when it depends on no input: the graph's prefix of ops on
    constants only (``arange`` of static sizes, T5's relative-position buckets) is run once on real
    tensors, in order, in-place updates included. Deterministic ops on constants give the same values
    at every run, so its min/max are exact. None when an input, a parameter, a random or
    state-changing op, or a write by any other op reaches it."""
    env: dict = {}
    for node in graph.nodes:
        if node.op not in ("call_function", "call_method") or not _evaluable(node, env):
            if node.meta.get("mutates") and any(arg in env for arg in _node_args(node)):
                return None  # an op that cannot run here may write a tensor the prefix computed
            continue
        try:
            with torch._C.DisableTorchFunction(), torch.no_grad():
                value = _run(node, env)
        except Exception:  # noqa: BLE001 - an op that raises here proves nothing
            return None
        env[node] = value
    value = env.get(target_node)
    if not isinstance(value, torch.Tensor) or value.dtype not in _INTEGER or value.numel() == 0:
        return None
    low, high = torch.aminmax(value.to(torch.int64))
    return int(low), int(high)


def _node_args(node) -> list:
    flat, _ = torch.utils._pytree.tree_flatten((node.args, node.kwargs))
    return [a for a in flat if isinstance(a, torch.fx.Node)]


# results that are not a function of the arguments: uninitialized memory, the generator's state
_NOT_CONSTANT = ("empty", "rng_state", "seed")


def _evaluable(node, env: dict) -> bool:
    effects = node.meta.get("effects") or ()
    if any(kind != "write" for kind in effects) or node.meta.get("state"):
        return False  # random numbers, autograd or global state: not a constant, or not to run twice
    name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
    if not isinstance(name, str) or any(word in name for word in _NOT_CONSTANT):
        return False
    example = node.meta.get("example_value")
    if not isinstance(example, torch.Tensor) or not isinstance(example.numel(), int) \
            or example.numel() > _MAX_ELEMENTS:
        return False
    flat, _ = torch.utils._pytree.tree_flatten((node.args, node.kwargs))
    return all(a in env if isinstance(a, torch.fx.Node) else isinstance(a, _PLAIN) for a in flat)


def _run(node, env: dict):
    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda n: env[n])
    if node.op == "call_method":
        return getattr(args[0], node.target)(*args[1:], **kwargs)
    return node.target(*args, **kwargs)
