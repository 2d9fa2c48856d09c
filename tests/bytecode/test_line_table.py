"""The location-table writer (autograph/bytecode/line_table.py): a relocated code object's
positions are exactly the ones asked for, on every code unit, in the format CPython decodes
(3.11, 3.12, 3.13 alike)."""
from __future__ import annotations

import sys
import types

from autograph.bytecode.line_table import decode_locations, encode_locations, relocated, relocated_by_line

SOURCE = '''
def outer(xs, ys):
    total = [x * 2 for x in xs if x]
    some = any(x > 1 for x in xs)
    try:
        pairs = {x: [y for y in ys] for x in xs}
    except (KeyError, ValueError) as exc:
        raise RuntimeError("no pairs") from exc
    finally:
        total.append(len(ys))
    with open(__file__) as handle:
        data = handle.read(1)
    return lambda q: (q, total, some, pairs, data, "a long line so that the columns run past one hundred and twenty-eight")


def plain(a, b):
    try:
        c = a / b
    except ZeroDivisionError:
        c = None
    with open(__file__) as handle:
        handle.read(1)
    return [c for _ in range(2)], (lambda: 1)
'''


def _all_codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _all_codes(const)


def _lines(code: types.CodeType) -> list:
    """The line of each code unit, as ``co_lines()`` reports it."""
    out = []
    for start, end, line in code.co_lines():
        out += [line] * ((end - start) // 2)
    return out


def _relocate_all(code: types.CodeType, place, first) -> types.CodeType:
    consts = tuple(_relocate_all(c, place, first) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return relocated(code.replace(co_consts=consts), place, first(code))


def _module():
    return compile(SOURCE, "example.py", "exec")


def test_identity_keeps_every_position_and_line():
    top = _module()
    for code in _all_codes(top):
        same = relocated(code, lambda p: p, code.co_firstlineno)
        assert list(same.co_positions()) == list(code.co_positions()), code.co_name
        assert _lines(same) == _lines(code), code.co_name
        assert same.co_code == code.co_code and same.co_exceptiontable == code.co_exceptiontable


def test_every_code_unit_gets_the_position_asked_for():
    """Lines moved far (long-form deltas, negative ones), columns past 127 and multi-line spans,
    in the function, its comprehensions and its lambda; positions without a line stay so."""
    def place(position):
        line, end, column, end_column = position
        if line is None:
            return position
        if line % 3 == 0:
            return 5000 + line, 5000 + line, 0, 300  # long form: big delta, wide columns
        if line % 3 == 1:
            return 40 - line, 40 - line + 2, column, end_column  # backwards, multi-line
        return line + 1, line + 1, None, None  # line only

    def first(code):
        return 7000 + code.co_firstlineno

    top = _relocate_all(_module(), place, first)
    before = list(_all_codes(_module()))
    after = list(_all_codes(top))
    assert len(before) == len(after) >= 4  # module, outer, generator, lambda (and comprehensions on 3.11)
    had_none = False
    for old, new in zip(before, after):
        want = [place(p) for p in old.co_positions()]
        got = list(new.co_positions())
        assert got == [(w[0], w[0] if w[2] is None and w[0] is not None else w[1], w[2], w[3]) for w in want], \
            old.co_name
        assert new.co_firstlineno == first(old)
        assert _lines(new) == [w[0] for w in want]
        had_none = had_none or any(p[0] is None for p in old.co_positions())
    assert had_none  # the try/finally and with blocks have code units with no location


def test_a_run_longer_than_eight_units_and_no_location():
    """Runs split into entries of at most eight code units, around "no location" ones."""
    code = compile("x = 1\n" * 20, "many.py", "exec")
    units = len(code.co_code) // 2
    runs = [((3, 3, 0, 4), units - 11), ((None, None, None, None), 10), ((9, 9, 2, 200), 1)]
    new = code.replace(co_linetable=encode_locations(code.co_firstlineno, runs))
    want = [(3, 3, 0, 4)] * (units - 11) + [(None, None, None, None)] * 10 + [(9, 9, 2, 200)]
    assert list(new.co_positions()) == want


def test_the_table_runs():
    """A relocated function still runs, and a traceback names the line it was placed at."""
    scope: dict = {}
    exec(compile("def f(x):\n    y = x + 1\n    return 1 / (y - y)\n", "placed.py", "exec"), scope)
    f = scope["f"]
    f.__code__ = relocated(f.__code__, lambda p: p if p[0] is None else (p[0] + 100, p[1] + 100, p[2], p[3]), 101)
    try:
        f(1)
    except ZeroDivisionError:
        tb = sys.exc_info()[2]
        while tb.tb_next is not None:
            tb = tb.tb_next
        assert tb.tb_lineno == 103 and tb.tb_frame.f_code.co_firstlineno == 101
    else:
        raise AssertionError("no error")


def test_decoding_reads_what_co_positions_reads():
    for code in _all_codes(_module()):
        units = [p for p, n in decode_locations(code) for _ in range(n)]
        assert units == list(code.co_positions()), code.co_name


def _by_line_place(code, place_line, first_line):
    """The general ``relocated`` doing what ``relocated_by_line`` does."""
    def place(position):
        line, _end, column, end_column = position
        if line is None:
            return position
        if (line, column, end_column) == (code.co_firstlineno, 0, 0):
            return first_line, first_line, 0, 0
        return place_line(line)
    return relocated(code, place, first_line)


def test_placing_by_line_is_placing_each_position():
    """The fast path (lines read from ``co_lines()``) gives every code unit what the general one
    gives, for the code objects of that shape (no cells, no generator: ``plain``, its lambda, and
    comprehensions on 3.11)."""
    def place_line(line):
        return (900 + line % 2, 900 + line % 2, 0, 40 + line) if line % 4 else (5, 5, 0, 300)

    taken = 0
    for code in _all_codes(_module()):
        fast = relocated_by_line(code, place_line, 77)
        if fast is None:
            continue
        taken += 1
        slow = _by_line_place(code, place_line, 77)
        assert list(fast.co_positions()) == list(slow.co_positions()), code.co_name
        assert _lines(fast) == _lines(slow) and fast.co_firstlineno == 77
    assert taken >= 2


def test_placing_by_line_declines_other_tables():
    """A table with a unit that has a line but no columns, or a zero-width position other than the
    first entry's, is left to the general path."""
    code = compile("def f(x):\n    y = x + 1\n    return y\n", "t.py", "exec").co_consts[0]
    units = len(code.co_code) // 2
    resume = ((code.co_firstlineno, code.co_firstlineno, 0, 0), 1)
    no_columns = code.replace(co_linetable=encode_locations(code.co_firstlineno, [resume, ((2, 2, None, None), units - 1)]))
    zero_later = code.replace(co_linetable=encode_locations(code.co_firstlineno, [resume, ((2, 2, 4, 9), units - 2),
                                                                                   ((3, 3, 0, 0), 1)]))
    long_zero = code.replace(co_linetable=encode_locations(code.co_firstlineno, [resume, ((2, 2, 4, 200), units - 2),
                                                                                  ((3, 4, 0, 0), 1)]))
    for odd in (no_columns, zero_later, long_zero):
        assert relocated_by_line(odd, lambda line: (line, line, 0, 1), 1) is None
    assert relocated_by_line(code, lambda line: (line, line, 0, 1), 1) is not None
