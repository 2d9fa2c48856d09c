"""NumPy in compiled code: an ndarray is a tensor in the graph, computed by ``torch._numpy``.

As TorchDynamo does, ``np.*`` functions, ndarray methods, operators, indexing and attributes
become graph nodes calling their ``torch._numpy`` counterparts on the tensors behind the arrays
(:class:`NumpyArrayValue`); the transformed code turns results back into real ndarrays (or NumPy
scalars) where they leave the graph. Inputs that are ndarrays are guarded like tensors (type,
dtype, shape, strides, writeable) and enter the graph as ``torch.from_numpy(a)`` (shared memory:
in-place changes reach the caller's array, as in eager). ``x.numpy()``, ``torch.from_numpy``,
``torch.as_tensor`` and ``torch.tensor`` of an array cross between the two worlds inside the graph.

``torch._numpy`` is not NumPy. Every operation is therefore also run by the real NumPy on
stand-in arrays of the same dtypes, shapes and strides (a *dry run*): the node is kept only when
NumPy's result has the same structure, types, dtypes and shapes, shares memory with the same
arguments (view or copy) and changes the same arguments in place. Anything else -- including
every NumPy call without a ``torch._numpy`` counterpart (``np.random``, I/O) -- is a graph break
(kind ``numpy``), never a different value. Values are computed by torch kernels: floating-point
results can differ from NumPy's in the last bits (summation order), as under TorchDynamo.
"""
from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from autograph.capture.core.breaks import Unsupported, break_kind
from autograph.capture.core.capture_warnings import silenced
from autograph.capture.core import registry
from autograph.capture.families import builder
from autograph.capture.families import builtins as vb
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import BaseSequenceValue, ListValue, SliceValue, TupleValue
from autograph.guards.sources import AttrSource, Source

NUMPY = break_kind(
    "numpy", "a NumPy operation torch._numpy does not reproduce exactly (or at all): it runs in NumPy",
    "nothing to do; to keep it compiled, write it with torch operations")

_TNP = None


def tnp():
    global _TNP
    if _TNP is None:
        import torch._numpy as _tnp
        _TNP = _tnp
    return _TNP


# ---------------------------------------------------------------------------------------
# graph targets: torch._numpy over the tensors behind arrays (names appear in the graph code)

def _to_tnp_args(x):
    """Node arguments → what torch._numpy takes (scalar markers become 0-d arrays)."""
    if type(x) is tuple and len(x) == 3 and x[0] == _SCALAR:
        return tnp().asarray(x[1], dtype=x[2])
    if type(x) in (tuple, list):
        return type(x)(_to_tnp_args(i) for i in x)
    if isinstance(x, slice):
        return slice(_to_tnp_args(x.start), _to_tnp_args(x.stop), _to_tnp_args(x.step))
    if isinstance(x, dict):
        return {k: _to_tnp_args(v) for k, v in x.items()}
    return x


def _arrays(x):
    """Tensors become torch._numpy arrays (so operators follow NumPy's rules, not torch's)."""
    if isinstance(x, torch.Tensor):
        return tnp().ndarray(x)
    if type(x) in (tuple, list):
        return type(x)(_arrays(i) for i in x)
    return x


def _from_tnp(x):
    if isinstance(x, tnp().ndarray):
        return x.tensor
    if type(x) in (tuple, list):
        return type(x)(_from_tnp(i) for i in x)
    return x


_SCALAR = "__numpy_scalar__"


def _scalar_marker(c: np.generic) -> tuple:
    """A NumPy scalar constant as a (printable) node argument: ``np.float32(2)`` keeps its dtype."""
    return (_SCALAR, c.item(), c.dtype.name)


def _true_division(fn) -> bool:
    return fn in (operator.truediv, operator.itruediv) or fn is tnp().true_divide or fn is tnp().divide


def _ints_as_float64(args: tuple, kwargs: dict) -> tuple:
    """``int / int`` in NumPy is float64; torch (under torch._numpy) would pick its default float
    dtype, which backends read when they compile. Integer operands are cast first, explicitly."""
    arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, tnp().ndarray)]
    if not arrays or any(a.dtype.kind not in "iub" for a in arrays):
        return args, kwargs

    def cast(a):
        return a.astype(tnp().float64) if isinstance(a, tnp().ndarray) and a is not kwargs.get("out") else a
    return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}


class numpy_call:  # noqa: N801 - its name is what the graph code shows
    """``torch._numpy.<fn>(*args)`` with tensors for arrays; results back as tensors."""

    def __init__(self, fn: Any, name: str):
        self.fn = fn
        self.__name__ = f"numpy_{name.replace('.', '_')}"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, *args, **kwargs):
        args, kwargs = _arrays(_to_tnp_args(args)), _arrays(_to_tnp_args(kwargs))
        if _true_division(self.fn):
            args, kwargs = _ints_as_float64(args, kwargs)
        return _from_tnp(self.fn(*args, **kwargs))


class numpy_method:  # noqa: N801
    """``torch._numpy.ndarray(t).<name>(*args)``."""

    def __init__(self, name: str):
        self.name = name
        self.__name__ = f"numpy_ndarray_{name.strip('_')}"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, obj, *args, **kwargs):
        out = getattr(tnp().ndarray(obj), self.name)(*_arrays(_to_tnp_args(args)), **_arrays(_to_tnp_args(kwargs)))
        return obj if out is None else _from_tnp(out)  # an in-place method: its array, changed


class numpy_attr:  # noqa: N801
    """``torch._numpy.ndarray(t).<name>`` (``.T``, ``.real``, ``.imag``)."""

    def __init__(self, name: str):
        self.name = name
        self.__name__ = f"numpy_ndarray_{name}"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, obj):
        return _from_tnp(getattr(tnp().ndarray(obj), self.name))


class numpy_setitem:  # noqa: N801
    """``torch._numpy.ndarray(t)[key] = value``; returns ``t`` (changed in place)."""

    __name__ = "numpy_setitem"

    def __repr__(self) -> str:
        return self.__name__

    def __call__(self, obj, key, value):
        tnp().ndarray(obj)[_arrays(_to_tnp_args(key))] = _arrays(_to_tnp_args(value))
        return obj


