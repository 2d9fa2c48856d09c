"""Dynamic-number sweep: symbolic ints and NumPy integers, and symbolic strides, used every way.

Under ``dynamic=True`` (and in the default mode once a value changed between calls: automatic
dynamic) a Python int or a NumPy integer (``np.int8`` ... ``np.uint64``) reached from an
argument, an argument's attribute, a list item or a keyword is a symbol, 0 and 1 included;
NumPy ints keep their class, promotion and overflow wraparound, and a tensor whose strides
change gets symbolic strides. A wrong guard, a fold of a symbol's hint, or a Python rule applied
to a NumPy int shows as a wrong value, type, exception or warning.

Each number case reads one group's values, one per call and then the first two again (entries
compiled for earlier values are met again), through one source, and uses it one way (its text,
type, hash, as a key or index, in loops, truth tests and comparisons, arithmetic with Python
and NumPy ints across the class's bounds, division by zero, as tensor sizes or a scalar in
tensor arithmetic, returned or stored; made a float: a warm-up factor, a decay, a ratio, compared
with a float, deciding an autocast), with or without a graph break (a ``print`` to a
``StringIO``) between the read and the use, compiled with ``dynamic=True`` or by default.
Stride cases do the same with tensors that are contiguous, transposed or sliced in turn.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator

from autograph.testing.sweeps.case import SweepCase

SWEEP = "dynamic_numbers"
MODES = {"dynamic": "{'dynamic': True}", "default": "{}"}


@dataclass(frozen=True)
class Group:
    name: str
    values: tuple[str, ...]  # source text of each value, in call order
    sizes: bool              # every value is a small non-negative int: the size uses apply


def _np(cls: str, *values: object) -> tuple[str, ...]:
    return tuple(f"np.{cls}({v})" for v in values)


GROUPS = (
    Group("py_small", ("0", "1", "3", "7", "1", "0", "2"), True),
    Group("py_wide", ("-3", "0", "1", "2 ** 31 - 1", "2 ** 62", "2 ** 63", "-(2 ** 63)", "1"), False),
    Group("py_steps", ("0", "1", "2", "5", "10", "11", "-4", "6"), False),  # a training step
    Group("py_2_53", ("2 ** 53 - 1", "2 ** 53 + 1", "-(2 ** 53) - 3", "3", "2 ** 61 + 7", "10", "0"), False),
    Group("np_small", ("np.int64(3)", "np.int32(0)", "np.uint8(1)", "np.int8(4)", "np.int16(2)",
                       "np.uint64(5)", "np.int64(1)"), True),
    Group("int64_small", _np("int64", 0, 1, 4, 1, 6, 0), True),
    Group("int8", _np("int8", 0, 1, 5, 127, -128, -1), False),
    Group("uint8", _np("uint8", 0, 1, 255, 7, 128), False),
    Group("int16", _np("int16", 0, 1, 32767, -32768, 3), False),
    Group("int32", _np("int32", 0, 1, 2 ** 31 - 1, -(2 ** 31), 6), False),
    Group("int64", _np("int64", 0, 1, 2 ** 63 - 1, -(2 ** 63), 4), False),
    Group("uint64", _np("uint64", 0, 1, 2 ** 64 - 1, 9), False),
)

# how the function uses the value ``v`` (``x`` is a float tensor of 24 elements)
USES = {
    "repr": "repr(v)",
    "str": "str(v)",
    "fstring": "f'{v}|{v!r}|{v:>6}|{v:x}'",
    "type": "type(v).__name__",
    "isinstance": "(isinstance(v, int), isinstance(v, np.integer), isinstance(v, np.signedinteger))",
    "hash": "hash(v)",
    "dict_key": "list({v: 'v', 0: 'zero', 1: 'one'}.items())",
    "index": "[10, 20, 30, 40, 50, 60, 70, 80][v] if -8 <= v < 8 else None",
    "slice": "(list(range(10))[v:], list(range(10))[:v], list(range(10))[::v] if v else None)",
    "range": "[i * 2 for i in range(v)] if v < 40 else None",
    "range_sum": "sum(range(v, v + 3))",
    "truth": "(bool(v), not v, 'yes' if v else 'no', v and 5, v or 6)",
    "compare": "(v == 0, v == 1, v < 1, v > 0, v >= 1, v != 0, v <= -1, 0 < v < 2)",
    "add": "v + 1",
    "sub": "v - 1",
    "rsub": "0 - v",
    "mul": "v * 3",
    "floordiv": "v // 2",
    "floordiv_neg": "v // -3",
    "mod": "v % 3",
    "mod_neg": "v % -4",
    "pow": "v ** 2",
    "neg_abs": "(-v, abs(v))",
    "truediv": "v / 2",
    "div_zero": "1 / v",
    "floordiv_zero": "(10 // v, 10 % v)",
    "np_same": "v + type(v)(1) if isinstance(v, np.integer) else v + 1",
    "np_int8": "v + np.int8(1)",
    "np_uint8": "v - np.uint8(1)",
    "np_int64": "v * np.int64(2)",
    "np_uint64": "v + np.uint64(1)",
    "np_int32_mul": "np.int32(3) * v",
    "to_int": "(int(v), float(v), operator.index(v))",
    "scalar_mul": "x * v",
    "scalar_int": "x.int() * v",
    "scalar_dtype": "(x.int() + v).dtype",
    "scalar_add_item": "(x[:1] + v).item()",
    "full": "torch.full((2,), v)",
    "returned": "v",
    "listed": "[v, v]",
    "stored": "STORE.append(v) or STORE[-1]",
    "attr_store": "setattr(HOLDER, 'n', v) or HOLDER.n",
}
# an int made a float (a warm-up factor, a decay, a ratio) and what Python and torch do with it
FLOAT_USES = {
    "div_ten": "(v / 10, 10 / v)",
    "warmup": "min(1.0, v / 10)",
    "warmup_scale": "x * min(1.0, (v + 1) / 10)",
    "float_of": "(float(v), x * float(v))",
    "decay": "(0.9 ** v, x * 0.9 ** v)",
    "neg_base": "(-0.5) ** v",
    "float_exponent": "v ** 0.5",
    "round_third": "(round(v / 3), x * round(v / 3), round(v / 2))",
    "abs_shift": "(abs(v - 6), x + abs(v - 6))",
    "with_floats": "(v * 0.5, v + 0.25, v - 1.5, 2.5 * v, x * (v * 0.5))",
    "float_floordiv": "(v // 2.5, v % 2.5, v // -0.5)",
    "mixed_min_max": "(max(v, 2.5), min(v, 2.5), max(0.5, v / 4), min(v / 4, 0.5))",
    "branch": "x * (v / 10) if v / 10 < 0.5 else x - v / 10",
    "residue_branch": "x.sum() * (v / 4) if v % 3 == 0 else x.mean()",
    "int_tensor": "(x.long() * (v / 4), x.int() + float(v))",
    "full_float": "torch.full((2,), v / 4)",
    "math_fns": "(math.cos(v), math.exp(v / 1000) if v < 700000 else None, math.sqrt(abs(v)))",
    "float_text": "f'{v / 3:.4f}|{v / 7!r}|{float(v)}'",
    "float_key": "list({v / 2: 'h', 0.5: 'half'}.items())",
    "float_hash": "hash(v / 4)",
    "float_compare": "(v / 4 == 0.5, v / 4 > 1.0, v / 4 <= 0.25, float(v) == v)",
    "int_float_compare": "(v > 4.5, v == 3.0, 2.5 <= v, v != 0.0, v < float('inf'))",
    "int_float_branch": "x * 2 if v > 4.5 else x - v",
    "float_stored": "STORE.append(v / 4) or STORE[-1]",
    "float_returned": "v / 8",
    "int_of_float": "(int(v / 3), int(v * 0.5))",
    "autocast": "under_autocast(x, v % 3 == 0)",
}
SIZE_USES = {
    "zeros": "torch.zeros(v)",
    "zeros_2d": "torch.zeros(v, 2).shape",
    "view": "x.view(v, -1)",
    "slice_tensor": "x[:v]",
    "expand": "x[:3].expand(v, 3)",
    "arange_view": "torch.arange(v * 2.0).view(v, -1).shape",
    "repeat_list": "[0] * v",
    "narrow": "x.narrow(0, v, 2)",
}

# how ``fn`` reaches the value: (parameters, the read inside fn, make_call's text for ``value``)
SOURCES = {
    "arg": ("x, v", "v", "return (torch.arange(24.0), {value}), {{}}"),
    "kwarg": ("x, *, v", "v", "return (torch.arange(24.0),), {{'v': {value}}}"),
    "attr": ("x, obj", "obj.n", "return (torch.arange(24.0), types.SimpleNamespace(n={value})), {{}}"),
    "item": ("x, box", "box[0]", "return (torch.arange(24.0), [{value}]), {{}}"),
}

# strides: the tensor ``t`` arrives contiguous, transposed, sliced, ... one layout per call
LAYOUTS = (
    "torch.arange(12.0).reshape(3, 4)",
    "torch.arange(12.0).reshape(4, 3).t()",
    "torch.arange(24.0).reshape(3, 8)[:, ::2]",
    "torch.arange(20.0).reshape(4, 5)",
    "torch.arange(30.0).reshape(6, 5).t()[1:]",
    "torch.arange(12.0).reshape(3, 4)",
    "torch.arange(12.0).reshape(4, 3).t()",
)
STRIDE_USES = {
    "stride": "t.stride()",
    "stride_dim": "(t.stride(0), t.stride(1), t.stride(-1) * 2)",
    "contiguous_test": "t.is_contiguous()",
    "offset": "t.storage_offset()",
    "add": "t + 1",
    "mul_strides": "(t * 2).stride()",
    "sum": "t.sum(0)",
    "view": "t.view(-1)",
    "reshape": "t.reshape(-1)",
    "contiguous": "t.contiguous().stride()",
    "transpose": "t.t().stride()",
    "as_strided": "t.as_strided((2, 2), (t.stride(1), t.stride(0)))",
    "clone": "t.clone().stride()",
    "empty_like": "torch.empty_like(t).stride()",
    "returned": "t",
    "matmul": "t @ t.t()",
}
STRIDE_SOURCES = {
    "arg": ("t", "t", "return ({value},), {{}}"),
    "kwarg": ("*, t", "t", "return (), {{'t': {value}}}"),
    "attr": ("obj", "obj.t", "return (types.SimpleNamespace(t={value}),), {{}}"),
    "item": ("box", "box[0]", "return ([{value}],), {{}}"),
}

PRELUDE = '''\
import io
import math
import operator
import types

import numpy as np
import torch

SINK = io.StringIO()
STORE = []
HOLDER = types.SimpleNamespace(n=None)


def under_autocast(x, enabled):
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=enabled):
        return (x.view(4, 6) @ x.view(6, 4)).float(), torch.is_autocast_enabled('cpu')


def world():
    return {'sink': SINK.getvalue(), 'store': [(type(s).__name__, s) for s in STORE],
            'holder': (type(HOLDER.n).__name__, HOLDER.n)}
'''


def uses_of(group: Group) -> dict[str, str]:
    """The uses that apply to every value of ``group``."""
    return USES | FLOAT_USES | SIZE_USES if group.sizes else USES | FLOAT_USES


def _module(params: str, read: str, use: str, broken: bool, values: tuple[str, ...], call: str,
            mode: str, tensor_name: str = "v") -> str:
    """A case's module text; number cases (``tensor_name`` "v") also return ``x + 1``, so the
    function always computes in a graph."""
    body = [f"def fn({params}):", f"    {tensor_name} = {read}"]
    if broken:
        body.append("    print('graph break', file=SINK)")
    result = f"x + 1, {use}" if tensor_name == "v" else use
    body.append(f"    return {result}")
    order = list(values) + list(values[:2])
    make_call = (f"def make_call(i):\n    STORE.clear()  # one item per call: its length is no guard's\n"
                 f"    value = ({', '.join(order)})[i]\n    " + call.format(value="value"))
    return (PRELUDE + "\n\n" + "\n".join(body) + "\n\n\n" + make_call
            + f"\n\n\nCALLS = {len(order)}\nCOMPILE_OPTIONS = {MODES[mode]}\n")


def number_case(group: Group, source: str, use: str, mode: str, broken: bool) -> SweepCase:
    params, read, call = SOURCES[source]
    text = _module(params, read, uses_of(group)[use], broken, group.values, call, mode)
    name = f"{SWEEP}:{group.name}:{source}:{use}:{mode}" + (":break" if broken else "")
    return SweepCase(SWEEP, name, text)


def stride_case(source: str, use: str, mode: str, broken: bool) -> SweepCase:
    params, read, call = STRIDE_SOURCES[source]
    text = _module(params, read, STRIDE_USES[use], broken, LAYOUTS, call, mode, tensor_name="t")
    name = f"{SWEEP}:strides:{source}:{use}:{mode}" + (":break" if broken else "")
    return SweepCase(SWEEP, name, text)


_NUMPY_GROUPS = {g.name for g in GROUPS if any(v.startswith("np.") for v in g.values)}


# uses whose result is a NumPy number computed from ``v`` (for a NumPy ``v``, or any ``v`` with np_*)
_NUMPY_RESULTS = {"add", "sub", "rsub", "mul", "floordiv", "floordiv_neg", "mod", "mod_neg", "pow", "neg_abs",
                  "truediv", "div_zero", "floordiv_zero", "np_same"} | set(FLOAT_USES)


def known_difference(case: SweepCase) -> str | None:
    """Why ``case`` is not checked (a difference already reported), or None."""
    _, group, _, use, *_ = case.name.split(":")
    if use == "dict_key" and group in _NUMPY_GROUPS:
        return ("a NumPy int used as a dict key: the rebuilt dict's key is the capture's object, "
                "not the caller's (DictValue keeps keys as Python constants)")
    if use.startswith("np_") or use in _NUMPY_RESULTS and group in _NUMPY_GROUPS:
        return ("a NumPy number folded at capture is one object, returned by every later call of "
                "that entry (plain Python makes a new one per call)")
    return None


def cases(seed: int) -> Iterator[SweepCase]:
    """Every group x source x use x mode (and every stride source x use x mode), plain and with
    a break, in an order drawn by ``seed``."""
    numbers = [("n", g, s, u, m, b) for g in GROUPS for s in SOURCES for u in uses_of(g)
               for m in MODES for b in (False, True)]
    strides = [("s", None, s, u, m, b) for s in STRIDE_SOURCES for u in STRIDE_USES
               for m in MODES for b in (False, True)]
    every = numbers + strides
    random.Random(seed).shuffle(every)
    for kind, group, source, use, mode, broken in every:
        yield number_case(group, source, use, mode, broken) if kind == "n" else stride_case(source, use, mode,
                                                                                              broken)
