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