NUMPY_SETITEM = numpy_setitem()
_METHODS: dict[str, numpy_method] = {}
_ATTRS: dict[str, numpy_attr] = {}
_OPERATORS: dict[Any, numpy_call] = {}


def _method_target(name: str) -> numpy_method:
    if name not in _METHODS:
        _METHODS[name] = numpy_method(name)
    return _METHODS[name]


def _operator_target(fn) -> numpy_call:
    if fn not in _OPERATORS:
        _OPERATORS[fn] = numpy_call(fn, fn.__name__.strip("_"))
    return _OPERATORS[fn]


# ---------------------------------------------------------------------------------------
# dtypes and the stand-in arrays of the dry run

_NP_OF_TORCH: dict = {}


def np_dtype_of(dtype: torch.dtype):
    """NumPy's dtype for a torch dtype (None when NumPy has none: bfloat16, ...)."""
    if dtype not in _NP_OF_TORCH:
        try:
            _NP_OF_TORCH[dtype] = torch.empty((), dtype=dtype).numpy().dtype
        except (TypeError, RuntimeError):
            _NP_OF_TORCH[dtype] = None
    return _NP_OF_TORCH[dtype]


def _dummy_array(fake: torch.Tensor, zero_ints: bool = False) -> np.ndarray:
    """A real array with ``fake``'s dtype, shape and strides, holding harmless values (integers
    1..3, or 0 with ``zero_ints``: an index in range of any non-empty axis)."""
    dtype = np_dtype_of(fake.dtype)
    if dtype is None:
        raise Unsupported(f"a {fake.dtype} tensor in numpy code (numpy has no such dtype)", kind=NUMPY)
    shape = tuple(int(s) for s in fake.shape)
    strides = tuple(int(s) for s in fake.stride())
    size = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    rng = np.random.default_rng(len(shape) + size)
    if dtype.kind == "b":
        base = rng.random(size) > 0.5
    elif dtype.kind in "iu":
        base = np.zeros(size, np.int64) if zero_ints else rng.integers(1, 4, size)
    elif dtype.kind == "c":
        base = rng.uniform(0.5, 1.5, size) + 1j * rng.uniform(0.5, 1.5, size)
    else:
        base = rng.uniform(0.5, 1.5, size)
    base = base.astype(dtype)
    if size == 0:
        return np.empty(shape, dtype)
    return np.lib.stride_tricks.as_strided(base, shape, tuple(s * dtype.itemsize for s in strides), writeable=True)


# ---------------------------------------------------------------------------------------
# values

class NumpyArrayValue(Value):
    """An ndarray (or a NumPy scalar) whose data is the tensor ``tensor`` of the graph."""

    mutable = True

    def __init__(self, tensor: Value, scalar: type | None = None, source=None, strides: tuple | None = None,
                 readonly: bool = False):
        self.tensor = tensor
        self.scalar = scalar  # the NumPy scalar type, when this stands for a scalar
        self.source = source
        self.strides = strides  # NumPy's strides (bytes) when known to differ from the tensor's
        self.readonly = readonly  # NumPy made it read-only (``np.broadcast_to``, ``.imag`` of reals)

    def describe(self):
        fake = self.tensor.fake
        what = self.scalar.__name__ if self.scalar is not None else "ndarray"
        return f"numpy {what} {np_dtype_of(fake.dtype)} {tuple(fake.shape)}"

    def python_type(self):
        return self.scalar if self.scalar is not None else np.ndarray

    @property
    def fake(self):
        return self.tensor.fake

    def truth(self, tx):
        raise Unsupported("data-dependent branch on a numpy value", kind="data-dependent-branch")

    def length(self, tx):
        if self.fake.dim() == 0:
            err = TypeError("len() of unsized object")
            raise Unsupported(f"TypeError: {err}", generic=True, exc=err, kind="python-exception")
        return int(self.fake.shape[0])

    def iter_items(self, tx):
        return [self.getitem(tx, ConstantValue(i)) for i in range(self.length(tx))]

    # --- attributes ------------------------------------------------------------------
    def getattr(self, tx, name):
        fake = self.fake
        if name in ("shape", "ndim", "size", "itemsize", "nbytes", "dtype"):
            dtype = np_dtype_of(fake.dtype)
            values = {"shape": tuple(int(s) for s in fake.shape), "ndim": fake.dim(), "size": fake.numel(),
                      "itemsize": dtype.itemsize, "nbytes": fake.numel() * dtype.itemsize, "dtype": dtype}
            if name == "shape":
                return _ints(() if self.scalar is not None else values[name])
            return ConstantValue(values[name])
        if name == "strides":
            if self.scalar is not None:
                return _ints(())
            if self.strides is not None:
                return _ints(self.strides)
            return _ints(tuple(int(s) * np_dtype_of(fake.dtype).itemsize for s in fake.stride()))
        if name in ("T", "real", "imag", "mT"):
            return numpy_operation(tx, _AttrOp(name), [self], {})
        if name in ("flags", "base", "data", "ctypes", "flat", "__array_interface__"):
            raise Unsupported(f"`.{name}` of a numpy array in compiled code", kind=NUMPY)
        attr = getattr(np.ndarray if self.scalar is None else self.scalar, name, None)
        if attr is None:
            err = AttributeError(f"'{self.python_type().__name__}' object has no attribute '{name}'")
            raise Unsupported(f"AttributeError: {err}", generic=True, exc=err, kind="python-exception")
        if callable(attr):
            return NumpyMethodValue(self, name)
        raise Unsupported(f"attribute `.{name}` of a numpy value", kind=NUMPY)

    def call_method(self, tx, name, args, kwargs):
        return self.getattr(tx, name).call(tx, args, kwargs)

    # --- operators and indexing --------------------------------------------------------
    def binary_op(self, tx, op, other):
        return _binary(tx, op, self, other)

    def rbinary_op(self, tx, op, other):
        return _binary(tx, op, other, self)

    def compare_op(self, tx, op, other):
        """``self <op> other`` (Python asks the right operand with the mirrored operator)."""
        a, b = self, other
        if other.is_tensor():
            raise Unsupported(f"comparison {op} between a numpy value and a tensor", kind=NUMPY)
        return numpy_operation(tx, _OperatorOp(vb.COMPARE[op]), [a, b], {})

    def unary_op(self, tx, op):
        if op == "not":
            return None
        return numpy_operation(tx, _OperatorOp(vb.UNARY[op]), [self], {})

    def getitem(self, tx, key):
        return numpy_operation(tx, _OperatorOp(operator.getitem), [self, key], {})

    def setitem(self, tx, key, value):
        numpy_operation(tx, _SetitemOp(), [self, key, value], {})

    def reconstruct(self, cg):
        if self.source is not None:
            return cg.source_expr(self.source)
        tensor = cg.reconstruct(self.tensor)
        if self.scalar is not None:
            return cg.shared(self, f"{cg.const(to_numpy_scalar)}({tensor})")
        if self.readonly:
            return cg.shared(self, f"{cg.const(to_readonly_ndarray)}({tensor})")
        return cg.shared(self, f"{cg.const(to_ndarray)}({tensor})")


