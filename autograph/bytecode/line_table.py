"""Rewriting where a code object's instructions say they come from, without recompiling it.

A code object's location table (``co_linetable``) gives each code unit a position: start line,
end line, start column, end column, or none at all. Its format is CPython's
``Objects/locations.md``, the same on 3.11, 3.12 and 3.13: entries of 1 to 8 code units, each a
first byte ``0x80 | code << 3 | (units - 1)`` and then, by ``code``: 0-9 short form (same line,
one byte of columns), 10-12 one-line form (line delta ``code - 10``, two column bytes), 13 no
columns (signed varint line delta), 14 long form (signed varint line delta, varints end-line
delta, column + 1, end column + 1), 15 no location. Line deltas are from the previous entry that
had a line, starting at ``co_firstlineno``.

:func:`relocated` maps every position through a function and writes the table anew: capture
compiles its generated entry once and then places it at the user's lines (``capture/engine/
codegen.py``), which is much cheaper than rewriting and recompiling a syntax tree.
"""
from __future__ import annotations

import itertools
import types
from typing import Callable, Iterable, Optional

Position = tuple[Optional[int], Optional[int], Optional[int], Optional[int]]  # line, end line, column, end column
_NO_LOCATION = 15


def _varint(out: bytearray, value: int) -> None:
    while value >= 64:
        out.append(64 | (value & 63))
        value >>= 6
    out.append(value)


def _svarint(out: bytearray, value: int) -> None:
    _varint(out, (-value << 1) | 1 if value < 0 else value << 1)


def encode_locations(first_line: int, runs: Iterable[tuple[Position, int]]) -> bytes:
    """The location table of code units given as ``(position, number of code units)`` runs, in
    order, for a code object whose ``co_firstlineno`` is ``first_line``. A position without a line
    is "no location"; one with a line but no columns keeps only its line (its end line is read
    back as its line)."""
    out = bytearray()
    previous = first_line
    for (line, end_line, column, end_column), units in runs:
        while units > 0:
            n = min(units, 8)
            units -= n
            size = n - 1
            if line is None:
                out.append(0x80 | _NO_LOCATION << 3 | size)
                continue
            delta = line - previous
            previous = line
            if column is None or end_column is None or end_line is None:
                out.append(0x80 | 13 << 3 | size)
                _svarint(out, delta)
            elif delta == 0 and end_line == line and column < 80 and 0 <= end_column - column < 16:
                out.append(0x80 | (column >> 3) << 3 | size)
                out.append((column & 7) << 4 | (end_column - column))
            elif 0 <= delta < 3 and end_line == line and column < 128 and end_column < 128:
                out.append(0x80 | (10 + delta) << 3 | size)
                out.append(column)
                out.append(end_column)
            else:
                out.append(0x80 | 14 << 3 | size)
                _svarint(out, delta)
                _varint(out, end_line - line)
                _varint(out, column + 1)
                _varint(out, end_column + 1)
    return bytes(out)


def relocated(code: types.CodeType, place: Callable[[Position], Position], first_line: int) -> types.CodeType:
    """``code`` with every code unit's position ``p`` (``co_positions()``) replaced by
    ``place(p)`` and ``co_firstlineno`` by ``first_line``; ``place`` is called once per distinct
    position. Nested code objects are left as they are (the caller relocates them itself)."""
    positions = list(code.co_positions())
    placed = {p: place(p) for p in set(positions)}
    runs = [(p, sum(1 for _ in group)) for p, group in itertools.groupby(map(placed.__getitem__, positions))]
    return code.replace(co_firstlineno=first_line, co_linetable=encode_locations(first_line, runs))
