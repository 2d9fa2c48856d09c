"""Appending to a list from outside (families/containers.py ``OutsideListValue``): its items and
length are read, and guarded, only when the code reads them, so a history that grows by one item
per call runs one entry (it recompiled on every call until the recompile limit)."""
from __future__ import annotations

import torch

import autograph

HISTORY: list = []


class Meter:
    def __init__(self):
        self.values = []


METER = Meter()


def append_to_argument(x, losses):
    y = x * 2
    losses.append(y.sum())
    return y


def append_to_global_and_attribute(x):
    HISTORY.append(x.sum().detach())
    METER.values.append(x.mean())
    return x + 1


def append_then_read(x, losses):
    losses.append(x.sum())
    return x * len(losses), losses[-1] + losses[0]


def append_through_two_names(x, a, b):
    a.append(x)
    b.append(x * 2)
    return [t.sum() for t in a], len(b)


def _plain_and_compiled(fn, make_args, calls=6):
    compiled = autograph.compile(fn, backend="eager")
    plain_args, compiled_args = make_args(), make_args()
    for i in range(calls):
        x = torch.full((2,), float(i))
        want, got = fn(x, *plain_args), compiled(x, *compiled_args)
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    return compiled, plain_args, compiled_args


def test_appending_to_an_argument_list_runs_one_entry():
    compiled, plain, comp = _plain_and_compiled(append_to_argument, lambda: ([],))
    assert compiled.stats.captures == 1
    assert [float(t) for t in comp[0]] == [float(t) for t in plain[0]]


def test_appending_to_a_global_and_an_attribute_list_runs_one_entry():
    compiled = autograph.compile(append_to_global_and_attribute, backend="eager")
    HISTORY.clear()
    METER.values.clear()
    for i in range(6):
        compiled(torch.full((2,), float(i)))
    assert compiled.stats.captures == 1
    assert [float(t) for t in HISTORY] == [2.0 * i for i in range(6)]
    assert [float(t) for t in METER.values] == [float(i) for i in range(6)]


def test_a_read_after_the_append_sees_it_and_guards_the_length():
    compiled, plain, comp = _plain_and_compiled(append_then_read, lambda: ([torch.ones(())],))
    assert [float(t) for t in comp[0]] == [float(t) for t in plain[0]]
    assert compiled.stats.captures > 1  # the length is part of the result: one entry per length


def test_one_list_reached_through_two_names():
    lst = []
    compiled = autograph.compile(append_through_two_names, backend="eager")
    plain_list = []
    for i in range(3):
        x = torch.full((2,), float(i))
        got, want = compiled(x, lst, lst), append_through_two_names(x, plain_list, plain_list)
        assert [float(t) for t in got[0]] == [float(t) for t in want[0]] and got[1] == want[1]
    assert len(lst) == len(plain_list) == 6


def test_a_list_replaced_by_a_tuple_is_seen():
    compiled = autograph.compile(append_to_argument, backend="eager")
    compiled(torch.ones(2), [])
    try:
        compiled(torch.ones(2), ())
    except AttributeError as exc:
        assert "append" in str(exc)
    else:
        raise AssertionError("a tuple has no append")


def slices_and_sums(x, items):
    return items[1:], items + [x], items * 2, items[:1] + items[-1:]


def test_new_lists_made_from_a_list_from_outside_are_plain_lists():
    """A slice, ``+`` and ``*`` of a list from outside are new lists of the call (they failed to be
    made while such a list was read lazily)."""
    compiled = autograph.compile(slices_and_sums, backend="eager")
    items = [torch.ones(1), torch.zeros(1)]
    x = torch.full((1,), 3.0)
    got, want = compiled(x, items), slices_and_sums(x, items)
    assert [type(g) for g in got] == [list] * 4
    assert compiled.stats.errors == [] and compiled.stats.eager_calls == 0, compiled.stats.errors
    assert all([float(t) for t in g] == [float(t) for t in w] for g, w in zip(got, want))
