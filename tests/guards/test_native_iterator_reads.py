"""Guards that read an iterator from outside without consuming it have native plan nodes
(native/guard_eval.c ``seq_iter_read``): ``remaining(it)[k]`` (the k-th item a list or tuple
iterator will still yield: N_ITER_ITEMS) and the sequence it walks (N_ITER_SEQUENCE, the
DISTINCT_OBJECTS guard that keeps an iterator apart from a list the call changes), read from
the iterator's fields; a method read through a pinned location (``Op.fn`` bound to an object)
is two pointer compares on one getter call. The C case, its Python twin and the generated check
decide alike, and the C case runs no Python function for list and tuple iterators."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.capture.families.live_iterators import RemainingSource
from autograph.guards import extension, native
from autograph.guards.check import GuardSet
from autograph.guards.kinds import GuardKind, Op
from autograph.guards.model import distinct_objects, equals_match
from autograph.guards.sources import ItemSource, LocalSource
from tests.guards.test_native_kinds import (ITER_VALUES, C, Sub, advanced, decisions, exhausted, one,
                                            python_calls_in_c_check, two)

ITEMS = {**ITER_VALUES,
         "range": lambda: iter(range(1, 4)),
         "range-advanced": lambda: advanced(range(1, 5), 2),
         "list-of-objects": lambda: iter([K, K, None]),
         "mixed-tuple": lambda: iter((1, 2.0, True))}


class _Key:
    pass


K = _Key()


def items_guards(values: tuple) -> GuardSet:
    """``remaining(d)[k]`` equal to ``values[k]`` (same type), for each k."""
    src = RemainingSource(LocalSource("d"))
    return GuardSet(one, [equals_match(ItemSource(src, k), v) for k, v in enumerate(values)])


@pytest.mark.parametrize("name", sorted(ITEMS))
@pytest.mark.parametrize("values", [(1,), (1, 2), (2, 3), (3, 4), (1, 2, 3), (1.0,), (True,)])
def test_remaining_items_decide_alike_on_every_path(name, values):
    gs = items_guards(values)
    plan = native.plan_for(gs)
    assert [n[0] for n in plan[4]] == [extension.N_POS, extension.N_ITER_ITEMS] + [extension.N_ITEM] * len(values)
    got = decisions(gs, (ITEMS[name](),))
    assert len(got) == 1, (name, values, got)


def test_remaining_items_are_the_items_still_to_come():
    def first_failing(it, values):
        (got,) = decisions(items_guards(values), (it,))
        return got

    assert first_failing(advanced([1, 2, 3, 4], 2), (3, 4)) == -1
    assert first_failing(advanced((1, 2, 3, 4), 1), (2, 3, 4)) == -1
    assert first_failing(exhausted([1, 2]), (1,)) == 0  # none left: remaining(it)[0] raises
    assert first_failing(iter([1, 2]), (1, 2, 3)) == 2
    assert first_failing(iter([1, 2.0]), (1, 2)) == 1  # equal, another type
    assert first_failing(iter(range(5, 8)), (5, 6, 7)) == -1


def test_remaining_items_of_list_and_tuple_iterators_run_no_python_function():
    if C is None:
        pytest.skip("autograph._native is not built")
    assert C.seq_iter_layout()
    gs = items_guards((2, 3))
    assert python_calls_in_c_check(gs, (advanced([1, 2, 3], 1),)) == []
    assert python_calls_in_c_check(gs, (iter((2, 3)),)) == []
    # iterators of other types, or over a subclass (which slices its own way), ask the reader
    assert "remaining" in python_calls_in_c_check(gs, (iter(range(2, 4)),))
    assert "remaining" in python_calls_in_c_check(gs, (iter(Sub([2, 3])),))


def _sequence_source():
    from autograph.capture.families.live_iterators import SequenceOfSource
    return SequenceOfSource(LocalSource("a"))


LIST = [1, 2]
SEQUENCE_CASES = [
    (lambda: iter(LIST), LIST, 0),  # the iterator walks that very list
    (lambda: iter(list(LIST)), LIST, -1),
    (lambda: advanced(LIST, 2), LIST, 0),  # at its end, not exhausted yet: still walks it
    (lambda: exhausted(LIST), LIST, -1),
    (lambda: iter([]), [], -1),  # an empty sequence: None
    (lambda: iter(Sub(LIST)), LIST, -1),  # a subclass: not a list or tuple, None
    (lambda: iter((1, 2)), LIST, -1),
    (lambda: iter(range(2)), LIST, -1),
    (lambda: 3, LIST, -1),
]


@pytest.mark.parametrize("i", range(len(SEQUENCE_CASES)))
def test_iterator_kept_apart_from_a_list_decides_alike_on_every_path(i):
    make, lst, want = SEQUENCE_CASES[i]
    gs = GuardSet(two, [distinct_objects(_sequence_source(), LocalSource("b"))])
    plan = native.plan_for(gs)
    assert plan[5][0][0] == Op.IS and extension.N_ITER_SEQUENCE in [n[0] for n in plan[4]]
    assert decisions(gs, (make(), lst)) == {want}


def test_iterator_kept_apart_runs_no_python_function():
    if C is None:
        pytest.skip("autograph._native is not built")
    gs = GuardSet(two, [distinct_objects(_sequence_source(), LocalSource("b"))])
    assert python_calls_in_c_check(gs, (iter(LIST), [1])) == []
    assert python_calls_in_c_check(gs, (iter((1,)), [1])) == []


def _no_python_guards(compiled) -> None:
    for entry in compiled.entries:
        assert [g for g in entry.guards.guards if g.kind is GuardKind.PYTHON] == []
        plan = native.plan_for(entry.guards)
        assert isinstance(plan, tuple) and all(g[0] != Op.CALL for g in plan[5])


def test_an_iterator_over_another_list_than_the_one_changed_is_a_native_guard():
    def f(x, it, items):
        items.append(9)
        return x + sum(it)

    compiled = autograph.compile(f)
    a, b = [1, 2], [1, 2]
    assert compiled(torch.zeros(1), iter(a), b).item() == 3 and b == [1, 2, 9]
    _no_python_guards(compiled)
    entry = compiled.entries[0]
    if C is not None:
        args = (torch.zeros(1), iter([1, 2]), [1, 2])
        assert C.check(entry.native_plan, args, None) == -1
        assert python_calls_in_c_check(entry.guards, args) == []
    c = [1, 2]  # the same list: not that entry (the append shows in the sum, as in Python)
    assert compiled(torch.zeros(1), iter(c), c).item() == 12 and c == [1, 2, 9]


class Helper:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        return x * self.k

    def halve(self, x):
        return x / 2


H2, H3 = Helper(2), Helper(3)


class Op_:
    fn = H2.scale

    def run(self, x):
        return self.fn(x)


def test_a_pinned_bound_method_is_two_pointer_compares():
    def f(x):
        return Op_().run(x) + 1

    compiled = autograph.compile(f)
    x = torch.ones(2)
    try:
        assert compiled(x).tolist() == [3.0, 3.0]
        _no_python_guards(compiled)
        if C is not None:
            assert python_calls_in_c_check(compiled.entries[0].guards, (x,)) == ["<lambda>"]  # the getter
        Op_.fn = H3.scale  # another object bound: the entry fails
        assert compiled(x).tolist() == [4.0, 4.0]
        Op_.fn = H3.halve  # another function bound to the same object
        assert compiled(x).tolist() == [1.5, 1.5]
    finally:
        Op_.fn = H2.scale
    assert compiled(x).tolist() == [3.0, 3.0]
