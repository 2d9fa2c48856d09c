"""Liveness of locals at an offset (torch-free)."""
from __future__ import annotations

import dis

from autograph.bytecode.instructions import normalize
from autograph.bytecode.liveness import live_in, live_locals_at


def at(fn, opname, argval=None, nth=0):
    found = [i for i in normalize(fn.__code__)
             if i.opname == opname and (argval is None or i.argval == argval) and not i.synthetic]
    return found[nth].offset


def live(fn, opname, argval=None, nth=0):
    return live_locals_at(fn.__code__, at(fn, opname, argval, nth))


def test_straight_line_dead_after_last_use():
    def f(a, b):
        c = a + b
        d = c * 2
        return d
    assert live(f, "STORE_FAST", "c") == set()          # a, b already consumed
    assert live(f, "LOAD_FAST", "a") == {"a", "b"}
    assert live(f, "STORE_FAST", "d") == set()


def test_read_on_one_branch_only():
    def f(a, b, flag):
        if flag:
            return a
        return 0
    assert live(f, "LOAD_FAST", "flag") == {"a", "flag"}
    assert "b" not in live(f, "LOAD_FAST", "flag")


def test_written_on_all_paths_before_read():
    def f(a, flag):
        if flag:
            x = 1
        else:
            x = 2
        return x + a
    assert "x" not in live(f, "LOAD_FAST", "flag")
    assert "a" in live(f, "LOAD_FAST", "flag")


def test_written_on_one_path_only_stays_live():
    def f(x, flag):
        if flag:
            x = 1
        return x
    assert "x" in live(f, "LOAD_FAST", "flag")


def test_loop_carried_variables():
    def f(n):
        t = 0
        for i in range(n):
            t = t + i
        return t
    body = live(f, "STORE_FAST", "i")
    assert "t" in body and "n" not in body
    assert live(f, "FOR_ITER") >= {"t"}  # t read again next iteration and at return
    assert "t" not in live(f, "STORE_FAST", "t", 1)  # being overwritten right here


def test_exception_handler_reads_count():
    def f(a, fallback):
        try:
            r = 10 // a
        except ZeroDivisionError:
            r = fallback
        return r
    inside = live(f, "BINARY_OP", "//")
    assert "fallback" in inside       # only the handler reads it
    after = live(f, "LOAD_FAST", "r", 0)
    assert "fallback" not in after


def test_delete_fast_is_a_use():
    def f(a):
        b = a
        del b
        return a
    assert "b" in live(f, "DELETE_FAST", "b")


def test_cell_and_free_variables():
    outer = 3

    def f(a):
        c = a

        def inner():
            return c + outer
        return inner(), c
    code = f.__code__
    assert "c" in code.co_cellvars and "outer" in code.co_freevars
    # at the start of `return inner(), c`: c is read through LOAD_DEREF
    names = live(f, "LOAD_FAST", "inner")
    assert "c" in names and "inner" in names
    for offset in [i.offset for i in dis.get_instructions(code)]:
        try:
            assert "outer" not in live_locals_at(code, offset)
        except ValueError:
            pass


def test_closure_creation_reads_the_cell():
    def f(a):
        c = a

        def inner():
            return c
        return inner
    # building the closure loads the cell: c must be live until then
    store_c = at(f, "STORE_DEREF", "c") if any(i.opname == "STORE_DEREF" for i in normalize(f.__code__)) else None
    assert store_c is not None
    after_store = normalize(f.__code__)[[i.offset for i in normalize(f.__code__)].index(store_c) + 1]
    assert "c" in live_locals_at(f.__code__, after_store.offset)


def test_comprehension_saved_variable_is_live():
    def f(n):
        x = 7
        ys = [x * 2 for x in range(n)]
        return ys, x
    # x is read after the comprehension (and, on 3.12+, saved/restored around it)
    first = normalize(f.__code__)
    get_iter = next(i for i in first if i.opname == "GET_ITER")
    assert "x" in live_locals_at(f.__code__, get_iter.offset)


def test_live_in_covers_every_instruction_and_is_cached():
    def f(a):
        return [a + i for i in range(3)]
    table = live_in(f.__code__)
    assert len(table) == len(normalize(f.__code__))
    assert live_in(f.__code__) is table
