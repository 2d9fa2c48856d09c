"""Look-alike sweep: values that compare equal yet differ, reaching a function every way.

``1 == True == 1.0 == np.int64(1)``, ``0.0 == -0.0``, ``(1,) == (True,)``,
``frozenset({1}) == frozenset({True})``, and an int that outgrows 64 bits: a guard or a cache
key that compares such values with ``==`` (or a fold that keeps only the value) hands one of
them the entry compiled for another, and the program sees the wrong type, sign or text.

Each case reads one group's values, one per call and then again from the start (so entries
compiled for earlier values are met again), through one source (an argument, a keyword, a
module global, an attribute, a list item, a dict value, a closure cell, a class attribute) and
uses it one way (``repr``, its type, tensor arithmetic and the result's dtype, ``copysign``,
``is``, a dict key, a list index, an f-string, ``hash``), with or without a graph break (a
``print`` to a ``StringIO``) between the read and the use.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator

from autograph.testing.sweeps.case import SweepCase

SWEEP = "lookalikes"


@dataclass(frozen=True)
class Group:
    name: str
    values: tuple[str, ...]   # source text of each value, in call order
    readers: tuple[str, ...]  # names in READERS that apply to every value of the group


_NUMBER = ("repr", "type", "mul", "dtype_int", "full", "copysign", "is_true", "dict_key", "fstring", "hash",
           "floor")
GROUPS = (
    Group("one", ("1", "True", "1.0", "np.int64(1)", "np.float64(1.0)", "np.bool_(True)"),
          _NUMBER + ("index",)),
    Group("zero", ("0.0", "-0.0", "0", "False", "np.float64(-0.0)"), _NUMBER),
    Group("two", ("2", "2.0", "np.float32(2.0)", "2"), _NUMBER),
    Group("big", ("2 ** 62", "2 ** 63", "2 ** 64 + 1", "-(2 ** 63)", "7"), ("repr", "type", "hash", "fstring",
                                                                          "dict_key", "floor")),
    Group("special", ("float('inf')", "float('-inf')", "float('nan')", "1e308"), ("repr", "type", "mul",
                                                                                "copysign", "fstring")),
    Group("tuple", ("(1,)", "(True,)", "(1.0,)", "(0.0,)", "(-0.0,)"), ("repr", "type_item", "mul_item",
                                                                        "dict_key", "hash")),
    Group("frozen", ("frozenset({1})", "frozenset({True})", "frozenset({1.0})", "frozenset({-0.0})"),
          ("repr", "type_item_set", "dict_key")),
)

READERS = {
    "repr": "repr(v)",
    "type": "type(v).__name__",
    "mul": "x * v",
    "dtype_int": "(x.int() + v).dtype",
    "full": "torch.full((2,), v).dtype",
    "copysign": "math.copysign(1.0, v)",
    "is_true": "(v is True, v is False)",
    "dict_key": "list({v: 'first', 1: 'second'}.items())",
    "fstring": "f'{v}|{v!r}|{v!s}'",
    "hash": "hash(v)",
    "floor": "math.floor(v) if not isinstance(v, float) or math.isfinite(v) else None",
    "index": "[10, 20][v] if isinstance(v, (int, np.integer)) else None",
    "type_item": "type(v[0]).__name__",
    "mul_item": "repr((x * v[0]).tolist())",
    "type_item_set": "[type(item).__name__ for item in v]",
}

# how ``fn`` reaches the value: (parameters, the read inside fn, make_call's text for value ``V``)
SOURCES = {
    "arg": ("x, v", "v", "return (torch.ones(2), {value}), {{}}"),
    "kwarg": ("x, *, v", "v", "return (torch.ones(2),), {{'v': {value}}}"),
    "global": ("x", "V", "global V\n    V = {value}\n    return (torch.ones(2),), {{}}"),
    "attr": ("x, obj", "obj.v", "return (torch.ones(2), types.SimpleNamespace(v={value})), {{}}"),
    "item": ("x, box", "box[0]", "return (torch.ones(2), [{value}]), {{}}"),
    "dict_value": ("x, d", "d['v']", "return (torch.ones(2), {{'v': {value}}}), {{}}"),
    "cell": ("x", "CELL()", "SET_CELL({value})\n    return (torch.ones(2),), {{}}"),
    "class_attr": ("x", "Holder.v", "Holder.v = {value}\n    return (torch.ones(2),), {{}}"),
}

PRELUDE = '''\
import io
import math
import types

import numpy as np
import torch

SINK = io.StringIO()
V = None


class Holder:
    v = None


def _cell():
    value = None

    def get():
        return value

    def set_(new):
        nonlocal value
        value = new

    return get, set_


CELL, SET_CELL = _cell()
'''


def _case(group: Group, source: str, reader: str, broken: bool) -> SweepCase:
    params, read, call = SOURCES[source]
    use = READERS[reader]
    body = [f"def fn({params}):", f"    v = {read}"]
    if broken:
        body.append("    print('graph break', file=SINK)")
    body.append(f"    return x + 1, {use}")
    order = list(group.values) + list(group.values[:2])
    make_call = (f"def make_call(i):\n    value = ({', '.join(order)})[i]\n    " + call.format(value="value"))
    source_text = (PRELUDE + "\n\n" + "\n".join(body) + "\n\n\n" + make_call
                   + f"\n\n\nCALLS = {len(order)}\n\n\ndef world():\n    return {{'sink': SINK.getvalue()}}\n")
    name = f"{SWEEP}:{group.name}:{source}:{reader}" + (":break" if broken else "")
    return SweepCase(SWEEP, name, source_text)


def cases(seed: int) -> Iterator[SweepCase]:
    """Every group x source x reader, plain and with a break, in an order drawn by ``seed``."""
    all_cases = [(g, s, r, b) for g in GROUPS for s in SOURCES for r in g.readers for b in (False, True)]
    random.Random(seed).shuffle(all_cases)
    for group, source, reader, broken in all_cases:
        yield _case(group, source, reader, broken)
