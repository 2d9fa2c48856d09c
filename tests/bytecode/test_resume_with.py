"""Resume functions inside ``with`` blocks, with a raised exception, and with shared cells
(torch-free): ``"enter"`` slots re-enter a context, ``raise_exc`` hands an exception to the
original's handlers, ``cell_refs`` passes cells themselves."""
from __future__ import annotations

import types

import pytest

from autograph.bytecode.instructions import normalize
from autograph.bytecode.liveness import live_locals_at
from autograph.bytecode.resume import (cells_passed_by_reference, make_resume_code, preamble_length,
                                       resume_param_names, resume_stack_depth)


class Recorder:
    """A context manager that logs its enter/exit; ``suppress`` makes __exit__ swallow errors."""

    def __init__(self, log, name="cm", suppress=False):
        self.log, self.name, self.suppress = log, name, suppress

    def __enter__(self):
        self.log.append(f"enter {self.name}")
        return self

    def __exit__(self, typ, exc, tb):
        self.log.append(f"exit {self.name} {typ.__name__ if typ else None}")
        return self.suppress


def at_line(fn, line_offset: int):
    """Offset of the first instruction of the line ``line_offset`` lines below the ``def``."""
    line = fn.__code__.co_firstlineno + line_offset
    return next(i.offset for i in normalize(fn.__code__) if i.lineno == line and not i.synthetic)


def resume(fn, offset, slots, live, **kw):
    code = make_resume_code(fn.__code__, offset, slots, live, f"__resume_at_{offset}", **kw)
    return types.FunctionType(code, fn.__globals__, code.co_name, None, fn.__closure__)


def one_block(cm, log, x):
    log.append("before")
    with cm:
        y = x + 1
        z = 10 // y
        log.append(z)
    log.append("after")
    return y


def test_enter_slot_reenters_the_block_and_its_exit_runs_once():
    off = at_line(one_block, 4)  # z = 10 // y, inside the block: [__exit__] on the stack
    assert resume_stack_depth(one_block.__code__, off) == 1
    live = sorted(n for n in live_locals_at(one_block.__code__, off) if n in ("log", "y"))
    r = resume(one_block, off, ["enter"], live)
    log: list = []
    values = {"log": log, "y": 4}
    assert r(Recorder(log), *(values[n] for n in live)) == 4
    assert log == ["enter cm", 2, "exit cm None", "after"]


def test_enter_slot_exit_gets_the_exception():
    off = at_line(one_block, 4)
    live = sorted(n for n in live_locals_at(one_block.__code__, off) if n in ("log", "y"))
    r = resume(one_block, off, ["enter"], live)
    log: list = []
    values = {"log": log, "y": 0}
    with pytest.raises(ZeroDivisionError):
        r(Recorder(log), *(values[n] for n in live))
    assert log == ["enter cm", "exit cm ZeroDivisionError"]


def test_raise_exc_unwinds_through_the_blocks_exit():
    off = at_line(one_block, 4)
    live = sorted(n for n in live_locals_at(one_block.__code__, off) if n in ("log", "y"))
    assert resume_param_names(["value"], live, raise_exc=True)[-1] == "___exc"
    r = resume(one_block, off, ["value"], live, raise_exc=True)
    log: list = []
    cm = Recorder(log)
    values = {"log": log, "y": 3}
    err = KeyError("from outside")
    with pytest.raises(KeyError) as info:
        r(cm.__exit__, *(values[n] for n in live), err)
    assert info.value is err
    assert log == ["exit cm KeyError"]


def test_raise_exc_suppressed_by_exit_continues_after_the_block():
    off = at_line(one_block, 4)
    live = sorted(n for n in live_locals_at(one_block.__code__, off) if n in ("log", "y"))
    r = resume(one_block, off, ["value"], live, raise_exc=True)
    log: list = []
    cm = Recorder(log, suppress=True)
    values = {"log": log, "y": 3}
    assert r(cm.__exit__, *(values[n] for n in live), ValueError("x")) == 3
    assert log == ["exit cm ValueError", "after"]