def _ints(values: tuple) -> TupleValue:
    return TupleValue([ConstantValue(v) for v in values])


def to_ndarray(t: torch.Tensor) -> np.ndarray:
    """The ndarray a graph output stands for (memory shared with the tensor, as ``Tensor.numpy``)."""
    return t.numpy()


def to_readonly_ndarray(t: torch.Tensor) -> np.ndarray:
    """The ndarray of a graph output NumPy makes read-only: writes raise NumPy's ValueError."""
    out = t.numpy()
    out.flags.writeable = False
    return out


def to_numpy_scalar(t: torch.Tensor) -> np.generic:
    return t.numpy()[()]


class NumpyMethodValue(Value):
    """``array.method`` waiting to be called."""

    def __init__(self, array: NumpyArrayValue, name: str):
        self.array = array
        self.name = name

    def describe(self):
        return f"method ndarray.{self.name}"

    def call(self, tx, args, kwargs):
        return numpy_operation(tx, _MethodOp(self.name), [self.array, *args], kwargs)

    def reconstruct(self, cg):
        return f"{cg.reconstruct(self.array)}.{self.name}"


class NumpyFunctionValue(Value):
    """A NumPy function (or ufunc) with a ``torch._numpy`` counterpart."""

    def __init__(self, fn: Any, tnp_fn: Any, name: str):
        self.fn = fn
        self.tnp_fn = tnp_fn
        self.name = name

    def describe(self):
        return f"numpy.{self.name}"

    def real_value(self):
        return self.fn

    def python_type(self):
        return type(self.fn)

    def getattr(self, tx, name):  # np.add.reduce & co: not modelled
        raise Unsupported(f"`numpy.{self.name}.{name}` in compiled code", kind=NUMPY)

    def call(self, tx, args, kwargs):
        real_args = _constant_args(args, kwargs)
        if real_args is not None:  # constants only: an immutable result is folded
            real = _run_numpy(self.describe(), self.fn, *real_args)
            if _immutable(real):
                return tx.wrap(real, None, trusted=True)
        return numpy_operation(tx, _FunctionOp(self.fn, self.tnp_fn, self.name), list(args), dict(kwargs))

    def reconstruct(self, cg):
        return cg.const(self.fn)


def _constant_args(args, kwargs) -> tuple[list, dict] | None:
    """The real arguments when all are known now (constants, or classes such as ``np.int16``)."""
    def real(v):
        if v.is_constant():
            return v.as_python_constant()
        try:
            obj = v.real_value()
        except Unsupported:
            raise LookupError from None
        if not isinstance(obj, type):
            raise LookupError
        return obj
    try:
        return [real(a) for a in args], {k: real(v) for k, v in kwargs.items()}
    except LookupError:
        return None


def _immutable(obj) -> bool:
    if type(obj) is tuple:
        return all(_immutable(x) for x in obj)
    return isinstance(obj, (np.generic, np.dtype, int, float, complex, str, bool, type(None), np.finfo, np.iinfo))


def _binary(tx, op: str, a: Value, b: Value) -> Value:
    if a.is_tensor() or b.is_tensor():  # NumPy defers to torch.Tensor's operators: not modelled
        raise Unsupported(f"operator {op} between a numpy value and a tensor", kind=NUMPY)
    if op.endswith("=") and not (isinstance(a, NumpyArrayValue) and a.scalar is None):
        op = op[:-1]  # a NumPy scalar is immutable: `s += 1` makes a new one (Python's rule)
    inplace = op.endswith("=")
    fn = vb.BINARY[op]
    out = numpy_operation(tx, _OperatorOp(fn), [a, b], {})
    if inplace and isinstance(a, NumpyArrayValue) and out is not a:
        raise Unsupported(f"in-place `{op}` on a numpy value did not stay in place", kind=NUMPY)
    return out


# ---------------------------------------------------------------------------------------
# one operation: the graph node, checked against NumPy's dry run

class _Op:
    """What to run: ``node_target`` on node arguments, ``real(*args)`` in NumPy's dry run."""

    mutating_ok: frozenset = frozenset()  # argument positions NumPy may change in place

    def real(self, *args, **kwargs):
        raise NotImplementedError


