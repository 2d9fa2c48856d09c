"""Construct sweep: the Python foreign programs write around tensor code, with a hazard inside.

Constructs: an exception raised by a graph op (or by user code on a tensor condition) caught by
a ``try``/``except``/``finally`` of the same function or of its caller; generators and ``yield``
around tensor code, and an iterator of the module consumed across calls; closures with
``nonlocal`` in nested functions and in a factory's counter kept between calls; class and
instance attributes of the same name changed during the call; a class with operator overloads
counting its instances in a class attribute; a ``random.Random(seed)`` made in the call; module globals and a global dict
read after writes; in-place tensor ops on views and aliases passed in; iteration over a dict whose
values are changed (and on some calls, whose size changes: Python's RuntimeError); a
``defaultdict`` made in the function and grouped by tensor values (its keys change between
calls); the function's own frame read (``locals()``, ``sys._getframe()``).

Each construct marks the places (``@H``) where one hazard is put: nothing, a graph break
(``print`` to a buffer), an index out of range on odd calls (a run-time error in the graph) or a
data-dependent ``.item()``. The runner compares results, exceptions, the arguments after the
call (views and their bases included), ``world()`` and the process state after every call.
"""
from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from typing import Iterator

from autograph.testing.sweeps.case import SweepCase

PRELUDE = '''\
import collections
import io
import random
import sys

import torch

LOG = []
SINK = io.StringIO()
TOTAL = 0
CONFIG = {"n": 0}
SOURCE = iter(range(10_000))
D = {"a": 1, "b": 2}


class Cfg:
    level = 1
    scale = 10


OBJ = Cfg()


def make_counter():
    count = 0

    def counter(t):
        nonlocal count
        count += 1
        return t + count
    return counter


COUNTER = make_counter()


def scaled_steps(t, n):
    for i in range(n):
        LOG.append(("step", i))
        yield t * (i + 1)
    LOG.append("exhausted")


def pick(t, idx):
    LOG.append("pick")
    return t[idx] * 2


class Big(Exception):
    pass


class Node:
    """A small autograd engine's value: operator overloads and a class-level counter."""
    count = 0

    def __init__(self, data, prev=()):
        Node.count += 1
        self.id = Node.count
        self.data = data
        self.prev = prev

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.data + other.data, (self, other))

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        return Node(self.data * other.data, (self, other))

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other
'''


@dataclass(frozen=True)
class Construct:
    """``body`` is ``fn``'s body (``@H``: where the hazard may go); ``args`` builds the call's
    arguments from ``i`` (``x`` a tensor, ``idx`` out of range on odd calls, ``n`` = ``i``)."""
    name: str
    body: str
    params: str = "x, idx, n"
    args: str = "torch.arange(4.0) + i, torch.tensor([1 + 5 * (i % 2)]), i"