def try_block(log, x):
    try:
        log.append("try")
        y = 10 // x
        log.append("after")
    except ZeroDivisionError as e:
        log.append(f"caught {e}")
        y = -1
    finally:
        log.append("finally")
    return y


def test_raise_exc_is_caught_by_the_except_and_finally_runs():
    off = at_line(try_block, 3)  # y = 10 // x
    live = sorted(n for n in live_locals_at(try_block.__code__, off) if n in ("log", "x"))
    r = resume(try_block, off, [], live, raise_exc=True)
    log: list = []
    values = {"log": log, "x": 0}
    assert r(*(values[n] for n in live), ZeroDivisionError("boom")) == -1
    assert log == ["caught boom", "finally"]
    log.clear()
    with pytest.raises(KeyError):  # not matched: finally runs, the exception propagates
        r(*(values[n] for n in live), KeyError("k"))
    assert log == ["finally"]


def nested_blocks(a, b, log):
    with a:
        with b:
            log.append("inner")
            log.append("inner2")
        log.append("between")
    return len(log)


def test_two_enter_slots_nest_in_order():
    off = at_line(nested_blocks, 4)  # log.append("inner2")
    assert resume_stack_depth(nested_blocks.__code__, off) == 2
    r = resume(nested_blocks, off, ["enter", "enter"], ["log"])
    log: list = []
    assert r(Recorder(log, "a"), Recorder(log, "b"), log) == 6
    assert log == ["enter a", "enter b", "inner2", "exit b None", "between", "exit a None"]


def test_preamble_length_counts_entered_slots_and_the_exception():
    assert preamble_length(["value", "null"]) == 3
    assert preamble_length(["enter"], raise_exc=True) == 5


def shares_a_cell(x):
    def get():
        return x
    x = x + 1
    x = x * 10
    return get()


def test_cell_refs_pass_the_cell_itself():
    code = shares_a_cell.__code__
    off = at_line(shares_a_cell, 4)  # x = x * 10
    r = resume(shares_a_cell, off, [], ["get", "x"], cell_refs=["x"])
    assert cells_passed_by_reference(r.__code__) == {"x"}
    assert cells_passed_by_reference(code) == frozenset()
    cell = types.CellType(3)
    get = types.FunctionType(shares_a_cell.__code__.co_consts[1] if isinstance(
        shares_a_cell.__code__.co_consts[1], types.CodeType) else next(
        c for c in code.co_consts if isinstance(c, types.CodeType)), shares_a_cell.__globals__, "get", None, (cell,))
    assert r(get, cell) == 30
    assert cell.cell_contents == 30  # the frame wrote into the shared cell


def test_cell_refs_must_be_live_cells():
    off = at_line(shares_a_cell, 4)
    with pytest.raises(ValueError):
        make_resume_code(shares_a_cell.__code__, off, [], ["get"], "r", cell_refs=["x"])


def handled_in_a_loop(calls, log):
    for call in calls:
        try:
            call()
        except ValueError as exc:
            log.append(str(exc))
    return log


def test_raise_exc_in_a_loop_raises_only_on_entry():
    """The raise is the resume's way in; the loop's next turn reaches the same instruction in
    the normal flow and must run it, not raise (it raised the loop variable: TypeError)."""
    off = at_line(handled_in_a_loop, 3)  # call(), inside the try, inside the for loop
    depth = resume_stack_depth(handled_in_a_loop.__code__, off)
    live = sorted(n for n in live_locals_at(handled_in_a_loop.__code__, off) if n == "log")
    r = resume(handled_in_a_loop, off, ["value"] * depth, live, raise_exc=True)

    def fail(text):
        def call():
            raise ValueError(text)
        return call

    log: list = []
    rest = iter([fail("second"), lambda: None, fail("fourth")])
    stack = [rest] + [None] * (depth - 1)
    assert r(*stack, log, ValueError("first")) == ["first", "second", "fourth"]
