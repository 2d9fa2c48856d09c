"""Sets live at a graph break are rebuilt iterating exactly as the program's set
(families/set_rebuild_order.py). Ints hash to themselves, so the tables here are the same in
every process: {0, 96} puts 96 in slot 4 (its home slot 0 taken by 0); removing 0 and adding 2
(slot 2) leaves the order [2, 96], which no insertion order of 2 and 96 into a new set gives."""
from __future__ import annotations

import random

import torch

from autograph.capture.families.set_rebuild_order import FilledSet, filled_recipe, insertion_order
from tests.capture.harness import Harness


def _history_set() -> set:
    s = {0, 96}
    s.discard(0)
    s.add(2)
    return s


def test_the_history_set_is_one_no_insertion_order_reproduces():
    assert list(_history_set()) == [2, 96]
    assert insertion_order(_history_set(), set) is None


def test_a_set_with_a_removal_history_is_rebuilt_in_its_order_at_a_break():
    def fn(a):
        s = {0, 96}
        s.discard(0)
        s.add(2)
        print("graph break")
        out = [a * k for k in s]
        return out, list(s), s

    h = Harness()
    f = h.compile(fn)
    x = torch.ones(2)
    for _ in range(3):
        got, expected = f(x), fn(x)
        assert [t.tolist() for t in got[0]] == [t.tolist() for t in expected[0]]
        assert got[1] == expected[1] == [2, 96] and got[2] is not expected[2]
        got[2].add(8)  # the rebuilt table has the program's size: later additions land alike
        expected[2].add(8)
        assert list(got[2]) == list(expected[2])
    assert len(h.breaks) == 1


def test_a_dict_keys_xor_keeps_the_table_the_real_operation_made():
    def fn(a):
        s = {0: a, 96: a}.keys() ^ {0: a, 2: a}.keys()
        print("graph break")
        return [k for k in s], s

    h = Harness()
    f = h.compile(fn)
    x = torch.ones(2)
    for _ in range(2):
        (order, s), (eager_order, eager_s) = f(x), fn(x)
        assert order == eager_order == [2, 96] and list(s) == list(eager_s)
    assert len(h.breaks) == 1


def test_filled_recipes_iterate_as_random_histories_do():
    rng = random.Random(0)
    found = 0
    for _ in range(300):
        s = set()
        for _ in range(rng.randrange(2, 6)):
            s.add(rng.randrange(0, 200))
        for k in rng.sample(sorted(s), rng.randrange(0, len(s))):
            s.discard(k)
        s.add(rng.randrange(0, 200) * 8)
        recipe = filled_recipe(s)
        if recipe is not None:
            built = recipe()
            assert list(built) == list(s) and built is not recipe() and not set(recipe.fillers) & s
            found += 1
    assert found > 200  # (244: the others' tables were not reproduced)


def test_no_filled_recipe_for_elements_that_compare_in_python():
    class Key:
        def __hash__(self):
            return 0

    assert filled_recipe({Key(), Key()}) is None
    assert isinstance(filled_recipe(_history_set()), FilledSet)


class Bag(set):
    """A set subclass with an attribute: rebuilt by ``_rebuild`` at a break."""


def test_a_set_subclass_instance_with_a_removal_history_is_rebuilt_in_its_order():
    def fn(a):
        s = Bag([0, 96])
        s.discard(0)
        s.add(2)
        s.tag = "t"
        print("graph break")
        return a + 1, s

    h = Harness()
    f = h.compile(fn)
    x = torch.ones(2)
    for _ in range(2):
        (_, got), (_, expected) = f(x), fn(x)
        assert type(got) is Bag and got.tag == "t" and list(got) == list(expected) == [2, 96]
    assert len(h.breaks) == 1


def test_a_set_operator_result_is_modelled_by_its_own_table():
    def fn(a):
        s = {0: a, 96: a}.keys() ^ {0: a, 2: a}.keys()
        s.add(8)  # lands where the program's table puts it (its removed entry included)
        return a + len(s), [k for k in s]

    h = Harness()
    f = h.compile(fn)
    x = torch.ones(2)
    assert f(x)[1] == fn(x)[1]
    assert h.breaks == [], [str(b) for b in h.breaks]
