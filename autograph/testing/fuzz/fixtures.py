"""Module-level objects the exactness constructs use, and the harness's between-call changes.

A program declares only the fixtures its ``fn`` uses. ``between_calls(call)`` is
generated from the same chooser: before each call the harness runs it in the eager
and the compiled module alike, so attributes appear and disappear, class attributes
change and globals are rebound between calls, as a real caller's code would do.
"""
from __future__ import annotations

import re
from typing import Any

# name -> module-level source; {B} is the program's B dimension
FIXTURES: dict[str, str] = {
    "Obj": '''class Obj:
    """A caller's object: the harness changes its attributes between calls."""
    kind = "base"
    scale = 1.0

    def __init__(self):
        self.count = 0
        self.tag = "abc"
        self.flag = True


OBJ = Obj()
''',
    "Box": '''class Box:
    """A plain object made inside fn."""
''',
    "FuzzError": '''class FuzzError(Exception):
    def __init__(self, message, code=0):
        super().__init__(message)
        self.code = code
''',
    "numbers": '''def numbers(n):
    for i in range(n):
        yield i * 0.5
''',
    "Tracked": '''class Tracked:
    """A context manager in Python: the order of its entries and exits goes to TRACE."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        TRACE.append("enter " + self.name)
        return self

    def __exit__(self, typ, exc, tb):
        TRACE.append("exit " + self.name)
        return False


TRACE = []
''',
    "Swallowing": '''import contextlib


class Swallowing:
    """A context manager whose __exit__ swallows index errors (returns True)."""

    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        return typ is not None and issubclass(typ, (IndexError, RuntimeError))
''',
    "swallowed": '''import contextlib


@contextlib.contextmanager
def swallowed():
    try:
        yield
    except (IndexError, RuntimeError):
        pass
''',
    "Pair": '''import collections

Pair = collections.namedtuple("Pair", "v s")  # equal to the plain tuple of its fields
''',
    "CAUGHT": "CAUGHT = []\n",
    "Net": '''class Net(torch.nn.Module):
    """A model trained across calls: a linear layer and a batch norm (its running statistics
    change in train mode only)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear({B}, {B})
        self.norm = torch.nn.BatchNorm1d({B})

    def forward(self, x):
        return self.norm(self.lin(x))


NET = Net()
GRADS = []  # what tensor hooks saw
''',
    "OPT_SGD": "OPT = torch.optim.SGD(NET.parameters(), lr=0.1, momentum=0.9)\n",
    "OPT_ADAM": "OPT = torch.optim.Adam(NET.parameters(), lr=0.01)\n",
    "OPT_ADAMW": "OPT = torch.optim.AdamW(NET.parameters(), lr=0.01, weight_decay=0.1)\n",
    "OPT_RMSPROP": "OPT = torch.optim.RMSprop(NET.parameters(), lr=0.01, momentum=0.5)\n",
    "SCHED_STEP": "SCHED = torch.optim.lr_scheduler.StepLR(OPT, step_size=2, gamma=0.5)\n",
    "SCHED_LAMBDA": "SCHED = torch.optim.lr_scheduler.LambdaLR(OPT, lambda epoch: 1.0 / (epoch + 1))\n",
    "SCHED_EXP": "SCHED = torch.optim.lr_scheduler.ExponentialLR(OPT, gamma=0.9)\n",
    "CountingKey": '''HASHES = [0]
EQS = [0]
TABLE = {}


class CountingKey:
    """A key whose ``__hash__`` and ``__eq__`` count their calls (keys 0 and 3 collide)."""

    def __init__(self, k):
        self.k = k

    def __hash__(self):
        HASHES[0] += 1
        return hash(self.k % 3)

    def __eq__(self, other):
        EQS[0] += 1
        return isinstance(other, CountingKey) and other.k == self.k
''',
    "STREAM": '''import itertools


def counting(start):
    """An endless generator the program reads a little of on each call."""
    i = start
    while True:
        yield i * 0.5
        i += 1


STREAM = counting(0)
ITEMS = iter([torch.linspace(-1.0, 1.0, {B}) * i for i in range(24)])
PENDING = None  # a generator one call makes and later calls go on reading
''',
    "np": "import numpy as np\n",
    "logged": '''import contextlib


@contextlib.contextmanager
def logged(name):
    """A generator context manager whose ``finally`` logs to TRACE, also when an error leaves it."""
    TRACE.append("enter " + name)
    try:
        yield name
    finally:
        TRACE.append("exit " + name)
''',
    "MODE": 'MODE = "fast"\n',
    "WEIGHT": "WEIGHT = torch.linspace(0.5, 1.5, {B})\n",
}
ORDER = tuple(FIXTURES)