class _FunctionOp(_Op):
    def __init__(self, fn, tnp_fn, name):
        self.fn, self.name = fn, name
        self.target = numpy_call(tnp_fn, name)

    def what(self):
        return f"numpy.{self.name}()"

    def real(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


class _MethodOp(_Op):
    mutating_ok = frozenset({0})

    def __init__(self, name):
        self.name = name
        self.target = _method_target(name)

    def what(self):
        return f"ndarray.{self.name}()"

    def real(self, obj, *args, **kwargs):
        return getattr(obj, self.name)(*args, **kwargs)


class _OperatorOp(_Op):
    def __init__(self, fn):
        self.fn = fn
        self.target = _operator_target(fn)
        name = fn.__name__.strip("_")
        self.mutating_ok = frozenset({0}) if name.startswith("i") and name not in ("invert", "index") else frozenset()

    def what(self):
        return f"operator {self.fn.__name__} on numpy values"

    def real(self, *args):
        return self.fn(*args)


class _AttrOp(_Op):
    def __init__(self, name):
        self.name = name
        if name not in _ATTRS:
            _ATTRS[name] = numpy_attr(name)
        self.target = _ATTRS[name]

    def what(self):
        return f"ndarray.{self.name}"

    def real(self, obj):
        return getattr(obj, self.name)


class _SetitemOp(_Op):
    mutating_ok = frozenset({0})
    target = NUMPY_SETITEM

    def what(self):
        return "item store on a numpy array"

    def real(self, obj, key, value):
        obj[key] = value


def numpy_operation(tx, op: _Op, args: list[Value], kwargs: dict[str, Value]) -> Value:
    """The graph node of ``op``, its result typed and checked by NumPy's own dry run."""
    arrays: dict[int, NumpyArrayValue] = {}  # position -> the NumPy value there (for in-place checks)
    node_args = [_node_arg(tx, a) for a in args]
    node_kwargs = {k: _node_arg(tx, v) for k, v in kwargs.items()}
    for i, a in enumerate(args):
        if isinstance(a, NumpyArrayValue):
            arrays[i] = a
    for zero_ints in (False, True):  # integer stand-ins 1..3, or 0 when they index out of range
        dummies: dict = {}
        real_args = [_dummy(a, dummies, zero_ints) for a in args]
        real_kwargs = {k: _dummy(v, dummies, zero_ints) for k, v in kwargs.items()}
        before = {id(d): d.copy() for d in dummies.values() if isinstance(d, np.ndarray)}
        tensors = _pristine_tensors(dummies)  # the same stand-ins as tensors, for torch._numpy's own run
        expected = _run_numpy(op.what(), op.real, real_args, real_kwargs, index_errors_retried=not zero_ints)
        if expected is not _INDEX_OUT_OF_RANGE:
            break
    changed = [i for i, a in enumerate(real_args) if isinstance(a, np.ndarray) and id(a) in before
               and a.tobytes() != before[id(a)].tobytes()]
    changed += [i for i in _written(op, args, kwargs, zero_ints, expected, real_args) if i not in changed]
    out_kw = kwargs.get("out")
    if any(i not in op.mutating_ok for i in changed) and out_kw is None:
        raise Unsupported(f"{op.what()} changes an argument in place", kind=NUMPY)
    if isinstance(op, _MethodOp) and not changed and expected is None:
        raise Unsupported(f"{op.what()} (an in-place method) in compiled code", kind=NUMPY)
    if changed and 0 in changed and 0 not in arrays:
        raise Unsupported(f"{op.what()} changes a value that is not a numpy array", kind=NUMPY)
    if isinstance(op, _SetitemOp) and 0 not in arrays:
        raise Unsupported("item store on a value that is not a numpy array", kind=NUMPY)
    for arg, dummy in zip([*args, *kwargs.values()], [*real_args, *real_kwargs.values()]):
        if expected is dummy and isinstance(arg, NumpyArrayValue) and not changed and out_kw is None:
            return arg  # NumPy hands the argument itself back, unchanged (`np.asarray(a) is a`)
    _check_integer_division(op, expected, args)
    _check_torch_numpy_run(op, expected, node_args, node_kwargs, tensors, args, real_args, changed)
    last = tx.graph.last_call_node
    result = tx.graph.call("call_function", op.target, tuple(node_args), node_kwargs)
    mutated = bool(changed) or out_kw is not None or isinstance(op, _SetitemOp)
    if mutated:
        _mark_mutating(tx, last)
    if isinstance(op, _SetitemOp) or (isinstance(op, _MethodOp) and mutated and expected is None):
        return ConstantValue(None)  # an item store, `a.sort()`, `a.fill(v)`
    if mutated and expected is real_args[0] and 0 in arrays:
        _check_same(op, expected, result, arrays[0])
        return arrays[0]  # `a += 1`, `a.sort()`: the same array, changed
    if out_kw is not None:
        if not (isinstance(out_kw, NumpyArrayValue) and expected is real_kwargs["out"]):
            raise Unsupported(f"{op.what()} with an `out=` that is not a numpy array", kind=NUMPY)
        return out_kw
    return _typed(tx, op, expected, result, args, real_args)


def _written(op: _Op, args: list[Value], kwargs: dict[str, Value], zero_ints: bool, expected: Any,
             real_args: list) -> list[int]:
    """Positions of the arrays ``op`` writes into, found without reading the stand-ins' values
    (``a %= 5`` leaves stand-ins 1..3 as they were, yet writes). An in-place operator writes
    into its left operand exactly when it returns it (``ndarray.__imod__`` returns ``self``); a
    ufunc writes only through ``out=``; an item store always writes. Otherwise (methods, other
    functions) the dry run runs again with one argument's stand-in read-only at a time: NumPy
    refuses exactly the writes."""
    if isinstance(op, _AttrOp) or (isinstance(op, _OperatorOp) and not op.mutating_ok):
        return []  # reading an attribute, ``a + b``: no writes
    if isinstance(op, _OperatorOp):
        return [0] if isinstance(real_args[0], np.ndarray) and expected is real_args[0] else []
    if isinstance(op, _SetitemOp):
        return [0]
    if isinstance(op, _FunctionOp) and isinstance(op.fn, np.ufunc) and "out" not in kwargs:
        return []
    out = []
    for i, a in enumerate(args):
        if not isinstance(a, NumpyArrayValue) or a.readonly or a.scalar is not None:
            continue
        dummies: dict = {}
        real_args = [_dummy(v, dummies, zero_ints) for v in args]
        real_kwargs = {k: _dummy(v, dummies, zero_ints) for k, v in kwargs.items()}
        real_args[i].flags.writeable = False
        try:
            with silenced(), np.errstate(all="ignore"):
                op.real(*real_args, **real_kwargs)
        except ValueError as exc:
            if "read-only" in str(exc):
                out.append(i)
        except Exception:  # noqa: BLE001 - the writable run decided what raises
            pass
    return out


def _pristine_tensors(dummies: dict) -> dict:
    """Graph node -> a fresh real tensor holding its stand-in's values (before NumPy ran)."""
    out = {}
    for (kind, node), d in dummies.items():
        if node in out and kind == "t":
            continue
        if isinstance(d, torch.Tensor):
            out[node] = d.detach().clone().requires_grad_(d.requires_grad)
        else:
            out[node] = torch.from_numpy(np.array(d, copy=True))
    return out


def _realize(v, tensors: dict):
    """A node argument with real stand-in tensors in place of the graph's tensors."""
    if v.is_tensor():
        return tensors[v.node]
    if isinstance(v, SliceValue):
        return slice(*(_realize(p, tensors) for p in v.parts))
    if isinstance(v, BaseSequenceValue):
        return (list if v.python_type() is list else tuple)(_realize(i, tensors) for i in v.items)
    return v.as_python_constant()


def _check_torch_numpy_run(op, expected, node_args, node_kwargs, tensors, args, real_args, changed) -> None:
    """torch._numpy run for real on the same stand-ins must give NumPy's values (and change the same
    arguments the same way): fake tensors do not see every check of the real kernels (``1 - bool``)."""
    try:
        with silenced():
            got = op.target(*(_realize(a, tensors) for a in node_args),
                            **{k: _realize(v, tensors) for k, v in node_kwargs.items()})
    except Exception as exc:  # noqa: BLE001 - torch refuses what NumPy accepts
        raise Unsupported(f"{op.what()}: torch._numpy raises {type(exc).__name__} where numpy does not",
                          kind=NUMPY) from None
    undefined = getattr(op, "fn", None) in (np.empty, np.empty_like)  # uninitialised memory
    if not isinstance(op, _SetitemOp) and expected is not None and not undefined \
            and not _same_values(expected, got):
        raise Unsupported(f"{op.what()}: torch._numpy computes other values than numpy", kind=NUMPY)
    for i in changed:
        if args[i].is_tensor() or not hasattr(args[i], "tensor"):
            continue
        if not _same_values(real_args[i], tensors[args[i].tensor.node]):
            raise Unsupported(f"{op.what()}: torch._numpy changes the array differently from numpy", kind=NUMPY)


def _same_values(expected, got) -> bool:
    if isinstance(expected, (np.ndarray, np.generic)):
        if not isinstance(got, torch.Tensor):
            return False
        g = got.detach().numpy()
        e = np.asarray(expected)
        if g.shape != e.shape:
            return False
        if e.dtype.kind in "fc":
            rtol = {2: 1e-2, 4: 1e-4}.get(e.dtype.itemsize if e.dtype.kind == "f" else e.dtype.itemsize // 2, 1e-7)
            scale = float(np.nanmax(np.abs(e))) if e.size and np.isfinite(e).any() else 1.0
            return bool(np.allclose(e, g, rtol=rtol, atol=rtol * max(1.0, scale), equal_nan=True))
        return bool(np.array_equal(e, g))
    if type(expected) in (tuple, list):
        return type(got) in (tuple, list) and len(got) == len(expected) and all(
            _same_values(e, g) for e, g in zip(expected, got))
    if type(expected) in (int, float, bool, complex):
        return type(got) is type(expected) and (got == expected or got != got and expected != expected)
    return True  # (other results are compared by type in _typed)


_INT_DIVISIONS = {operator.floordiv, operator.ifloordiv, operator.mod, operator.imod, operator.pow,
                  operator.ipow, divmod, np.floor_divide, np.remainder, np.mod, np.fmod, np.divmod, np.power}


# ndarray's division methods: where the divisor (or exponent) is among the arguments
# (``a.__rfloordiv__(0)`` is ``0 // a``: the array itself divides)
_INT_DIVISION_METHODS = {"__floordiv__": 1, "__mod__": 1, "__pow__": 1, "__divmod__": 1, "__ifloordiv__": 1,
                         "__imod__": 1, "__ipow__": 1, "__rfloordiv__": 0, "__rmod__": 0, "__rpow__": 0,
                         "__rdivmod__": 0}


def _check_integer_division(op, expected, args) -> None:
    """Integer ``//``, ``%`` and ``**`` by an array: NumPy gives 0 for a zero divisor (and raises for
    a negative exponent), torch raises (or wraps) -- known only at run time: NumPy runs them."""
    fn = getattr(op, "fn", None)
    divisor_at = _INT_DIVISION_METHODS.get(op.name) if isinstance(op, _MethodOp) else 1
    if (fn not in _INT_DIVISIONS and not isinstance(op, _MethodOp)) or divisor_at is None \
            or len(args) <= divisor_at:
        return
    results = expected if type(expected) is tuple else (expected,)
    if not any(isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind in "iub" for r in results):
        return
    divisor = args[divisor_at]
    if divisor.is_constant() and isinstance(divisor.as_python_constant(), (int, np.integer)) \
            and divisor.as_python_constant() > 0:
        return
    raise Unsupported(f"{op.what()} on integers by a value known only at run time (numpy's result for "
                      "0 or a negative power differs from torch's)", kind=NUMPY)


def _mark_mutating(tx, before) -> None:
    """Keep the node of an in-place operation (the effects recorder sees its writes too)."""
    node = tx.graph.last_call_node
    if node is None or node is before:
        raise Unsupported("an in-place numpy operation left nothing in the graph", kind=NUMPY)
    node.meta["mutates"] = True


def _check_same(op, expected, result, array) -> None:
    if not result.is_tensor() or tuple(result.fake.shape) != tuple(expected.shape) \
            or np_dtype_of(result.fake.dtype) != expected.dtype:
        raise Unsupported(f"{op.what()}: torch._numpy's result differs from numpy's", kind=NUMPY)


def _typed(tx, op, expected, result: Value, args, real_args) -> Value:
    """The value of ``result`` as NumPy types it (``expected``), or a break when they differ."""
    mismatch = Unsupported(f"{op.what()}: torch._numpy's result differs from numpy's "
                           f"({_shown(expected)} vs {result.describe()})", kind=NUMPY)
    if type(expected) is np.ndarray or isinstance(expected, np.generic):
        if not result.is_tensor():
            raise mismatch
        fake = result.fake
        if np_dtype_of(fake.dtype) != expected.dtype or tuple(fake.shape) != tuple(expected.shape):
            raise mismatch
        if isinstance(expected, np.generic):
            return NumpyArrayValue(result, scalar=type(expected))
        if _check_aliasing(op, expected, fake, args, real_args):  # NumPy copies where torch views
            result = tx.graph.call("call_function", torch.clone, (result,), {})
        out = _laid_out(tx, op, expected, result)
        strides = tuple(int(s) * expected.dtype.itemsize for s in out.fake.stride())
        return NumpyArrayValue(out, strides=expected.strides if strides != expected.strides else None,
                               readonly=not expected.flags.writeable)
    if type(expected) in (tuple, list):
        if not isinstance(result, BaseSequenceValue) or len(result.items) != len(expected):
            raise mismatch
        items = [_typed(tx, op, e, r, args, real_args) for e, r in zip(expected, result.items)]
        return (TupleValue if type(expected) is tuple else ListValue)(items)
    if type(expected) in (int, float, bool, complex, str, type(None)):
        if not result.is_constant() or type(result.as_python_constant()) is not type(expected) \
                or result.as_python_constant() != expected:
            raise mismatch
        return result
    raise mismatch


def _shown(x) -> str:
    if isinstance(x, np.ndarray):
        return f"ndarray {x.dtype} {x.shape}"
    if isinstance(x, np.generic):
        return f"{type(x).__name__} scalar"
    return type(x).__name__


def _laid_out(tx, op, expected: np.ndarray, result: Value) -> Value:
    """``result`` with NumPy's strides: a fresh C- or Fortran-ordered result is copied into that
    order when torch chose another; any other difference is a break."""
    if expected.size <= 1 or _same_layout(result.fake, expected):
        return result
    if expected.flags.c_contiguous:
        out = tx.graph.call("call_method", "contiguous", (result,), {})
    elif expected.flags.f_contiguous:
        dims = tuple(reversed(range(expected.ndim)))
        flipped = tx.graph.call("call_method", "permute", (result, *dims), {})
        flipped = tx.graph.call("call_method", "contiguous", (flipped,), {})
        out = tx.graph.call("call_method", "permute", (flipped, *dims), {})
    else:
        out = result
    if not _same_layout(out.fake, expected):
        raise Unsupported(f"{op.what()}: torch._numpy lays the result out differently from numpy", kind=NUMPY)
    return out


def _same_layout(fake: torch.Tensor, expected: np.ndarray) -> bool:
    """Same strides in every dimension longer than 1 (others never move through memory)."""
    itemsize = expected.dtype.itemsize
    return all(n <= 1 or int(s) * itemsize == e for n, s, e in zip(expected.shape, fake.stride(), expected.strides))


def _check_aliasing(op, expected: np.ndarray, fake: torch.Tensor, args, real_args) -> bool:
    """NumPy's result is a view of the same arguments as torch._numpy's. True: NumPy made a
    copy where torch made a view (the caller copies); a view where torch copied is a break."""
    views_only_in_torch = False
    from torch.multiprocessing.reductions import StorageWeakRef
    out_storage = StorageWeakRef(fake.untyped_storage())
    for arg, real in zip(args, real_args):
        tensor = arg.tensor if isinstance(arg, NumpyArrayValue) else arg if arg.is_tensor() else None
        if tensor is None or not isinstance(real, (np.ndarray, torch.Tensor)):
            continue
        real_array = real.detach().numpy() if isinstance(real, torch.Tensor) else real
        numpy_view = np.shares_memory(expected, real_array)
        torch_view = StorageWeakRef(tensor.fake.untyped_storage()) == out_storage
        if numpy_view and not torch_view:
            raise Unsupported(f"{op.what()}: numpy returns a view, torch._numpy a copy", kind=NUMPY)
        views_only_in_torch |= torch_view and not numpy_view
    if views_only_in_torch and any(np.shares_memory(expected, r.detach().numpy() if isinstance(r, torch.Tensor)
                                                    else r) for r in real_args
                                   if isinstance(r, (np.ndarray, torch.Tensor))):
        raise Unsupported(f"{op.what()}: numpy and torch._numpy share memory with different arguments", kind=NUMPY)
    return views_only_in_torch


_INDEX_OUT_OF_RANGE = object()


def _run_numpy(what: str, fn, args, kwargs, index_errors_retried: bool = False):
    """NumPy's own answer (warnings silenced: the graph does not warn either). An IndexError with
    ``index_errors_retried`` is ``_INDEX_OUT_OF_RANGE``: the stand-in integers, not the program's
    values, were out of range (the caller runs it again with integers that index any axis)."""
    try:
        with silenced(), np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    except Unsupported:
        raise
    except IndexError as exc:
        if index_errors_retried:
            return _INDEX_OUT_OF_RANGE
        raise Unsupported(f"{what} raised IndexError in numpy ({exc}) — it runs in Python", generic=True, kind="python-exception") from None
    except Exception as exc:  # noqa: BLE001 - NumPy refuses: let it refuse in Python
        raise Unsupported(f"{what} raised {type(exc).__name__} in numpy ({exc}) — it runs in Python",
                          generic=True, kind="python-exception") from None


def _dummy(v: Value, dummies: dict, zero_ints: bool = False):
    """The stand-in of ``v`` in the dry run (one per tensor: aliases stay aliases)."""
    if isinstance(v, NumpyArrayValue):
        key = ("np", v.tensor.node)
        if key not in dummies:
            arr = _dummy_array(v.fake, zero_ints)
            if v.readonly:  # a write to it raises in the dry run as it does in NumPy
                arr.flags.writeable = False
            dummies[key] = arr[()] if v.scalar is not None else arr
        return dummies[key]
    if v.is_tensor():
        key = ("t", v.node)
        if key not in dummies:
            if v.fake.device.type != "cpu":
                raise Unsupported("a tensor not on the CPU passed to numpy", generic=True, kind="unsupported-operation")
            t = torch.from_numpy(np.ascontiguousarray(_dummy_array(v.fake, zero_ints)))
            dummies[key] = t.requires_grad_(v.fake.requires_grad) if t.is_floating_point() else t
        return dummies[key]
    if isinstance(v, SliceValue):
        return slice(*(_dummy(p, dummies, zero_ints) for p in v.parts))
    if isinstance(v, BaseSequenceValue):
        return (list if v.python_type() is list else tuple)(_dummy(i, dummies, zero_ints) for i in v.items)
    if v.is_constant():
        return v.as_python_constant()
    try:
        real = v.real_value()
    except Unsupported:
        raise Unsupported(f"{v.describe()} passed to numpy", kind=NUMPY) from None
    if isinstance(real, type) and (issubclass(real, np.generic) or real in (int, float, bool, complex)):
        return real
    raise Unsupported(f"{v.describe()} passed to numpy", kind=NUMPY)


def _node_arg(tx, v: Value):
    """``v`` as the graph node sees it: arrays as their tensors, dtypes as names."""
    if isinstance(v, NumpyArrayValue):
        return v.tensor
    if v.is_tensor():
        return v
    if isinstance(v, SliceValue):
        return SliceValue(*(_node_arg(tx, p) for p in v.parts))
    if isinstance(v, BaseSequenceValue):
        return (ListValue if v.python_type() is list else TupleValue)([_node_arg(tx, i) for i in v.items])
    if v.is_constant():
        c = v.as_python_constant()
        if isinstance(c, np.generic):
            return ConstantValue(_scalar_marker(c))
        if isinstance(c, np.dtype):
            return ConstantValue(c.name)
        return v
    try:
        real = v.real_value()
    except Unsupported:
        raise Unsupported(f"{v.describe()} passed to numpy", kind=NUMPY) from None
    if isinstance(real, type) and (issubclass(real, np.generic) or real in (int, float, bool, complex)):
        return ConstantValue(np.dtype(real).name)
    raise Unsupported(f"{v.describe()} passed to numpy", kind=NUMPY)


# ---------------------------------------------------------------------------------------
# ndarray inputs

@dataclass(frozen=True)
class FromNumpySource(Source):
    """``torch.from_numpy(<array>)``: the tensor a graph reads an ndarray input through."""

    array: Source

    @property
    def expr(self) -> str:
        return f"torch.from_numpy({self.array.expr})"

    @property
    def base(self):
        return self.array

    def fetch(self, frame_locals, fn):
        return torch.from_numpy(self.array.fetch(frame_locals, fn))

    def render(self, ctx):
        return f"{ctx.constant(torch.from_numpy, 'from_numpy')}({ctx.expr(self.array)})"


def _wrap_ndarray(tx, arr: np.ndarray, source):
    from autograph.capture.families.objects import ObjectValue
    tx.guards.type_(source, arr)
    supported = (source is not None and type(arr) is np.ndarray and arr.flags.writeable and arr.flags.aligned and arr.dtype.isnative
                 and arr.dtype.kind in "biufc" and all(s >= 0 and s % arr.dtype.itemsize == 0 for s in arr.strides))
    if supported:
        try:
            real = torch.from_numpy(arr)
        except (TypeError, RuntimeError):
            supported = False
    if not supported:
        return ObjectValue(arr, source)  # any use of it breaks
    # what torch.from_numpy made of it: type (above), dtype, shape, strides, writeable and aligned
    g = tx.guards
    g.read_equals(AttrSource(source, "dtype"), arr.dtype)
    g.equals(AttrSource(source, "shape"), arr.shape)
    g.equals(AttrSource(source, "strides"), arr.strides)
    flags = AttrSource(source, "flags")
    g.equals(AttrSource(flags, "writeable"), True)
    g.equals(AttrSource(flags, "aligned"), True)
    real._autograph_static_dims = tuple(range(real.dim()))  # ndarray inputs keep their sizes
    tensor = tx.graph.add_input(FromNumpySource(source), real)
    return NumpyArrayValue(tensor, source=source)


def _wrap_numpy_scalar(tx, obj, source):
    builder._value_guard(tx.guards, source, obj)
    return ConstantValue(obj, source)


def _wrap_limits(tx, obj, source):
    """``np.finfo``/``np.iinfo`` objects (what they hold follows from their dtype): read for real."""
    if source is None:
        tx.guards.id_(source, obj)
    else:
        tx.guards.type_(source, obj)
        tx.guards.read_equals(AttrSource(source, "dtype"), obj.dtype)
    return ConstantValue(obj, source)


# ---------------------------------------------------------------------------------------
# crossing between torch and NumPy inside the graph

def _tensor_numpy(tx, tensor: Value, args, kwargs) -> Value:
    """``tensor.numpy()``: the same data as an ndarray (Python's errors where eager raises them)."""
    force = kwargs.get("force", args[0] if args else ConstantValue(False))
    if len(args) > 1 or set(kwargs) - {"force"} or not force.is_constant():
        raise Unsupported("`.numpy(force=...)` with a value known only at run time", kind=NUMPY)
    if force.as_python_constant():  # ``t.detach().cpu().resolve_conj().resolve_neg().numpy()``
        fake = tensor.fake
        if fake.device.type != "cpu" or fake.is_conj() or fake.is_neg():
            raise Unsupported("`.numpy(force=True)` of a tensor it would copy", kind=NUMPY)
        if fake.requires_grad:
            tensor = tx.graph.call("call_method", "detach", (tensor,), {})
    fake = tensor.fake
    if fake.requires_grad or fake.device.type != "cpu" or fake.is_conj() or fake.is_neg() \
            or np_dtype_of(fake.dtype) is None or type(fake).__name__ not in ("FakeTensor", "Tensor"):
        raise Unsupported("`.numpy()` of this tensor raises in Python", generic=True, kind="python-exception")
    return NumpyArrayValue(tensor)


def _alias(tx, array: NumpyArrayValue) -> Value:
    return tx.graph.call("call_function", torch.ops.aten.alias.default, (array.tensor,), {})


def _from_numpy(tx, args, kwargs):
    if len(args) != 1 or kwargs or not isinstance(args[0], NumpyArrayValue):
        return NotImplemented
    if args[0].scalar is not None:
        return NotImplemented
    return _alias(tx, args[0])


def _as_tensor(copy: bool):
    def handler(tx, args, kwargs):
        if len(args) != 1 or not isinstance(args[0], NumpyArrayValue) or set(kwargs) - {"dtype", "device"}:
            return NotImplemented
        array = args[0]
        out = tx.graph.call("call_function", torch.clone, (array.tensor,), {}) if copy or array.scalar is not None \
            else _alias(tx, array)
        if kwargs:
            out = tx.graph.call("call_method", "to", (out,), dict(kwargs))
        return out
    return handler


# ---------------------------------------------------------------------------------------
# NumPy callables, classes and scalars

_CALLABLES: dict | None = None


def _tnp_callables() -> dict:
    """id(NumPy callable) -> (callable, torch._numpy callable, name), as TorchDynamo maps them."""
    global _CALLABLES
    if _CALLABLES is None:
        t = tnp()
        table = {}
        for np_mod, tnp_mod, prefix in ((np, t, ""), (np.linalg, t.linalg, "linalg."), (np.fft, t.fft, "fft.")):
            for name, tnp_fn in vars(tnp_mod).items():
                np_fn = getattr(np_mod, name, None)
                if name.startswith("_") or not callable(tnp_fn) or not callable(np_fn) or isinstance(np_fn, type):
                    continue
                table[id(np_fn)] = (np_fn, tnp_fn, prefix + name)
        _CALLABLES = table
    return _CALLABLES


def _callable_wrapper(tx, obj, source):
    module = getattr(obj, "__module__", None)
    if not (isinstance(module, str) and module.split(".")[0] == "numpy") and type(obj) is not np.ufunc:
        return None
    hit = _tnp_callables().get(id(obj))
    tx.guards.id_(source, obj)
    if hit is None or hit[0] is not obj:
        return NumpyOpaqueValue(obj)
    return NumpyFunctionValue(*hit)


class NumpyOpaqueValue(Value):
    """A NumPy callable torch._numpy has no counterpart for (``np.random.*``, I/O): calling it breaks."""

    def __init__(self, fn):
        self.fn = fn

    def describe(self):
        name = getattr(self.fn, "__qualname__", None) or getattr(self.fn, "__name__", "?")
        return f"{getattr(self.fn, '__module__', None) or 'numpy'}.{name}"

    def real_value(self):
        return self.fn

    def python_type(self):
        return type(self.fn)

    def call(self, tx, args, kwargs):
        why = "numpy's random stream is not the graph's" if "random" in self.describe() else \
            "torch._numpy has no counterpart"
        raise Unsupported(f"{self.describe()}() runs in numpy ({why})", kind=NUMPY)

    def reconstruct(self, cg):
        return cg.const(self.fn)


_FOLDED_CLASSES = (np.dtype, np.finfo, np.iinfo)


def _class_call(tx, cls, args, kwargs):
    """``np.float32(2)``, ``np.dtype("float")``, ``np.finfo(np.float32)``: immutable, folded."""
    if cls in (float, int, bool, complex) and args and isinstance(args[0], NumpyArrayValue):
        raise Unsupported(f"`{cls.__name__}()` of a numpy value reads its data into Python", kind=NUMPY)
    if not isinstance(cls, type) or not (issubclass(cls, np.generic) or cls in _FOLDED_CLASSES):
        return NotImplemented
    real_args = _constant_args(args, kwargs)
    if real_args is None:
        tnp_cls = getattr(tnp(), cls.__name__, None) if issubclass(cls, np.generic) else None
        if tnp_cls is None:
            raise Unsupported(f"numpy.{cls.__name__}() of a value known only at run time", kind=NUMPY)
        # ``np.float32(a.sum())``: a cast in the graph, typed by NumPy's dry run like any call
        return numpy_operation(tx, _FunctionOp(cls, tnp_cls, cls.__name__), list(args), dict(kwargs))
    real = _run_numpy(f"numpy.{cls.__name__}()", cls, *real_args)
    if not _immutable(real):
        raise Unsupported(f"numpy.{cls.__name__}() made a mutable object", kind=NUMPY)
    return tx.wrap(real, None, trusted=True)


def install() -> None:
    registry.register_type_wrapper(np.ndarray, _wrap_ndarray)
    registry.register_type_wrapper(np.finfo, _wrap_limits)
    registry.register_type_wrapper(np.iinfo, _wrap_limits)
    for scalar in set(np.sctypeDict.values()):
        if issubclass(scalar, np.generic) and scalar not in (np.object_, np.str_, np.bytes_, np.void):
            registry.register_type_wrapper(scalar, _wrap_numpy_scalar, replace=False)
            try:
                registry.register_type_wrapper(type(np.dtype(scalar)), _wrap_numpy_scalar, replace=False)
            except TypeError:
                pass
    registry.add_callable_wrapper(_callable_wrapper)
    registry.add_class_call_hook(_class_call)
    registry.register_tensor_method("numpy", _tensor_numpy)
    registry.add_index_conversion(_index_with_array)
    registry.wrap_builtin(abs, _abs)  # wraps the core handler (families/builtins.py)
    for fn, handler in ((torch.from_numpy, _from_numpy), (torch.as_tensor, _as_tensor(copy=False)),
                        (torch.asarray, _as_tensor(copy=False)), (torch.tensor, _as_tensor(copy=True))):
        registry.wrap_torch_call(fn, functools.partial(_chained, handler))


def _index_with_array(tx, v: Value) -> Value | None:
    """``t[a]`` / ``t[i] = a`` with an ndarray ``a``: torch reads it as a tensor of its dtype."""
    if isinstance(v, NumpyArrayValue) and v.scalar is None:
        return v.tensor
    return None


def _abs(previous):
    """``abs(array)``: NumPy's ``__abs__`` (``np.absolute``) in the graph."""
    def handler(tx, x):
        if isinstance(x, NumpyArrayValue):
            return numpy_operation(tx, _OperatorOp(operator.abs), [x], {})
        return previous(tx, x)
    return handler


def _chained(handler, previous):
    """``handler`` first; another module's override of the same function after it."""
    if previous is None:
        return handler

    def both(tx, args, kwargs):
        out = handler(tx, args, kwargs)
        return previous(tx, args, kwargs) if out is NotImplemented else out
    return both