CONSTRUCTS = [
    Construct("try_except_graph_error", """
y = x * 2
LOG.append("before")
try:
    @H
    z = y[idx]
    LOG.append("no error")
except IndexError as exc:
    LOG.append(("caught", type(exc).__name__))
    z = y.sum().reshape(1)
@H
return z + 1
"""),
    Construct("try_except_else_finally", """
y = x + 1
try:
    z = y[idx] + n
    @H
except (KeyError, IndexError):
    LOG.append("except")
    z = y[:1]
else:
    LOG.append("else")
    z = z * 2
finally:
    LOG.append("finally")
@H
return z
"""),
    Construct("caller_catches_helper_error", """
y = x - 1
@H
try:
    z = pick(y, idx)
except IndexError:
    LOG.append("caught in caller")
    z = y.new_zeros(1)
@H
return z, len(LOG)
"""),
    Construct("user_raise_on_tensor_condition", """
y = x * 3
try:
    @H
    if y.sum() > 20:
        raise Big("big sum")
    LOG.append("small")
except Big as exc:
    LOG.append(str(exc))
    y = -y
@H
return y
"""),
    Construct("exception_escapes_with_state", """
LOG.append(("enter", n))
y = x.clone()
y.add_(1)
@H
LOG.append(("middle", n))
z = y[idx]
@H
LOG.append(("after", n))
return z
"""),
    Construct("generator_loop", """
out = []
for t in scaled_steps(x, 3):
    @H
    out.append(t.sum())
@H
return torch.stack(out)
"""),
    Construct("generator_next", """
g = scaled_steps(x, 2)
a = next(g)
@H
b = next(g)
c = next(g, None)
@H
return a + b, c is None
"""),
    Construct("local_generator_expression", """
total = sum(t.sum() for t in (x, x * 2, x[idx] if n % 2 == 0 else x))
@H
return total
"""),
    Construct("module_iterator", """
k = next(SOURCE)
@H
y = x * k
k2 = next(SOURCE)
@H
return y + k2
"""),
    Construct("closure_nonlocal", """
count = 0

def bump(t):
    nonlocal count
    count += 1
    return t + count

y = bump(x)
@H
y = bump(y)
@H
return y, count
"""),
    Construct("closure_reads_later_store", """
scale = 2

def f(t):
    return t * scale

y = f(x)
scale = 3
@H
z = f(x)
@H
return y, z
"""),
    Construct("factory_counter", """
y = COUNTER(x)
@H
y = COUNTER(y)
@H
return y
"""),
    Construct("class_and_instance_attributes", """
OBJ.scale = OBJ.scale + 1
Cfg.level += 1
@H
y = x * OBJ.scale + Cfg.level + type(OBJ).scale
@H
return y, OBJ.scale, Cfg.scale, Cfg.level
"""),
    Construct("operator_overloads_class_counter", """
a = Node(x)
@H
b = 2 * a + Node(x[:1]) * a
@H
return b.data, Node.count, b.id, [p.id for p in b.prev], type(b).count
"""),
    Construct("seeded_random_made_in_call", """
r = random.Random(n)
k = r.randint(0, 3)
@H
y = x * r.random() + k
items = [1, 2, 3, 4]
r.shuffle(items)
@H
return y, items, r.choice(items)
"""),
    Construct("instance_attribute_removed", """
y = x * OBJ.scale
if n % 2 and "scale" in OBJ.__dict__:
    del OBJ.scale
@H
return y + OBJ.scale
"""),
    Construct("global_written_then_read", """
global TOTAL
TOTAL = TOTAL + 1
@H
y = x + TOTAL
CONFIG["n"] = CONFIG.get("n", 0) + n
@H
return y * CONFIG["n"], TOTAL
"""),
    Construct("inplace_on_view_passed_in", """
v.mul_(2)
@H
y = x + 1
x[0] += v.sum()
@H
return y, v
""", params="x, v, idx, n", args="(lambda b: (b, b[1:3], torch.tensor([1 + 5 * (i % 2)]), i))(torch.arange(4.0) + i)"),
    Construct("inplace_through_alias", """
a = x
a.add_(n)
@H
b = x.view(2, 2)
b[0, 1] = -1
@H
return x.sum(), b
"""),
    Construct("view_of_local_then_error", """
y = x.clone()
w = y[1:]
w.zero_()
@H
z = y[idx]
@H
return y, z
"""),
    Construct("dict_values_changed_while_iterating", """
total = x * 0
for k in D:
    D[k] = D[k] + 1
    @H
    total = total + x * D[k]
@H
return total, dict(D)
"""),
    Construct("dict_grows_while_iterating", """
total = x * 0
try:
    for k, v in D.items():
        total = total + v
        @H
        if n % 2:
            D[f"k{n}"] = n
except RuntimeError as exc:
    LOG.append(str(exc))
@H
return total, len(D)
"""),
    Construct("defaultdict_grouped_by_tensor_values", """
groups = collections.defaultdict(list)
for v in x:
    @H
    groups[int(v) % 3].append(v)
@H
return [(k, len(groups[k])) for k in sorted(groups)], list(groups)
"""),
    Construct("own_frame_read", """
y = x * 2
@H
names = sorted(locals())
z = y + n
@H
return z, names, sys._getframe().f_code.co_name
"""),
    Construct("dict_copy_iteration_with_deletes", """
for k in list(D):
    if D[k] > 3:
        del D[k]
    @H
y = x + len(D)
@H
return y, sorted(D)
"""),
]

HAZARDS = {
    "none": "",
    "break": "print('graph break', file=SINK)",
    "error": "_ = x[idx]",
    "item": "LOG.append(int(x.sum().item()))",
}

_CALLS = '''

def make_call(i):
    return ({args}), {{}}


def world():
    return {{"log": list(LOG), "sink": SINK.getvalue(), "total": TOTAL, "config": dict(CONFIG), "d": dict(D),
            "level": Cfg.level, "class_scale": Cfg.scale, "obj": dict(OBJ.__dict__), "nodes": Node.count}}
'''


def _function(construct: Construct, hazard: str, at: int) -> str:
    """``fn`` with ``hazard`` at the ``at``-th ``@H`` marker (the other markers dropped)."""
    lines, marker = [], 0
    for line in textwrap.dedent(construct.body).strip("\n").splitlines():
        if line.strip() == "@H":
            if marker == at and HAZARDS[hazard]:
                lines.append(line.replace("@H", HAZARDS[hazard]))
            marker += 1
            continue
        lines.append(line)
    return f"def fn({construct.params}):\n" + textwrap.indent("\n".join(lines), "    ") + "\n"


def _markers(construct: Construct) -> int:
    return sum(1 for line in construct.body.splitlines() if line.strip() == "@H")


def cases(seed: int) -> Iterator[SweepCase]:
    """Every construct with every hazard at a marker drawn by ``seed``, then every construct
    with every hazard at each other marker (each case once)."""
    rng = random.Random(seed)
    drawn = set()
    for hazard in HAZARDS:
        for construct in CONSTRUCTS:
            at = rng.randrange(_markers(construct)) if HAZARDS[hazard] else 0
            drawn.add((construct.name, hazard, at))
            yield _case(construct, hazard, at)
    for construct in CONSTRUCTS:
        for hazard in list(HAZARDS)[1:]:
            for at in range(_markers(construct)):
                if (construct.name, hazard, at) not in drawn:
                    yield _case(construct, hazard, at)


def _case(construct: Construct, hazard: str, at: int) -> SweepCase:
    source = PRELUDE + "\n\n" + _function(construct, hazard, at) + _CALLS.format(args=construct.args)
    return SweepCase("constructs", f"constructs:{construct.name}:{hazard}@{at}", source)
