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
import operator
import re
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


def _entry(out: bytearray, delta: int, position: Position, units: int) -> None:
    """One entry of ``units`` (1 to 8) code units at ``position``, ``delta`` lines after the last."""
    line, end_line, column, end_column = position
    size = units - 1
    if line is None:
        out.append(0x80 | _NO_LOCATION << 3 | size)
    elif column is None or end_column is None or end_line is None:
        out.append(0x80 | 13 << 3 | size)
        _svarint(out, delta)
    elif delta == 0 and end_line == line and column < 80 and 0 <= end_column - column < 16:
        out += bytes((0x80 | (column >> 3) << 3 | size, (column & 7) << 4 | (end_column - column)))
    elif 0 <= delta < 3 and end_line == line and column < 128 and end_column < 128:
        out += bytes((0x80 | (10 + delta) << 3 | size, column, end_column))
    else:
        out.append(0x80 | 14 << 3 | size)
        _svarint(out, delta)
        _varint(out, end_line - line)
        _varint(out, column + 1)
        _varint(out, end_column + 1)


def encode_locations(first_line: int, runs: Iterable[tuple[Position, int]]) -> bytes:
    """The location table of code units given as ``(position, number of code units)`` runs, in
    order, for a code object whose ``co_firstlineno`` is ``first_line``. A position without a line
    is "no location"; one with a line but no columns keeps only its line (its end line is read
    back as its line)."""
    out = bytearray()
    previous = first_line
    for position, units in runs:
        line = position[0]
        first = min(units, 8)
        _entry(out, 0 if line is None else line - previous, position, first)
        units -= first
        if line is not None:
            previous = line
        if units >= 8:  # the same entry of eight units again, as often as it fits
            same = bytearray()
            _entry(same, 0, position, 8)
            out += same * (units >> 3)
            units &= 7
        if units:
            _entry(out, 0, position, units)
    return bytes(out)


def decode_locations(code: types.CodeType) -> list[tuple[Position, int]]:
    """``code``'s location table as ``(position, number of code units)`` entries, in order (what
    ``co_positions()`` gives one code unit at a time, read from the table at the cost of one step
    per entry)."""
    table = code.co_linetable
    line = code.co_firstlineno
    out: list[tuple[Position, int]] = []
    i, size = 0, len(table)
    while i < size:
        first = table[i]
        kind = (first >> 3) & 15
        units = (first & 7) + 1
        i += 1
        if kind < 10:  # short form: same line, columns in one byte
            column = kind << 3 | (table[i] >> 4) & 7
            out.append(((line, line, column, column + (table[i] & 15)), units))
            i += 1
        elif kind < 13:  # one-line form
            line += kind - 10
            out.append(((line, line, table[i], table[i + 1]), units))
            i += 2
        elif kind == _NO_LOCATION:
            out.append(((None, None, None, None), units))
        else:  # 13: no columns, 14: long form; fields are (signed) varints
            fields = []
            for _ in range(1 if kind == 13 else 4):
                value = shift = 0
                while True:
                    byte = table[i]
                    i += 1
                    value |= (byte & 63) << shift
                    shift += 6
                    if not byte & 64:
                        break
                fields.append(value)
            delta = fields[0]
            line += -(delta >> 1) if delta & 1 else delta >> 1
            if kind == 13:
                out.append(((line, line, None, None), units))
            else:
                out.append(((line, line + fields[1], fields[2] - 1, fields[3] - 1), units))
    return out


def relocated(code: types.CodeType, place: Callable[[Position], Position], first_line: int) -> types.CodeType:
    """``code`` with every code unit's position ``p`` (``co_positions()``) replaced by
    ``place(p)`` and ``co_firstlineno`` by ``first_line``; ``place`` is called once per distinct
    position. Nested code objects are left as they are (the caller relocates them itself)."""
    placed: dict[Position, Position] = {}
    runs: list[tuple[Position, int]] = []
    last = None
    for position, units in decode_locations(code):
        new = placed.get(position)
        if new is None:
            new = placed[position] = place(position)
        if new == last:
            runs[-1] = (new, runs[-1][1] + units)
        else:
            runs.append((new, units))
            last = new
    return code.replace(co_firstlineno=first_line, co_linetable=encode_locations(first_line, runs))


# compiler-written tables: an entry's first byte has bit 7 set, its other bytes do not (one-line
# form columns are below 128); a match may also start inside an entry, which only ever sends a
# table to the general path
_LINE = operator.itemgetter(2)
_NO_COLUMNS = re.compile(rb"[\xe8-\xef]")
_ZERO_WIDTH = re.compile(rb"[\x80-\x87]\x00|[\xd0-\xe7]\x00\x00|[\xf0-\xf7][\x40-\x7f]*[\x00-\x3f][\x40-\x7f]*[\x00-\x3f]\x01\x01")


def relocated_by_line(code: types.CodeType, place_line: Callable[[int], Position],
                      first_line: int) -> Optional[types.CodeType]:
    """``relocated`` for a table whose code units differ in where they go only by their line:
    its first entry is the code object's ``RESUME`` (zero columns on ``co_firstlineno``, placed at
    ``first_line`` with zero columns), no other entry has zero columns, every entry with a line
    has columns; a unit with line ``l`` goes to ``place_line(l)``, one without stays so. Read from
    ``co_lines()`` a line at a time, not decoded entry by entry. None when the table is not of
    that shape."""
    table = code.co_linetable
    if len(table) < 2 or table[0] > 0x87 or table[1] or _NO_COLUMNS.search(table) is not None:
        return None
    if (table.find(b"\x00", 2) >= 0 or b"\x01\x01" in table) and _ZERO_WIDTH.search(table, 2) is not None:
        return None
    resume = ((table[0] & 7) + 1) * 2  # bytes of code the first entry covers
    starts = [0]  # where each run starts (in bytes of code), and its position
    runs: list[Position] = [(first_line, first_line, 0, 0)]
    placed: dict = {None: (None, None, None, None)}
    for line, group in itertools.groupby(code.co_lines(), _LINE):
        new = placed.get(line)
        if new is None:
            new = placed[line] = place_line(line)
        if new != runs[-1]:
            start = next(group)[0]
            starts.append(start if start > resume else resume)
            runs.append(new)
    starts.append(len(code.co_code))
    units = [(b - a) >> 1 for a, b in zip(starts, starts[1:])]
    table = encode_locations(first_line, [(p, n) for p, n in zip(runs, units) if n > 0])
    return code.replace(co_firstlineno=first_line, co_linetable=table)
