"""Lists and tuples as user code writes them: lists from outside (globals, closure cells,
arguments) changed for real after the graph, ``global`` assignments, user ``__eq__``/``__lt__``
run by list methods and ``sort``, ``cmp_to_key``, special methods called by name, and the
exceptions of list methods. Each compares values, mutations and identities with eager over
several calls, the state carried from call to call."""
from __future__ import annotations

import functools

import pytest
import torch

from tests.capture.checks import assert_same, check
from tests.capture.harness import Harness

LOG: list = []
COUNTER = 0
LAST = None


def _twice(fn, reset, calls=3):
    """``fn`` compiled, then eager, each ``calls`` times from the same start: the results and the
    state ``reset()`` returns (after each call) side by side."""
    h = Harness()
    compiled = h.compile(fn)
    runs = []
    for f in (compiled, fn):
        state = reset()
        x = torch.ones(2)
        runs.append([(f(x), list(state())) for _ in range(calls)])
    for (got, got_state), (want, want_state) in zip(*runs):
        assert_same(got, want)
        assert got_state == want_state
    return h


def grow_global_log(x):
    global LOG
    LOG.append(len(LOG))
    LOG.extend([x.shape[0]])  # (LOG += ... would rebind the global: that runs in Python)
    LOG.insert(0, "head")
    del LOG[0]
    LOG.pop()
    LOG.sort(key=str)
    LOG[0] = LOG[0]
    return x * len(LOG)


def test_global_list_changed_by_the_compiled_function_is_seen_by_the_caller():
    def reset():
        global LOG
        LOG = []
        held = LOG
        assert held is LOG
        return lambda: LOG

    h = _twice(grow_global_log, reset)
    assert h.breaks == []


def test_global_list_keeps_its_identity():
    global LOG
    LOG = [1]
    grow_global_log(torch.ones(2))
    want = LOG
    LOG = [1]
    before = LOG
    h = Harness()
    h.compile(grow_global_log)(torch.ones(2))
    assert LOG is before and LOG == want and h.breaks == []


def make_counter():
    seen = []

    def count(x):
        seen.append(x.shape[0])
        seen.extend(i for i in range(2))
        seen.remove(0)
        return x + len(seen)

    return count, seen


def test_closure_cell_list_changed_for_real():
    compiled_fn, compiled_seen = make_counter()
    eager_fn, eager_seen = make_counter()
    h = Harness()
    compiled = h.compile(compiled_fn)
    for _ in range(3):
        x = torch.ones(2)
        torch.testing.assert_close(compiled(x), eager_fn(x))
        assert compiled_seen == eager_seen
    assert h.breaks == []


def change_argument_list(x, items):
    last = items[-1]
    items.append(x + 1)
    items.remove(4)  # compares 3 == 4, then 4 == 4 (never a tensor)
    items.reverse()
    items[1:2] = [7, 8]
    return last, items[-1], len(items)


def test_argument_list_changed_in_every_way():
    h = check(change_argument_list, lambda: (torch.randn(2), [3, 4, torch.randn(2)]))
    assert h.breaks == []


def test_argument_list_state_carried_between_calls():
    def f(x, acc):
        acc.append(x.sum())
        return x * len(acc)

    h = Harness()
    compiled = h.compile(f)
    got, want = [], []
    for _ in range(3):
        x = torch.randn(2)
        torch.testing.assert_close(compiled(x, got), f(x, want))
    assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(got, want))
    assert h.breaks == []


def test_one_list_reached_as_argument_and_global_is_one_list():
    global LOG

    def f(x, items):
        items.append(1)
        return x + len(LOG)

    h = Harness()
    compiled = h.compile(f)
    LOG = []
    out = compiled(torch.zeros(1), LOG)  # the same list: the read of LOG sees the append
    assert out.item() == 1 and LOG == [1]
    other = []
    out = compiled(torch.zeros(1), other)  # another list: LOG unchanged
    assert out.item() == 1 and other == [1] and LOG == [1]
    assert h.breaks == []


def test_iterator_over_a_list_the_call_changes():
    def f(x, it, items):
        items.append(9)
        return x + sum(it)

    h = Harness()
    compiled = h.compile(f)
    for same in (False, True, False):  # the same list: a break; another one: guarded apart
        a, b = [1, 2], [1, 2]
        ea, eb = [1, 2], [1, 2]
        breaks = len(h.breaks)
        got = compiled(torch.zeros(1), iter(a), a if same else b)
        want = f(torch.zeros(1), iter(ea), ea if same else eb)
        torch.testing.assert_close(got, want)
        assert (a, b) == (ea, eb)
        if not same:
            assert len(h.breaks) == breaks


def bump_global(x):
    global COUNTER
    COUNTER = COUNTER + 1
    import tests.capture.families.test_list_breadth as me
    return x + COUNTER + me.COUNTER


def test_global_assignment_is_replayed_and_read_back():
    """Recorded and replayed after the graph (no break); later loads, and ``module.COUNTER``,
    see the stored value."""
    def reset():
        global COUNTER
        COUNTER = 0
        return lambda: [COUNTER]

    h = _twice(bump_global, reset)
    assert not h.breaks


def assign_then_overlap(x, bias):
    global LAST
    t5 = bias[0]
    LAST = bias
    bias -= t5  # an in-place op on a tensor overlapping its operand: only the run raises
    return x + 1