def fixture_source(names: set[str], b: int) -> list[str]:
    """The source lines declaring ``names`` (in a fixed order), blank-line separated."""
    lines: list[str] = []
    for name in ORDER:
        if name in names:
            lines += FIXTURES[name].replace("{B}", str(b)).splitlines() + ["", ""]
    return lines


# What between_calls may do, by the fixture or global it changes: (needs `global`, statement)
_CHANGES: dict[str, tuple[tuple[bool, str], ...]] = {
    "OBJ": (
        (False, "OBJ.z = {int}"),
        (False, "if hasattr(OBJ, 'z'):\n    del OBJ.z"),
        (False, "OBJ.scale = 2.5"),
        (False, "if 'scale' in vars(OBJ):\n    del OBJ.scale"),
        (False, "OBJ.tag = {str}"),
        (False, "OBJ.flag = not OBJ.flag"),
        (False, "Obj.kind = {str}"),
        (False, "Obj.scale = 0.5"),
        (False, "OBJ.count = 0"),
    ),
    "MODE": ((True, "MODE = {str}"),),
    "SCALE": ((True, "SCALE = 0.75"), (True, "SCALE = SCALE + 1")),
    "FLAG": ((True, "FLAG = not FLAG"),),
    "WEIGHT": ((True, "WEIGHT = WEIGHT * 2"), (True, "WEIGHT = torch.ones_like(WEIGHT)")),
    "NET": ((False, "NET.train()"), (False, "NET.eval()"), (False, "NET.zero_grad()"),
            (False, "with torch.no_grad():\n    NET.lin.weight.mul_(0.5)")),
    "STREAM": ((False, "next(STREAM)"),),
    "ITEMS": ((False, "next(ITEMS, None)"),),
    "TABLE": ((False, "TABLE.clear()"), (False, "TABLE[CountingKey(9)] = 0.5")),
}
_STRINGS = ("'slow'", "'fast'", "'xyz'", "'ab'", "''")


def between_calls_source(chooser: Any, fn_source: str, calls: int, always: tuple[str, ...] = ()) -> list[str]:
    """``def between_calls(call)`` changing what ``fn_source`` reads, and the objects in
    ``always`` (passed to fn as arguments); empty when there is nothing to change."""
    targets = [name for name in _CHANGES if name in always or re.search(rf"\b{name}\b", fn_source)]
    if not targets:
        return []
    body: list[str] = []
    names: set[str] = set()
    for call in range(1, calls):
        if chooser.integer(0, 9) < 4:
            continue
        for _ in range(chooser.integer(1, 2)):
            target = targets[chooser.integer(0, len(targets) - 1)]
            options = _CHANGES[target]
            needs_global, statement = options[chooser.integer(0, len(options) - 1)]
            statement = statement.replace("{int}", str(chooser.integer(1, 9)))
            statement = statement.replace("{str}", _STRINGS[chooser.integer(0, len(_STRINGS) - 1)])
            if needs_global:
                names.add(statement.split()[0])
            body += [f"    if call == {call}:"] + ["        " + line for line in statement.splitlines()]
    if not body:
        return []
    header = ["", "", "def between_calls(call):",
              '    """Run by the harness before each call of fn, in both modules."""']
    if names:
        header.append("    global " + ", ".join(sorted(names)))
    return header + body + [""]