def test_global_assigned_before_a_run_time_error_is_seen_by_the_caller():
    """Fuzz seed 20261202007806: replayed after the graph, the assignment was lost when the
    graph raised; eager has made it by then."""
    global LAST
    compiled = Harness().compile(assign_then_overlap)
    for f in (assign_then_overlap, compiled, compiled):
        LAST = None
        bias = torch.randn(5)
        with pytest.raises(RuntimeError, match="single memory location"):
            f(torch.ones(5), bias)
        assert LAST is bias


class NeverEqual:
    def __eq__(self, other):
        return False


class AlwaysEqual:
    def __eq__(self, other):
        return True


CALLS: list = []


class Loud:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        CALLS.append(("eq", type(self).__name__))
        return NotImplemented

    def __lt__(self, other):
        CALLS.append(("lt", type(self).__name__))
        return self.v < other.v


class LouderChild(Loud):
    def __gt__(self, other):
        CALLS.append(("gt", type(self).__name__))
        return NotImplemented


def use_user_equality(x):
    never = NeverEqual()
    found = [never].index(never), never in [never], [never].count(never), [NeverEqual()].count(never)
    items = [AlwaysEqual()]
    items.remove(NeverEqual())  # AlwaysEqual.__eq__ answers (NeverEqual's is asked only after)
    a, b = Loud(1), LouderChild(2)
    order = a < b, a == b, a != a
    try:
        [NeverEqual()].index("z")
    except ValueError as e:
        missing = str(e)
    try:
        unordered = NeverEqual() < NeverEqual()
    except TypeError as e:
        unordered = str(e)
    return x + 1, found, len(items), order, missing, unordered


def test_user_eq_in_list_methods_and_cpython_comparison_order():
    def reset():
        CALLS.clear()
        return lambda: CALLS

    h = _twice(use_user_equality, reset, calls=2)
    assert h.breaks == []


class ModKey:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v % 3 < other.v % 3


def _revcmp(a, b):
    return (a < b) - (a > b)


def sort_by_user_keys(x):
    p = [3, 4, 5, 7, 1]
    p.sort(key=ModKey)
    q = sorted([1, 3, 2], key=functools.cmp_to_key(_revcmp), reverse=True)
    r = [1, 3, 2]
    sizes = []

    def key(v):
        sizes.append(len(r))  # the list is empty while it is sorted
        return v

    r.sort(key=key)
    s = [1, 3, 2]

    def grow(a, b):
        s.append(4)
        return (a > b) - (a < b)

    try:
        s.sort(key=functools.cmp_to_key(grow))
    except ValueError as e:
        message = str(e)
    return x + 1, p, q, r, sizes, s, message


def test_sort_with_user_lt_cmp_to_key_and_a_list_changed_during_sort():
    h = _twice(sort_by_user_keys, lambda: (lambda: []))
    assert h.breaks == []


def test_sorting_a_global_list_by_user_keys():
    global LOG

    def f(x):
        LOG.sort(key=ModKey)
        return x + 1

    h = Harness()
    compiled = h.compile(f)
    LOG = [5, 4, 3]
    items = list(LOG)
    compiled(torch.zeros(1))
    assert LOG == sorted(items, key=ModKey) and h.breaks == []


def special_methods_by_name(x):
    p = [1, 2]
    r = p.__iadd__([3])
    p.__imul__(2)
    p.__setitem__(0, 9)
    p.__delitem__(1)
    it = p.__iter__().__iter__()
    first = it.__next__()
    errors = []
    for call in (lambda: p.append(), lambda: p.__imul__(2.5), lambda: p.extend(1), lambda: [][3]):
        try:
            call()
        except (TypeError, IndexError) as e:
            errors.append(str(e))
    return x + 1, p, r is p, first, errors


def test_list_special_methods_by_name_and_their_errors():
    h = _twice(special_methods_by_name, lambda: (lambda: []), calls=2)
    assert h.breaks == []


class Stack(list):
    def __init__(self, items=(), name="s"):
        super().__init__(items)
        self.name = name

    def push(self, v):
        self.append(v)
        return self


class PlainList(list):
    pass


class GrandchildList(PlainList):
    pass


def use_list_subclasses(x):
    s = Stack([1, 2], name="a")
    s.push(3).push(4)
    s += [5]
    p = PlainList([3, 1, 2])
    p.sort()
    g = GrandchildList.__new__(GrandchildList, [1, 2], extra="ignored")  # list.__new__ ignores them
    g.extend(p)
    return x + s[-1] + len(s), s, s.name, p, type(p) is PlainList, g, type(g) is GrandchildList, s == [1, 2, 3, 4, 5]


def test_list_subclass_instances_made_by_the_call():
    h = _twice(use_list_subclasses, lambda: (lambda: []), calls=2)
    assert h.breaks == []
    s = Harness().compile(use_list_subclasses)(torch.ones(1))[1]
    assert type(s) is Stack and s.name == "a" and s == [1, 2, 3, 4, 5]


class ListWithNew(list):
    def __new__(cls, arg, tag=None):
        self = super().__new__(cls)
        self.tag = tag
        return self

    def __init__(self, arg, tag=None):
        super().__init__(arg)


class Point:
    made: list = []

    def __new__(cls, x):
        obj = super().__new__(cls)
        obj.order = ["new"]
        return obj

    def __init__(self, x):
        self.order.append("init")
        self.x = x


def use_python_new(x):
    a = ListWithNew([1, 2, 3], tag=7)
    p = Point(3)
    t = tuple.__new__(tuple, [1, 2])
    return x + p.x, a, a.tag, type(a) is ListWithNew, p.order, type(p) is Point, t


def test_classes_with_a_python_new():
    h = _twice(use_python_new, lambda: (lambda: []), calls=2)
    assert h.breaks == []
